import ignoreModule, { type Ignore } from "ignore";

// ignore ships CommonJS; under NodeNext its default export may be the module object.
const ignore = (ignoreModule as unknown as { default?: typeof ignoreModule }).default ?? ignoreModule;

/**
 * Tests a relative path (POSIX separators) against one gitignore line: true when the path or one
 * of the folders above it matches, as a file or as a folder — what `ignore`'s
 * `ignores(path) || ignores(path + "/")` answers for a single rule.
 */
export type PathTest = (relativePath: string) => boolean;

/**
 * Compiles one gitignore line into a `PathTest` whose cost grows linearly with the path's depth.
 *
 * `ignore` tests a path by testing every folder above it first, each with a regular expression
 * over that folder's whole path, and keeps each answer in a cache keyed by that path: a path
 * 1,800 folders deep cost ~1,800 tests of ~1,800 characters per rule, and every path ever tested
 * stayed in the cache. Here the line is cut at its `/` into one pattern per name, each name of
 * the path is tested once against the patterns it can meet (a small automaton, `**` matching any
 * number of folders), and `ignore` itself still decides each name, so a name matches as it did.
 * A line of a shape this does not cut (an escaped `/`, an empty segment, a space ending a folder's
 * pattern) keeps the whole-line test.
 */
export function compileSegmentMatcher(line: string): PathTest {
	// A comment or a negation alone ignores nothing (the caller anchors by a leading `/`).
	if (line === "" || line.startsWith("#") || line.startsWith("!")) return () => false;
	const items = itemsOf(line);
	if (!items) return wholeLineTest(line);
	const [first, second] = items;
	// The usual line (`.git`, `*.pem`): a name anywhere. Each distinct name is tested once.
	if (items.length === 2 && first?.kind === "globstar" && second?.kind === "name") {
		return (relativePath) => namesOf(relativePath).distinct.some((name) => second.matcher.test(name));
	}
	// No `**`: only the first names can match, as many as the line has.
	if (items.every((item) => item.kind !== "globstar")) {
		return (relativePath) => {
			const { names } = namesOf(relativePath);
			return names.length >= items.length && items.every((item, index) => matchesName(item, names[index] as string));
		};
	}
	return (relativePath) => matchesSomePrefix(items, namesOf(relativePath).names);
}

/** One segment of a line: `**` (any number of names), any one name, or a pattern for one name. */
type Item = { kind: "globstar" } | { kind: "any" } | { kind: "name"; matcher: RuleMatcher };

/** The line cut into items, or undefined for a shape left to the whole-line test. */
function itemsOf(line: string): Item[] | undefined {
	let body = line;
	let anchored = false;
	if (body.startsWith("/")) {
		anchored = true;
		body = body.slice(1);
	}
	body = body.replace(/\/+$/, ""); // a trailing `/` (folders only) changes nothing: both forms are tested
	const segments = splitUnescaped(body);
	if (!segments || segments.length === 0 || segments.some((segment) => segment === "")) return undefined;
	// gitignore trims spaces at the end of a line only: one ending a folder's pattern is kept literally.
	if (segments.slice(0, -1).some((segment) => segment.endsWith(" "))) return undefined;
	if (segments.length > 1) anchored = true;
	const items: Item[] = [];
	for (const [index, segment] of segments.entries()) {
		if (/^\*{2,}$/.test(segment)) {
			// `a/**` matches what lies inside a, not a itself: at least one name.
			const item: Item = index === segments.length - 1 ? { kind: "any" } : { kind: "globstar" };
			if (item.kind === "globstar" && items.at(-1)?.kind === "globstar") continue;
			items.push(item);
		} else {
			items.push({ kind: "name", matcher: new RuleMatcher(`/${segment}`) });
		}
	}
	// A line without a `/` before its end matches a name at any depth.
	if (!anchored && items[0]?.kind !== "globstar") items.unshift({ kind: "globstar" });
	return items;
}

/** `text` split at each `/` not escaped by a backslash; undefined when a `/` is escaped. */
function splitUnescaped(text: string): string[] | undefined {
	const segments: string[] = [];
	let start = 0;
	let backslashes = 0;
	for (let index = 0; index < text.length; index++) {
		const char = text[index];
		if (char === "\\") {
			backslashes++;
			continue;
		}
		if (char === "/") {
			if (backslashes % 2 === 1) return undefined;
			segments.push(text.slice(start, index));
			start = index + 1;
		}
		backslashes = 0;
	}
	segments.push(text.slice(start));
	return segments;
}

/** A path's names, and each of them once; kept for the last path (one path is tested against every pattern). */
interface Names {
	path: string;
	names: string[];
	distinct: string[];
}

let lastNames: Names = { path: "", names: [], distinct: [] };

/** The names of a relative path; empty names (`a//b`, a trailing `/`) are dropped. */
function namesOf(relativePath: string): Names {
	if (lastNames.path !== relativePath) {
		const names = relativePath.split("/").filter((name) => name !== "");
		lastNames = { path: relativePath, names, distinct: [...new Set(names)] };
	}
	return lastNames;
}

function matchesName(item: Item, name: string): boolean {
	return item.kind === "any" || (item.kind === "name" && item.matcher.test(name));
}

/**
 * True when the items match the first k names for some k ≥ 1: the path or a folder above it
 * matches. States are item positions, kept as flags; each name advances every state once
 * (O(names × items)), and a `**` also lets its state pass on without a name.
 */
function matchesSomePrefix(items: readonly Item[], names: readonly string[]): boolean {
	let states = new Uint8Array(items.length + 1);
	let next = new Uint8Array(items.length + 1);
	states[0] = 1;
	passGlobstars(items, states);
	for (const name of names) {
		next.fill(0);
		let alive = false;
		for (let state = 0; state < items.length; state++) {
			if (states[state] === 0) continue;
			const item = items[state] as Item;
			if (item.kind === "globstar") next[state] = 1;
			else if (matchesName(item, name)) next[state + 1] = 1;
			else continue;
			alive = true;
		}
		if (!alive) return false;
		passGlobstars(items, next);
		if (next[items.length] === 1) return true;
		[states, next] = [next, states];
	}
	return false;
}

/** Lets each state at a `**` also stand after it (`**` matching no name). */
function passGlobstars(items: readonly Item[], states: Uint8Array): void {
	for (let state = 0; state < items.length; state++) {
		if (states[state] === 1 && items[state]?.kind === "globstar") states[state + 1] = 1;
	}
}

/** How many tests a rule matcher answers before it starts over with an empty cache. */
const CACHE_BOUND = 4096;

/**
 * One gitignore rule decided by `ignore`. For a segment's pattern the rule is anchored (`/name`)
 * and tested against a single name, so a test costs the name's length. `ignore` caches every
 * answer; the matcher is renewed now and then so that a long session keeps a bounded cache.
 */
class RuleMatcher {
	private matcher: Ignore;
	private uses = 0;

	constructor(private readonly rule: string) {
		this.matcher = this.compile();
	}

	test(path: string): boolean {
		if (++this.uses > CACHE_BOUND) {
			this.matcher = this.compile();
			this.uses = 0;
		}
		return this.matcher.ignores(path);
	}

	private compile(): Ignore {
		return ignore({ allowRelativePaths: true }).add(this.rule);
	}
}

/** The whole-line test of `ignore` (its cost grows with the square of the depth), for the shapes not cut. */
function wholeLineTest(line: string): PathTest {
	const matcher = new RuleMatcher(line);
	return (relativePath) => matcher.test(relativePath) || matcher.test(`${relativePath}/`);
}
