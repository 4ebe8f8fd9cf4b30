import { resolve, sep } from "node:path";
import type { Agent } from "../../agent/index.js";
import { buildSystemPrompt } from "../../agent/index.js";
import type { AnyAgentTool } from "../../engine/index.js";
import { createToolSession } from "../../engine/index.js";
import type { AskPermission } from "../../safety/index.js";
import type { RecordedSession } from "../../sessions/index.js";
import type { JobRegistry } from "../../tools/index.js";
import { batchBudgetOption, booleanOption, type ParsedArgs, stringOption, UsageError } from "../args.js";
import { loadToolCatalog } from "../catalog/tool-catalog.js";
import { selectToolNames } from "../catalog/tool-selection.js";
import type { CliIO } from "../io.js";
import { resolveCwd } from "../paths.js";
import { openCliDiagnostics, readsPrepareDiagnostics, withDiagnostics } from "./diagnostics-setup.js";
import { loadProjectInstructions, type ProjectInstructions } from "./project-instructions.js";
import { type ProviderConfig, resolveProviderConfig } from "./provider-config.js";
import { RecordingSwitch } from "./recording-switch.js";
import { type CliSafety, type CliSafetyOptions, createCliSafety } from "./safety-setup.js";
import { type CliRecording, openCliRecording, removeIfEmpty, sessionToResume } from "./session-recording.js";
import { withUserDefaults } from "./user-config.js";

/** Default bound on model requests per prompt in the CLI. */
export const DEFAULT_CLI_MAX_TURNS = 50;

/**
 * How long after the agent's tools are made they start what their first call needs
 * (`ToolsOptions.prepareAfterMs`): past the sending of the model's first request, which comes
 * 100-300 ms after them (the provider's SDK and Node's fetch load in between), and before its
 * reply can ask for a call.
 */
const AGENT_PREPARE_AFTER_MS = 500;

/** An agent configured from the command line, and what it holds open. */
export interface AgentSetup {
	/** The agent, with tools, model and system prompt. */
	agent: Agent;
	/** The resolved provider and model. */
	provider: ProviderConfig;
	/** The tools' working directory. */
	cwd: string;
	/** Names of every tool the model may call (built-in and MCP). */
	toolNames: string[];
	/** The safety layer every tool call goes through. */
	safety: CliSafety;
	/** The session's background jobs (`run_in_background`); `/jobs` and the status line read it. */
	jobs: JobRegistry;
	/** The folder's AGENTS.md / CLAUDE.md as they joined the system prompt (or why they did not). */
	instructions: ProjectInstructions;
	/** The session's recording (its recorder is absent with `--no-record` or an unusable sessions folder). */
	recording: CliRecording;
	/** The workspace as sessions record it (its real folder, or a remote workspace's URL). */
	recordedWorkspace: string;
	/**
	 * Continues a recorded session (`/resume`): the agent gets its messages, and its file is appended
	 * to from now on (unless `--no-record`). Call it between prompts, never while one runs.
	 */
	resumeSession(session: RecordedSession): Promise<void>;
	/** Shuts down what the setup started (background jobs, MCP servers, the recording). Idempotent. */
	close(): Promise<void>;
}

function parseMaxTurns(args: ParsedArgs): number {
	const text = stringOption(args.values, "max-turns");
	if (text === undefined) return DEFAULT_CLI_MAX_TURNS;
	const value = Number(text);
	if (!Number.isInteger(value) || value < 1)
		throw new UsageError(`--max-turns needs a whole number ≥ 1, got '${text}'.`);
	return value;
}

/** Options of `createAgentSetup`. */
export interface AgentSetupOptions {
	/** Asks the person about calls that need approval (the interactive session). Default: none — such calls are refused. */
	ask?: AskPermission;
	/** Asks the person whether the folder's settings may widen what runs. Default: none — they are ignored unless trusted already. */
	askTrust?: CliSafetyOptions["askTrust"];
	/** What the session is recorded as. Default: `run`. */
	source?: "run" | "interactive";
}

