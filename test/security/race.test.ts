import { type ChildProcess, spawn } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, realpathSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterEach, describe, expect, it } from "vitest";
import { cleanEnv, ensureBuiltCli } from "../cli/helpers/cli-binary.js";
import { useTempDir } from "../helpers/temp-dir.js";

// A red-team test of issue 12 §3: a process swaps a folder link and a file link between an inside
// and an outside target in a tight loop while one `toolbelt mcp` server (as a user starts it)
// reads, writes and edits through the links. What is checked must be what is used: no outside
// read, no outside modification, no temp file left anywhere.

const SECRET = "OUTSIDE-SECRET\n";
const SWAP_MS = 8000;

/** Flips each link between its two targets by atomic rename; counts and repairs outside changes; prints the count at the end. */
const SWAPPER = `
const fs = require("node:fs");
const [dirLink, dirIn, dirOut, fileLink, fileIn, fileOut, watched, durationMs] = process.argv.slice(2);
const files = watched.split(",");
const original = new Map(files.map((file) => [file, fs.readFileSync(file, "utf8")]));
let modified = 0;
let flips = 0;
const swap = (link, target) => {
	const temp = link + ".swap";
	try { fs.unlinkSync(temp); } catch {}
	fs.symlinkSync(target, temp);
	fs.renameSync(temp, link);
};
const end = Date.now() + Number(durationMs);
while (Date.now() < end) {
	for (const [link, inside, outside] of [[dirLink, dirIn, dirOut], [fileLink, fileIn, fileOut]]) {
		swap(link, flips % 2 === 0 ? outside : inside);
	}
	flips++;
	for (const file of files) {
		let now;
		try { now = fs.readFileSync(file, "utf8"); } catch { now = undefined; }
		if (now !== original.get(file)) { modified++; fs.writeFileSync(file, original.get(file)); }
	}
}
swap(dirLink, dirIn);
swap(fileLink, fileIn);
process.stdout.write(JSON.stringify({ modified, flips }));
`;

function tempFilesBelow(root: string): string[] {
	const found: string[] = [];
	const walk = (folder: string) => {
		for (const entry of readdirSync(folder, { withFileTypes: true })) {
			const path = join(folder, entry.name);
			if (entry.isDirectory()) walk(path);
			else if (/\.tmp$/.test(entry.name)) found.push(path);
		}
	};
	walk(root);
	return found;
}

function textOf(result: unknown): string {
	const content = ((result as { content?: unknown }).content ?? []) as { type: string; text?: string }[];
	return content.map((block) => block.text ?? "").join("\n");
}

describe("confinement against a concurrent symlink swapper (issue 12 §3)", () => {
	const tempDir = useTempDir();
	const children: ChildProcess[] = [];
	let client: Client | undefined;
	afterEach(async () => {
		await client?.close().catch(() => {});
		client = undefined;
		for (const child of children.splice(0)) child.kill("SIGKILL");
	});

	it("read, write and edit through swapped links never touch, show or leave anything outside", async () => {
		const root = realpathSync(tempDir());
		const workspace = join(root, "ws");
		const outside = join(root, "outside");
		mkdirSync(join(workspace, "inside-dir"), { recursive: true });
		mkdirSync(join(outside, "dir"), { recursive: true });
		writeFileSync(join(workspace, "inside-dir", "f.txt"), "inside one\n");
		writeFileSync(join(workspace, "inside.txt"), "inside two\n");
		writeFileSync(join(outside, "dir", "f.txt"), SECRET);
		writeFileSync(join(outside, "secret.txt"), SECRET);
		symlinkSync("inside-dir", join(workspace, "dlink"));
		symlinkSync("inside.txt", join(workspace, "flink"));
		writeFileSync(join(root, "swapper.cjs"), SWAPPER);

		const transport = new StdioClientTransport({
			command: process.execPath,
			args: [ensureBuiltCli(), "mcp"],
			cwd: workspace,
			env: cleanEnv(),
			stderr: "pipe",
		});
		client = new Client({ name: "race-test", version: "1.0.0" });
		await client.connect(transport);

		const swapper = spawn(
			process.execPath,
			[
				join(root, "swapper.cjs"),
				join(workspace, "dlink"),
				"inside-dir",
				join(outside, "dir"),
				join(workspace, "flink"),
				"inside.txt",
				join(outside, "secret.txt"),
				[join(outside, "dir", "f.txt"), join(outside, "secret.txt")].join(","),
				String(SWAP_MS),
			],
			{ stdio: ["ignore", "pipe", "inherit"] },
		);
		children.push(swapper);
		let swapperOutput = "";
		swapper.stdout?.on("data", (chunk: Buffer) => {
			swapperOutput += chunk.toString("utf8");
		});
		const swapperDone = new Promise<void>((resolve) => swapper.on("exit", () => resolve()));

		let outsideReads = 0;
		const leaks: string[] = [];
		let calls = 0;
		let running = true;
		void swapperDone.then(() => {
			running = false;
		});
		const call = async (name: string, args: Record<string, unknown>) => {
			calls++;
			const result = await client?.callTool({ name, arguments: args }, undefined, { timeout: 10_000 });
			if (textOf(result).includes("OUTSIDE-SECRET")) {
				outsideReads++;
				leaks.push(`${name} ${JSON.stringify(args)}: ${textOf(result).slice(0, 200)}`);
			}
		};
		for (let round = 0; running; round++) {
			for (const path of ["dlink/f.txt", "flink"]) {
				await call("read", { path });
				await call("write", { path, content: `written ${round}\n` });
				await call("read", { path });
				await call("edit", { path, old_string: `written ${round}`, new_string: `edited ${round}` });
				await call("grep", { pattern: "SECRET", path: "dlink" });
				await call("ls", { path: "dlink" });
			}
		}
		await swapperDone;
		const { modified, flips } = JSON.parse(swapperOutput || "{}") as { modified?: number; flips?: number };
		const leftovers = tempFilesBelow(root);
		const outsideNow = [
			readFileSync(join(outside, "dir", "f.txt"), "utf8"),
			readFileSync(join(outside, "secret.txt"), "utf8"),
		];
		const report = { calls, flips, outsideReads, outsideModifications: modified, tempFiles: leftovers.length };
		console.log("race test:", JSON.stringify(report), leaks.slice(0, 5));
		expect(flips ?? 0).toBeGreaterThan(100);
		expect(calls).toBeGreaterThan(20);
		expect(report.outsideReads, JSON.stringify(report)).toBe(0);
		expect(report.outsideModifications, JSON.stringify(report)).toBe(0);
		expect(leftovers, JSON.stringify(report)).toEqual([]);
		expect(outsideNow).toEqual([SECRET, SECRET]);
		expect(readdirSync(join(outside, "dir"))).toEqual(["f.txt"]);
	}, 30_000);
});
