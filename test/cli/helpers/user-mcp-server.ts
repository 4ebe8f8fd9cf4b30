import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { type TestUser, userPrefix } from "../../helpers/test-users.js";
import { textOf } from "../../mcp/helpers.js";
import { ensureBuiltCli, sharedCacheHome } from "./cli-binary.js";

/** A `toolbelt mcp` server started by a test user, serving many cases of a test file. */
export interface UserMcpServer {
	/** The server's process id (the toolbelt process itself: `setpriv` execs it). */
	pid: number;
	/** Calls a tool; resolves with its text and whether it was an error result (a refusal included). */
	call(tool: string, args: Record<string, unknown>): Promise<{ text: string; isError: boolean }>;
	/** Closes the client; the server exits with its stdin and ends the processes it started. */
	close(): Promise<void>;
}

/** How the server is started. */
export interface UserMcpServerOptions {
	/** Who starts it (see `test/helpers/test-users.ts`). */
	user: TestUser;
	/** The workspace (`--cwd`) and working directory. */
	cwd: string;
	/** The whole environment (`cleanEnv(…)`); its shared cache becomes the user's own. */
	env: Record<string, string>;
	/** Flags after `mcp --cwd <cwd>`: mode, rules, `--sandbox`. Default: none. */
	flags?: string[];
}

/**
 * Starts `toolbelt mcp` as `user`, the way a user starts it, so that one start serves every case
 * of a file instead of one CLI start per case (a start costs ~0.5-1 s of CPU). A failed start or
 * call throws with the server's stderr.
 */
export async function startUserMcpServer(options: UserMcpServerOptions): Promise<UserMcpServer> {
	const { user, cwd } = options;
	const env = { ...options.env };
	if (env.XDG_CACHE_HOME === sharedCacheHome()) env.XDG_CACHE_HOME = sharedCacheHome(user);
	const [file, ...prefix] = [...userPrefix(user), process.execPath];
	const transport = new StdioClientTransport({
		command: file ?? process.execPath,
		args: [...prefix, ensureBuiltCli(), "mcp", "--cwd", cwd, ...(options.flags ?? [])],
		cwd,
		env,
		stderr: "pipe",
	});
	let stderr = "";
	transport.stderr?.on("data", (chunk: Buffer) => {
		stderr += chunk.toString("utf8");
	});
	const client = new Client({ name: "toolbelt-user-test", version: "1.0.0" });
	await client.connect(transport).catch((error: unknown) => {
		throw new Error(`toolbelt mcp did not start (${String(error)}); its stderr:\n${stderr}`);
	});
	return {
		pid: transport.pid ?? 0,
		async call(tool, args) {
			// Generous: a call on a loaded machine may wait long for its turn.
			const result = await client
				.callTool({ name: tool, arguments: args }, undefined, { timeout: 120_000 })
				.catch((error: unknown) => {
					throw new Error(`${tool} failed (${String(error)}); the server's stderr:\n${stderr}`);
				});
			return { text: textOf(result), isError: result.isError === true };
		},
		close: () => client.close(),
	};
}