/**
 * Builds the agent the `run` and interactive commands use. Checks the cheap things first (provider
 * configuration, flags, settings files) so a misconfiguration fails fast, before the tools and SDKs load.
 * Every tool call goes through the safety layer (rules, confinement, stale writes, hooks, sandbox).
 */
export async function createAgentSetup(
	args: ParsedArgs,
	io: CliIO,
	options: AgentSetupOptions = {},
): Promise<AgentSetup> {
	// Flags first, then the user's stored defaults (`toolbelt config`), then the environment.
	const provider = resolveProviderConfig(withUserDefaults(args.values, io.env), io.env);
	const maxTurns = parseMaxTurns(args);
	const cwd = await resolveCwd(io, args.values);
	const safety = await createCliSafety({
		cwd,
		flags: args.values,
		io,
		ask: options.ask,
		askTrust: options.askTrust,
	});
	const place = await recordingPlace(safety);
	const resume = await sessionToResume(args, io, place);
	const catalog = await loadToolCatalog();
	// The session's background jobs: they end when the setup closes (and at toolbelt's exit).
	const jobs = catalog.createJobRegistry();
	// One session for every prompt, so a job started in one turn is still there in the next.
	const session = createToolSession();
	// Language servers for the diagnostics after a change: started on a file's first change, ended with the setup.
	const diagnostics = await openCliDiagnostics(safety, "agent", {
		trustProjectFlag: booleanOption(args.values, "trust-project"),
		env: io.env,
	});
	const names = selectToolNames(args.values, catalog, process.platform, provider.model);
	// What the tools start ahead for their first call (a fork each) starts past the model's first
	// request: its reply is what the first call waits for anyway.
	const toolOptions = withDiagnostics(
		{ prepareAfterMs: AGENT_PREPARE_AFTER_MS, ...safety.toolOptions, jobs },
		diagnostics,
		{
			readsPrepare: readsPrepareDiagnostics(safety, names),
		},
	);
	const tools: AnyAgentTool[] = names.map((name) => catalog.createTool(name, safety.cwd, toolOptions));

	let close = async () => {
		await session.end();
		await jobs.dispose();
		await diagnostics?.dispose();
	};
	const mcpConfig = stringOption(args.values, "mcp-config");
	if (mcpConfig !== undefined) {
		const path = resolve(io.cwd, mcpConfig);
		// A remote workspace's files are not here; the local folder it was started in may be a clone.
		const folder = safety.workspace ? io.cwd : safety.cwd;
		const honorTrusted = await configMayVouch(path, folder, safety, booleanOption(args.values, "trust-project"));
		const mcp = await loadMcpServers({ path, io, provider, honorTrusted });
		tools.push(...mcp.tools);
		close = async () => {
			await session.end();
			await jobs.dispose();
			await diagnostics?.dispose();
			await mcp.close();
		};
	}

	// Many MCP tools: requests carry the core set and tool_search; the rest load when found.
	const threshold = safety.layer.settings.toolSearch?.threshold;
	const search = catalog.createToolSearch({ tools, ...(threshold !== undefined ? { threshold } : {}) });
	const toolNames = search.tools.map((tool) => tool.name);
	const recordingOptions = {
		args,
		io,
		place,
		source: options.source ?? "run",
		model: { provider: provider.provider, id: provider.model },
	};
	let recording = await openCliRecording({ ...recordingOptions, ...(resume ? { resume } : {}) });
	const recordings = new RecordingSwitch(safety.hooks, recording.recorder);
	const { Agent } = await import("../../agent/index.js");
	const givenPrompt = stringOption(args.values, "system-prompt");
	// A replaced system prompt is the whole prompt: the folder's files do not join it.
	const instructions =
		givenPrompt === undefined
			? await loadProjectInstructions({ safety, flags: args.values, homeDir: io.env.HOME || undefined })
			: { files: [], untrusted: false, cut: [] };
	const agent = new Agent({
		model: { provider: provider.provider, id: provider.model, baseUrl: provider.baseUrl },
		getApiKey: () => provider.apiKey,
		tools: [...search.tools],
		...(search.active ? { requestTools: () => search.requestTools() } : {}),
		systemPrompt:
			givenPrompt ??
			buildSystemPrompt({
				cwd: safety.cwd,
				tools: search.requestTools(),
				...(instructions.text ? { append: instructions.text } : {}),
			}),
		toolExecution: booleanOption(args.values, "sequential") ? "sequential" : "parallel",
		maxTurns,
		session,
		messages: recording.history,
		...batchBudgetOption(args.values),
		...recordings.hooks,
	});
	agent.subscribe(recordings.onAgentEvent);
	// The model's first reply takes far longer than loading what judging its first command needs.
	safety.prepareFor(toolNames);
	const closeAll = close;
	close = async () => {
		await closeAll();
		recordings.close();
	};
	const setup: AgentSetup = {
		agent,
		provider,
		cwd: safety.cwd,
		toolNames,
		safety,
		jobs,
		instructions,
		recording,
		recordedWorkspace: place.workspace,
		async resumeSession(session) {
			const left = recording.recorder;
			recording = await openCliRecording({ ...recordingOptions, resume: session });
			recordings.switchTo(recording.recorder);
			if (left) await removeIfEmpty(left.path);
			setup.recording = recording;
			agent.replaceMessages(recording.history);
		},
		close: () => close(),
	};
	return setup;
}

