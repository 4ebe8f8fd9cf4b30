import { type ChildProcess, spawn } from "node:child_process";
import { statSync } from "node:fs";
import type { Socket } from "node:net";
import type { Writable } from "node:stream";
import { registerSessionCleanup } from "../process/background-registry.js";
import {
	beginCgroupProbe,
	cgroupsInUse,
	deferredJoinCgroupScript,
	killCommandCgroup,
	settleCgroupProbe,
} from "../process/cgroup.js";
import {
	attachRoot,
	createProcessContainment,
	type ProcessContainment,
	releaseContainment,
} from "../process/containment.js";
import { keepOrRelease } from "./left-running.js";
import { wrapperName, wrapperScript, wrapperShell } from "./output-relay.js";
import { launchScript, type StandbyCommand } from "./standby-launch.js";

/**
 * A shell that already sits in the next command's cgroup, waiting for that command. Moving a
 * process into a cgroup waits for an RCU grace period (about 10 ms, longer on a busy machine,
 * and serialized across the machine), which was most of the fixed cost of a short command. A
 * process is born in its parent's cgroup at no cost: so once a call's result is out, the next
 * command's wrapper shell is started, joins a fresh cgroup and waits. The next call hands it the
 * command (its environment, arguments and output file, on a socket) and it becomes the command as
 * the usual wrapper does (`output-relay.ts`): every process of the command is in that cgroup, as
 * before. The shell waits with an empty environment, so it carries no caller's variables.
 *
 * Only for output into a file (the relay), where a cgroup is used, and for the working folder it
 * was started in. The first one is started by the first call of a process
 * (`prepareFirstStandbyShell`), which it then runs, and tells whether it could join: that decides
 * whether commands run in cgroups at all, in place of a blocking probe at the first call. After
 * that, one after each call's result. A shell that could not join says so and exits 125 once it
 * has its command, as a fresh one would.
 *
 * Why after the result, not while the command runs: starting a shell is a fork of this process,
 * which blocks its event loop until the child has exec'd (3-15 ms, more with more memory and on a
 * busy machine). Started during a short command, it held up that command's result by as much; after
 * the result, it overlaps the model's reading of it. Its join then also lands on no removal of this
 * call's cgroup: a join holds the hierarchy's lock through its grace period, and a removal (on the
 * event loop) waits for it.
 */
interface StandbyShell {
	containment: ProcessContainment;
	child: ChildProcess;
	cwd: string;
	exited: boolean;
	/** Forgets the session cleanup that ends the shell while it waits. */
	unregister: () => void;
	/**
	 * The first shell, until it said whether it joined its cgroup. It may be handed its command
	 * before (it reads it only after saying): then the answer settles the command's containment.
	 */
	probing: Promise<void> | undefined;
	/** True once it was handed a command. */
	launched: boolean;
}

let waiting: StandbyShell | undefined;
/** Calls begun in this process: a standby due after one call's result is not made once another began. */
let callsBegun = 0;
let startedFromStandby = 0;

/** How long the first standby may take to say whether it joined, in ms (the blocking probe's limit). */
const joinReportTimeoutMs = 5000;

/** How many commands started from a standby shell in this process (for tests and diagnostics). */
export function standbyShellStarts(): number {
	return startedFromStandby;
}

/**
 * Joins the cgroup, then waits for the launch on fd 4: its length in bytes on one line, then the
 * script, read in one go (`read -N` reads a pipe in chunks, where other forms read byte by byte;
 * the waiting shell's locale is C, so characters are bytes). fd 4 is a socket, which no other
 * process can open through `/proc` to slip in a launch of its own. An empty or short launch
 * (toolbelt went away) ends the shell.
 */
function standbyScript(cgroup: string, reportJoin: boolean): string {
	const { join, refuseUnlessJoined } = deferredJoinCgroupScript(cgroup);
	return [
		"set +o posix",
		join,
		// The first standby's stdout is a pipe to toolbelt until the launch points it at the output.
		// It says before it reads its command, so the answer is there before the command runs.
		...(reportJoin ? ['if [ -n "$toolbelt_not_joined" ]; then echo no; else echo yes; fi'] : []),
		"IFS= read -r -u 4 toolbelt_launch_bytes || exit 0",
		'case "$toolbelt_launch_bytes" in "" | *[!0-9]*) exit 0 ;; esac',
		'IFS= read -r -N "$toolbelt_launch_bytes" -u 4 toolbelt_launch || exit 0',
		"exec 4<&-",
		'eval "$toolbelt_launch"',
		"unset toolbelt_launch toolbelt_launch_bytes",
		'[ "$#" -gt 0 ] || exit 0',
		// The first one runs its command in its process group when it could not join: that is
		// how every command runs once cgroups are found unusable (toolbelt learns it from the answer).
		...(reportJoin ? [] : [refuseUnlessJoined]),
		wrapperScript,
	].join("\n");
}

