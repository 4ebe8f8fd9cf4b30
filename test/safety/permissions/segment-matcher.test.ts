// A protected-path pattern is tested against every path a write or a restore of undo names. The
// `ignore` package tests a path by testing each folder above it first, each with a regular
// expression over that folder's whole path: `toolbelt undo` of a file 1,800 folders deep spent
// 1.5 s of its 3.4 s there. The matcher now tests each name once (`segment-matcher.ts`); these
// tests hold it to `ignore`'s answers and count the characters its expressions read.
import ignoreModule from "ignore";
import { afterEach, describe, expect, it } from "vitest";
import { defaultProtectedPatterns } from "../../../src/safety/confinement.js";
import { compilePathPattern } from "../../../src/safety/permissions/path-pattern.js";
import { compileSegmentMatcher } from "../../../src/safety/permissions/segment-matcher.js";

const ignore = (ignoreModule as unknown as { default?: typeof ignoreModule }).default ?? ignoreModule;

/** `ignore`'s own answer for one line: the path or a folder above it, as a file or a folder. */
function ignoreAnswer(line: string, path: string): boolean {
	const matcher = ignore({ allowRelativePaths: true }).add(line);
	return matcher.ignores(path) || matcher.ignores(`${path}/`);
}

const lines = [
	...defaultProtectedPatterns,
	"a",
	"/a",
	"a/",
	"/a/",
	"a/b",
	"/a/b",
	"a/b/",
	"a/*",
	"a/**",
	"/a/**",
	"a/**/b",
	"a/**/**/b",
	"**/b",
	"**/a/b",
	"***/b",
	"a/***",
	"**",
	"/**",
	"**/",
	"a/**/",
	"a**b",
	"a/**b",
	"*.pem",
	"a/b*",
	"[a-c]x",
	"[!a]x/y",
	"a/?",
	"?/b",
	"#a",
	"\\#a",
	"!a",
	"/!a",
	"\\!a",
	"a ",
	"a\\ ",
	"a /b",
	"a//b",
	"a\\/b",
	"\\\\/b",
	"a\\*",
	"A/B",
	".git/hooks",
	"src/**/*.ts",
	"**/node_modules/**",
];

const paths = [
	"a",
	"b",
	"x/a",
	"x/b",
	"a/b",
	"a/c",
	"a/b/c",
	"a/x/b",
	"a/x/y/b/c",
	"x/a/b",
	"x/y/a/b/c",
	"acb",
	"x/acb",
	"x/ac/b",
	"a/c/b",
	"d/x.PEM",
	"a/bc/d",
	"bx",
	"ax",
	"bx/y/z",
	"#a",
	"!a",
	"a ",
	"a /b",
	"a*",
	"\\/b",
	"A/b",
	".git/hooks/pre-commit",
	"x/.git/config",
	".envrc",
	".env.local",
	".vscode/settings.json",
	"src/x/y.ts",
	"src/y.ts",
	"x/node_modules/y",
	"node_modules",
];

describe("the segment matcher", () => {
	it("answers as ignore does for each line and path", () => {
		const differences: string[] = [];
		for (const line of lines) {
			const test = compileSegmentMatcher(line);
			for (const path of paths) {
				const expected = ignoreAnswer(line, path);
				if (test(path) !== expected)
					differences.push(`${JSON.stringify(line)} on ${JSON.stringify(path)}: ${expected}`);
			}
		}
		expect(differences).toEqual([]);
	});

	it("answers as ignore does deep down (a protected name below many folders)", () => {
		const deep = Array.from({ length: 300 }, () => "a").join("/");
		for (const line of [...defaultProtectedPatterns, "a/**/b", "x/**"]) {
			const test = compileSegmentMatcher(line);
			for (const path of [`${deep}/.git/hooks/pre-commit`, `${deep}/f.txt`, `${deep}/b`, `x/${deep}`]) {
				expect(test(path), `${line} on ${path.slice(-30)}`).toBe(ignoreAnswer(line, path));
			}
		}
	});
});

describe("a protected-path test of a path 1,800 folders deep", () => {
	let restore = () => {};
	afterEach(() => restore());

	it("hands ignore each name, not each folder's whole path", () => {
		const path = ["b", ...Array.from({ length: 1_799 }, () => "a"), "f.txt"].join("/");
		const patterns = defaultProtectedPatterns.map((text) => compilePathPattern(text, { root: "/", homeDir: "/" }));
		// ignore walks a path through `_t`, once per folder above it (and itself); its cost is the
		// length of each path walked. A private method: if ignore renames it, count its successor.
		const prototype = Object.getPrototypeOf(ignore()) as { _t?: (path: string, cache: unknown) => unknown };
		const walk = prototype._t;
		expect(walk, "ignore's per-folder walk (_t) is gone: count its successor").toBeTypeOf("function");
		let charactersWalked = 0;
		// A plain wrapper (one frame a folder): vi.spyOn's deeper frames overflowed ignore's recursion.
		prototype._t = function (this: unknown, walked: string, cache: unknown) {
			charactersWalked += walked.length;
			return (walk as NonNullable<typeof walk>).call(this, walked, cache);
		};
		restore = () => {
			prototype._t = walk;
		};
		expect(patterns.some((pattern) => pattern.test(path))).toBe(false);
		// The whole path to each folder: ~1,800 × 3,600 / 2 characters per pattern; a name: ~2.
		expect(charactersWalked).toBeLessThan(patterns.length * 8 * path.length);
	});
});
