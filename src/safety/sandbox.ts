import { access, constants, realpath } from "node:fs/promises";
import { homedir } from "node:os";
import { isAbsolute, resolve, sep } from "node:path";
import type { ShellExecRequest, ShellExecResult, ShellOperations, ShellPrepareMoment } from "../tools/index.js";
import { holdBoundPaths } from "../workspace/index.js";
import { findTrustedProgram, noteWritableRoots, SYSTEM_PROGRAM_FOLDERS } from "../workspace/local/index.js";
import { NestedGuard } from "./runs-later/nested-guard.js";
import { TreeTooLargeError } from "./runs-later/tree-watch.js";
import { type BindSources, openBindSources } from "./sandbox/bind-sources.js";
import { bindSteps, buildBwrapArgs } from "./sandbox/bwrap-args.js";
import { credentialsToHide, type HiddenPath } from "./sandbox/credentials.js";
import { descriptorCloserShell } from "./sandbox/descriptor-closer.js";
import { SandboxUnavailableError } from "./sandbox/errors.js";
import { assertHomeOutsideRoots } from "./sandbox/home-folder.js";
import { KeptMountPoints } from "./sandbox/kept-mount-points.js";
import { launched, type SandboxLaunch, seccompFd, startLine } from "./sandbox/launch-line.js";
import type { MountPointLease } from "./sandbox/mount-points.js";
import type { SandboxNetworkOptions } from "./sandbox/network/session.js";
import { explainProbeFailure, lacksDisableUserns, probeSandbox } from "./sandbox/probe.js";
import { assertNoSymbolicLinks, planProtectedPaths } from "./sandbox/protected-paths.js";
import { buildSeccompFilter, seccompArchitecture } from "./sandbox/seccomp/filter.js";
import { contentFile, sandboxStateDir } from "./sandbox/state-dir.js";

export { autoRunEntries } from "./runs-later/auto-run-entries.js";
export { type BwrapLayout, buildBwrapArgs } from "./sandbox/bwrap-args.js";
export { credentialLocations } from "./sandbox/credentials.js";
export { SandboxUnavailableError } from "./sandbox/errors.js";
export type { SandboxLaunch } from "./sandbox/launch-line.js";
export type { NetworkConnectionListener, NetworkConnectionRecord } from "./sandbox/network/audit.js";
export type { HostResolver } from "./sandbox/network/decide.js";
export { NetworkRuleError } from "./sandbox/network/policy.js";
export type { SandboxNetworkOptions } from "./sandbox/network/session.js";

/** Options of the bubblewrap sandbox for shell commands. */
export interface SandboxOptions {
	/**
	 * Directories the sandboxed shell may write (the workspace roots), except their auto-run
	 * entries. Everything else is read-only. A root that is the home folder or holds it is refused.
	 */
	writableRoots: readonly string[];
	/**
	 * More writable directories (e.g. a package cache). A path named here exactly that is also a
	 * protected entry (`<root>/.vscode`, `<root>/.git`) becomes writable. Default: none.
	 */
	writablePaths?: readonly string[];
	/** Keep the network (and host Unix sockets). Default: false (only the sandbox's own loopback, no `socket(AF_UNIX)`). Ignored when `network` is given. */
	allowNetwork?: boolean;
	/**
	 * A network policy: commands reach only the listed hosts, through a proxy this process runs
	 * outside the sandbox (the sandbox itself keeps no network and no host Unix socket). Default: none.
	 */
	network?: SandboxNetworkOptions;
	/**
	 * Run each command in its own PID namespace, so nothing it starts outlives it (background
	 * processes end with the command) and it cannot see or signal other processes. Default: true.
	 */
	isolateProcesses?: boolean;
	/**
	 * The bwrap executable: a path is taken as given; a name is looked for in the system folders, then
	 * in PATH folders no sandboxed command or other user can write (see `findTrustedProgram`). Default: `bwrap`.
	 */
	bwrapPath?: string;
	/** The home directory whose credential locations are hidden. Default: the user's home. */
	homeDir?: string;
	/** Credential locations to leave visible, e.g. `["~/.aws"]`. Default: none (all hidden). */
	exposeCredentials?: readonly string[];
	/** The environment whose `XDG_CONFIG_HOME`, `XDG_STATE_HOME`, `XDG_DATA_HOME` and `XDG_CACHE_HOME` locate more credential locations. Default: `process.env`. */
	environment?: NodeJS.ProcessEnv;
	/** The directory in which `toolbelt-sandbox-<uid>` (the seccomp program, the mount-point records) is made. Default: `$XDG_RUNTIME_DIR`, else the temp dir. */
	stateDir?: string;
}

