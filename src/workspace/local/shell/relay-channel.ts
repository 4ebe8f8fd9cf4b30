import type { Readable } from "node:stream";
import { readProcStat } from "../process/proc-stat.js";

/**
 * The relay's side of a run into a file: its channel (the shell's fd 3), on which the relay
 * announces its pid in one line and which closes when the relay has copied everything.
 */
export interface RelayChannel {
	/** The channel stream. */
	channel: Readable;
	/** What arrived so far, up to the first newline. */
	announcement: string;
	/** The relay's pid, once announced (or found by name). */
	pid: number | undefined;
	/** Settles `known`. */
	announced: () => void;
	/** Settles when the pid is known or the channel closed. */
	known: Promise<void>;
	/** Settles when the channel closed: the relay has copied everything and exited. */
	closed: Promise<void>;
}

/** Starts listening for the relay's announcement on `channel`. */
export function createRelayChannel(channel: Readable): RelayChannel {
	const relay: RelayChannel = {
		channel,
		announcement: "",
		pid: undefined,
		announced: () => {},
		known: Promise.resolve(),
		closed: new Promise<void>((resolve) => channel.once("close", () => resolve())),
	};
	relay.known = new Promise<void>((resolve) => {
		relay.announced = resolve;
		void relay.closed.then(resolve);
	});
	return relay;
}

/** Reads the one line, the relay's pid; nothing else ever comes on the channel. */
export function readRelayAnnouncement(relay: RelayChannel, chunk: Buffer): void {
	if (relay.announcement.includes("\n")) return;
	relay.announcement += chunk.toString("latin1");
	const newline = relay.announcement.indexOf("\n");
	if (newline === -1) return;
	const line = relay.announcement.slice(0, newline);
	if (/^\d+$/.test(line)) relay.pid = Number(line);
	relay.announced();
}

/**
 * True when the relay has copied everything written to its pipe so far: it sleeps (`S`), which a
 * `cat` does only in its read of an empty pipe, or it is gone. A writer wakes the reader before its
 * write returns, so once the shell has exited, a sleeping relay holds none of its bytes. False while
 * its pid is unknown or it is runnable, stopped or in the kernel: on a loaded machine a relay may
 * not run for a good part of a second after the shell wrote its last line.
 */
export function relayCaughtUp(relay: RelayChannel): boolean {
	if (relay.pid === undefined) return false;
	const stat = readProcStat(relay.pid);
	return stat === undefined || stat.state === "S" || stat.state === "Z" || stat.state === "X";
}
