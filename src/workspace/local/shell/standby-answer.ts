import type { ChildProcess } from "node:child_process";
import type { Socket } from "node:net";
import { killCommandCgroup, settleCgroupProbe } from "../process/cgroup.js";
import type { ProcessContainment } from "../process/containment.js";
import { signalChild, signalProcessGroup } from "../process/signal.js";

// A standby shell (standby-shell.ts), its pipes, and the first one's answer: whether it could join
// its cgroup, which decides whether commands run in cgroups at all.

/** How long the first standby may take to say whether it joined, in ms (the blocking probe's limit). */
const joinReportTimeoutMs = 5000;

/** A standby shell (see standby-shell.ts). */
export interface StandbyShell {
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
	/** Held until a call begins (made as a tool was created: see `prepareToolShell`), not until a command ends. */
	untilCall: boolean;
	/** Starts the first one's time limit for its answer, once it may join (a no-op after the first time). */
	startAnswerClock: () => void;
}

/** Its pipes: stdin, the first one's answer (stdout), the relay's channel (3) and the launch (4). */
export function streamsOf(child: ChildProcess): (Socket | null | undefined)[] {
	return [child.stdin, child.stdout, child.stdio[3], child.stdio[4]] as (Socket | null | undefined)[];
}

/** SIGKILLs the standby's process group (it leads one: spawned detached), else the shell alone. */
export function killGroup(child: ChildProcess): void {
	// No group left to signal: the shell alone, if it is still there.
	const groupSignalled = child.pid !== undefined && signalProcessGroup(child.pid, "SIGKILL");
	if (!groupSignalled) signalChild(child, "SIGKILL");
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
 * containment decides by the blocking probe. A shell that is not to be used is `unusable` (to be
 * discarded), unless it was handed its command already (see `settleLaunchedProbe`).
 */
export function awaitJoinReport(shell: StandbyShell, unusable: () => void): Promise<void> {
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
			else if (!usable) unusable();
			resolve();
		};
		// The pipe is referenced once a call is handed the command (`startFromStandby`): a call waiting
		// for the answer keeps the process alive, a standby made as a tool was created does not.
		// Decided after the next poll of the event loop: an answer that is waiting in the pipe
		// (the loop was blocked past the limit) is read first. A held one is timed from its release.
		let timer: NodeJS.Timeout | undefined;
		shell.startAnswerClock = () => {
			if (timer !== undefined || answered) return;
			timer = setTimeout(() => setImmediate(() => done(undefined, true)), joinReportTimeoutMs);
			timer.unref();
		};
		if (!shell.held) shell.startAnswerClock();
		// Buffers turned to text here: `setEncoding` loads a string decoder on a process's first call.
		stdout?.on("data", (chunk: Buffer) => {
			text += chunk.toString("latin1");
			if (text.includes("\n")) done(text.startsWith("yes\n"));
		});
		stdout?.on("error", () => done(undefined));
		stdout?.on("close", () => done(undefined));
	});
}
