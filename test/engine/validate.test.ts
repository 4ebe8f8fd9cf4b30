import { Type } from "typebox";
import { describe, expect, it } from "vitest";
import type { ToolDefinition } from "../../src/engine/types.js";
import { ValidationError, validateToolArguments } from "../../src/engine/validation/validate.js";

const read: ToolDefinition = {
	name: "read",
	description: "",
	parameters: Type.Object({
		path: Type.String(),
		limit: Type.Optional(Type.Number()),
		all: Type.Optional(Type.Boolean()),
	}),
};

describe("validateToolArguments", () => {
	it("coerces numeric and boolean strings, and numbers where strings belong", () => {
		expect(validateToolArguments(read, { path: 42, limit: "10", all: "true" })).toEqual({
			path: "42",
			limit: 10,
			all: true,
		});
	});

	it("does not mutate the arguments it was given", () => {
		const args = { path: "a", limit: "5" };
		validateToolArguments(read, args);
		expect(args.limit).toBe("5");
	});

	it("rejects non-numeric strings for numbers, listing every failing path and echoing the arguments", () => {
		let error: unknown;
		try {
			validateToolArguments(read, { limit: "ten", all: "maybe" });
		} catch (caught) {
			error = caught;
		}
		expect(error).toBeInstanceOf(ValidationError);
		const message = (error as Error).message;
		expect(message).toContain('Validation failed for tool "read":');
		expect(message).toContain("- path: is required");
		expect(message).toContain("- limit: must be number");
		expect(message).toContain("- all: must be boolean");
		expect(message).toContain("Received arguments:");
		expect(message).toContain('"limit": "ten"');
	});

	it("works for plain JSON Schema from elsewhere, including a $schema of another draft", () => {
		const foreign: ToolDefinition = {
			name: "remote__search",
			description: "",
			parameters: {
				$schema: "https://json-schema.org/draft/2020-12/schema",
				type: "object",
				properties: { query: { type: "string" }, max: { type: "integer", minimum: 1 } },
				required: ["query"],
				additionalProperties: false,
			} as ToolDefinition["parameters"],
		};
		expect(validateToolArguments(foreign, { query: "x", max: "3" })).toEqual({ query: "x", max: 3 });
		expect(() => validateToolArguments(foreign, { query: "x", max: 0, extra: 1 })).toThrow(/- max: must be >= 1/);
		expect(() => validateToolArguments(foreign, { query: "x", extra: 1 })).toThrow(/- extra: is not a known property/);
	});

	it("treats missing arguments as an empty object", () => {
		expect(() => validateToolArguments(read, undefined)).toThrow(/path: is required/);
	});

	it("returns a copy, flat or nested, that shares nothing with the arguments", () => {
		const flat = { path: "a", limit: "5" };
		const flatCopy = validateToolArguments(read, flat);
		expect(flatCopy).not.toBe(flat);
		flatCopy.path = "changed";
		expect(flat).toEqual({ path: "a", limit: "5" });
		const list: ToolDefinition = {
			name: "list",
			description: "",
			parameters: Type.Object({ sizes: Type.Array(Type.Number()) }),
		};
		const nested = { sizes: ["1", "2"] };
		expect(validateToolArguments(list, nested)).toEqual({ sizes: [1, 2] });
		expect(nested.sizes).toEqual(["1", "2"]);
	});

	it("sees an own __proto__ key of parsed JSON as the unknown property it is", () => {
		const strict: ToolDefinition = {
			name: "strict",
			description: "",
			parameters: Type.Object({ path: Type.String() }, { additionalProperties: false }),
		};
		const args = JSON.parse('{"path":"a","__proto__":"x"}') as unknown;
		expect(() => validateToolArguments(strict, args)).toThrow(/__proto__: is not a known property/);
	});
});

describe("a validation error of many failing paths", () => {
	it("lists the first paths and counts the rest: 100,000 bad edits make a short message", () => {
		const edit: ToolDefinition = {
			name: "edit",
			description: "",
			parameters: Type.Object({
				path: Type.String(),
				edits: Type.Array(Type.Object({ old_string: Type.String(), new_string: Type.String() })),
			}),
		};
		const edits = Array.from({ length: 100_000 }, () => ({ old_string: "a" }));
		let error: unknown;
		try {
			validateToolArguments(edit, { path: "f", edits });
		} catch (caught) {
			error = caught;
		}
		expect(error).toBeInstanceOf(ValidationError);
		const message = (error as Error).message;
		// 4 MB of "- edits.N.new_string: is required" lines before.
		expect(message.length).toBeLessThan(10_000);
		expect(message).toContain("- edits.0.new_string: is required");
		expect(message).toContain("… and 99,980 more failing paths");
		expect(message).toContain("Fix the arguments and call the tool again.");
	});
});

describe("arguments nested 100,000 levels deep", () => {
	it("are refused with a validation error, not a stack overflow", () => {
		const deep = JSON.parse(`${"[".repeat(100_000)}${"]".repeat(100_000)}`);
		expect(() => validateToolArguments(read, { path: "a", extra: deep })).toThrow(
			/Validation failed for tool "read":\n {2}- \(root\): nests arrays or objects more than 64 levels deep/,
		);
	});

	it("64 levels still validate", () => {
		const nested = JSON.parse(`${"[".repeat(63)}${"]".repeat(63)}`);
		expect(validateToolArguments(read, { path: "a", extra: nested })).toMatchObject({ path: "a" });
	});
});
