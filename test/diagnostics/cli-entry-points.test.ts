// Diagnostics through the built CLI, as a user gets them: `toolbelt mcp` reports the type error an
// edit introduced (real typescript-language-server), a read there starts the file's server ahead of
// a change, `toolbelt tool` starts no server unless told to, and TOOLBELT_DIAGNOSTICS turns them off. The other tests run the CLI with diagnostics off
// (`diagnosticsOffEnv`); these start it without that default.
import { existsSync } from "node:fs";
import { chmod, mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterEach, describe, expect, it } from "vitest";
import { CliProcesses, cleanEnv, ensureBuiltCli } from "../cli/helpers/cli-binary.js";
import { withDiagnosticsDefault } from "../cli/helpers/diagnostics-off.js";
import { type HasContent, resultText } from "../helpers/results.js";
import { useTempDir } from "../helpers/temp-dir.js";
import { eventually } from "../tools/shell/survivors.js";
import { processTree, stillRunning } from "./server-processes.js";

// A first start of tsserver takes seconds on a loaded machine: generous, the answers decide.
const TIMEOUT_MS = 240_000;
const tempDir = useTempDir();
const cli = new CliProcesses();
afterEach(() => cli.killAll());

const GOOD = "export const count: number = 1;\n";

/**
 * A project with one TypeScript file, and a user settings file whose `typescript` server is a
 * stand-in that only leaves a mark (it never answers): whether a server was started is then a
 * file, not a process hunt.
 */
async function projectWithMarkingServer(): Promise<{ project: string; home: string; marker: string }> {
	const project = join(tempDir(), "project");
	const home = join(tempDir(), "home");
	const marker = join(tempDir(), "server-started");
	await mkdir(project);
	await mkdir(join(home, ".toolbelt"), { recursive: true });
	await writeFile(join(project, "count.ts"), GOOD);
	const server = join(tempDir(), "marking-server.sh");
	await writeFile(server, `#!/bin/sh\necho started > '${marker}'\nexec cat > /dev/null\n`);
	await chmod(server, 0o755);
	const settings = { diagnostics: { servers: { typescript: { command: [server], extensions: [".ts"] } } } };
	await writeFile(join(home, ".toolbelt", "settings.json"), JSON.stringify(settings), { mode: 0o600 });
	return { project, home, marker };
}

const BREAK = { path: "count.ts", old_string: "= 1;", new_string: '= "one";' };