/**
 * True when the standby works in `cwd`, the same folder still (not one made anew at that path
 * since), and is alive: a dead one's `/proc` entry has no working folder to show.
 */
function sameFolder(shell: StandbyShell, cwd: string): boolean {
	if (shell.cwd !== cwd) return false;
	try {
		const waitsIn = statSync(`/proc/${shell.child.pid}/cwd`);
		const wanted = statSync(cwd);
		return waitsIn.ino === wanted.ino && waitsIn.dev === wanted.dev;
	} catch {
		return false;
	}
}

function streamsOf(child: ChildProcess): (Socket | null | undefined)[] {
	return [child.stdin, child.stdio[3], child.stdio[4]] as (Socket | null | undefined)[];
}

/**
 * Ends a standby that will not be used and removes its cgroup once it is empty, and the cgroup
 * made ahead for the one after it.
 */
function discard(shell: StandbyShell): Promise<void> {
	shell.unregister();
	// Whoever waits for the disposal waits for this exit: it must keep the process alive.
	shell.child.ref();
	if (shell.containment.tree.cgroup !== undefined) killCommandCgroup(shell.containment.tree.cgroup);
	// One that could not join is not in the cgroup.
	shell.child.kill("SIGKILL");
	const exited = shell.exited
		? Promise.resolve()
		: new Promise<void>((resolve) => shell.child.once("exit", () => resolve()));
	return exited.then(() => keepOrRelease(shell.containment.tree, { background: false, openRelayPid: undefined }));
}

/**
 * The first standby, handed its command, answered: when it could not join, its command runs in
 * its process group (with the marker), as every command does from now on; when it stayed silent
 * (wedged in the join), it is killed both ways, before or while it runs its command.
 */
function settleLaunchedProbe(shell: StandbyShell, joined: boolean | undefined, timedOut: boolean): void {
	const { containment } = shell;
	const cgroup = containment.tree.cgroup;
	if (joined === false) {
		containment.mechanism = "process-group";
		containment.joinScript = "";
		delete containment.tree.cgroup;
	} else if (joined === undefined && timedOut) {
		if (cgroup !== undefined) killCommandCgroup(cgroup);
		try {
			if (shell.child.pid !== undefined) process.kill(-shell.child.pid, "SIGKILL");
		} catch {
			// Gone already.
		}
	}
}

/**
 * Waits for the first standby to say whether it joined its cgroup, and settles with that whether
 * commands use cgroups. Without an answer (it died, or stayed silent) the next command's
 * containment decides by the blocking probe. A shell that is not to be used is discarded, unless
 * it was handed its command already (see `settleLaunchedProbe`).
 */
function awaitJoinReport(shell: StandbyShell): Promise<void> {
	const { stdout } = shell.child;
	return new Promise<void>((resolve) => {
		let text = "";
		let answered = false;
		const done = (joined: boolean | undefined, timedOut = false) => {
			if (answered) return;
			answered = true;
			clearTimeout(timer);
			shell.probing = undefined;
			stdout?.destroy();
			const usable = joined !== undefined && settleCgroupProbe(joined) && joined;
			if (shell.launched) settleLaunchedProbe(shell, joined, timedOut);
			else if (!usable && waiting === shell) {
				waiting = undefined;
				void discard(shell);
			}
			resolve();
		};
		// The pipe stays referenced until the answer: a call waiting for it keeps the process alive.
		// Decided after the next poll of the event loop: an answer that is waiting in the pipe
		// (the loop was blocked past the limit) is read first.
		const timer = setTimeout(() => setImmediate(() => done(undefined, true)), joinReportTimeoutMs);
		timer.unref();
		stdout?.setEncoding("latin1");
		stdout?.on("data", (chunk: string) => {
			text += chunk;
			if (text.includes("\n")) done(text.startsWith("yes\n"));
		});
		stdout?.on("error", () => done(undefined));
		stdout?.on("close", () => done(undefined));
	});
}