/** A sandbox that has been checked to work on this machine. */
export interface Sandbox {
	/** The bwrap executable in use. */
	bwrapPath: string;
	/** The options, with roots resolved to real paths. */
	options: SandboxOptions;
	/**
	 * Prepares one call in `cwd`: checks every protection can be set up (else throws
	 * `SandboxUnavailableError` saying which), makes the mount points it needs, and returns the command line.
	 */
	prepare(cwd: string): Promise<SandboxLaunch>;
	/** Wraps shell operations so every command runs inside the sandbox (for the bash tool's `operations` option). */
	wrap(operations: ShellOperations): ShellOperations;
	/**
	 * Removes the folder placeholders the calls kept (empty `.git`, `.vscode`… that were missing; the
	 * process's exit does it too) and stops the network policy's proxy, if there is one (it also ends
	 * with the process). Never throws.
	 */
	close(): Promise<void>;
}

async function isExecutable(path: string): Promise<boolean> {
	return access(path, constants.X_OK).then(
		() => true,
		() => false,
	);
}

/**
 * bwrap runs outside the sandbox, with toolbelt's rights: a path the user gave is taken as given; a
 * name is looked up where no sandboxed command can have planted one (`findTrustedProgram`), after
 * this sandbox's writable folders are noted.
 */
async function findBwrap(name: string): Promise<string | undefined> {
	if (isAbsolute(name) || name.includes("/")) return (await isExecutable(name)) ? resolve(name) : undefined;
	return findTrustedProgram(name);
}

async function seccompFilterFile(stateDir: string, allowNetwork: boolean): Promise<string> {
	const arch = seccompArchitecture();
	if (!arch) {
		throw new SandboxUnavailableError(
			`The sandbox's seccomp filter is written for x86_64 and aarch64; this machine is ${process.arch}. ` +
				"Without it a sandboxed command could make a user namespace (and be root with every capability in it), read kernel keyrings, trace processes and reach host Unix sockets (docker.sock, D-Bus, ssh-agent), so it is not run. Run without the sandbox.",
		);
	}
	if (!(await isExecutable("/bin/sh"))) {
		throw new SandboxUnavailableError(
			"The sandbox needs /bin/sh to hand its seccomp filter to bwrap; there is none here.",
		);
	}
	return contentFile(stateDir, `seccomp-${arch}`, buildSeccompFilter(arch, { blockUnixSockets: !allowNetwork }));
}

/**
 * Checks that bubblewrap is installed and can set up every protection here (namespaces, no
 * capability left to the command, the seccomp filter, the read-only auto-run entries, no root
 * holding the home folder), then
 * returns the sandbox. Throws
 * `SandboxUnavailableError` with what to do when it is not Linux, bwrap is missing, or a
 * protection cannot be had — a sandbox that was asked for is never weakened or skipped.
 */
