import { randomBytes } from "node:crypto";
import { closeSync, fstatSync, openSync, readSync } from "node:fs";

/**
 * `bytes` random bytes from the kernel, as lowercase hex: for names that must not be guessed (a
 * file made in a shared temporary folder) or only must not repeat (a session id, a command's
 * cgroup and marker). Read from `/dev/urandom`, four system calls: `node:crypto` would cost the
 * first command of a process ~6 ms to load (Node 20), for a few bytes. Where there is no such
 * character device (Windows), from `node:crypto`.
 */
export function randomHex(bytes: number): string {
	const buffer = Buffer.alloc(bytes);
	let descriptor: number | undefined;
	try {
		descriptor = openSync("/dev/urandom", "r");
		if (fstatSync(descriptor).isCharacterDevice() && readSync(descriptor, buffer, 0, bytes, null) === bytes) {
			return buffer.toString("hex");
		}
	} catch {
		// No device to read: node:crypto below.
	} finally {
		if (descriptor !== undefined) closeSync(descriptor);
	}
	return randomBytes(bytes).toString("hex");
}
