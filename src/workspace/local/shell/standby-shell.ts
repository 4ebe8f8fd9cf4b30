import { type ChildProcess, spawn } from "node:child_process";
import { statSync } from "node:fs";
import type { Socket } from "node:net";
import type { Writable } from "node:stream";
import { registerSessionCleanup } from "../process/background-registry.js";
import {
	beginCgroupProbe,
	cgroupsInUse,
	discardPreparedCgroup,
	killCommandCgroup,
	prepareCommandCgroup,
	settleCgroupProbe,
} from "../process/cgroup.js";
import {
	attachRoot,
	createProcessContainment,
	type ProcessContainment,
	releaseContainment,
} from "../process/containment.js";
import { keepOrRelease } from "./left-running.js";
import { relayAheadTarget, relayCat, wrapperName, wrapperShell } from "./output-relay.js";
import { launchScript, type StandbyCommand, standbyScript } from "./standby-launch.js";

/**
 * A shell that already sits in the next command's cgroup, waiting for that command. Moving a
 * process into a cgroup waits for an RCU grace period (about 10 ms, longer on a busy machine,
 * and serialized across the machine), which was most of the fixed cost of a short command. A
 * process is born in its parent's cgroup at no cost: so while one command runs, the next one's
 * wrapper shell is started, joins a fresh cgroup and waits. The next call hands it the command
 * (its environment, arguments and output file, on a socket) and it becomes the command as the
 * usual wrapper does (`output-relay.ts`): every process of the command is in that cgroup, as
 * before. The shell waits with an empty environment, so it carries no caller's variables.
 *
 * Only for output into a file (the relay), where a cgroup is used, and for the working folder it
 * was started in. The first one is started as the first shell tool of a process is created (or by
 * its first call; `prepareFirstStandbyShell`), runs that call's command, and tells whether it could join: that decides
 * whether commands run in cgroups at all, in place of a blocking probe at the first call. A shell
 * that could not join says so and exits 125 once it has its command, as a fresh one would.
 *
 * When the next one is started: starting a shell is a fork of this process, which blocks its event
 * loop until the child has exec'd (2-3 ms quiet, 15 ms and more on a busy machine). Calls that
 * come one after another (a batch, a program) start it while a command runs, where the fork
 * overlaps that command (`prepareStandbyShell`); calls a model's reply apart start it once a call's
 * result is out (`prepareStandbyAfterResult`), so that a short command's result never waits for
 * the fork, and the shell joins while the model reads.
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
	/** True while it waits for a word from toolbelt before it joins its cgroup (see `releaseStandbyShell`). */
	held: boolean;
}

let waiting: StandbyShell | undefined;
/** Calls begun in this process: a standby due after one call's result is not made once another began. */
let callsBegun = 0;
/** When the last result that starts a standby went out (`performance.now()`), or never. */
let lastResultAt = Number.NEGATIVE_INFINITY;
/**
 * A command begun within this many ms of the last result belongs to calls made one after another
 * (no model's reply between them): the next shell is started while it runs.
 */
const backToBackMs = 50;
let startedFromStandby = 0;

/** How long the first standby may take to say whether it joined, in ms (the blocking probe's limit). */
const joinReportTimeoutMs = 5000;

/** How many commands started from a standby shell in this process (for tests and diagnostics). */
export function standbyShellStarts(): number {
	return startedFromStandby;
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

/** Its pipes: stdin, the first one's answer (stdout), the relay's channel (3) and the launch (4). */
function streamsOf(child: ChildProcess): (Socket | null | undefined)[] {
	return [child.stdin, child.stdout, child.stdio[3], child.stdio[4]] as (Socket | null | undefined)[];
}

/** SIGKILLs the standby's process group (it leads one: spawned detached), else the shell alone. */
function killGroup(child: ChildProcess): void {
	try {
		if (child.pid !== undefined) {
			process.kill(-child.pid, "SIGKILL");
			return;
		}
	} catch {
		// No group left: the shell alone, if it is still there.
	}
	child.kill("SIGKILL");
}

/**
 * Ends a standby that will not be used and removes its cgroup once it is empty, and the cgroup
 * made ahead for the one after it.
 */
function discard(shell: StandbyShell): Promise<void> {
	shell.unregister();
	discardPreparedCgroup();
	// Whoever waits for the disposal waits for this exit: it must keep the process alive.
	shell.child.ref();
	if (shell.containment.tree.cgroup !== undefined) killCommandCgroup(shell.containment.tree.cgroup);
	// One that could not join is not in the cgroup: its process group holds it and its relay. Once
	// the shell is reaped its pid may name another group: its relay then ends with the streams.
	if (!shell.exited) killGroup(shell.child);
	// A relay that outlived its shell sees the end of its fd 3 and exits.
	for (const stream of streamsOf(shell.child)) stream?.destroy();
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
		killGroup(shell.child);
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
		// The pipe is referenced once a call is handed the command (`startFromStandby`): a call waiting
		// for the answer keeps the process alive, a standby made as a tool was created does not.
		// Decided after the next poll of the event loop: an answer that is waiting in the pipe
		// (the loop was blocked past the limit) is read first.
		const timer = setTimeout(() => setImmediate(() => done(undefined, true)), joinReportTimeoutMs);
		timer.unref();
		// Buffers turned to text here: `setEncoding` loads a string decoder on a process's first call.
		stdout?.on("data", (chunk: Buffer) => {
			text += chunk.toString("latin1");
			if (text.includes("\n")) done(text.startsWith("yes\n"));
		});
		stdout?.on("error", () => done(undefined));
		stdout?.on("close", () => done(undefined));
	});
}

