import { createHash } from "node:crypto";

/**
 * Which model API a tool schema must satisfy.
 * - `anthropic`: JSON Schema with an object root; `$ref` is inlined for robustness.
 * - `openai`: also what OpenAI-compatible servers (Ollama, LM Studio, vLLM, OpenRouter) accept:
 *   an object root without `anyOf`/`oneOf`/`allOf`/`not` at the top, no `$ref`.
 * - `gemini`: the OpenAPI subset Gemini accepts: no `$ref`, no `additionalProperties`, no `const`,
 *   no type arrays (`nullable` instead), `anyOf` only.
 */
export type SchemaDialect = "anthropic" | "openai" | "gemini";

/** The longest tool name Anthropic and OpenAI accept. */
export const MAX_TOOL_NAME_LENGTH = 64;

type Schema = Record<string, unknown>;

/** Keywords whose value is one subschema. */
const SINGLE_SCHEMA_KEYWORDS = [
	"items",
	"additionalProperties",
	"additionalItems",
	"unevaluatedProperties",
	"unevaluatedItems",
	"contains",
	"propertyNames",
	"not",
	"if",
	"then",
	"else",
];
/** Keywords whose value is an array of subschemas. */
const SCHEMA_ARRAY_KEYWORDS = ["anyOf", "oneOf", "allOf", "prefixItems", "items"];
/** Keywords whose value maps names to subschemas. */
const SCHEMA_MAP_KEYWORDS = ["properties", "patternProperties", "dependentSchemas"];
/** Keywords that only identify or annotate a schema document; no model API needs them. */
const DOCUMENT_KEYWORDS = ["$schema", "$id", "$anchor", "$dynamicAnchor", "$comment", "$defs", "definitions"];
/** Keywords Gemini accepts; everything else is dropped for that dialect. */
const GEMINI_KEYWORDS = new Set([
	"type",
	"format",
	"title",
	"description",
	"nullable",
	"enum",
	"properties",
	"required",
	"items",
	"minItems",
	"maxItems",
	"minimum",
	"maximum",
	"minLength",
	"maxLength",
	"pattern",
	"anyOf",
	"propertyOrdering",
]);

