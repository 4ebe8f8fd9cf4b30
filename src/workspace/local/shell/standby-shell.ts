import { type ChildProcess, spawn } from "node:child_process";
import { statSync } from "node:fs";
import type { Writable } from "node:stream";
import { monotonicMs } from "../../../engine/index.js";
import { registerSessionCleanup } from "../process/background-registry.js";
import {
	beginCgroupProbe,
	cgroupsInUse,
	discardPreparedCgroup,
	killCommandCgroup,
	prepareCommandCgroup,
} from "../process/cgroup.js";
import {
	attachRoot,
	createProcessContainment,
	type ProcessContainment,
	releaseContainment,
} from "../process/containment.js";
import { signalChild } from "../process/signal.js";
import { keepOrRelease } from "./left-running.js";
import { relayAheadJoinWord, relayAheadTarget, relayCat, wrapperShell } from "./output-relay.js";
import { awaitJoinReport, killGroup, type StandbyShell, streamsOf } from "./standby-answer.js";
import { launchScript, type StandbyCommand, standbyName, standbyScript } from "./standby-launch.js";
import { localeWarmUpScript } from "./standby-locale.js";

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
 * was started in. The first one is started as the first shell tool of a process is created
 * (`prepareToolShell`; else by its first call), joins its cgroup once a call begins (or a moment
 * later), runs that call's command, and tells whether it could join: that decides whether commands
 * run in cgroups at all, in place of a blocking probe at the first call (standby-answer.ts). A
 * shell that could not join says so and exits 125 once it has its command, as a fresh one would.
 *
 * When the next one is started: starting a shell is a fork of this process, which blocks its event
 * loop until the child has exec'd (2-3 ms quiet, 15 ms and more on a busy machine). Calls that
 * come one after another (a batch, a program) start it while a command runs, where the fork
 * overlaps that command (`prepareStandbyShell`); calls a model's reply apart start it once a call's
 * result is out (`prepareStandbyAfterResult`), so that a short command's result never waits for
 * the fork, and the shell joins while the model reads.
 */
let waiting: StandbyShell | undefined;
/** Calls begun in this process: a standby due after one call's result is not made once another began. */
let callsBegun = 0;
/** When the last result that starts a standby went out (`monotonicMs()`), or never. */
let lastResultAt = Number.NEGATIVE_INFINITY;
/**
 * A command begun within this many ms of the last result belongs to calls made one after another
 * (no model's reply between them): the next shell is started while it runs.
 */
const backToBackMs = 50;
let startedFromStandby = 0;

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

function spawnStandby(
	cwd: string,
	shellPath: string,
	options: { probeCgroup?: string; held?: boolean; untilCall?: boolean } = {},
): StandbyShell | undefined {
	const { probeCgroup, untilCall = false, held = untilCall } = options;
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
				standbyScript({
					cgroup,
					reportJoin: probing,
					held,
					relayCat: relayCat(),
					localeWarmUp: localeWarmUpScript(process.env),
				}),
				standbyName,
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
		untilCall,
		startAnswerClock: () => {},
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
	if (probing)
		shell.probing = awaitJoinReport(shell, () => {
			if (waiting !== shell) return;
			waiting = undefined;
			void discard(shell);
		});
	shell.unregister = registerSessionCleanup({
		killNow: () => {
			killCommandCgroup(cgroup);
			signalChild(child, "SIGKILL");
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
	// A shell still held gets the word to join first, and its relay too.
	if (shell.held) letJoin(shell);
	else shell.startAnswerClock();
	// Where its relay, waiting already, appends the output; then the command.
	(shell.child.stdio[3] as Writable).write(relayAheadTarget(command.outputFile));
	(shell.child.stdio[4] as Writable).end(`${Buffer.byteLength(launch)}\n${launch}`);
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
	lastResultAt = monotonicMs();
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
	if (!shell?.held || shell.untilCall || shell.exited) return;
	prepareCommandCgroup();
	letJoin(shell);
}

/** Sends a held standby, and its relay, the word to join their cgroup. */
function letJoin(shell: StandbyShell): void {
	shell.held = false;
	shell.startAnswerClock();
	(shell.child.stdio[3] as Writable).write(relayAheadJoinWord);
	(shell.child.stdio[4] as Writable).write(relayAheadJoinWord);
}

/**
 * At the first command of a process: decides whether commands run in cgroups by starting that
 * command's shell as a standby, which tries to join one and says whether it could, instead of a
 * blocking probe (which then also starts its own shell). Nothing when that is
 * decided already, or without the relay's shell.
 */
export function prepareFirstStandbyShell(cwd: string, options: { untilCall?: boolean } = {}): void {
	if (waiting || !wrapperShell) return;
	const cgroup = beginCgroupProbe();
	if (cgroup === undefined) return;
	waiting = spawnStandby(cwd, wrapperShell, { probeCgroup: cgroup, ...options });
}

/**
 * How long after a tool's creation its held standby joins its cgroup if no call began: longer than
 * a call made at once (a program's, a one-shot CLI's) takes to begin, shorter than a model's reply.
 */
const joinAfterCreationMs = 250;

/**
 * As a shell tool is created in `cwd`: starts the shell its first command will run in, unless one
 * waits already. Its spawn (a fork of this process, which blocks the event loop) happens here, not
 * inside a call. The shell then waits, before its cgroup join, until a call begins
 * (`prepareCallShell`) or `joinAfterCreationMs` passed: a join waits for an RCU grace period, and
 * it and the first standby's answer would otherwise land, with their cold code, in a call of
 * another tool made right after the creation. Its output relay starts with it, before the join
 * (`relayAheadScript`), so that a bash call made at once waits for no fork of it. After a model's
 * reply, the first call finds the shell and its relay joined.
 */
export function prepareToolShell(cwd: string): void {
	if (waiting || !wrapperShell) return;
	if (cgroupsInUse()) waiting = spawnStandby(cwd, wrapperShell, { untilCall: true });
	else prepareFirstStandbyShell(cwd, { untilCall: true });
	const shell = waiting;
	if (!shell?.untilCall) return;
	// A process's first write on a socket runs Node's stream and socket code for the first time,
	// compiling it (about 1 ms of CPU), and the first call writes at once (`letJoin`): an empty
	// write on the shell's launch socket does that here. The shell reads nothing from it.
	(shell.child.stdio[4] as Writable).write("");
	setTimeout(() => {
		if (waiting === shell && shell.held && !shell.exited) letJoin(shell);
	}, joinAfterCreationMs).unref();
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
	if (waiting?.held && waiting.untilCall && !waiting.exited) letJoin(waiting);
	if (waiting || !wrapperShell) return;
	if (!cgroupsInUse()) {
		prepareFirstStandbyShell(cwd);
		return;
	}
	waiting = spawnStandby(cwd, wrapperShell);
}
