/**
 * True while a process with this id exists, this user's or another's (EPERM): the test of a
 * clean-up that removes what ended processes left behind (a folder named for its process), which
 * must keep a folder whose pid still runs, even if the pid was reused.
 */
export function pidInUse(pid: number): boolean {
	try {
		process.kill(pid, 0);
		return true;
	} catch (error) {
		return (error as NodeJS.ErrnoException).code === "EPERM";
	}
}
