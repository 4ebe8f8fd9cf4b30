import { mkdir, readFile, symlink, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { expect, it } from "vitest";
import { executeToolCalls } from "../../../src/engine/execute-tool-calls.js";
import { createAllTools, type ToolsOptions } from "../../../src/tools/index.js";
import { resultText } from "../../helpers/results.js";

/** A file in a case's temp folder: text, bytes, a folder (`{ dir: true }`) or a symlink. */
export type PeerFile = string | Buffer | { dir: true } | { symlinkTo: string };

/**
 * One behaviour another agent's suite checks, restated as what a user expects of toolbelt: the
 * files before, one tool call as a model sends it, and the outcome.
 */
export interface PeerCase {
	/** What the case checks, in our words. */
	name: string;
	/** Where it comes from: the peer's test file, for the record. */
	from: string;
	/** Set when toolbelt's answer differs from the peer's on purpose: why (the case checks toolbelt's answer). */
	divergence?: string;
	/** Files in the temp folder before the call (relative paths). */
	files?: Record<string, PeerFile>;
	/** The tool called. */
	tool: "read" | "write" | "edit" | "grep" | "find" | "ls";
	/** Its arguments as the model sends them (paths relative to the temp folder; `$DIR` stands for it). */
	args: Record<string, unknown>;
	/** The outcome. */
	expect: {
		/** The call fails, with a message matching this. */
		error?: RegExp;
		/** The result text holds each of these. */
		contains?: (string | RegExp)[];
		/** The result text holds none of these. */
		notContains?: string[];
		/** The result text is exactly this. */
		text?: string;
		/** Files after the call, exactly (read as UTF-8 unless a Buffer is given). */
		files?: Record<string, string | Buffer>;
		/** The lines of the result text, in order, are exactly these (blank lines and `[…]` notices dropped). */
		lines?: string[];
	};
}

async function lay(root: string, files: Record<string, PeerFile>): Promise<void> {
	for (const [path, content] of Object.entries(files)) {
		const absolute = join(root, path);
		await mkdir(dirname(absolute), { recursive: true });
		if (typeof content === "string" || Buffer.isBuffer(content)) await writeFile(absolute, content);
		else if ("dir" in content) await mkdir(absolute, { recursive: true });
		else await symlink(content.symlinkTo, absolute);
	}
}

function withDir(value: unknown, root: string): unknown {
	if (typeof value === "string") return value.replaceAll("$DIR", root);
	if (Array.isArray(value)) return value.map((item) => withDir(item, root));
	if (value && typeof value === "object") {
		return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, withDir(item, root)]));
	}
	return value;
}

/** Runs one case through the engine, as a model's call runs: argument repair, validation, the tool. */
export async function runPeerCase(peerCase: PeerCase, root: string, options: ToolsOptions = {}): Promise<void> {
	await lay(root, peerCase.files ?? {});
	const tools = createAllTools(root, options);
	const { messages } = await executeToolCalls({
		tools: Object.values(tools),
		toolCalls: [
			{
				type: "toolCall",
				id: "peer",
				name: peerCase.tool,
				arguments: withDir(peerCase.args, root) as Record<string, unknown>,
			},
		],
	});
	const message = messages[0];
	if (!message) throw new Error("no result");
	const text = resultText(message);
	const expected = peerCase.expect;
	if (expected.error) {
		expect(message.isError, `expected an error, got: ${text}`).toBe(true);
		expect(text).toMatch(expected.error);
	} else {
		expect(message.isError, `unexpected error: ${text}`).toBe(false);
	}
	for (const needle of expected.contains ?? []) {
		if (typeof needle === "string") expect(text).toContain(needle);
		else expect(text).toMatch(needle);
	}
	for (const needle of expected.notContains ?? []) expect(text).not.toContain(needle);
	if (expected.text !== undefined) expect(text).toBe(expected.text);
	if (expected.lines) {
		const lines = text.split("\n").filter((line) => line.trim() !== "" && !line.startsWith("["));
		expect(lines).toEqual(expected.lines);
	}
	for (const [path, content] of Object.entries(expected.files ?? {})) {
		const actual = await readFile(join(root, path));
		if (Buffer.isBuffer(content)) expect(actual.equals(content), `${path} bytes`).toBe(true);
		else expect(actual.toString("utf8"), path).toBe(content);
	}
}

/** Registers one test per case (call inside a `describe` that holds a `useTempDir`); grep and find cases run on both backends. */
export function peerTests(cases: readonly PeerCase[], temp: () => string): void {
	for (const peerCase of cases) {
		if (peerCase.tool !== "grep" && peerCase.tool !== "find") {
			it(`${peerCase.name} (${peerCase.from})`, () => runPeerCase(peerCase, temp()));
			continue;
		}
		for (const backend of ["ripgrep", "walker"] as const) {
			it(`${peerCase.name} (${peerCase.from}; ${backend})`, () =>
				runPeerCase(peerCase, temp(), { grep: { backend }, find: { backend } }));
		}
	}
}
