import { constants } from "node:fs";
import { mkdir, open } from "node:fs/promises";
import { dirname } from "node:path";
import { generateMcpToken, mcpTokenProblem } from "./http-auth.js";

/** A bearer token kept in a file, and whether this call made it. */
export interface McpTokenFile {
	/** The token (the file's content without surrounding whitespace). */
	token: string;
	/** True when the file did not exist and was created with a fresh token. */
	created: boolean;
}

/** A token file that cannot be used: the message says what to change. */
export class McpTokenFileError extends Error {
	constructor(message: string) {
		super(message);
		this.name = "McpTokenFileError";
	}
}

const posix = process.platform !== "win32";

async function readTokenFile(path: string): Promise<string> {
	// O_NOFOLLOW: a link planted at the path must not make us read (and then serve) someone else's file.
	const handle = await open(path, constants.O_RDONLY | (posix ? constants.O_NOFOLLOW : 0));
	try {
		const stats = await handle.stat();
		if (!stats.isFile()) throw new McpTokenFileError(`--token-file ${path} is not a regular file.`);
		if (posix && process.getuid && stats.uid !== process.getuid()) {
			throw new McpTokenFileError(
				`--token-file ${path} belongs to another user (uid ${stats.uid}), who could read or replace the token; use a file of your own.`,
			);
		}
		if (posix && (stats.mode & 0o077) !== 0) {
			throw new McpTokenFileError(
				`--token-file ${path} can be read or written by other users (mode ${(stats.mode & 0o777).toString(8)}); run \`chmod 600 ${path}\` and start again.`,
			);
		}
		const token = (await handle.readFile("utf8")).trim();
		const problem = mcpTokenProblem(token, `--token-file ${path}`);
		if (problem) throw new McpTokenFileError(problem);
		return token;
	} finally {
		await handle.close();
	}
}

/**
 * Reads the bearer token from `path`, or, when the file does not exist, creates it (mode 0600,
 * parent folders 0700) holding a fresh token, so a client configured once keeps working across
 * restarts. An existing file must be a regular file of the current user that nobody else can read
 * or write (checked on POSIX systems), holding one token of at least 16 visible ASCII characters;
 * otherwise this throws `McpTokenFileError` and nothing is served.
 */
export async function loadOrCreateTokenFile(path: string): Promise<McpTokenFile> {
	try {
		return { token: await readTokenFile(path), created: false };
	} catch (error) {
		if ((error as NodeJS.ErrnoException).code === "ELOOP") {
			throw new McpTokenFileError(`--token-file ${path} is a symbolic link; give the path of the file itself.`);
		}
		if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
	}
	await mkdir(dirname(path), { recursive: true, mode: 0o700 });
	const token = generateMcpToken();
	try {
		// "wx": never overwrite a file that appeared meanwhile; its token is then the one in force.
		const handle = await open(path, "wx", 0o600);
		try {
			await handle.writeFile(`${token}\n`);
		} finally {
			await handle.close();
		}
	} catch (error) {
		if ((error as NodeJS.ErrnoException).code === "EEXIST") return { token: await readTokenFile(path), created: false };
		throw error;
	}
	return { token, created: true };
}