/** How the session's workspace is recorded: its real local folder, or the remote workspace's URL. */
async function recordingPlace(safety: CliSafety): Promise<{ workspace: string; workspaceFolders: string[] }> {
	const { realpath } = await import("node:fs/promises");
	if (safety.workspace) {
		const root = await safety.workspace.files.realpath(safety.workspace.cwd).catch(() => safety.workspace?.cwd ?? "");
		return { workspace: safety.workspace.urlOf(root), workspaceFolders: [] };
	}
	const folder = await realpath(safety.cwd).catch(() => safety.cwd);
	return { workspace: folder, workspaceFolders: [folder] };
}

// ─── MCP client (`--mcp-config`) ─────────────────────────────────────────────────────────────
// The MCP part (src/mcp/client.ts) owns connecting to servers; the CLI only maps its errors.

/**
 * Whether the config's `"trusted": true` marks count: always for a file of the user's own outside
 * the workspace; for one inside it (a repository's `.mcp.json`, which may have been cloned a minute
 * ago) only when the folder is trusted — `--trust-project`, or its widening settings trusted.
 */
async function configMayVouch(
	path: string,
	workspace: string,
	safety: CliSafety,
	trustFlag: boolean,
): Promise<boolean> {
	const { realpath } = await import("node:fs/promises");
	const [file, folder] = await Promise.all([
		realpath(path).catch(() => path),
		realpath(workspace).catch(() => workspace),
	]);
	const inside = file === folder || file.startsWith(folder.endsWith(sep) ? folder : folder + sep);
	if (!inside || trustFlag) return true;
	const project = safety.layer.settings.project;
	return project?.trusted === true && project.widening.length > 0;
}

async function loadMcpServers(options: { path: string; io: CliIO; provider: ProviderConfig; honorTrusted: boolean }) {
	const { loadMcpTools } = await import("../../mcp/index.js");
	const { McpConfigError } = await import("../../mcp/index.js");
	try {
		return await loadMcpTools(options.path, {
			env: options.io.env,
			honorTrusted: options.honorTrusted,
			dialect: options.provider.provider === "anthropic" ? "anthropic" : "openai",
			onWarning: (message) => options.io.stderr.write(`toolbelt: MCP: ${message}\n`),
		});
	} catch (error) {
		if (error instanceof McpConfigError) throw new UsageError(error.message, { showHelpHint: false });
		throw error;
	}
}
