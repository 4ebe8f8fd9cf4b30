import { describe, expect, it } from "vitest";
import { validateToolArguments } from "../../src/engine/validation/validate.js";
import { mcpToolName, normalizeToolName, normalizeToolSchema } from "../../src/mcp/client/normalize.js";

describe("normalizeToolName", () => {
	it("replaces characters providers reject and keeps valid names as they are", () => {
		expect(normalizeToolName("read_file")).toBe("read_file");
		expect(normalizeToolName("get-sum")).toBe("get-sum");
		expect(mcpToolName("my server", "files.read/v2")).toBe("my_server__files_read_v2");
	});

	it("shortens long names to 64 characters, keeping distinct names distinct", () => {
		const long = `${"x".repeat(70)}_a`;
		const other = `${"x".repeat(70)}_b`;
		expect(normalizeToolName(long)).toHaveLength(64);
		expect(normalizeToolName(long)).not.toBe(normalizeToolName(other));
		expect(normalizeToolName(long)).toMatch(/^[A-Za-z0-9_-]+$/);
	});
});

const withReferences = {
	$schema: "http://json-schema.org/draft-07/schema#",
	type: "object",
	properties: {
		target: { $ref: "#/definitions/Target", description: "Where to go." },
		tree: { $ref: "#/definitions/Node" },
		"$ref-looking property": { type: "string" },
	},
	required: ["target"],
	definitions: {
		Target: { type: "object", properties: { url: { type: "string", format: "uri" } }, required: ["url"] },
		Node: {
			type: "object",
			description: "A tree node.",
			properties: { children: { type: "array", items: { $ref: "#/definitions/Node" } } },
		},
	},
};

describe("normalizeToolSchema", () => {
	it("inlines local $refs, cuts recursion, and drops document keywords", () => {
		const schema = normalizeToolSchema(withReferences);
		const text = JSON.stringify(schema);
		expect(text).not.toContain('"$ref"');
		expect(text).not.toContain("definitions");
		expect(text).not.toContain("$schema");
		expect(schema.properties).toMatchObject({
			target: { type: "object", description: "Where to go.", required: ["url"] },
			"$ref-looking property": { type: "string" },
		});
		// The recursive reference stops one level down, open but described.
		const children = (schema.properties as Record<string, { properties: Record<string, { items: unknown }> }>).tree
			?.properties.children;
		expect(children?.items).toEqual({ description: "A tree node." });
		expect(withReferences.properties.target).toHaveProperty("$ref");
	});

	it("keeps validation meaning: what the original rejects, the normalised schema rejects", () => {
		const tool = { name: "t", description: "", parameters: normalizeToolSchema(withReferences) as never };
		expect(() => validateToolArguments(tool, { target: {} })).toThrow("target.url: is required");
		expect(validateToolArguments(tool, { target: { url: "https://example.com" } })).toBeTruthy();
	});

	it("turns a root union into one object (OpenAI rejects top-level anyOf/oneOf)", () => {
		const schema = normalizeToolSchema({
			oneOf: [
				{ type: "object", properties: { id: { type: "string" }, force: { type: "boolean" } }, required: ["id"] },
				{ type: "object", properties: { id: { type: "string" }, name: { type: "string" } }, required: ["id", "name"] },
			],
		});
		expect(schema.type).toBe("object");
		expect(schema).not.toHaveProperty("oneOf");
		expect(Object.keys(schema.properties as object).sort()).toEqual(["force", "id", "name"]);
		expect(schema.required).toEqual(["id"]);
	});

	it("gives an object root to a schema without one, or to no schema", () => {
		expect(normalizeToolSchema(undefined)).toEqual({ type: "object", properties: {} });
		expect(normalizeToolSchema({})).toEqual({ type: "object", properties: {} });
	});

	it("reduces to Gemini's subset for the gemini dialect", () => {
		const schema = normalizeToolSchema(
			{
				type: "object",
				additionalProperties: false,
				properties: {
					mode: { const: "fast" },
					limit: { type: ["integer", "null"], default: 10, exclusiveMinimum: 0 },
					choice: { oneOf: [{ type: "string" }, { type: "number" }] },
					when: { type: "string", format: "date-time" },
					site: { type: "string", format: "uri" },
				},
			},
			"gemini",
		);
		expect(schema).not.toHaveProperty("additionalProperties");
		const properties = schema.properties as Record<string, Record<string, unknown>>;
		expect(properties.mode).toEqual({ enum: ["fast"] });
		expect(properties.limit).toEqual({ type: "integer", nullable: true });
		expect(properties.choice).toEqual({ anyOf: [{ type: "string" }, { type: "number" }] });
		expect(properties.when?.format).toBe("date-time");
		expect(properties.site).toEqual({ type: "string" });
	});
});
