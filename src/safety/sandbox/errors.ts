/** Thrown when a sandbox was asked for and cannot be had. Never silently run unsandboxed. */
export class SandboxUnavailableError extends Error {
	constructor(message: string) {
		super(message);
		this.name = "SandboxUnavailableError";
	}
}
