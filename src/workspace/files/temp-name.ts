import { randomHex } from "../random-hex.js";

/**
 * Drawn once per process: a fresh `randomBytes` per temp file was some 5% of a small write's own
 * time (a call into OpenSSL, and a `getpid` for its fork check, per file).
 */
let processPrefix: string | undefined;
let counter = 0;

/**
 * A hidden name for the temp file that will replace the file `name` in the same folder, unique
 * within this process (a counter) and across processes (a random prefix per process); short
 * enough for NAME_MAX. It is created with `O_EXCL` (and `O_NOFOLLOW` when confined), so a name
 * someone predicted can only make the write fail, never redirect it — and whoever can create
 * names in that folder could replace the file itself anyway.
 */
export function tempNameFor(name: string): string {
	processPrefix ??= randomHex(6);
	counter += 1;
	return `.${name.slice(0, 180)}.${processPrefix}${counter.toString(36)}.tmp`;
}
