import { beforeAll, describe, expect, it } from "vitest";
import { readBash, readParsedBash } from "../../src/safety/shell-policy/bash-syntax.js";
import { loadShellParser } from "../../src/safety/shell-policy/parser.js";
import { plainWords } from "../../src/safety/shell-policy/plain-words.js";

// A line of plain words is read without the parser: the reading must be the very one the parser's
// path gives, for every line the fast path takes. Compared here over real command lines and over
// lines generated from every character and word that could make a difference.

beforeAll(() => loadShellParser("bash"), 60_000);

/** The reading `readBash` gives a line without the parser, or undefined when the line is not plain words. */
function readPlainWords(line: string) {
	return plainWords(line) === undefined ? undefined : readBash(line);
}

/** Lines a model runs, plain. */
const realPlain = [
	"echo ok",
	"git status",
	"git log --oneline -20",
	"npm test",
	"npm run build -- --watch=false",
	"ls -la src",
	"seq 1 100000",
	"cat src/index.ts",
	"node ./scripts/build.mjs --mode=production",
	"python3 -m pytest -x tests/unit",
	"make -j4 all",
	"./gradlew build",
	"kill %1",
	"echo a@b c+d e,f g:h 50%",
	"rm -rf /tmp/build-cache",
	"cargo test --release -- --nocapture",
	"1 2 3",
	". ./env.sh",
	"echo if then fi done",
	"  uname -a  ",
	"ls\t-l",
	"docker ps -a",
	"go test ./...",
	"grep -rn TODO src",
	"env NODE_ENV=test npm test",
	"sh -c ls",
	"bash -c pwd",
	"xargs -n1 echo",
	"timeout 5 sleep 1",
	"sudo apt-get update",
	"eval ls -la",
	"find . -name x.ts -delete",
	"git -C ../other status",
	"chmod 0755 bin/run",
	"echo 0x1F 08 -5 1e3 12:30",
];

/** Lines the fast path must leave to the parser. */
const notPlain = [
	"",
	"   ",
	"A=1 ls",
	"export A=1",
	"declare -x A",
	"local x",
	"readonly A",
	"typeset A",
	"unset A",
	"time ls",
	"if true",
	"for x",
	"function f",
	"coproc ls",
	"! ls",
	"%1",
	"-x y",
	"echo $HOME",
	"echo $" + "{HOME}",
	"echo 'a b'",
	'echo "a"',
	"echo a\\ b",
	"echo `id`",
	"echo *.ts",
	"ls a?",
	"ls [ab]",
	"echo {a,b}",
	"cd ~",
	"echo a # comment",
	"ls; id",
	"ls | wc",
	"ls & id",
	"ls > out",
	"cat < in",
	"(ls)",
	"echo !!",
	"ls\nid",
	"ls\r",
	"echo a\u00a0b",
	"echo é",
	`echo ${"x".repeat(70_000)}`,
];

describe("the reading of a line of plain words", () => {
	it("is the parser's reading for every real plain line", () => {
		for (const line of realPlain) {
			const plain = readPlainWords(line);
			expect(plain, line).toBeDefined();
			expect(plain, line).toEqual(readParsedBash(line));
		}
	});

	it("leaves every line with a character or first word bash reads apart to the parser", () => {
		for (const line of notPlain) expect(readPlainWords(line), JSON.stringify(line.slice(0, 40))).toBeUndefined();
	});

	it("is the parser's reading for every line of words up to three characters long it takes", () => {
		// Every word of one to three characters from those the fast path takes, in each position.
		const chars = [..."aZ9_./+@%,:=-"];
		const words = new Set<string>();
		for (const a of chars) for (const b of ["", ...chars]) for (const c of ["", ...chars]) words.add(`${a}${b}${c}`);
		let taken = 0;
		for (const word of words) {
			for (const line of [word, `${word} x`, `x ${word}`, `x ${word} y`, `x -${word}`]) {
				const plain = readPlainWords(line);
				if (plain === undefined) continue;
				taken++;
				expect(plain, line).toEqual(readParsedBash(line));
			}
		}
		expect(taken).toBeGreaterThan(8_000);
	});

	it("is the parser's reading for every generated line it takes", () => {
		// Words from every character the fast path takes, and from others it must refuse, in every
		// position; the first word often one the grammar reads apart.
		const pieces = [..."abcXYZ019_./+@%,:=-", ..."!$*?~#{}['\\\"`;&|<>()", "0x", "-5", "1e3", "a=b", "if", "=="];
		const firstWords = [
			"export",
			"declare",
			"local",
			"unset",
			"time",
			"if",
			"in",
			"do",
			"function",
			"coproc",
			"!",
			"%1",
			"c++",
			"a@b",
		];
		// mulberry32: a small seeded generator, so that a failure names a line that comes again.
		let seed = 32;
		const random = (below: number) => {
			seed = (seed + 0x6d2b79f5) | 0;
			let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
			t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
			return Math.floor((((t ^ (t >>> 14)) >>> 0) / 4_294_967_296) * below);
		};
		const word = () => Array.from({ length: 1 + random(3) }, () => pieces[random(pieces.length)]).join("");
		let taken = 0;
		for (let line = 0; line < 40_000; line++) {
			const words = Array.from({ length: 1 + random(4) }, word);
			if (random(3) === 0) words[0] = firstWords[random(firstWords.length)] ?? "";
			const text = words.join(random(5) === 0 ? "\t" : " ");
			const plain = readPlainWords(text);
			if (plain === undefined) continue;
			taken++;
			expect(plain, text).toEqual(readParsedBash(text));
		}
		// The comparison ran on many lines, not on a few the generator happened to make plain.
		expect(taken).toBeGreaterThan(1_500);
	});
});