export async function createSandbox(options: SandboxOptions): Promise<Sandbox> {
	if (process.platform !== "linux") {
		throw new SandboxUnavailableError(
			`The shell sandbox needs Linux with bubblewrap; this is ${process.platform}. Run without the sandbox option.`,
		);
	}
	const writableRoots = await Promise.all(options.writableRoots.map((root) => realpath(root)));
	const writablePaths = await Promise.all((options.writablePaths ?? []).map((path) => realpath(path)));
	noteWritableRoots([...writableRoots, ...writablePaths], { sandbox: true });
	const bwrapPath = await findBwrap(options.bwrapPath ?? "bwrap");
	if (!bwrapPath) {
		const where = options.bwrapPath?.includes("/")
			? `bubblewrap (${options.bwrapPath}) is not installed or not executable`
			: `bubblewrap (${options.bwrapPath ?? "bwrap"}) is not installed where toolbelt may take programs from: ${SYSTEM_PROGRAM_FOLDERS.join(", ")}, then PATH folders that are absolute, outside temp folders and the sandbox's writable folders, and not writable by others`;
		throw new SandboxUnavailableError(
			`The shell sandbox was requested but ${where}. ` +
				"Install it (Debian/Ubuntu package `bubblewrap`), set bwrapPath, or run without the sandbox; commands are not run unsandboxed.",
		);
	}
	if (!(await isExecutable(descriptorCloserShell))) {
		throw new SandboxUnavailableError(
			`The sandbox needs ${descriptorCloserShell} to close, inside it, the descriptors toolbelt inherited (a write through one would land outside the sandbox); there is none here. Install bash, or run without the sandbox.`,
		);
	}
	const namedPaths = (options.writablePaths ?? []).map((path) => resolve(path));
	const homeDir = options.homeDir ?? homedir();
	await assertHomeOutsideRoots(writableRoots, homeDir);
	const stateDir = await sandboxStateDir(options.stateDir);
	// Loaded only for a network policy: its proxy needs node:http, https, tls and dns, and an ES module
	// import of node:http loads Node's fetch implementation (undici) too, several MB of heap that
	// every other process would carry from its first moment (and a full GC in its first call).
	const network = options.network
		? await (await import("./sandbox/network/session.js")).startNetworkSession(options.network, stateDir, {
				environment: options.environment ?? process.env,
				homeDir,
				sharesProcesses: options.isolateProcesses === false,
			})
		: undefined;
	const allowNetwork = options.allowNetwork === true && !network;
	const filterFile = await seccompFilterFile(stateDir, allowNetwork);
	const identity = { uid: process.getuid?.() ?? 0, gid: process.getgid?.() ?? 0 };
	// Known after the probe: a bwrap older than 0.8 lacks it, and the filter refuses nested user namespaces anyway.
	let disableNestedUserNamespaces = true;
	const resolved: SandboxOptions = { ...options, writableRoots, writablePaths, bwrapPath, homeDir, stateDir };
	const writable = [...writableRoots, ...writablePaths];
	const stateIsWritable = writable.some((path) => stateDir === path || stateDir.startsWith(path + sep));

	const nestedGuard = new NestedGuard({ roots: writableRoots });
	const mountPoints = new KeptMountPoints(stateDir);

	const prepare = async (cwd: string): Promise<SandboxLaunch> => {
		const nested = await beginGuarded(nestedGuard);
		let lease: MountPointLease | undefined;
		let sources: BindSources | undefined;
		try {
			const plan = planProtectedPaths({
				roots: writableRoots,
				writablePaths,
				namedPaths,
				homeDir,
				nested: nested.protectedEntries,
			});
			lease = await mountPoints.lease(plan.mountPoints);
			// Names the link, where there is one; the opened sources then make sure none came since.
			assertNoSymbolicLinks(plan.readOnly);
			const readOnly = stateIsWritable ? [...plan.readOnly, stateDir] : plan.readOnly;
			const hidden = credentialsToHide(homeDir, options.exposeCredentials, options.environment);
			sources = openBindSources(bindSteps(writable, readOnly, hidden).map((step) => step.path));
			return launchOf(cwd, { readOnly, hidden, lease, sources, notices: nested.notices });
		} catch (error) {
			sources?.close();
			await lease?.release();
			nestedGuard.end();
			throw error;
		}
	};

	const launchOf = (
		cwd: string,
		call: { readOnly: string[]; hidden: HiddenPath[]; lease: MountPointLease; sources: BindSources; notices: string[] },
	): SandboxLaunch => {
		const { readOnly, hidden, lease, sources, notices } = call;
		const environment = options.environment ?? process.env;
		const networked = network?.launch({ filterFile, bwrapPath, seccompFd, environment });
		let finished = false;
		const finish = () => {
			if (finished) return [];
			finished = true;
			return [...notices, ...nestedGuard.sweep(), ...(networked?.refusals() ?? [])];
		};
		let released = false;
		// Until the call and what it left running are gone, toolbelt's own writes to these keep their inode.
		const unhold = holdBoundPaths(readOnly);
		const release = async () => {
			if (released) return;
			released = true;
			unhold();
			// In a PID namespace nothing of the call runs once it has finished: the sweep then was the last.
			const swept = finished && options.isolateProcesses !== false;
			finish();
			networked?.connections(); // the call's record is dropped if nobody took it
			// bwrap has mounted them by now (or never will): the sandbox ended, or what it left is gone.
			sources.close();
			await lease.release();
			nestedGuard.end({ swept });
		};
		const args = buildBwrapArgs({
			writable,
			readOnly,
			sources: sources.fds,
			hidden,
			allowNetwork,
			isolateProcesses: options.isolateProcesses,
			seccompFd,
			identity,
			disableNestedUserNamespaces,
			files: networked?.binds,
			setenv: networked?.setenv,
			cwd,
		});
		const connections = networked
			? () =>
					networked.connections().map(({ host, port, via, allowed, rule, reason, bytesSent, bytesReceived }) => ({
						host,
						port,
						via,
						allowed,
						...(rule !== undefined ? { rule } : {}),
						...(reason !== undefined ? { reason } : {}),
						bytesSent,
						bytesReceived,
					}))
			: undefined;
		return {
			...startLine(args, { filterFile, bwrapPath, networked, sources: sources.reads }),
			finish,
			release,
			...(connections ? { connections } : {}),
		};
	};

	const probe = async () => {
		const launch = await prepare(writableRoots[0] ?? "/");
		return probeSandbox(launch).finally(() => launch.release());
	};
	let failure = await probe();
	if (failure !== undefined && lacksDisableUserns(failure)) {
		disableNestedUserNamespaces = false;
		failure = await probe();
	}
	if (failure !== undefined) {
		mountPoints.close();
		nestedGuard.close();
		await network?.close();
		throw new SandboxUnavailableError(explainProbeFailure(failure));
	}
	return {
		bwrapPath,
		options: resolved,
		prepare,
		wrap: (operations) => wrapOperations(operations, prepare, options.isolateProcesses !== false),
		close: async () => {
			mountPoints.close();
			nestedGuard.close();
			await network?.close();
		},
	};
}

