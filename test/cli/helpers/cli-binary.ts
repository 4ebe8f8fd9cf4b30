import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { chownSync, existsSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type TestUser, unprivilegedIdentity, userPrefix } from "../../helpers/test-users.js";
import { diagnosticsOffEnv } from "./diagnostics-off.js";

/** The repository root. */
export const repositoryRoot = fileURLToPath(new URL("../../../", import.meta.url));

/**
 * The built CLI as a user's `toolbelt` starts it: the package's bin, `bin.cjs` (`npm run build`
 * output). Node starts a CommonJS main sooner than an ES module one (7-15 ms of CPU a start here,
 * and the suite starts the CLI some 450 times).
 */
export const binPath = `${repositoryRoot}dist/cli/bin.cjs`;

/** The CLI's ES module entry (`node dist/cli/bin.js`), for the tests of that entry. */
export const moduleBinPath = `${repositoryRoot}dist/cli/bin.js`;

/**
 * Makes sure the built CLI exists. `npm run check` builds before the tests; a bare `vitest run`
 * on a tree without `dist/cli` builds once here, as `npm run build` does.
 */
export function ensureBuiltCli(): string {
	if (!existsSync(binPath)) {
		execFileSync(process.execPath, [`${repositoryRoot}node_modules/typescript/bin/tsc`, "-p", "tsconfig.build.json"], {
			cwd: repositoryRoot,
			stdio: "inherit",
		});
	}
	ensureBuiltBundle();
	return binPath;
}

/** Makes sure `dist/cli/toolbelt.cjs`, the bundle both entries start from, exists (after `tsc`). */
export function ensureBuiltBundle(): void {
	if (existsSync(`${repositoryRoot}dist/cli/toolbelt.cjs`)) return;
	for (const script of ["scripts/precompile-validators.mjs", "scripts/bundle-cli.mjs"]) {
		execFileSync(process.execPath, [`${repositoryRoot}${script}`], { cwd: repositoryRoot, stdio: "inherit" });
	}
}

/**
 * The cache folder (`XDG_CACHE_HOME`) the CLI processes of a test user share, as a user's own
 * ~/.cache is shared by their every start: V8's code of the bundle is made once per run of the
 * suite, not once per process (~0.5 s of CPU each). Private to that user, as the CLI requires.
 */
export function sharedCacheHome(user: TestUser = "root"): string {
	const folder = join(tmpdir(), `toolbelt-test-cache-${process.getuid?.() ?? "user"}-${user}`);
	mkdirSync(folder, { recursive: true, mode: 0o700 });
	if (user === "unprivileged" && userPrefix(user).length > 0)
		chownSync(folder, unprivilegedIdentity.uid, unprivilegedIdentity.gid);
	return folder;
}

/**
 * A minimal environment for the child: no API keys or base URLs leak in from the machine
 * running the tests, so provider resolution is exactly what each test sets. `HOME` is a
 * directory that does not exist (pass one in `extra` to test user settings), so the real
 * ~/.toolbelt is never read or written; the cache folder is the run's shared one
 * (`sharedCacheHome`; pass `XDG_CACHE_HOME` to test the cache itself). Diagnostics are off
 * (`diagnosticsOffEnv`; `withDiagnosticsDefault` gives them back).
 */
export function cleanEnv(extra: Record<string, string> = {}): Record<string, string> {
	const env: Record<string, string> = {
		NO_COLOR: "1",
		HOME: join(tmpdir(), `toolbelt-test-no-home-${process.pid}`),
		XDG_CACHE_HOME: sharedCacheHome(),
		...diagnosticsOffEnv,
	};
	for (const name of ["PATH", "TMPDIR", "LANG", "SYSTEMROOT"]) {
		const value = process.env[name];
		if (value !== undefined) env[name] = value;
	}
	return { ...env, ...extra };
}

/** What a finished CLI process produced. */
export interface CliRun {
	code: number | null;
	signal: NodeJS.Signals | null;
	stdout: string;
	stderr: string;
}

/** How a CLI process of a test is started. */
export interface CliRunOptions {
	/** Working directory. Default: the repository root. */
	cwd?: string;
	/** The whole environment. Default: `cleanEnv()`. */
	env?: Record<string, string>;
	/** Written to stdin, which is then closed. Default: nothing. */
	input?: string;
	/** Who starts it (see `test/helpers/test-users.ts`). Default: the user running the tests. */
	user?: TestUser;
	/** A program the CLI is started through, as that user (e.g. `keyctl session - …`). Default: none. */
	through?: string[];
}

/** Runs and tracks child processes of the built CLI; `killAll` in `afterEach` leaves none behind. */
export class CliProcesses {
	private readonly children = new Set<ChildProcess>();

	/** Starts the CLI; resolves when it exits. `input` is written to stdin, which is then closed. */
	start(args: string[], options: CliRunOptions = {}): { child: ChildProcess; done: Promise<CliRun> } {
		const user = options.user ?? "root";
		const [file, ...prefix] = [...userPrefix(user), ...(options.through ?? []), process.execPath];
		const env = { ...(options.env ?? cleanEnv()) };
		// The shared cache is the user's own: the other user's folder is private to them.
		if (env.XDG_CACHE_HOME === sharedCacheHome()) env.XDG_CACHE_HOME = sharedCacheHome(user);
		const child = spawn(file ?? process.execPath, [...prefix, ensureBuiltCli(), ...args], {
			cwd: options.cwd ?? repositoryRoot,
			env,
			stdio: ["pipe", "pipe", "pipe"],
		});
		this.children.add(child);
		let stdout = "";
		let stderr = "";
		child.stdout?.on("data", (chunk: Buffer) => {
			stdout += chunk.toString();
		});
		child.stderr?.on("data", (chunk: Buffer) => {
			stderr += chunk.toString();
		});
		child.stdin?.end(options.input ?? "");
		const done = new Promise<CliRun>((resolve, reject) => {
			child.on("error", reject);
			child.on("close", (code, signal) => {
				this.children.delete(child);
				resolve({ code, signal, stdout, stderr });
			});
		});
		return { child, done };
	}

	/** Starts the CLI and waits for it to exit. */
	run(args: string[], options: CliRunOptions = {}): Promise<CliRun> {
		return this.start(args, options).done;
	}

	/** Kills every child still running. */
	killAll(): void {
		for (const child of this.children) child.kill("SIGKILL");
		this.children.clear();
	}
}
