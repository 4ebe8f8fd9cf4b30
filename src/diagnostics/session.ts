// A session's language servers and what they say after each change: servers start on the first
// change of a file they check, stay warm, are started again after a crash (a bounded number of
// times) and end with the session.
import { extname } from "node:path";
import { monotonicMs } from "../engine/index.js";
import { introducedDiagnostics } from "./introduced.js";
import type { LspClient } from "./lsp-client.js";
import { reportNote } from "./report.js";
import { builtInServers, type ConfiguredServer, serverSpecs } from "./servers.js";
import type { FileDiagnostic, FileDiagnosticsReport, LanguageServerSpec } from "./types.js";

/** How long a change waits for its diagnostics, in ms (and, on a file's first change, for the diagnostics before it). */
export const DEFAULT_DIAGNOSTICS_BUDGET_MS = 1500;
/** How many diagnostics of one file a result lists. */
export const DEFAULT_MAX_DIAGNOSTICS = 10;
/** How many times a server that crashed is started again. */
export const DEFAULT_MAX_RESTARTS = 3;
/** The longest file a read shows a server ahead of its change (characters); a longer one only starts it. */
const MAX_PREPARED_CHARACTERS = 1_000_000;
/** How long after the read its preparation begins, in ms. */
const PREPARE_AFTER_MS = 50;
/** How long a read's preparation waits for the file's first diagnostics before it lets go. */
const PREPARE_DEADLINE_MS = 120_000;

/** One file a call changed, as the diagnostics see it. */
export interface DiagnosedChange {
	/** Absolute path: picks the server; the server is shown this path. */
	path: string;
	/** How results show it. */
	display: string;
	/** Its text before the change, or undefined when it did not exist. */
	before: string | undefined;
	/** Its text after the change, or undefined when the change deleted it. */
	after: string | undefined;
}

/** What the diagnostics of a call's changes found. */
export interface DiagnosticsOutcome {
	/** Notes for the model, one per file with something to say. */
	notes: string[];
	/** Every file checked (or left pending, or unavailable). */
	files: FileDiagnosticsReport[];
}

/** What the file-changing tools call after a change is written. */
export interface ChangeDiagnostics {
	/** True when a server checks `path` (so a tool knows to keep its old text). */
	handles(path: string): boolean;
	/**
	 * The diagnostics the changes introduced, within the time budget. Contract: never throws; a
	 * server that fails gives an `unavailable` report.
	 */
	afterChange(changes: readonly DiagnosedChange[]): Promise<DiagnosticsOutcome>;
}

/** Options of `createDiagnosticsSession`. */
export interface DiagnosticsSessionOptions {
	/** The workspace folder: the servers' root and working directory. */
	root: string;
	/**
	 * Servers from settings (`diagnostics.servers`): added, replacing a built-in one of the same name,
	 * or `false` to turn a built-in one off. Default: none.
	 */
	servers?: Readonly<Record<string, ConfiguredServer | false>>;
	/**
	 * Whether the workspace may run its own code: then the TypeScript server runs the workspace's
	 * `node_modules/typescript`. Default: false (toolbelt's own `typescript`).
	 */
	trustWorkspace?: boolean;
	/**
	 * The environment servers start with (a server's own variables go on top). Default: this
	 * process's. A server runs outside any sandbox and starts programs of its own (pyright runs
	 * `python3`): the CLI gives it the commands' environment, without secrets.
	 */
	environment?: Readonly<Record<string, string>>;
	/** The servers to use instead of the built-in ones (tests). Default: `builtInServers`. */
	builtIn?: readonly LanguageServerSpec[];
	/** See `DEFAULT_DIAGNOSTICS_BUDGET_MS`. */
	budgetMs?: number;
	/** See `DEFAULT_MAX_DIAGNOSTICS`. */
	maxItems?: number;
	/** See `DEFAULT_MAX_RESTARTS`. */
	maxRestarts?: number;
}

/** What the read tool calls after a file was read: a file the model read is the likeliest next change. */
export interface ReadDiagnostics {
	/** True when a server checks `path`. */
	handles(path: string): boolean;
	/**
	 * Starts the server that checks `path`, unless it runs, and shows it the text of the first file
	 * read for it (`text`, called only then): the server loads that file's project in the background,
	 * so the first change is not the one that waits for it (seconds for a TypeScript project, past
	 * the budget: "diagnostics pending"), and that file's diagnostics before the change are known.
	 * Resolves once that is done or given up; never rejects. Callers need not wait for it.
	 */
	prepare(path: string, text: () => Promise<string>): Promise<void>;
}