/** Starts a call in the nested guard; a tree too large to watch refuses the call. */
async function beginGuarded(guard: NestedGuard): ReturnType<NestedGuard["begin"]> {
	try {
		return await guard.begin();
	} catch (error) {
		if (!(error instanceof TreeTooLargeError)) throw error;
		throw new SandboxUnavailableError(
			`${error.message} The sandbox watches them so that a command cannot plant a repository (sub/.git) whose config runs on the host later; without that watch the command is not run. ` +
				"Add the large generated folders to the root's .gitignore (they are then not watched), or run without the sandbox.",
		);
	}
}

const backgroundPollMs = 500;

function isAlive(pid: number): boolean {
	try {
		process.kill(pid, 0);
		return true;
	} catch {
		return false;
	}
}

/**
 * Releases the mount points once the command and what it left running (outside a PID namespace)
 * are gone: at once, awaited, in the usual case, so a process that exits right after the call
 * leaves no placeholder behind.
 */
async function releaseAfter(
	result: ShellExecResult,
	release: () => Promise<void>,
	isolateProcesses: boolean,
): Promise<void> {
	// In a PID namespace everything ends with the sandbox: what looks alive has been SIGKILLed with
	// its namespace's init and never runs again.
	if (isolateProcesses || !result.backgroundPids.some(isAlive)) {
		await release();
		return;
	}
	const timer = setInterval(() => {
		if (result.backgroundPids.some(isAlive)) return;
		clearInterval(timer);
		void release();
	}, backgroundPollMs);
	timer.unref();
}

function wrapOperations(
	operations: ShellOperations,
	prepare: Sandbox["prepare"],
	isolateProcesses: boolean,
): ShellOperations {
	const run = async <TResult extends ShellExecResult>(
		request: { cwd: string },
		start: (launch: SandboxLaunch) => Promise<TResult>,
	): Promise<TResult> => {
		const launch = await prepare(request.cwd);
		let result: TResult;
		try {
			result = await start(launch);
		} catch (error) {
			await launch.release();
			throw error;
		}
		const notices = launch.finish();
		const network = launch.connections?.() ?? [];
		await releaseAfter(result, launch.release, isolateProcesses);
		const audited = network.length > 0 ? { ...result, network } : result;
		return notices.length > 0 ? { ...audited, notices: [...(result.notices ?? []), ...notices] } : audited;
	};
	const { execToFile, prepare: prepareShell } = operations;
	const opensDescriptors = operations.opensDescriptors === true;
	return {
		isDirectory: (path) => operations.isDirectory(path),
		findExecutable: (name, env) => operations.findExecutable(name, env),
		// The shell that will start bwrap runs outside the sandbox, as for a call without one.
		...(prepareShell
			? { prepare: (cwd: string, moment?: ShellPrepareMoment) => prepareShell.call(operations, cwd, moment) }
			: {}),
		exec: (request: ShellExecRequest) =>
			run(request, (launch) => operations.exec({ ...request, ...launched(request, launch, opensDescriptors) })),
		// Output straight into a file works the same: the command inside writes to what it is given.
		...(execToFile
			? {
					execToFile: (request, outputFile) =>
						run(request, (launch) =>
							execToFile.call(operations, { ...request, ...launched(request, launch, opensDescriptors) }, outputFile),
						),
				}
			: {}),
	};
}
