import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { once } from "node:events";
import { readFileSync } from "node:fs";
import { toolbeltMcpCommand } from "./helpers.js";

/** A JSON-RPC message as the server wrote it. */
export interface RawAnswer {
	id?: string | number | null;
	result?: Record<string, unknown>;
	error?: { code: number; message: string };
	method?: string;
}

/**
 * `toolbelt mcp` driven byte by byte over its stdin, as a hostile or broken client would: whatever
 * is written goes to the server unchecked, every line it answers is kept. The MCP SDK's client
 * cannot send a malformed or oversized line, so the bounds are tested with this.
 */
export class RawMcpProcess {
	readonly child: ChildProcessWithoutNullStreams;
	readonly answers: RawAnswer[] = [];
	stderr = "";
	private pending = "";
	private listeners = new Set<() => void>();
	private readonly exited: Promise<unknown>;

	constructor(args: string[]) {
		const { command, args: commandArgs } = toolbeltMcpCommand(args);
		this.child = spawn(command, commandArgs, { stdio: ["pipe", "pipe", "pipe"] });
		this.child.stdout.setEncoding("utf8");
		this.child.stdout.on("data", (text: string) => {
			this.pending += text;
			let newline = this.pending.indexOf("\n");
			while (newline !== -1) {
				this.answers.push(JSON.parse(this.pending.slice(0, newline)) as RawAnswer);
				this.pending = this.pending.slice(newline + 1);
				newline = this.pending.indexOf("\n");
			}
			for (const listener of this.listeners) listener();
		});
		this.child.stderr.on("data", (chunk: Buffer) => {
			this.stderr += chunk.toString("utf8");
		});
		this.child.stdin.on("error", () => {});
		this.exited = once(this.child, "exit");
		this.child.once("exit", () => {
			for (const listener of this.listeners) listener();
		});
	}

	/** Starts the MCP session (initialize, then initialized). */
	async initialize(): Promise<void> {
		this.send({
			jsonrpc: "2.0",
			id: "init",
			method: "initialize",
			params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
		});
		await this.answerTo("init");
		this.send({ jsonrpc: "2.0", method: "notifications/initialized" });
	}

	/** Writes one message as a line. */
	send(message: unknown): void {
		this.child.stdin.write(`${JSON.stringify(message)}\n`);
	}

	/** Writes raw bytes, waiting while the pipe is full (so a huge message is streamed, not queued). */
	async write(bytes: string | Buffer): Promise<void> {
		if (this.child.exitCode !== null || this.child.signalCode !== null) return;
		if (!this.child.stdin.write(bytes)) await Promise.race([once(this.child.stdin, "drain"), this.exited]);
	}

	/** Resolves with the first answer that matches; rejects when the server exits first or after `timeoutMs`. */
	async waitFor(match: (answer: RawAnswer) => boolean, timeoutMs = 30_000): Promise<RawAnswer> {
		const found = () => this.answers.find(match);
		return new Promise((resolve, reject) => {
			const check = () => {
				const answer = found();
				if (answer) finish(() => resolve(answer));
				else if (this.child.exitCode !== null || this.child.signalCode !== null) {
					finish(() => reject(new Error(`the server exited (${this.child.exitCode}) without that answer`)));
				}
			};
			const timer = setTimeout(
				() => finish(() => reject(new Error(`no such answer within ${timeoutMs} ms`))),
				timeoutMs,
			);
			const finish = (settle: () => void) => {
				clearTimeout(timer);
				this.listeners.delete(check);
				settle();
			};
			this.listeners.add(check);
			check();
		});
	}

	/** The answer to request `id`. */
	answerTo(id: string | number, timeoutMs?: number): Promise<RawAnswer> {
		return this.waitFor((answer) => answer.id === id && answer.method === undefined, timeoutMs);
	}

	/** A `ping` answered: the server is alive and reading. */
	async ping(id: string): Promise<RawAnswer> {
		this.send({ jsonrpc: "2.0", id, method: "ping" });
		return this.answerTo(id);
	}

	/** The server's peak resident memory so far, in bytes (VmHWM). */
	peakMemoryBytes(): number {
		const status = readFileSync(`/proc/${this.child.pid}/status`, "utf8");
		const kilobytes = /VmHWM:\s+(\d+) kB/.exec(status)?.[1];
		return Number(kilobytes) * 1024;
	}

	/** Closes stdin and waits for the exit (killing the server after 10 s). */
	async stop(): Promise<void> {
		if (this.child.exitCode !== null || this.child.signalCode !== null) return;
		this.child.stdin.end();
		const timer = setTimeout(() => this.child.kill("SIGKILL"), 10_000);
		await this.exited;
		clearTimeout(timer);
	}
}
