import { resolve } from "node:path";
import type { McpHttpTransportOptions } from "../../mcp/index.js";
import { mcpTokenProblem, normalizeOrigin } from "../../mcp/index.js";
import { booleanOption, listOption, type OptionSpecs, type OptionValues, stringOption, UsageError } from "../args.js";
import type { CliIO } from "../io.js";

/** The environment variable that, when set, is always the HTTP endpoint's bearer token. */
export const mcpTokenVariable = "TOOLBELT_MCP_TOKEN";

/** The flags of `toolbelt mcp` that decide who may call the HTTP endpoint. */
export const httpAccessOptions: OptionSpecs = {
	"token-file": {
		type: "string",
		valueName: "<path>",
		description: `With --http: read the bearer token from this file (yours, mode 600), or create it with a new token when it does not exist. ${mcpTokenVariable}, when set, wins.`,
	},
	"allow-origin": {
		type: "string",
		multiple: true,
		valueName: "<origin>",
		description:
			"With --http: also accept requests from this browser origin, e.g. http://localhost:6274 (repeatable). Default: none, only clients that send no Origin.",
	},
	"no-auth": {
		type: "boolean",
		description: "With --http: serve without a bearer token. Any local user or process can then run the tools as you.",
	},
};

/** Where the token in force came from, for the connection instructions. */
export type McpTokenSource = "generated" | "environment" | "file" | "none";

/** The access part of the HTTP transport options, and where its token came from. */
export interface HttpAccess {
	/** Spread into the `http` transport options. */
	options: Pick<McpHttpTransportOptions, "token" | "auth" | "allowedOrigins">;
	/** Where the token came from (`generated`: the server makes one at start). */
	source: McpTokenSource;
}

function allowedOriginsOf(values: OptionValues): string[] {
	return listOption(values, "allow-origin").map((origin) => {
		const normalized = normalizeOrigin(origin);
		if (normalized === undefined) {
			throw new UsageError(
				`--allow-origin ${origin}: expected an origin, scheme://host[:port] with no path, e.g. http://localhost:6274.`,
			);
		}
		return normalized;
	});
}

/**
 * Reads the access flags: `--no-auth`, `--token-file`, `--allow-origin` and `TOOLBELT_MCP_TOKEN`.
 * Throws `UsageError` when they are given without `--http`, contradict each other, or name a token
 * that cannot be used. Writes the `--no-auth` warning and token-file notices to stderr.
 */
export async function httpAccessFromFlags(values: OptionValues, io: CliIO, http: boolean): Promise<HttpAccess> {
	const tokenFile = stringOption(values, "token-file");
	const noAuth = booleanOption(values, "no-auth");
	const allowedOrigins = allowedOriginsOf(values);
	if (!http && (tokenFile !== undefined || noAuth || allowedOrigins.length > 0)) {
		throw new UsageError("--token-file, --no-auth and --allow-origin only apply with --http <host:port>.");
	}
	const fromEnvironment = io.env[mcpTokenVariable];
	if (noAuth) {
		if (fromEnvironment !== undefined || tokenFile !== undefined) {
			throw new UsageError(
				`--no-auth contradicts ${fromEnvironment !== undefined ? `${mcpTokenVariable} (set in the environment)` : "--token-file"}; drop one of them.`,
			);
		}
		io.stderr.write(
			"toolbelt mcp: WARNING: --no-auth: the HTTP endpoint has no token. Every local user and every local process " +
				"can run commands and change files as you through it. Use it only on a machine or container nobody else uses.\n",
		);
		return { options: { auth: false, allowedOrigins }, source: "none" };
	}
	if (fromEnvironment !== undefined) {
		const problem = mcpTokenProblem(fromEnvironment, mcpTokenVariable);
		if (problem) throw new UsageError(problem, { showHelpHint: false });
		if (tokenFile !== undefined) {
			io.stderr.write(
				`toolbelt mcp: ${mcpTokenVariable} is set, so it is the token; --token-file ${tokenFile} is not read.\n`,
			);
		}
		return { options: { token: fromEnvironment, allowedOrigins }, source: "environment" };
	}
	if (tokenFile !== undefined) {
		const { loadOrCreateTokenFile, McpTokenFileError } = await import("../../mcp/index.js");
		const path = resolve(io.cwd, tokenFile);
		try {
			const loaded = await loadOrCreateTokenFile(path);
			if (loaded.created)
				io.stderr.write(`toolbelt mcp: wrote a new token to ${path} (mode 600); later starts reuse it.\n`);
			return { options: { token: loaded.token, allowedOrigins }, source: "file" };
		} catch (error) {
			if (error instanceof McpTokenFileError) throw new UsageError(error.message, { showHelpHint: false });
			throw error;
		}
	}
	return { options: { allowedOrigins }, source: "generated" };
}

/**
 * How to connect, printed once on stderr at start: the URL, the header, and a ready-made
 * `claude mcp add` line. A token from the environment is shown as the variable, not its value,
 * so it does not land in logs; a generated or file token is shown as is (it is how you learn it).
 */
export function connectionInstructions(url: string, token: string | undefined, source: McpTokenSource): string {
	if (token === undefined) {
		return `toolbelt mcp: connect with: claude mcp add --transport http toolbelt ${url}\n`;
	}
	const shown = source === "environment" ? `$${mcpTokenVariable}` : token;
	const provenance =
		source === "generated"
			? ` A new token is made at each start; set ${mcpTokenVariable} or pass --token-file <path> to keep one.`
			: source === "file"
				? " (from --token-file)"
				: ` (the value of ${mcpTokenVariable})`;
	return (
		`toolbelt mcp: every request must carry the header: Authorization: Bearer ${shown}${provenance}\n` +
		"toolbelt mcp: connect Claude Code with:\n" +
		`  claude mcp add --transport http toolbelt ${url} --header "Authorization: Bearer ${shown}"\n`
	);
}
