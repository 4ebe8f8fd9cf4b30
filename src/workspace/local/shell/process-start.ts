import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import type { ShellExecRequest } from "../../shell/exec-types.js";
import type { ProcessContainment } from "../process/containment.js";
import { startWithRelay, wrapperShell } from "./output-relay.js";
import { needsBash, openDescriptorsScript } from "./read-descriptors.js";

// How a local command's first process is started when no standby shell is ready: the shell
// line that joins its containment, opens the descriptors it asks for, and points its output
// where the run reads it.

// On POSIX a tiny `sh` wrapper points the shell's stderr at its stdout pipe before exec'ing it, so
// both streams arrive through one pipe in the exact order they were written. It joins the
// command's cgroup first, where there is one.
const mergeStreamsScript = 'exec "$@" 2>&1';
const canMergeStreams = process.platform !== "win32" && existsSync("/bin/sh");

/** True when every local start goes through a shell that can open `readDescriptors` before it becomes the command. */
export const opensDescriptors = canMergeStreams;

/** A request without `onData`: the output goes to `outputFile` instead. */
export type ExecRequest = Omit<ShellExecRequest, "onData"> & { onData?: ShellExecRequest["onData"] };

/** Starts the command's first process: the relay's wrapper into `outputFile`, else the stream-merging `sh`. */
export function startProcess(request: ExecRequest, containment: ProcessContainment, outputFile: number | undefined) {
	const env: Record<string, string> = { ...request.env, ...containment.env };
	// Own process group (and session), so the whole tree can be signalled at once.
	const common = { cwd: request.cwd, detached: process.platform !== "win32" };
	const opens = openDescriptorsScript(request.readDescriptors);
	if (outputFile !== undefined) {
		const prelude = [containment.joinScript, opens].filter((lines) => lines !== "").join("\n");
		return startWithRelay({ file: request.file, args: request.args, env, outputFile, prelude, ...common });
	}
	const script = [containment.joinScript, opens, mergeStreamsScript].filter((lines) => lines !== "").join("\n");
	// sh is the lighter start; bash where a descriptor above 9 is asked for (the sandbox's bind sources),
	// started as `sh` (POSIX mode): it reads no BASH_ENV from the command's environment out here.
	const shell = needsBash(request.readDescriptors) && wrapperShell ? wrapperShell : "/bin/sh";
	const [file, args] = canMergeStreams
		? [shell, ["-c", script, "sh", request.file, ...request.args]]
		: [request.file, request.args];
	return spawn(file, args, {
		...common,
		...(canMergeStreams && shell !== "/bin/sh" ? { argv0: "sh" } : {}),
		env,
		stdio: ["pipe", "pipe", canMergeStreams ? "ignore" : "pipe"],
		windowsHide: true,
	});
}
