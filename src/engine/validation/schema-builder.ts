import type * as TypeBox from "typebox";

/**
 * The few TypeBox builders the tools and settings use, typed exactly as TypeBox types them (so
 * `Static<typeof schema>` still works), built here in a few lines instead of importing TypeBox at
 * run time: its index loads about 370 modules, a third of a one-shot `toolbelt tool` start-up.
 * The objects are the same JSON Schema TypeBox produces, with the same non-enumerable `~kind`
 * and `~optional` marks, so TypeBox's own guards and `Static` see no difference.
 */
type Builders = Pick<
	typeof TypeBox.Type,
	"Array" | "Boolean" | "Integer" | "Literal" | "Number" | "Object" | "Optional" | "String" | "Union"
>;

type Schema = Record<string, unknown>;
type Options = Record<string, unknown> | undefined;

function mark(schema: Schema, key: "~kind" | "~optional", value: unknown): Schema {
	Object.defineProperty(schema, key, { value, writable: true, enumerable: false, configurable: true });
	return schema;
}

function kind(name: string, body: Schema, options: Options): Schema {
	return mark({ ...body, ...options }, "~kind", name);
}

function isOptional(schema: unknown): boolean {
	return (schema as Schema)["~optional"] === true;
}

function objectSchema(properties: Record<string, Schema>, options?: Options): Schema {
	const required = Object.keys(properties).filter((key) => !isOptional(properties[key]));
	const body: Schema = required.length > 0 ? { type: "object", required, properties } : { type: "object", properties };
	return kind("Object", body, options);
}

function optionalSchema(schema: Schema): Schema {
	const copy = mark({ ...schema }, "~kind", schema["~kind"]);
	return mark(copy, "~optional", true);
}

const runtime = {
	Array: (items: Schema, options?: Options) => kind("Array", { type: "array", items }, options),
	Boolean: (options?: Options) => kind("Boolean", { type: "boolean" }, options),
	Integer: (options?: Options) => kind("Integer", { type: "integer" }, options),
	Literal: (value: string | number | boolean, options?: Options) =>
		kind("Literal", { type: typeof value, const: value }, options),
	Number: (options?: Options) => kind("Number", { type: "number" }, options),
	Object: objectSchema,
	Optional: optionalSchema,
	String: (options?: Options) => kind("String", { type: "string" }, options),
	Union: (anyOf: Schema[], options?: Options) => kind("Union", { anyOf }, options),
};

/** TypeBox's `Type.Array`, `Boolean`, `Integer`, `Literal`, `Number`, `Object`, `Optional`, `String`, `Union`, without loading TypeBox. */
export const Type = runtime as unknown as Builders;
