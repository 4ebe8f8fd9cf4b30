import type { Writable } from "node:stream";
import type { ShellInput } from "./exec-types.js";

/**
 * The `ShellInput` of a child's stdin pipe. Writes after the command closed its end (EPIPE) or
 * exited fail with a message the model can act on instead of crashing toolbelt.
 */
export function pipeStdinWriter(stdin: Writable): ShellInput {
	let open = true;
	const close = () => {
		open = false;
	};
	stdin.on("error", close);
	stdin.on("close", close);
	stdin.on("finish", close);
	return {
		get writable() {
			return open && !stdin.destroyed && stdin.writable;
		},
		write(text: string): Promise<void> {
			if (!this.writable) return Promise.reject(new Error("its stdin is closed"));
			return new Promise((resolve, reject) => {
				stdin.write(text, (error) =>
					error ? reject(new Error(`writing to its stdin failed: ${error.message}`)) : resolve(),
				);
			});
		},
		end(): void {
			open = false;
			stdin.end();
		},
	};
}