function spawnStandby(cwd: string, shellPath: string, probeCgroup?: string): StandbyShell | undefined {
	const probing = probeCgroup !== undefined;
	const containment = createProcessContainment(probing ? { cgroup: probeCgroup } : {});
	const cgroup = containment.tree.cgroup;
	if (cgroup === undefined) return undefined;
	let child: ChildProcess;
	try {
		child = spawn(shellPath, ["--norc", "--noprofile", "-c", standbyScript(cgroup, probing), wrapperName], {
			cwd,
			detached: true,
			env: {},
			stdio: ["pipe", probing ? "pipe" : "ignore", "ignore", "pipe", "pipe"],
		});
	} catch {
		releaseContainment(containment.tree);
		return undefined;
	}
	attachRoot(containment, child.pid);
	const shell: StandbyShell = {
		containment,
		child,
		cwd,
		exited: false,
		unregister: () => {},
		probing: undefined,
		launched: false,
	};
	child.on("error", () => {
		shell.exited = true;
	});
	child.once("exit", () => {
		shell.exited = true;
		if (waiting === shell) {
			waiting = undefined;
			void discard(shell);
		}
	});
	// Waiting keeps neither the process alive nor a pipe error from surfacing.
	child.unref();
	for (const stream of streamsOf(child)) {
		stream?.on("error", () => {});
		stream?.unref();
	}
	if (child.pid === undefined) {
		void discard(shell);
		return undefined;
	}
	if (probing) shell.probing = awaitJoinReport(shell);
	shell.unregister = registerSessionCleanup({
		killNow: () => {
			killCommandCgroup(cgroup);
			child.kill("SIGKILL");
		},
		dispose: () => {
			if (waiting === shell) waiting = undefined;
			return discard(shell);
		},
	});
	return shell;
}

/** A command handed to a standby shell. */
export interface StandbyStart {
	/** The shell's process, now the command's (`stdio[3]` its relay channel). */
	child: ChildProcess;
	/** The command's containment. */
	containment: ProcessContainment;
	/**
	 * Set while the first standby has not yet said whether it joined its cgroup: settles once it
	 * did, and `containment` is final (a process group when it could not join).
	 */
	probing: Promise<void> | undefined;
}

/**
 * Hands `command` to the waiting standby shell, if there is one for its folder. The first one may
 * not have said yet whether it joined its cgroup: it reads the command once it did, so the
 * command waits for no round trip through toolbelt. Undefined when the command has to start afresh.
 */
export function startFromStandby(command: StandbyCommand): StandbyStart | undefined {
	callsBegun++;
	const shell = waiting;
	if (!shell) return undefined;
	waiting = undefined;
	const launch = shell.exited || !sameFolder(shell, command.cwd) ? undefined : launchScript(command, shell.containment);
	if (launch === undefined) {
		void discard(shell);
		return undefined;
	}
	shell.unregister();
	shell.launched = true;
	shell.child.ref();
	for (const stream of streamsOf(shell.child)) stream?.ref();
	(shell.child.stdio[4] as Writable).end(`${Buffer.byteLength(launch)}\n${launch}`);
	startedFromStandby++;
	return { child: shell.child, containment: shell.containment, probing: shell.probing };
}

/**
 * Starts the standby shell for the next command in `cwd` once a call's result is out (see the top
 * of this file): on the next turn of the event loop, when the result is on its way. Not when
 * another call began meanwhile (it starts its own shell as it begins, in its own folder), one
 * waits already, or cgroups are not used here.
 */
export function prepareStandbyShell(cwd: string): void {
	const begun = callsBegun;
	const due = setImmediate(() => {
		unregister();
		// Whether cgroups are used is asked, not decided here (deciding could run the blocking probe).
		if (callsBegun !== begun || waiting || !wrapperShell || !cgroupsInUse()) return;
		waiting = spawnStandby(cwd, wrapperShell);
	});
	// Shell processes disposed of (or toolbelt ending) before that turn: no shell is started after.
	const unregister = registerSessionCleanup({
		killNow: () => clearImmediate(due),
		dispose: async () => {
			unregister();
			clearImmediate(due);
		},
	});
}

/**
 * At the first command of a process: decides whether commands run in cgroups by starting that
 * command's shell as a standby, which tries to join one and says whether it could, instead of a
 * blocking probe (which then also starts its own shell). Nothing when that is
 * decided already, or without the relay's shell.
 */
export function prepareFirstStandbyShell(cwd: string): void {
	if (waiting || !wrapperShell) return;
	const cgroup = beginCgroupProbe();
	if (cgroup === undefined) return;
	waiting = spawnStandby(cwd, wrapperShell, cgroup);
}

/**
 * As a call begins in `cwd`: starts the shell its command will run in, unless one waits already,
 * so that its start and its cgroup join overlap the call's own preparation. The first call of a
 * process starts the first standby (see `prepareFirstStandbyShell`); a later one that finds none
 * waiting (the second command, or one after a command in another folder) starts one as well.
 */
export function prepareCallShell(cwd: string): void {
	callsBegun++;
	if (waiting || !wrapperShell) return;
	if (!cgroupsInUse()) {
		prepareFirstStandbyShell(cwd);
		return;
	}
	waiting = spawnStandby(cwd, wrapperShell);
}
