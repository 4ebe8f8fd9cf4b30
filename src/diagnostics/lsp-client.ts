// A small LSP client over a server's stdin/stdout (framing and JSON-RPC by vscode-jsonrpc): it
// starts the server, keeps the documents it was shown in step with their text (full-text sync),
// and answers "what are this version's diagnostics" by the server's push, LSP pull, or tsserver.
import { pathToFileURL } from "node:url";
import {
	createMessageConnection,
	type MessageConnection,
	StreamMessageReader,
	StreamMessageWriter,
} from "vscode-jsonrpc/node";
import { monotonicMs } from "../engine/index.js";
import { fromLspDiagnostics, fromTsserverDiagnostics, type LspDiagnostic, type TsserverDiagnostic } from "./convert.js";
import { type ServerProcess, startServerProcess } from "./server-process.js";
import type { FileDiagnostic, LanguageServerSpec } from "./types.js";

/** A document the server was shown. */
interface OpenDocument {
	path: string;
	version: number;
	text: string;
	/** The newest diagnostics known, and the version they are of. */
	diagnostics?: { version: number; list: FileDiagnostic[] };
}

interface Waiter {
	uri: string;
	version: number;
	resolve: () => void;
}

/** Documents kept open per server; the least recently changed is closed beyond this. */
const MAX_OPEN_DOCUMENTS = 64;

/** A running language server. */
export class LspClient {
	/** Settles when `initialize` answered (rejects when the server failed to start). */
	readonly ready: Promise<void>;
	/** Set when the process ended (a crash unless `stop` ended it). */
	exited: { code: number | null; signal: NodeJS.Signals | null } | undefined;
	private readonly connection: MessageConnection;
	private readonly process: ServerProcess;
	private readonly documents = new Map<string, OpenDocument>();
	private readonly waiters: Waiter[] = [];
	private pull = false;
	private saveNotifications = false;
	private readonly exitListeners: (() => void)[] = [];

	constructor(
		readonly spec: LanguageServerSpec,
		readonly root: string,
		/** The environment it starts with, under `spec.env`. Default: this process's. */
		environment?: Readonly<Record<string, string>>,
	) {
		this.process = startServerProcess(spec.command, root, spec.env, environment);
		const { child } = this.process;
		this.connection = createMessageConnection(
			new StreamMessageReader(child.stdout),
			new StreamMessageWriter(child.stdin),
		);
		this.connection.onNotification("textDocument/publishDiagnostics", (params: PublishParams) =>
			this.published(params),
		);
		// Requests a server may make of its client: answered with "nothing special" rather than an error.
		this.connection.onRequest("workspace/configuration", (params: { items?: unknown[] }) =>
			(params.items ?? []).map(() => null),
		);
		this.connection.onRequest("workspace/workspaceFolders", () => [this.folder()]);
		this.connection.onRequest(() => null);
		this.connection.onNotification(() => {});
		// A broken pipe or closed stream ends in the exit below; nothing is thrown at the caller.
		this.connection.onError(() => {});
		this.connection.listen();
		const exited = new Promise<never>((_resolve, reject) => {
			child.once("exit", (code, signal) => {
				this.exited = { code, signal };
				for (const waiter of this.waiters.splice(0)) waiter.resolve();
				for (const listener of this.exitListeners) listener();
				reject(new Error(`the server exited (${signal ?? `code ${code}`})${this.stderrNote()}`));
			});
			child.once("error", (error) => reject(new Error(`the server could not be started (${error.message})`)));
		});
		exited.catch(() => {});
		this.ready = Promise.race([this.initialize(), exited]);
		this.ready.catch(() => {});
	}

	/** The pid of the server's process (its tree ends with it). */
	get pid(): number | undefined {
		return this.process.child.pid;
	}

	/** Calls `listener` once the server's process has ended. */
	onExit(listener: () => void): void {
		this.exitListeners.push(listener);
	}

	private stderrNote(): string {
		const tail = this.process.stderrTail().trim().split("\n").slice(-3).join(" ").slice(0, 400);
		return tail ? `: ${tail}` : "";
	}

	private folder() {
		return { uri: pathToFileURL(this.root).href, name: "workspace" };
	}

	private async initialize(): Promise<void> {
		const result = (await this.connection.sendRequest("initialize", {
			processId: process.pid,
			rootUri: this.folder().uri,
			workspaceFolders: [this.folder()],
			capabilities: {
				textDocument: {
					synchronization: { didSave: true },
					publishDiagnostics: { versionSupport: true },
					diagnostic: { dynamicRegistration: false },
				},
				workspace: { workspaceFolders: true, configuration: true },
			},
			initializationOptions: this.spec.initializationOptions,
		})) as { capabilities?: ServerCapabilities };
		const capabilities = result?.capabilities ?? {};
		this.pull = this.spec.request !== "tsserver" && Boolean(capabilities.diagnosticProvider);
		const sync = capabilities.textDocumentSync;
		this.saveNotifications = typeof sync === "object" && sync !== null && Boolean(sync.save);
		await this.connection.sendNotification("initialized", {});
	}

	/** The text the server has of `path`, if it was shown it. */
	textOf(path: string): string | undefined {
		return this.documents.get(uriOf(path))?.text;
	}

	/** The newest diagnostics known for the text the server has of `path`. */
	knownDiagnostics(path: string): FileDiagnostic[] | undefined {
		const document = this.documents.get(uriOf(path));
		return document?.diagnostics?.version === document?.version ? document?.diagnostics?.list : undefined;
	}

