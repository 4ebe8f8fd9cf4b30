import type { JobRegistry } from "../../tools/index.js";
import { formatJobList } from "../../tools/index.js";
import type { CliIO } from "../io.js";
import type { Style } from "../render/style.js";

/** The `/jobs` and `/kill` lines of the interactive help. */
export const jobsHelp = `  /jobs   list the background jobs
  /kill ID  kill a background job and everything it started`;

/** The prompt's note of running jobs (`2 jobs `), empty when none run. */
export function jobsStatus(jobs: JobRegistry, style: Style): string {
	const running = jobs.runningCount();
	return running === 0 ? "" : style.dim(`${running} job${running === 1 ? "" : "s"} `);
}

/**
 * Handles `/jobs` and `/kill ID` typed at the interactive prompt. Resolves to false when the line
 * is neither (it is then a request for the agent).
 */
export async function handleJobsCommand(text: string, jobs: JobRegistry, io: CliIO, style: Style): Promise<boolean> {
	if (text === "/jobs") {
		io.stdout.write(`${formatJobList(jobs.list())}\n\n`);
		return true;
	}
	const kill = /^\/kill(?:\s+(\S+))?$/.exec(text);
	if (!kill) return false;
	const id = kill[1];
	if (id === undefined) {
		io.stdout.write(`${style.dim("Usage: /kill ID (see /jobs)")}\n\n`);
		return true;
	}
	try {
		const job = await jobs.kill(id, "/kill");
		io.stdout.write(`${style.dim(`Killed ${job.id}.`)}\n\n`);
	} catch (error) {
		io.stdout.write(`${(error as Error).message}\n\n`);
	}
	return true;
}