/** The diagnostics of one session: `ChangeDiagnostics`, and the way to end its servers. */
export interface DiagnosticsSession extends ChangeDiagnostics, ReadDiagnostics {
	/** Starts the server of `path` (if not running) and waits until it answered `initialize`; rejects when it cannot start. */
	ready(path: string): Promise<void>;
	/** The pids of the running servers' processes. */
	serverPids(): number[];
	/** Ends every server (its whole process tree). Later changes are not checked. Idempotent. */
	dispose(): Promise<void>;
}

/** A server slot: its client while running, and how often it failed. */
interface ServerSlot {
	spec: LanguageServerSpec;
	client?: LspClient;
	failures: number;
	lastFailure?: string;
	/** Set once the failure was reported, so the model hears it once. */
	failureReported?: boolean;
	/** Set once a read prepared this server (`prepare`): only the first file read is shown to it. */
	prepared?: boolean;
}

/** A change whose diagnostics did not come in time. */
interface PendingChange {
	client: LspClient;
	version: number;
	baseline: FileDiagnostic[];
	beforeText: string;
	afterText: string;
}

// The client and vscode-jsonrpc under it load with the first server a session starts: the tools
// that take a session are built in every process, and most processes never check a change.
let lspClientModule: Promise<typeof import("./lsp-client.js")> | undefined;
const loadLspClient = () => {
	lspClientModule ??= import("./lsp-client.js");
	return lspClientModule;
};

/**
 * Language-server diagnostics for a session's changes.
 *
 * @example
 * const diagnostics = createDiagnosticsSession({ root: "/path/to/project" });
 * const tools = createAllTools("/path/to/project", { edit: { diagnostics }, write: { diagnostics } });
 * // … and when the session ends:
 * await diagnostics.dispose();
 */
