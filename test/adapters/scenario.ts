// What every adapter test sets up: a project with two files and a PNG, a hook that records the
// order calls start and end in, and a marked bash environment to find survivors with.
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import sharp from "sharp";
import { afterEach, expect } from "vitest";
import { nodeMajor } from "../../src/adapters/shared/load-framework.js";
import type { ToolHooks } from "../../src/engine/types.js";
import { disposeShellProcesses } from "../../src/workspace/local/process/background-registry.js";
import { killMarked, newMarker } from "../tools/shell/survivors.js";

/** The original text of `a.txt`; the scripted edit replaces `alpha` with `omega`. */
export const A_TEXT = "alpha line\n";
/** The text of `b.txt`. */
export const B_TEXT = "beta line\n";

/** Writes `a.txt`, `b.txt` and a 4×4 `pixel.png` into `dir`. */
export async function writeProject(dir: string): Promise<void> {
	await writeFile(join(dir, "a.txt"), A_TEXT);
	await writeFile(join(dir, "b.txt"), B_TEXT);
	const png = await sharp({ create: { width: 4, height: 4, channels: 3, background: "#ff0000" } })
		.png()
		.toBuffer();
	await writeFile(join(dir, "pixel.png"), png);
}

/**
 * A code-mode program for the `code` tool: two reads side by side, an edit of `a.txt`, and a read
 * outside the workspace that the safety layer refuses inside the program. What it returns is checked
 * by `expectCodeProgramRan`.
 */
export const CODE_PROGRAM = `const [a, b] = await Promise.all([tools.read({ path: "a.txt" }), tools.read({ path: "b.txt" })]);
await tools.edit({ path: "a.txt", old_string: "alpha", new_string: "omega" });
let refused = "none";
try { await tools.read({ path: "/etc/hostname" }); } catch (error) { refused = error.tool + ": " + error.message; }
return { a: a.text, b: b.text, refused };`;

/** Checks that `CODE_PROGRAM` ran in `dir` through the adapter: its reads, its edit and the refusal. */
export async function expectCodeProgramRan(dir: string, resultText: string): Promise<void> {
	expect(await readFile(join(dir, "a.txt"), "utf8")).toBe("omega line\n");
	expect(resultText).toContain(A_TEXT.trim());
	expect(resultText).toContain(B_TEXT.trim());
	expect(resultText).toMatch(/read: [^\n]*?outside/i);
}

/** A hook pair recording `start:<id>` / `end:<id>` in the order the engine runs calls. */
export function orderRecorder(): { hooks: ToolHooks; events: string[] } {
	const events: string[] = [];
	return {
		events,
		hooks: {
			beforeToolCall: ({ toolCall }) => {
				events.push(`start:${toolCall.id}`);
				return undefined;
			},
			afterToolCall: ({ toolCall }) => {
				events.push(`end:${toolCall.id}`);
				return undefined;
			},
		},
	};
}

/** The index of `event` in `events`, failing loudly when it is missing. */
export function at(events: readonly string[], event: string): number {
	const index = events.indexOf(event);
	if (index < 0) throw new Error(`event ${event} was not recorded; got ${events.join(", ")}`);
	return index;
}

/** A bash command starting a tree of sleepers that only an abort ends. */
export const SLEEPER_TREE = "sleep 60 & sleep 60 & sleep 60; wait";

/** A fresh marker whose processes are killed after the test whatever happens. */
export function useMarkedShell(): () => { marker: string; env: Record<string, string> } {
	const markers: string[] = [];
	afterEach(async () => {
		await disposeShellProcesses();
		for (const marker of markers.splice(0)) killMarked(marker);
	});
	return () => {
		const created = newMarker();
		markers.push(created.marker);
		return created;
	};
}

/** True (after printing why) when a framework needing Node `minimum` cannot be tested here. */
export function skipBelowNode(minimum: number, what: string): boolean {
	if (nodeMajor() >= minimum) return false;
	console.log(`skipping ${what}: it needs Node ${minimum}+, this is Node ${process.versions.node}`);
	return true;
}
