import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { getDefaultEnvironment, StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { diagnosticsOffEnv } from "../cli/helpers/diagnostics-off.js";
import { type HasContent, resultText } from "../helpers/results.js";

const root = fileURLToPath(new URL("../../", import.meta.url));
const builtBin = `${root}dist/cli/bin.cjs`;

/**
 * The built CLI as the package's bin (dist/cli/bin.cjs), which these tests drive as a real child
 * process. `npm run check` builds before testing; a bare `vitest run` on a tree without dist/
 * builds once here.
 */
export function ensureBuiltCli(): string {
	if (!existsSync(builtBin)) {
		execFileSync(process.execPath, [`${root}node_modules/typescript/bin/tsc`, "-p", "tsconfig.build.json"], {
			cwd: root,
			stdio: "inherit",
		});
	}
	return builtBin;
}

/** How to start the built `toolbelt mcp ARGS`. */
export function toolbeltMcpCommand(args: string[]): { command: string; args: string[] } {
	return { command: process.execPath, args: [ensureBuiltCli(), "mcp", ...args] };
}

/** A connected SDK client speaking to a `toolbelt mcp` child over stdio. */
export interface StdioSession {
	client: Client;
	transport: StdioClientTransport;
	/** Everything the server wrote to stderr so far. */
	stderr(): string;
}

/**
 * Starts `toolbelt mcp ARGS` and connects the SDK's own Client to it over stdio. `env` adds to (or
 * replaces parts of) the SDK's default environment, e.g. a HOME with its own settings file.
 */
export async function connectStdio(args: string[], env: Record<string, string> = {}): Promise<StdioSession> {
	const { command, args: commandArgs } = toolbeltMcpCommand(args);
	const transport = new StdioClientTransport({
		command,
		args: commandArgs,
		env: { ...getDefaultEnvironment(), ...diagnosticsOffEnv, ...env },
		stderr: "pipe",
	});
	let stderrText = "";
	transport.stderr?.on("data", (chunk: Buffer) => {
		stderrText += chunk.toString("utf8");
	});
	const client = new Client({ name: "toolbelt-test", version: "1.0.0" });
	await client.connect(transport);
	return { client, transport, stderr: () => stderrText };
}

/** Pids of live processes whose command line contains `needle` (read from /proc). */
export function processesMatching(needle: string): number[] {
	const pids: number[] = [];
	for (const entry of readdirSync("/proc")) {
		if (!/^\d+$/.test(entry)) continue;
		try {
			const commandLine = readFileSync(`/proc/${entry}/cmdline`, "utf8").replace(/\0/g, " ");
			const state = readFileSync(`/proc/${entry}/stat`, "utf8").split(") ")[1]?.[0];
			if (commandLine.includes(needle) && state !== "Z") pids.push(Number(entry));
		} catch {
			// The process ended while we looked.
		}
	}
	return pids;
}

/** Polls `predicate` every 50 ms until it is true; throws after `timeoutMs`. */
export async function waitFor(predicate: () => boolean | Promise<boolean>, timeoutMs = 5000): Promise<void> {
	const deadline = Date.now() + timeoutMs;
	while (!(await predicate())) {
		if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
		await new Promise((resolve) => setTimeout(resolve, 50));
	}
}

/** The text of a tools/call result's content. */
export function textOf(result: unknown): string {
	return resultText(result as HasContent, { separator: "\n" });
}
