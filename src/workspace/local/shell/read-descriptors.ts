import type { ReadDescriptor } from "../../shell/exec-types.js";
import { singleQuoted } from "../../shell/single-quoted.js";

/** Highest descriptor a launch may ask for: below 1024, the common limit of open files. */
const highestDescriptor = 1023;

/** True when one of `descriptors` is above 9, which only bash's redirections can name (sh's name one digit). */
export function needsBash(descriptors: readonly ReadDescriptor[] = []): boolean {
	return descriptors.some(({ fd }) => fd > 9);
}

/**
 * Shell lines that open each file read-only on its descriptor, for the shell that then becomes
 * the command (`exec "$@"`), or end that shell with status 126 when one cannot be opened: the
 * command must never start without what it was promised (bwrap without its seccomp program fails
 * anyway, but says less). Empty when there is nothing to open. A descriptor above 9 needs bash
 * (`needsBash`).
 */
export function openDescriptorsScript(descriptors: readonly ReadDescriptor[] = []): string {
	return descriptors
		.map(({ fd, path }) => {
			// 0–2 are the command's stdio, which this must not replace.
			if (!Number.isInteger(fd) || fd < 3 || fd > highestDescriptor)
				throw new Error(`cannot open a file on descriptor ${fd}`);
			// sh ends at a failed `exec` redirection before any `||` (status 2); the test makes it 126 in both.
			const quoted = singleQuoted(path);
			return `[ -r ${quoted} ] || exit 126; exec ${fd}<${quoted} || exit 126`;
		})
		.join("\n");
}
