import { readFileSync } from "node:fs";

/** A process as `pid:start-time`, so a recycled pid is not taken for the process that held it. */
export function processIdentity(pid: number = process.pid): string {
	if (pid === process.pid) {
		ownIdentity ??= `${pid}:${startTimeOf(pid) ?? "?"}`;
		return ownIdentity;
	}
	return `${pid}:${startTimeOf(pid) ?? "?"}`;
}

let ownIdentity: string | undefined;

/** True while the process named by `processIdentity` is still running. */
export function isProcessAlive(identity: string): boolean {
	const [pidText, startTime] = identity.split(":");
	const pid = Number(pidText);
	if (!Number.isInteger(pid) || pid <= 0) return false;
	const current = startTimeOf(pid);
	return current !== undefined && (startTime === "?" || current === startTime);
}

function startTimeOf(pid: number): string | undefined {
	try {
		const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
		// Field 22 (start time), counted after the command name, which may hold spaces and parentheses.
		return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19];
	} catch {
		return undefined;
	}
}
