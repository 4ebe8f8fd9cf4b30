// YAML read by the `yaml` package (pure JavaScript; loaded at the first YAML file): its parse
// errors carry a line and column, and every document of a multi-document file is read. A clean
// text's reading keeps where its block mappings' entries start and their keys, so that the next
// change can be checked by reading only the entries it touched (yaml-regions.ts).
import { lineAndColumn, MAX_PROBLEMS, type SyntaxProblem, type SyntaxReading } from "../problems.js";

type YamlModule = typeof import("yaml");
let yaml: Promise<YamlModule> | undefined;
let loaded: YamlModule | undefined;

/** A key no other key equals: the parser compares collections and aliases as keys by identity. */
export const UNIQUE_KEY: unique symbol = Symbol("unique key");
/** The key of an entry with no key at all (`: value`); the parser takes two of them for duplicates. */
export const EMPTY_KEY: unique symbol = Symbol("empty key");

/** A key as the parser compares keys for duplicates: a scalar's value, or one of the symbols. */
export type YamlKey = string | number | boolean | bigint | null | typeof UNIQUE_KEY | typeof EMPTY_KEY;

/** One entry of a block mapping. */
export interface YamlEntry {
	/** Offset of its key in the text. */
	start: number;
	/** Which mapping holds it (a key of `YamlLayout.maps`). */
	map: number;
	key: YamlKey;
	/**
	 * True when a piece may start at its line: a plain or quoted scalar key with only the mapping's
	 * indentation before it on its line, in an untagged mapping.
	 */
	boundary: boolean;
}

/** A block mapping: the column of its keys, where its first key starts and where it ends. */
export interface YamlMap {
	indent: number;
	start: number;
	end: number;
}

/** Where the block mappings of a clean text and their entries lie, for reading a change by its entries. */
export interface YamlLayout {
	/** The entries of every block mapping, in text order. */
	entries: YamlEntry[];
	maps: Map<number, YamlMap>;
	/** The next free key of `maps`. */
	nextMap: number;
}

/** A YAML reading; a clean one of a text without directives carries its layout. */
export interface YamlReading extends SyntaxReading {
	layout?: YamlLayout;
}

type Parsed = ReturnType<YamlModule["parseAllDocuments"]>;
type ParsedDocument = Extract<Parsed, readonly unknown[]>[number];

/** Loads the parser (once). */
export async function loadYamlParser(): Promise<YamlModule> {
	yaml ??= import("yaml");
	loaded = await yaml;
	return loaded;
}

/** The documents of a text, read with the loaded parser. Needs `loadYamlParser` first. */
export function parseYamlDocuments(text: string): ParsedDocument[] {
	if (!loaded) throw new Error("the YAML parser is not loaded");
	const parsed = loaded.parseAllDocuments(text);
	return Array.isArray(parsed) ? parsed : [];
}

/** A key as the parser compares it (`mapIncludes`: identity, or equal scalar values). */
function keyOf(key: unknown): YamlKey {
	if (key === null || key === undefined) return EMPTY_KEY;
	if (!loaded?.isScalar(key)) return UNIQUE_KEY;
	const value = key.value;
	const kind = typeof value;
	if (value === null || kind === "string" || kind === "number" || kind === "boolean" || kind === "bigint") {
		return value as YamlKey;
	}
	return UNIQUE_KEY;
}

/** How the mappings of a text (or of a piece read alone) are collected into a layout. */
export interface YamlCollector {
	text: string;
	entries: YamlEntry[];
	maps: Map<number, YamlMap>;
	nextMap: number;
	/** The offset in the file of an offset in `text` (a piece was cut out and unindented). */
	place: (offset: number) => number;
	/** Columns the piece's lines lost. */
	indent: number;
	/** The key of `maps` the first mapping gets (the one a piece's entries belong to). */
	first?: number;
	/** Set when a mapping has an entry without a key (`: value`), which the layout cannot hold. */
	keyless?: boolean;
}

/** Whether only spaces stand between `from` and `to` in the text. */
function spacesOnly(text: string, from: number, to: number): boolean {
	for (let at = from; at < to; at++) if (text.charCodeAt(at) !== 32) return false;
	return true;
}

/**
 * Collects the block mappings under a node, depth first. Tagged collections are left out (a tag such
 * as `!!set` or `!!omap` puts rules on their items that a piece cannot see), and so are flow ones.
 */