function spawnStandby(
	cwd: string,
	shellPath: string,
	options: { probeCgroup?: string; held?: boolean } = {},
): StandbyShell | undefined {
	const { probeCgroup, held = false } = options;
	const probing = probeCgroup !== undefined;
	const containment = createProcessContainment(probing ? { cgroup: probeCgroup } : {});
	const cgroup = containment.tree.cgroup;
	if (cgroup === undefined) return undefined;
	let child: ChildProcess;
	try {
		child = spawn(
			shellPath,
			[
				"--norc",
				"--noprofile",
				"-c",
				standbyScript({ cgroup, reportJoin: probing, held, relayCat: relayCat() }),
				wrapperName,
			],
			{
				cwd,
				detached: true,
				env: {},
				stdio: ["pipe", probing ? "pipe" : "ignore", "ignore", "pipe", "pipe"],
			},
		);
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
		held,
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
	const go = shell.held ? "\n" : "";
	shell.held = false;
	// Where its relay, waiting already, appends the output; then the command.
	(shell.child.stdio[3] as Writable).write(relayAheadTarget(command.outputFile));
	(shell.child.stdio[4] as Writable).end(`${go}${Buffer.byteLength(launch)}\n${launch}`);
	startedFromStandby++;
	return { child: shell.child, containment: shell.containment, probing: shell.probing };
}

/**
 * Starts the standby shell for the next command in `cwd` while a command runs, when calls come one
 * after another (this command began right after the last result; see the top of this file), unless
 * one waits already or cgroups are not used here. The shell is held: it joins its cgroup only when
 * `releaseStandbyShell` says so, once the running command's call is settled. A join holds the
 * cgroup hierarchy's lock through an RCU grace period (10-30 ms), which the removal of the running
 * command's cgroup would otherwise wait for, on the event loop, before the call's result.
 */
export function prepareStandbyShell(cwd: string, commandBeganAt: number): void {
	if (commandBeganAt - lastResultAt > backToBackMs) return;
	// Whether cgroups are used is asked, not decided here (deciding could run the blocking probe).
	if (waiting || !wrapperShell || !cgroupsInUse()) return;
	waiting = spawnStandby(cwd, wrapperShell, { held: true });
}

/**
 * As a call's result goes out: starts the standby shell for the next command in `cwd` on the next
 * turn of the event loop, once the result is on its way. Not when another call began meanwhile (it
 * starts its own as it begins), one waits already (held, or started by that call), cgroups are not
 * used here, or shell processes were disposed of before that turn.
 */
export function prepareStandbyAfterResult(cwd: string): void {
	lastResultAt = performance.now();
	const begun = callsBegun;
	const due = setImmediate(() => {
		unregister();
		if (callsBegun !== begun || waiting || !wrapperShell || !cgroupsInUse()) return;
		waiting = spawnStandby(cwd, wrapperShell);
	});
	const unregister = registerSessionCleanup({
		killNow: () => clearImmediate(due),
		dispose: async () => {
			unregister();
			clearImmediate(due);
		},
	});
}

/**
 * Lets a held standby shell join its cgroup now (see `prepareStandbyShell`). The cgroup of the
 * standby after it is made first, before the join takes the hierarchy's lock: that standby is
 * started while the next command runs, when the join may still be under way.
 */
export function releaseStandbyShell(): void {
	const shell = waiting;
	if (!shell?.held || shell.exited) return;
	prepareCommandCgroup();
	shell.held = false;
	(shell.child.stdio[4] as Writable).write("\n");
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
	waiting = spawnStandby(cwd, wrapperShell, { probeCgroup: cgroup });
}

/**
 * As a shell tool is created in `cwd`, and as a call begins there: starts the shell its command
 * will run in, unless one waits already, so that its start and its cgroup join happen before the
 * call or overlap its own preparation. The first of a process is the first standby (see
 * `prepareFirstStandbyShell`), made as the first shell tool is created: its spawn blocks the event
 * loop (a fork of this process) there, not inside any call. A call that finds none waiting (the
 * second command, or one after a command in another folder) starts one as well.
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
