import { dirname, sep } from "node:path";
import type { HiddenPath } from "./credentials.js";

/** Everything the bwrap command line of one call is made from; paths are real paths. */
export interface BwrapLayout {
	/** Writable directories: the workspace roots and the user's `writablePaths`. */
	writable: readonly string[];
	/** Paths that stay read-only although they lie in a writable directory (they exist). */
	readOnly?: readonly string[];
	/** Credential locations to hide: a tmpfs over a directory, `/dev/null` over a file. */
	hidden?: readonly HiddenPath[];
	/** Keep the network. Default: false. */
	allowNetwork?: boolean;
	/** A PID namespace of its own. Default: true. */
	isolateProcesses?: boolean;
	/** The descriptor bwrap reads the seccomp program from, when there is one. Default: none. */
	seccompFd?: number;
	/**
	 * The command's user and group inside its user namespace, mapped to the same ids outside, so
	 * what it creates belongs to the invoking user (root stays uid 0, without a capability).
	 */
	identity: { uid: number; gid: number };
	/** Add `--disable-userns` (bwrap 0.8 and later): no nested user namespace, besides the seccomp filter's refusal. Default: false. */
	disableNestedUserNamespaces?: boolean;
	/** Files mounted read-only over a path (after the hidden ones, so one may stand in for a hidden file). Default: none. */
	files?: readonly { source: string; target: string }[];
	/** Variables set inside (`--setenv`), over the inherited ones. Default: none. */
	setenv?: Readonly<Record<string, string>>;
	/**
	 * bwrap's descriptor for each step of `bindSteps(writable, readOnly, hidden)`, in that order (see
	 * `openBindSources`): each path is bound from the folder or file opened and checked before
	 * (`--bind-fd`), never looked up again by its path. Default: none (every source by its path).
	 */
	sources?: readonly number[];
	/** Working directory of the command. */
	cwd: string;
}

/** One path bound onto itself, writable or read-only. */
export interface BindStep {
	path: string;
	writable: boolean;
}

const isInside = (path: string, directory: string) => path === directory || path.startsWith(directory + sep);

/**
 * The folders between a writable directory and each read-only path or other writable path inside
 * it (neither end included), outside every read-only path, shallowest first. Bound onto
 * themselves, writable as before, they become mount points, which the kernel will not let a
 * rename or rmdir move: else `mv tools old && mkdir tools` would leave the read-only bind behind in
 * `old` and let a command plant a new `tools/fsmonitor.sh` or `tools/hooks/pre-commit` where git
 * looks on the host, or put a link to a host folder where a writable path was, for the next
 * call's bind to follow. The same for a hidden credential location (`hidden`) inside a writable
 * path: else `mv ~/.local/share ~/.local/share.x` left `keyrings` for the next call to find under no
 * name it hides.
 */
export function pinnedFolders(
	writable: readonly string[],
	readOnly: readonly string[],
	hidden: readonly string[] = [],
): string[] {
	const pinned = new Set<string>();
	for (const path of [...readOnly, ...writable, ...hidden]) {
		const outer = writable.filter((directory) => isInside(path, directory) && directory !== path);
		if (outer.length === 0) continue;
		const deepest = outer.reduce((left, right) => (right.length > left.length ? right : left));
		for (let folder = dirname(path); folder.length > deepest.length; folder = dirname(folder)) {
			if (!readOnly.some((protectedPath) => isInside(folder, protectedPath))) pinned.add(folder);
		}
	}
	return [...pinned].sort((a, b) => a.length - b.length);
}

/**
 * The paths bound onto themselves, in bwrap's order: the writable directories and the pinned
 * folders (shorter paths first, so a parent's bind never covers a child's), then the protected
 * paths read-only on top of them (so no writable bind can uncover one), then the writable paths the
 * user named inside a protected one.
 */
export function bindSteps(
	writable: readonly string[],
	readOnly: readonly string[],
	hidden: readonly HiddenPath[] = [],
): BindStep[] {
	const byDepth = [...writable].sort((a, b) => a.length - b.length);
	const insideProtected = (path: string) => readOnly.some((protectedPath) => isInside(path, protectedPath));
	const pinned = pinnedFolders(
		writable,
		readOnly,
		hidden.map((entry) => entry.path),
	);
	const writableBinds = [...new Set([...byDepth.filter((path) => !insideProtected(path)), ...pinned])];
	return [
		...writableBinds.sort((a, b) => a.length - b.length).map((path) => ({ path, writable: true })),
		...readOnly.map((path) => ({ path, writable: false })),
		...byDepth.filter(insideProtected).map((path) => ({ path, writable: true })),
	];
}

/**
 * The bwrap arguments (up to and including `--`): the whole file system read-only, `/tmp` private
 * and empty, a fresh `/dev` and `/proc` (its `/proc/sys` read-only, also for root), the writable directories writable, then the protected
 * paths read-only on top of them (so no writable bind can uncover one), each folder on the way to
 * one bound onto itself first (so it cannot be renamed away) — except a writable path the
 * user named inside a protected one — then the credentials hidden; a user namespace of its own
 * with every capability dropped (also for root: the mounts cannot be undone from inside), no
 * network unless allowed, the seccomp filter when given, and no survival past the parent.
 */
export function buildBwrapArgs(layout: BwrapLayout): string[] {
	// The kernel lets uid 0 write /proc/sys without a capability (its check is the uid), and bwrap's
	// own cover of it is skipped (access() reports the folder read-only): as root a command could set
	// kernel.core_pattern or kernel.modprobe to a program of its own, which the kernel then runs as
	// the host's root. The host's /proc/sys shows the same settings (per-namespace ones by the reader's).
	const args = ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--ro-bind", "/proc/sys", "/proc/sys"];
	args.push("--tmpfs", "/tmp");
	for (const [index, step] of bindSteps(layout.writable, layout.readOnly ?? [], layout.hidden).entries()) {
		const fd = layout.sources?.[index];
		if (fd === undefined) args.push(step.writable ? "--bind" : "--ro-bind", step.path, step.path);
		else args.push(step.writable ? "--bind-fd" : "--ro-bind-fd", String(fd), step.path);
	}
	for (const hidden of layout.hidden ?? []) {
		if (hidden.kind === "directory") args.push("--tmpfs", hidden.path);
		else args.push("--ro-bind", "/dev/null", hidden.path);
	}
	for (const file of layout.files ?? []) args.push("--ro-bind", file.source, file.target);
	const { uid, gid } = layout.identity;
	args.push("--unshare-user", "--uid", String(uid), "--gid", String(gid), "--cap-drop", "ALL");
	if (layout.disableNestedUserNamespaces) args.push("--disable-userns");
	if (!layout.allowNetwork) args.push("--unshare-net");
	if (layout.isolateProcesses !== false) args.push("--unshare-pid");
	if (layout.seccompFd !== undefined) args.push("--seccomp", String(layout.seccompFd));
	for (const [name, value] of Object.entries(layout.setenv ?? {})) args.push("--setenv", name, value);
	args.push("--unshare-ipc", "--die-with-parent", "--new-session", "--chdir", layout.cwd, "--");
	return args;
}