describe("diagnostics through the CLI", () => {
	it(
		"toolbelt tool edit starts no language server by default; TOOLBELT_DIAGNOSTICS=1 turns them on",
		async () => {
			const { project, home, marker } = await projectWithMarkingServer();
			const env = withDiagnosticsDefault(cleanEnv({ HOME: home }));
			const plain = await cli.run(["tool", "edit", JSON.stringify(BREAK)], { cwd: project, env });
			expect(plain.code).toBe(0);
			expect(plain.stdout).not.toContain("[diagnostics]");
			expect(existsSync(marker)).toBe(false);

			// The stand-in does start when asked for: the check above can see a server.
			const back = { path: "count.ts", old_string: '= "one";', new_string: "= 1;" };
			const on = await cli.run(["tool", "edit", JSON.stringify(back)], {
				cwd: project,
				env: { ...env, TOOLBELT_DIAGNOSTICS: "1" },
			});
			expect(on.code).toBe(0);
			expect(on.stdout).toContain("[diagnostics] count.ts: diagnostics pending");
			expect(await readFile(marker, "utf8")).toBe("started\n");
		},
		TIMEOUT_MS,
	);

	it(
		"TOOLBELT_DIAGNOSTICS=0 keeps toolbelt mcp from starting one",
		async () => {
			const { project, home, marker } = await projectWithMarkingServer();
			const client = await connect(project, {
				...withDiagnosticsDefault(cleanEnv({ HOME: home })),
				TOOLBELT_DIAGNOSTICS: "0",
			});
			try {
				const text = resultText((await client.callTool({ name: "edit", arguments: BREAK })) as HasContent);
				expect(text).toContain("Edited");
				expect(text).not.toContain("[diagnostics]");
				expect(existsSync(marker)).toBe(false);
			} finally {
				await client.close();
			}
		},
		TIMEOUT_MS,
	);

	it(
		"toolbelt mcp returns the type error an edit introduced, and no server outlives it",
		async () => {
			const project = join(tempDir(), "project");
			await mkdir(project);
			await writeFile(join(project, "tsconfig.json"), JSON.stringify({ compilerOptions: { strict: true } }));
			await writeFile(join(project, "count.ts"), GOOD);
			const transport = stdioTransport(project, withDiagnosticsDefault(cleanEnv()));
			const client = new Client({ name: "toolbelt-test", version: "1.0.0" });
			await client.connect(transport);
			const edit = async (from: string, to: string) =>
				resultText(
					(await client.callTool({
						name: "edit",
						arguments: { path: "count.ts", old_string: from, new_string: to },
					})) as HasContent,
				);
			let tree: number[] = [];
			try {
				// The server starts at the first change and answers within the 1.5 s budget once warm:
				// break and mend the file until one break is checked rather than pending.
				let broken = "";
				for (let attempt = 0; attempt < 60 && !broken.includes("new error"); attempt++) {
					broken = await edit("= 1;", '= "one";');
					expect(broken).toContain("Edited");
					tree = processTree(transport.pid ?? -1);
					if (!broken.includes("new error")) await edit('= "one";', "= 1;");
				}
				expect(broken).toContain("[diagnostics] count.ts: 1 new error after this change (typescript language server):");
				expect(broken).toMatch(/^ {2}1:14 error TS2322: Type 'string' is not assignable to type 'number'\.$/m);
				// Mended: nothing new to say.
				expect(await edit('= "one";', "= 1;")).not.toContain("[diagnostics]");
				expect(tree.length).toBeGreaterThan(2);
			} finally {
				await client.close();
			}
			expect(await eventually(() => stillRunning(tree).length === 0, 20_000)).toBe(true);
		},
		TIMEOUT_MS,
	);
});

describe("a read in toolbelt mcp starts the language server of the file it read, ahead of a change", () => {
	it(
		"with a change tool served: the server starts though nothing changed",
		async () => {
			const { project, home, marker } = await projectWithMarkingServer();
			const client = await connect(project, withDiagnosticsDefault(cleanEnv({ HOME: home })));
			try {
				const text = resultText(
					(await client.callTool({ name: "read", arguments: { path: "count.ts" } })) as HasContent,
				);
				expect(text).toContain("export const count");
				expect(await eventually(() => existsSync(marker), 60_000)).toBe(true);
			} finally {
				await client.close();
			}
		},
		TIMEOUT_MS,
	);

	for (const [where, flags] of [
		["only read tools served", ["--tools", "read,grep"]],
		["the read-only mode", ["--mode", "read-only"]],
	] as const) {
		it(
			`not where no change can follow: ${where}`,
			async () => {
				const { project, home, marker } = await projectWithMarkingServer();
				const client = await connect(project, withDiagnosticsDefault(cleanEnv({ HOME: home })), [...flags]);
				try {
					const read = await client.callTool({ name: "read", arguments: { path: "count.ts" } });
					expect(resultText(read as HasContent)).toContain("export const count");
					// The preparation begins 50 ms after a read; two seconds leave it every chance to show.
					await new Promise((resolve) => setTimeout(resolve, 2_000));
					expect(existsSync(marker)).toBe(false);
				} finally {
					await client.close();
				}
			},
			TIMEOUT_MS,
		);
	}
});

function stdioTransport(project: string, env: Record<string, string>, flags: string[] = []): StdioClientTransport {
	return new StdioClientTransport({
		command: process.execPath,
		args: [ensureBuiltCli(), "mcp", "--cwd", project, ...flags],
		cwd: project,
		env,
		stderr: "pipe",
	});
}

async function connect(project: string, env: Record<string, string>, flags: string[] = []): Promise<Client> {
	const client = new Client({ name: "toolbelt-test", version: "1.0.0" });
	await client.connect(stdioTransport(project, env, flags));
	return client;
}