export function createDiagnosticsSession(options: DiagnosticsSessionOptions): DiagnosticsSession {
	const budgetMs = options.budgetMs ?? DEFAULT_DIAGNOSTICS_BUDGET_MS;
	const maxItems = options.maxItems ?? DEFAULT_MAX_DIAGNOSTICS;
	const maxRestarts = options.maxRestarts ?? DEFAULT_MAX_RESTARTS;
	let slots: ServerSlot[] | undefined;
	const pending = new Map<string, PendingChange>();
	let disposed = false;

	const slotsNow = () => {
		slots ??= serverSpecs(
			options.builtIn ?? builtInServers(options.root, { trustWorkspace: options.trustWorkspace ?? false }),
			options.servers,
		).map((spec) => ({ spec, failures: 0 }));
		return slots;
	};
	const slotOf = (path: string) => {
		const extension = extname(path).toLowerCase();
		return extension ? slotsNow().find((slot) => slot.spec.extensions.includes(extension)) : undefined;
	};

	const clientOf = async (slot: ServerSlot): Promise<LspClient | undefined> => {
		if (slot.client) return slot.client;
		if (slot.failures > maxRestarts) return undefined;
		const { LspClient } = await loadLspClient();
		// Another call may have started it (or given up on it) while the module loaded.
		if (slot.client) return slot.client;
		if (slot.failures > maxRestarts || disposed) return undefined;
		const client = new LspClient(slot.spec, options.root, options.environment);
		slot.client = client;
		const failed = (reason: string) => {
			if (slot.client !== client) return;
			slot.client = undefined;
			slot.failures++;
			slot.lastFailure = reason;
			slot.failureReported = false;
			for (const [path, change] of pending) if (change.client === client) pending.delete(path);
		};
		client.ready.catch((error: Error) => {
			failed(error.message);
			void client.stop();
		});
		client.onExit(() => {
			if (!disposed) failed(`it exited (${client.exited?.signal ?? `code ${client.exited?.code}`})`);
		});
		return client;
	};

	async function check(change: DiagnosedChange, slot: ServerSlot): Promise<FileDiagnosticsReport[]> {
		const base = { path: change.display, server: slot.spec.name, introduced: [] };
		const client = await clientOf(slot);
		if (!client) {
			if (slot.failureReported) return [];
			slot.failureReported = true;
			const note = `it failed ${slot.failures} times; last: ${slot.lastFailure ?? "unknown"}`;
			return [{ ...base, status: "unavailable", note }];
		}
		if (change.after === undefined) {
			pending.delete(change.path);
			await client.close(change.path).catch(() => {});
			return [];
		}
		const started = await settledBy(client.ready, monotonicMs() + budgetMs);
		if (started !== "resolved") {
			if (started === "rejected")
				return [{ ...base, status: "unavailable", note: slot.lastFailure ?? "it did not start" }];
			return [{ ...base, status: "pending", note: `the ${slot.spec.name} language server is starting` }];
		}
		const reports: FileDiagnosticsReport[] = [];
		const late = lateReport(change, client, base);
		if (late) reports.push(late);
		const beforeText = change.before ?? "";
		let baseline: FileDiagnostic[] | undefined = change.before === undefined ? [] : undefined;
		if (!baseline) {
			baseline = client.textOf(change.path) === beforeText ? client.knownDiagnostics(change.path) : undefined;
			if (!baseline) {
				const version = await client.sync(change.path, beforeText);
				baseline = await client.diagnostics(change.path, version, monotonicMs() + budgetMs);
			}
		}
		const version = await client.sync(change.path, change.after);
		const after = await client.diagnostics(change.path, version, monotonicMs() + budgetMs);
		if (!baseline || !after) {
			if (baseline) pending.set(change.path, { client, version, baseline, beforeText, afterText: change.after });
			reports.push({ ...base, status: "pending" });
			return reports;
		}
		const { introduced, resolved } = introducedDiagnostics({
			beforeText,
			afterText: change.after,
			before: baseline,
			after,
		});
		reports.push({ ...base, status: "checked", introduced, total: after.length, resolved });
		return reports;
	}

	/** Starts `slot`'s server and shows it `path` as read (see `ReadDiagnostics.prepare`). */
	async function prepareServer(slot: ServerSlot, path: string, text: () => Promise<string>): Promise<void> {
		const client = await clientOf(slot);
		if (!client) return;
		await client.ready;
		if (disposed || slot.client !== client || client.textOf(path) !== undefined) return;
		const content = await text();
		if (content.length > MAX_PREPARED_CHARACTERS || disposed || slot.client !== client) return;
		const version = await client.sync(path, content);
		// Nothing waits for these: the deadline only bounds how long this promise lives.
		await client.diagnostics(path, version, monotonicMs() + PREPARE_DEADLINE_MS);
	}

	/** The diagnostics of this file's previous change, when they were pending and have come since. */
	function lateReport(change: DiagnosedChange, client: LspClient, base: { path: string; server: string }) {
		const earlier = pending.get(change.path);
		if (!earlier || earlier.client !== client) return undefined;
		pending.delete(change.path);
		const known = client.knownDiagnostics(change.path);
		if (!known || client.textOf(change.path) !== earlier.afterText) return undefined;
		const { introduced, resolved } = introducedDiagnostics({ ...earlier, before: earlier.baseline, after: known });
		if (introduced.length === 0) return undefined;
		return { ...base, status: "checked" as const, introduced, total: known.length, resolved, late: true };
	}

	return {
		handles: (path) => !disposed && slotOf(path) !== undefined,
		async afterChange(changes) {
			const outcome: DiagnosticsOutcome = { notes: [], files: [] };
			if (disposed) return outcome;
			for (const change of changes) {
				const slot = slotOf(change.path);
				if (!slot) continue;
				let reports: FileDiagnosticsReport[];
				try {
					reports = await check(change, slot);
				} catch (error) {
					reports = [
						{
							path: change.display,
							server: slot.spec.name,
							status: "pending",
							introduced: [],
							note: (error as Error).message,
						},
					];
				}
				for (const report of reports) {
					outcome.files.push(report);
					const note = reportNote(report, { maxItems, budgetMs });
					if (note) outcome.notes.push(note);
				}
			}
			return outcome;
		},
		async prepare(path, text) {
			const slot = disposed ? undefined : slotOf(path);
			if (!slot || slot.prepared || slot.client) return;
			slot.prepared = true;
			// After the read's answer is out: the client's modules load and the server's spawn forks
			// this process, which would otherwise land before that answer.
			await new Promise((resolve) => setTimeout(resolve, PREPARE_AFTER_MS).unref());
			await prepareServer(slot, path, text).catch(() => {});
		},
		async ready(path) {
			const slot = slotOf(path);
			if (!slot) throw new Error(`no language server checks ${path}`);
			const client = await clientOf(slot);
			if (!client) throw new Error(`the ${slot.spec.name} language server is unavailable (${slot.lastFailure})`);
			await client.ready;
		},
		serverPids: () => (slots ?? []).flatMap((slot) => (slot.client?.pid !== undefined ? [slot.client.pid] : [])),
		async dispose() {
			if (disposed) return;
			disposed = true;
			pending.clear();
			await Promise.all(
				(slots ?? []).map(async (slot) => {
					const client = slot.client;
					slot.client = undefined;
					await client?.stop();
				}),
			);
		},
	};
}

/** How `promise` stands at `deadline` (a `monotonicMs()` reading), waiting for it until then. */
async function settledBy(promise: Promise<unknown>, deadline: number): Promise<"resolved" | "rejected" | "waiting"> {
	let timer: NodeJS.Timeout | undefined;
	const waiting = new Promise<"waiting">((resolve) => {
		timer = setTimeout(() => resolve("waiting"), Math.max(0, deadline - monotonicMs()));
	});
	const settled = promise.then(
		() => "resolved" as const,
		() => "rejected" as const,
	);
	const state = await Promise.race([settled, waiting]);
	clearTimeout(timer);
	return state;
}
