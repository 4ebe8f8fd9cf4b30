import { Type as TypeBox } from "typebox";
import { describe, expect, it } from "vitest";
import { Type } from "../../src/engine/validation/schema-builder.js";

/** Every own key, enumerable or not, with its value and enumerability: what TypeBox's guards read. */
function anatomy(value: unknown): unknown {
	if (Array.isArray(value)) return value.map(anatomy);
	if (typeof value !== "object" || value === null) return value;
	return Reflect.ownKeys(value).map((key) => [
		String(key),
		Object.prototype.propertyIsEnumerable.call(value, key),
		anatomy((value as Record<string | symbol, unknown>)[key]),
	]);
}

describe("schema builder", () => {
	it("builds the same schemas as TypeBox, marks and key order included", () => {
		const build = (T: typeof Type) =>
			T.Object(
				{
					path: T.String({ description: "A path." }),
					limit: T.Optional(T.Integer({ minimum: 1, default: 10 })),
					ratio: T.Optional(T.Number()),
					flag: T.Boolean({ default: false }),
					mode: T.Union([T.Literal("a"), T.Literal(2), T.Literal(true)], { description: "m" }),
					edits: T.Optional(T.Array(T.Object({ old: T.String() }, { additionalProperties: false }), { minItems: 1 })),
					empty: T.Object({}),
				},
				{ additionalProperties: false },
			);
		const ours = build(Type);
		const theirs = build(TypeBox as typeof Type);
		expect(JSON.stringify(ours)).toBe(JSON.stringify(theirs));
		expect(anatomy(ours)).toEqual(anatomy(theirs));
	});

	it("leaves the schema it marks optional unchanged", () => {
		const inner = Type.String();
		Type.Optional(inner);
		expect((inner as unknown as Record<string, unknown>)["~optional"]).toBeUndefined();
	});
});
