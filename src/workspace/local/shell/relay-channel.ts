import type { Readable } from "node:stream";

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
}

/** Starts listening for the relay's announcement on `channel`. */
export function createRelayChannel(channel: Readable): RelayChannel {
	const relay: RelayChannel = {
		channel,
		announcement: "",
		pid: undefined,
		announced: () => {},
		known: Promise.resolve(),
	};
	relay.known = new Promise<void>((resolve) => {
		relay.announced = resolve;
		channel.once("close", () => resolve());
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