export function collectMaps(node: unknown, into: YamlCollector): void {
	const yamlModule = loaded;
	if (!yamlModule) return;
	if (yamlModule.isSeq(node) && !node.flow && !node.tag) {
		for (const item of node.items) collectMaps(item, into);
		return;
	}
	if (!yamlModule.isMap(node) || node.flow || node.tag) return;
	const id = into.first ?? into.nextMap++;
	into.first = undefined;
	const { text } = into;
	const first = node.range?.[0] ?? -1;
	const indent = first - (text.lastIndexOf("\n", first - 1) + 1);
	for (const pair of node.items) {
		const range = (pair.key as { range?: [number, number, number] } | null)?.range;
		const start = range?.[0];
		if (start === undefined) {
			into.keyless = true;
			collectMaps(pair.value, into);
			continue;
		}
		const lineStart = text.lastIndexOf("\n", start - 1) + 1;
		const key = keyOf(pair.key);
		// An empty key (`: value`) is not one to start at: the parser places it differently alone.
		const boundary =
			start - lineStart === indent &&
			spacesOnly(text, lineStart, start) &&
			key !== UNIQUE_KEY &&
			(range?.[1] ?? start) > start;
		into.entries.push({ start: into.place(start), map: id, key, boundary });
		collectMaps(pair.value, into);
	}
	if (first < 0) return;
	const end = node.range?.[2] ?? text.length;
	into.maps.set(id, { indent: indent + into.indent, start: into.place(first), end: into.place(end) });
}

/** Whether the text from `from` to `to` holds only empty lines and comments. */
export function onlyComments(text: string, from: number, to = text.length): boolean {
	let lineStart = true;
	for (let at = from; at < to; at++) {
		const code = text.charCodeAt(at);
		if (code === 10) lineStart = true;
		else if (code === 35 && lineStart) {
			const end = text.indexOf("\n", at);
			if (end === -1 || end >= to) return true;
			at = end - 1;
		} else if (code !== 32 && code !== 9 && code !== 13) return false;
	}
	return true;
}

/**
 * Whether the documents hold all of the text: the parser leaves out, without an error, what follows
 * an unclosed quote on some less indented lines, and a piece read alone must not lean on that.
 */
export function documentsCover(text: string, documents: readonly ParsedDocument[], from = 0): boolean {
	let at = from;
	for (const document of documents) {
		const [start, , end] = document.range ?? [at, at, text.length];
		if (start !== at && !onlyComments(text, at, start)) return false;
		at = end;
	}
	return onlyComments(text, at);
}

/** The layout of a clean text, or undefined when a directive (`%YAML`, `%TAG`) may change its reading. */
function layoutOf(text: string, documents: ParsedDocument[]): YamlLayout | undefined {
	if (text.startsWith("%") || text.includes("\n%") || !documentsCover(text, documents)) return undefined;
	const into: YamlCollector = { text, entries: [], maps: new Map(), nextMap: 0, place: (offset) => offset, indent: 0 };
	for (const document of documents) collectMaps(document.contents, into);
	// A mapping with an entry without a key: such keys equal each other, and the layout has no
	// place for them, so the file is read whole.
	if (into.keyless) return undefined;
	return { entries: into.entries, maps: into.maps, nextMap: into.nextMap };
}

/** Parses a YAML text (all its documents) and lists its errors. */
export async function readYaml(text: string): Promise<YamlReading> {
	await loadYamlParser();
	const documents = parseYamlDocuments(text);
	const problems: SyntaxProblem[] = [];
	for (const document of documents) {
		for (const error of document.errors) {
			if (problems.length >= MAX_PROBLEMS) break;
			const offset = error.pos[0];
			const { line, column } = lineAndColumn(text, offset);
			// The parser's message ends with its own excerpt of the text: the report shows its own.
			const description = (error.message.split(/ at line \d+, column \d+/)[0] ?? error.message).trim();
			problems.push({ line, column, offset, end: Math.max(offset, error.pos[1]), description });
		}
	}
	problems.sort((left, right) => left.offset - right.offset);
	const layout = problems.length === 0 ? layoutOf(text, documents) : undefined;
	return { problems, incomplete: false, ...(layout ? { layout } : {}) };
}
