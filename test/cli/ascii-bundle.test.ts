import { describe, expect, it } from "vitest";
// @ts-expect-error A build script in plain JavaScript, without type declarations.
import { asciiBundleText } from "../../scripts/ascii-bundle.mjs";

const ascii = asciiBundleText as (text: string) => Promise<string | undefined>;

describe("the bundle's text in ASCII (scripts/ascii-bundle.mjs)", () => {
	it("escapes regex literals and String.raw templates so that they mean exactly what they did", async () => {
		// biome-ignore lint/suspicious/noTemplateCurlyInString: JavaScript source as text, with a template in it.
		const source = "exports.r = /[.…\\s]+$/g; exports.e = /😀|→/u; exports.s = String.raw`a — ${1} b…\\n`;";
		const text = await ascii(source);
		expect(text).toBeDefined();
		expect(/[^\0-\x7f]/.test(text as string)).toBe(false);
		const run = (code: string) => {
			const module = { exports: {} as Record<string, unknown> };
			new Function("exports", "module", code)(module.exports, module);
			return module.exports as { r: RegExp; e: RegExp; s: string };
		};
		const before = run(source);
		const after = run(text as string);
		expect(after.s).toBe(before.s);
		for (const probe of ["x…", "x. …", "😀", "→", "a"]) {
			expect(after.r.test(probe)).toBe(before.r.test(probe));
			expect(after.e.test(probe)).toBe(before.e.test(probe));
		}
	});

	it("gives up on a non-ASCII character it cannot rewrite exactly (the bundle then stays UTF-8)", async () => {
		expect(await ascii("const tag = (s) => s.raw[0]; exports.t = tag`—`;")).toBeUndefined();
		expect(await ascii("exports.r = /\\…/;")).toBeUndefined();
		expect(await ascii("exports.plain = 1;")).toBe("exports.plain = 1;");
	});
});
