import { execFile } from "node:child_process";
import { access, constants, mkdir, realpath } from "node:fs/promises";
import { delimiter, isAbsolute, join, resolve } from "node:path";
import type { ShellExecRequest, ShellOperations } from "../tools/shell/types.js";

/** Options of the bubblewrap sandbox for shell commands. */
export interface SandboxOptions {
	/** Directories the sandboxed shell may write (the workspace roots). Everything else is read-only. */
	writableRoots: readonly string[];
	/** More writable directories (e.g. a package cache). Default: none. */
	writablePaths?: readonly string[];
	/** Keep the network. Default: false (the sandbox has only its own loopback). */
	allowNetwork?: boolean;
	/**
	 * Run each command in its own PID namespace, so nothing it starts outlives it (background
	 * processes end with the command) and it cannot see or signal other processes. Default: true.
	 */
	isolateProcesses?: boolean;
	/** The bwrap executable. Default: `bwrap` on PATH. */
	bwrapPath?: string;
}

/** Thrown when a sandbox was asked for and cannot be had. Never silently run unsandboxed. */
export class SandboxUnavailableError extends Error {
	constructor(message: string) {
		super(message);
		this.name = "SandboxUnavailableError";
	}
}

/** Paths inside a writable root that stay read-only in the sandbox: code outside it would run what they hold. */
const readOnlyInsideRoots = [".toolbelt", ".git/hooks", ".git/config"];

/**
 * The bwrap arguments (up to and including `--`) that run a program with the whole file system
 * read-only, `/tmp` private and empty, a fresh `/dev` and `/proc`, the writable roots writable
 * except their settings and git hooks, no network unless allowed, and no survival past its parent.
 * Pass real paths: bind mounts are made at the paths given.
 */
export function buildBwrapArgs(options: SandboxOptions & { cwd: string }): string[] {
	const args = ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp"];
	for (const path of [...options.writableRoots, ...(options.writablePaths ?? [])]) args.push("--bind", path, path);
	for (const root of options.writableRoots) {
		for (const inside of readOnlyInsideRoots) args.push("--ro-bind-try", join(root, inside), join(root, inside));
	}
	if (!options.allowNetwork) args.push("--unshare-net");
	if (options.isolateProcesses !== false) args.push("--unshare-pid");
	args.push("--unshare-ipc", "--die-with-parent", "--new-session", "--chdir", options.cwd, "--");
	return args;
}

async function findOnPath(name: string): Promise<string | undefined> {
	if (isAbsolute(name) || name.includes("/")) {
		return (await access(name, constants.X_OK).then(
			() => true,
			() => false,
		))
			? resolve(name)
			: undefined;
	}
	for (const directory of (process.env.PATH ?? "").split(delimiter)) {
		if (directory === "") continue;
		const candidate = join(directory, name);
		if (
			await access(candidate, constants.X_OK).then(
				() => true,
				() => false,
			)
		)
			return candidate;
	}
	return undefined;
}

function probe(bwrapPath: string, args: string[]): Promise<string | undefined> {
	return new Promise((resolvePromise) => {
		execFile(bwrapPath, [...args, "/bin/sh", "-c", "true"], { timeout: 10_000 }, (error, _stdout, stderr) => {
			resolvePromise(error ? stderr.trim() || error.message : undefined);
		});
	});
}

/** A sandbox that has been checked to work on this machine. */
export interface Sandbox {
	/** The bwrap executable in use. */
	bwrapPath: string;
	/** The options, with roots resolved to real paths. */
	options: SandboxOptions;
	/** The bwrap arguments for a command run in `cwd`. */
	argsFor(cwd: string): string[];
	/** Wraps shell operations so every command runs inside the sandbox (for the bash tool's `operations` option). */
	wrap(operations: ShellOperations): ShellOperations;
}

/**
 * Checks that bubblewrap is installed and can create its namespaces here, then returns the
 * sandbox. Throws `SandboxUnavailableError` with what to do when it is not Linux, bwrap is
 * missing, or namespaces are not permitted — a sandbox that was asked for is never skipped.
 */
export async function createSandbox(options: SandboxOptions): Promise<Sandbox> {
	if (process.platform !== "linux") {
		throw new SandboxUnavailableError(
			`The shell sandbox needs Linux with bubblewrap; this is ${process.platform}. Run without the sandbox option.`,
		);
	}
	const bwrapPath = await findOnPath(options.bwrapPath ?? "bwrap");
	if (!bwrapPath) {
		throw new SandboxUnavailableError(
			`The shell sandbox was requested but bubblewrap (${options.bwrapPath ?? "bwrap"}) is not installed or not executable. ` +
				"Install it (Debian/Ubuntu package `bubblewrap`) or run without the sandbox; commands are not run unsandboxed.",
		);
	}
	const writableRoots = await Promise.all(options.writableRoots.map((root) => realpath(root)));
	const writablePaths = await Promise.all((options.writablePaths ?? []).map((path) => realpath(path)));
	// The settings folder must exist to be mounted read-only; a sandboxed command could otherwise
	// create it and plant hooks that the next session would run outside the sandbox.
	await Promise.all(writableRoots.map((root) => mkdir(join(root, ".toolbelt"), { recursive: true })));
	const resolved: SandboxOptions = { ...options, writableRoots, writablePaths, bwrapPath };
	const argsFor = (cwd: string) => buildBwrapArgs({ ...resolved, cwd });
	const failure = await probe(bwrapPath, argsFor(writableRoots[0] ?? "/"));
	if (failure !== undefined) {
		throw new SandboxUnavailableError(
			`The shell sandbox was requested but bubblewrap cannot run here: ${failure}. ` +
				"It needs unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1) or a setuid bwrap. Commands are not run unsandboxed.",
		);
	}
	return {
		bwrapPath,
		options: resolved,
		argsFor,
		wrap: (operations) => {
			const sandboxed = <TRequest extends Omit<ShellExecRequest, "onData">>(request: TRequest): TRequest => ({
				...request,
				file: bwrapPath,
				args: [...argsFor(request.cwd), request.file, ...request.args],
			});
			const { execToFile } = operations;
			return {
				isDirectory: (path) => operations.isDirectory(path),
				findExecutable: (name, env) => operations.findExecutable(name, env),
				exec: (request: ShellExecRequest) => operations.exec(sandboxed(request)),
				// Output straight into a file works the same: the command inside writes to what it is given.
				...(execToFile
					? { execToFile: (request, outputFile) => execToFile.call(operations, sandboxed(request), outputFile) }
					: {}),
			};
		},
	};
}
