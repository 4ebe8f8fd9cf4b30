// YAML read by the `yaml` package (pure JavaScript; loaded at the first YAML file): its parse
// errors carry a line and column, and every document of a multi-document file is read. A clean
// text's reading keeps where its documents' top-level entries start and their keys, so that the
// next change can be checked by reading only the entries it touched (yaml-regions.ts).
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

/** One entry of a document's top-level block mapping. */
export interface YamlEntry {
	/** Offset of its key in the text. */
	start: number;
	/** Index of its document in the text. */
	document: number;
	key: YamlKey;
	/** True when the key is a plain or quoted scalar at the start of a line: a piece may start there. */
	boundary: boolean;
}

/** Where the top-level entries of a clean text lie, for reading a change by its entries alone. */
export interface YamlLayout {
	/** The entries of the documents whose content is a block mapping, in text order. */
	entries: YamlEntry[];
	/** Per document: where its content ends, or -1 for a document a piece cannot be read in. */
	contentEnds: number[];
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

/**
 * The top-level entries of one document (offsets moved by `shift`), or undefined when its content
 * is not an untagged block mapping (a piece of it could not be read alone).
 */
export function entriesOf(
	document: ParsedDocument,
	text: string,
	index: number,
	shift = 0,
): { entries: YamlEntry[]; end: number } | undefined {
	const contents = document.contents;
	if (!loaded?.isMap(contents) || contents.flow || contents.tag || contents.anchor) return undefined;
	const entries: YamlEntry[] = [];
	for (const pair of contents.items) {
		const node = pair.key as { range?: [number, number, number] } | null;
		const start = node?.range?.[0] ?? -1;
		const lineStart = start === 0 || (start > 0 && text.charCodeAt(start - 1) === 10);
		const key = keyOf(pair.key);
		const boundary = lineStart && key !== UNIQUE_KEY && key !== EMPTY_KEY;
		entries.push({ start: start + shift, document: index, key, boundary });
	}
	return { entries, end: (contents.range?.[2] ?? text.length) + shift };
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
	const layout: YamlLayout = { entries: [], contentEnds: [] };
	for (const [index, document] of documents.entries()) {
		const read = entriesOf(document, text, index);
		layout.contentEnds.push(read ? read.end : -1);
		if (read) layout.entries.push(...read.entries);
	}
	return layout;
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