function isSchema(value: unknown): value is Schema {
	return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * Makes a tool name that every provider accepts: characters outside `[A-Za-z0-9_-]` become `_`,
 * and a name longer than `maxLength` keeps its start plus a short hash of the whole, so distinct
 * long names stay distinct.
 */
export function normalizeToolName(name: string, maxLength = MAX_TOOL_NAME_LENGTH): string {
	const cleaned = name.replace(/[^A-Za-z0-9_-]/g, "_") || "tool";
	if (cleaned.length <= maxLength) return cleaned;
	const hash = createHash("sha256").update(name).digest("hex").slice(0, 8);
	return `${cleaned.slice(0, maxLength - hash.length - 1)}_${hash}`;
}

/** The agent-facing name of tool `tool` on MCP server `server`: `<server>__<tool>`, normalised. */
export function mcpToolName(server: string, tool: string): string {
	return normalizeToolName(`${server}__${tool}`);
}

function resolvePointer(root: Schema, reference: string): unknown {
	if (reference === "#") return root;
	if (!reference.startsWith("#/")) return undefined;
	let node: unknown = root;
	for (const raw of reference.slice(2).split("/")) {
		const segment = decodeURIComponent(raw).replace(/~1/g, "/").replace(/~0/g, "~");
		if (!isSchema(node) && !Array.isArray(node)) return undefined;
		node = (node as Record<string, unknown>)[segment];
	}
	return node;
}

/**
 * Replaces every local `$ref` with the schema it points to. A recursive reference is cut at its
 * second appearance on one path and left open (`{}` plus its description), because no model API
 * accepts recursion without `$ref`; remote references are left open too. Siblings of `$ref` win.
 */
function inlineReferences(root: Schema): Schema {
	const visit = (node: unknown, stack: readonly string[]): unknown => {
		if (Array.isArray(node)) return node.map((item) => visit(item, stack));
		if (!isSchema(node)) return node;
		const { $ref: reference, ...rest } = node;
		let base: Schema = {};
		if (typeof reference === "string") {
			const target = resolvePointer(root, reference);
			if (stack.includes(reference) || !isSchema(target)) {
				const description = isSchema(target) ? target.description : undefined;
				base = typeof description === "string" ? { description } : {};
			} else {
				base = visit(target, [...stack, reference]) as Schema;
			}
		}
		const result: Schema = { ...base };
		for (const [key, value] of Object.entries(rest)) {
			if (key === "$defs" || key === "definitions") continue;
			if (SCHEMA_MAP_KEYWORDS.includes(key) && isSchema(value)) {
				result[key] = Object.fromEntries(Object.entries(value).map(([name, sub]) => [name, visit(sub, stack)]));
			} else if (key === "enum" || key === "const" || key === "default" || key === "examples" || key === "required") {
				result[key] = value;
			} else {
				result[key] = visit(value, stack);
			}
		}
		return result;
	};
	return visit(root, []) as Schema;
}

/** Applies `transform` to every subschema, bottom-up, keeping property names and literal values intact. */
function mapSubschemas(node: Schema, transform: (schema: Schema) => Schema): Schema {
	const result: Schema = { ...node };
	for (const key of SINGLE_SCHEMA_KEYWORDS) {
		if (isSchema(result[key])) result[key] = mapSubschemas(result[key] as Schema, transform);
	}
	for (const key of SCHEMA_ARRAY_KEYWORDS) {
		const value = result[key];
		if (Array.isArray(value))
			result[key] = value.map((item) => (isSchema(item) ? mapSubschemas(item, transform) : item));
	}
	for (const key of SCHEMA_MAP_KEYWORDS) {
		const value = result[key];
		if (isSchema(value)) {
			result[key] = Object.fromEntries(
				Object.entries(value).map(([name, sub]) => [name, isSchema(sub) ? mapSubschemas(sub, transform) : sub]),
			);
		}
	}
	return transform(result);
}

function withoutDocumentKeywords(schema: Schema): Schema {
	const result = { ...schema };
	for (const key of DOCUMENT_KEYWORDS) delete result[key];
	return result;
}

/** Merges object branches (of `allOf`, or of a root `anyOf`/`oneOf`) into one object schema. */
function mergeObjectBranches(branches: Schema[], intersectRequired: boolean): Schema {
	const properties: Schema = {};
	let required: string[] | undefined;
	for (const branch of branches) {
		Object.assign(properties, isSchema(branch.properties) ? branch.properties : {});
		const branchRequired = Array.isArray(branch.required) ? (branch.required as string[]) : [];
		if (required === undefined) required = [...branchRequired];
		else if (intersectRequired) required = required.filter((name) => branchRequired.includes(name));
		else required = [...new Set([...required, ...branchRequired])];
	}
	return { type: "object", properties, ...(required && required.length > 0 ? { required } : {}) };
}

/** Makes the root a plain object schema: the one shape every provider accepts at the top. */
function objectRoot(schema: Schema): Schema {
	const { anyOf, oneOf, allOf, not: _not, ...rest } = schema;
	let root: Schema = { ...rest };
	const alternatives = [anyOf, oneOf].find(Array.isArray)?.filter(isSchema);
	if (Array.isArray(allOf)) {
		const merged = mergeObjectBranches([rest, ...allOf.filter(isSchema)], false);
		root = { ...root, ...merged };
	}
	if (alternatives && alternatives.length > 0) {
		// Any one branch is valid: offer every property, require only what all branches require.
		const merged = mergeObjectBranches(alternatives, true);
		const base = isSchema(root.properties) ? root.properties : {};
		root = { ...root, properties: { ...(merged.properties as Schema), ...base } };
		const required = [
			...new Set([...(Array.isArray(root.required) ? root.required : []), ...((merged.required as string[]) ?? [])]),
		];
		if (required.length > 0) root.required = required;
	}
	root.type = "object";
	if (!isSchema(root.properties)) root.properties = {};
	return root;
}

function toGemini(schema: Schema): Schema {
	const result: Schema = {};
	for (const [key, value] of Object.entries(schema)) {
		if (GEMINI_KEYWORDS.has(key)) result[key] = value;
	}
	if ("const" in schema) result.enum = [schema.const];
	if (Array.isArray(schema.oneOf) && !result.anyOf) result.anyOf = schema.oneOf;
	if (Array.isArray(schema.allOf)) Object.assign(result, mergeObjectBranches(schema.allOf.filter(isSchema), false));
	if (Array.isArray(schema.type)) {
		const types = schema.type.filter((type) => type !== "null");
		if (types.length < schema.type.length) result.nullable = true;
		if (types.length === 1) result.type = types[0];
		else {
			delete result.type;
			if (types.length > 1) result.anyOf = types.map((type) => ({ type }));
		}
	}
	if (result.type === "string" && typeof result.format === "string" && !["enum", "date-time"].includes(result.format))
		delete result.format;
	if (Array.isArray(result.enum)) result.enum = result.enum.map(String);
	if (Array.isArray(result.required) && isSchema(result.properties)) {
		const names = Object.keys(result.properties);
		result.required = (result.required as string[]).filter((name) => names.includes(name));
	}
	return result;
}

/**
 * Rewrites a tool's JSON Schema into a form `dialect` accepts, keeping its meaning as far as the
 * dialect allows: local `$ref`s inlined, document keywords (`$schema`, `$defs`, …) dropped, an
 * object root without top-level combinators, and for Gemini the unsupported keywords removed.
 * Never mutates `schema`. Anything that is not an object becomes an empty object schema.
 */
export function normalizeToolSchema(schema: unknown, dialect: SchemaDialect = "openai"): Schema {
	if (!isSchema(schema)) return { type: "object", properties: {} };
	const copy = JSON.parse(JSON.stringify(schema)) as Schema;
	let result = mapSubschemas(inlineReferences(copy), withoutDocumentKeywords);
	result = objectRoot(result);
	if (dialect === "gemini") result = mapSubschemas(result, toGemini);
	return result;
}