	/** Shows the server `text` as the content of `path` (open, or change); returns the document's version. */
	async sync(path: string, text: string): Promise<number> {
		const uri = uriOf(path);
		const document = this.documents.get(uri);
		if (!document) {
			this.closeOldest();
			this.documents.set(uri, { path, version: 1, text });
			const languageId = this.spec.languageIdOf?.(path) ?? this.spec.name;
			await this.connection.sendNotification("textDocument/didOpen", {
				textDocument: { uri, languageId, version: 1, text },
			});
			return 1;
		}
		// Most recently changed last, for `closeOldest`.
		this.documents.delete(uri);
		this.documents.set(uri, document);
		if (document.text === text) return document.version;
		document.version++;
		document.text = text;
		await this.connection.sendNotification("textDocument/didChange", {
			textDocument: { uri, version: document.version },
			contentChanges: [{ text }],
		});
		// The file is on disk by now: servers that check on save (rust-analyzer's cargo check) do so.
		if (this.saveNotifications)
			await this.connection.sendNotification("textDocument/didSave", { textDocument: { uri } });
		return document.version;
	}

	/** Forgets `path` (deleted). */
	async close(path: string): Promise<void> {
		const uri = uriOf(path);
		if (!this.documents.delete(uri)) return;
		await this.connection.sendNotification("textDocument/didClose", { textDocument: { uri } }).catch(() => {});
	}

	private closeOldest(): void {
		if (this.documents.size < MAX_OPEN_DOCUMENTS) return;
		const oldest = this.documents.values().next().value;
		if (oldest) void this.close(oldest.path);
	}

	/**
	 * The diagnostics of `version` of `path`, or undefined when they are not known by `deadline`
	 * (a `monotonicMs()` reading). A request still running then goes on: its answer is kept for
	 * `knownDiagnostics`.
	 */
	async diagnostics(path: string, version: number, deadline: number): Promise<FileDiagnostic[] | undefined> {
		const uri = uriOf(path);
		const answer =
			this.spec.request === "tsserver" || this.pull ? this.request(uri, version) : this.pushed(uri, version);
		let timer: NodeJS.Timeout | undefined;
		const timeout = new Promise<void>((resolve) => {
			timer = setTimeout(resolve, Math.max(0, deadline - monotonicMs()));
		});
		await Promise.race([answer.catch(() => {}), timeout]);
		clearTimeout(timer);
		const document = this.documents.get(uri);
		return document?.diagnostics?.version === version ? document.diagnostics.list : undefined;
	}

	private pushed(uri: string, version: number): Promise<void> {
		const document = this.documents.get(uri);
		if (!document || (document.diagnostics?.version ?? 0) >= version || this.exited) return Promise.resolve();
		return new Promise((resolve) => this.waiters.push({ uri, version, resolve }));
	}

	private published(params: PublishParams): void {
		const document = this.documents.get(params.uri);
		if (!document) return;
		// A server that sends no version is taken to speak of the newest text it was sent.
		const version = typeof params.version === "number" ? params.version : document.version;
		if (version < (document.diagnostics?.version ?? 0)) return;
		document.diagnostics = { version, list: fromLspDiagnostics(params.diagnostics ?? []) };
		for (let index = this.waiters.length - 1; index >= 0; index--) {
			const waiter = this.waiters[index];
			if (waiter && waiter.uri === params.uri && waiter.version <= version) {
				this.waiters.splice(index, 1);
				waiter.resolve();
			}
		}
	}

	private async request(uri: string, version: number): Promise<void> {
		const document = this.documents.get(uri);
		if (!document) return;
		let list: FileDiagnostic[];
		if (this.spec.request === "tsserver") {
			const ask = (command: string) =>
				this.connection.sendRequest("workspace/executeCommand", {
					command: "typescript.tsserverRequest",
					arguments: [command, { file: document.path }],
				}) as Promise<TsserverResponse | undefined>;
			const [syntactic, semantic] = await Promise.all([
				ask("syntacticDiagnosticsSync"),
				ask("semanticDiagnosticsSync"),
			]);
			list = fromTsserverDiagnostics([...(syntactic?.body ?? []), ...(semantic?.body ?? [])]);
		} else {
			const report = (await this.connection.sendRequest("textDocument/diagnostic", { textDocument: { uri } })) as {
				items?: LspDiagnostic[];
			};
			list = fromLspDiagnostics(report?.items ?? []);
		}
		// A newer text was sent meanwhile: this answer is of an older one.
		if (document.version !== version || (document.diagnostics?.version ?? 0) > version) return;
		document.diagnostics = { version, list };
	}

	/** Ends the server: `shutdown` and `exit` when it answers, its whole tree killed in any case. Idempotent. */
	async stop(): Promise<void> {
		if (!this.exited) {
			const polite = (async () => {
				await this.connection.sendRequest("shutdown");
				await this.connection.sendNotification("exit");
			})().catch(() => {});
			await Promise.race([polite, new Promise((resolve) => setTimeout(resolve, 500))]);
		}
		await this.process.stop(500);
		this.connection.dispose();
	}
}

/** The `file:` URI of an absolute path. */
export function uriOf(path: string): string {
	return pathToFileURL(path).href;
}

interface ServerCapabilities {
	diagnosticProvider?: unknown;
	textDocumentSync?: number | { save?: unknown } | null;
}

interface PublishParams {
	uri: string;
	version?: number;
	diagnostics?: LspDiagnostic[];
}

interface TsserverResponse {
	body?: TsserverDiagnostic[];
}
