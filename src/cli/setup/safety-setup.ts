import { realpath } from "node:fs/promises";
import { homedir } from "node:os";
import type { Checkpoints, RestoreGuard } from "../../checkpoints/index.js";
import type { ToolHooks } from "../../engine/index.js";
import { composeHooks } from "../../engine/index.js";
import {
	type AskPermission,
	createSafetyLayer,
	type LoadedSettings,
	NetworkRuleError,
	type PermissionMode,
	type ProjectSettingsReview,
	type ProjectTrustCheck,
	permissionModes,
	RuleSyntaxError,
	recordProjectTrust,
	type SafetyLayer,
	SandboxUnavailableError,
	SettingsError,
} from "../../safety/index.js";
import type { ToolsOptions } from "../../tools/index.js";
import { createLocalWorkspace, type Workspace } from "../../workspace/index.js";
import type { RemoteWorkspace } from "../../workspace/remote/index.js";
import { booleanOption, listOption, type OptionValues, stringOption, UsageError } from "../args.js";
import type { CliIO } from "../io.js";
import { ApprovalHint } from "../prompts/approval-hint.js";
import { type TrustAnswer, untrustedNotice } from "../prompts/trust-prompt.js";
import { lazyCheckpointHooks } from "./lazy-checkpoints.js";
import { openCliWorkspace } from "./workspace-option.js";

export { safetyOptions, toolCommandSafetyOptions } from "./safety-options.js";

/** Options of `createCliSafety`. */
export interface CliSafetyOptions {
	/** The tools' working directory: the workspace root; its `.toolbelt/settings.json` is read and gets "always" rules. */
	cwd: string;
	/**
	 * Parsed command-line values. Read: `mode`, `allow`, `ask`, `deny`, `pass-env` (strings or lists),
	 * `sandbox`, `allow-write-without-read`, `no-confine` (switches). Absent ones change nothing.
	 */
	flags: OptionValues;
	/** The process: `env.HOME` locates `~/.toolbelt/settings.json`; failed command hooks are reported on `stderr`. */
	io: CliIO;
	/** Asks the person (the interactive session). Default: none — calls that need approval are refused, with a reason the model can act on. */
	ask?: AskPermission;
	/** The mode when `--mode` is not given, over the settings' `defaultMode`. Default: none (settings, else `default`). */
	mode?: PermissionMode;
	/** Let `write` replace files the model has not read, even without `--allow-write-without-read`. Default: false. */
	allowWriteWithoutRead?: boolean;
	/** The stale-write check (`SafetyLayerOptions.checkStaleWrites`); false for a process that makes one call. Default: true. */
	checkStaleWrites?: boolean;
	/** Every call starts a new checkpoint turn (the MCP server: one turn per client request). Default: false. */
	turnPerCall?: boolean;
	/**
	 * Open the checkpoints. False when only read-only tools can run: they change no file, so
	 * there is nothing to record, and opening the store costs a start a few file operations. Default: true.
	 */
	checkpoints?: boolean;
	/**
	 * Open the checkpoints at the first call that may change a file (`lazyCheckpointHooks`), not
	 * before returning: the MCP server's `initialize` need not wait for the state folder, nor a
	 * one-shot `toolbelt tool bash` (which records nothing). `checkpoints` is then undefined in the
	 * result, and a store that cannot open is reported at that call. Default: false.
	 */
	openCheckpointsOnFirstCall?: boolean;
	/**
	 * Asks the person whether the folder's settings may widen what runs (the interactive session),
	 * when neither `--trust-project` nor their own records already trust it. Default: none — the
	 * widening settings are ignored and stderr says so once, naming them and the flag.
	 */
	askTrust?: (review: ProjectSettingsReview) => Promise<TrustAnswer>;
}

/** The safety layer as the CLI uses it. */
export interface CliSafety {
	/** The assembled layer (rules, workspace, settings, sandbox). */
	layer: SafetyLayer;
	/** Hooks for the agent or `executeToolCalls`: the layer's, plus a record of calls refused for want of approval. */
	hooks: ToolHooks;
	/** Options for the tool factories: bash and powershell run through the sandbox when it is on. */
	toolOptions: ToolsOptions;
	/** The mode in force. */
	mode: PermissionMode;
	/** The tools' working directory: `cwd`, or the remote folder of `--workspace`. */
	cwd: string;
	/** The remote workspace of `--workspace`, whose operations `toolOptions` carry. Default: none (local). */
	workspace?: RemoteWorkspace;
	/** Calls refused because nobody could approve them, and the flags that would allow them. */
	approvals: ApprovalHint;
	/** The checkpoints every file change is recorded in (undefined when the state directory cannot be written). */
	checkpoints?: Checkpoints;
	/**
	 * Call once the tools are made, with their names: what their first call would wait for (the
	 * shell parser of a command tool, checkpoints opened on the first call) is made ready in the
	 * pause that follows (`SafetyLayer.prepareFor`).
	 */
	prepareFor(toolNames: readonly string[]): void;
}

/**
 * Undo's judge when no session hands one over (`toolbelt undo`): the judge of a safety layer built
 * from the folder's and the user's settings, as a session there would use (`SafetyLayer.judgeRestore`:
 * real path inside the workspace, not a protected path, no deny rule naming it). Built on first
 * use: an undo with nothing to restore reads no settings and no git config.
 */
function restoreGuardOf(workspace: Workspace, homeDir: string): RestoreGuard {
	let judge: Promise<RestoreGuard> | undefined;
	return async (path) => {
		judge ??= createSafetyLayer({
			cwd: workspace.cwd,
			workspace,
			homeDir,
			mode: "default",
			sandbox: false,
			persistAlways: false,
		}).then((layer) => layer.judgeRestore);
		try {
			return await (await judge)(path);
		} catch (error) {
			return `could not be judged: ${error instanceof Error ? error.message : String(error)}`;
		}
	};
}

/**
 * The workspace's checkpoints, in the user's state directory. Files are read and restored through
 * the workspace (local, or the remote `workspace`), every restore confined to its folder and
 * judged as a write (`restoreGuardOf`). A remote store is keyed by its URL with the remote real
 * path of its folder (never the same as a local folder's). Rejects when the store cannot be opened
 * or the remote folder cannot be reached.
 */
export async function createCliCheckpoints(
	cwd: string,
	io: CliIO,
	workspace?: RemoteWorkspace,
	judge?: RestoreGuard,
): Promise<Checkpoints> {
	// Loaded here: a start that changes no file (a read, a listing) never needs them.
	const { checkpointFilesOf, createCheckpoints, remoteCheckpointFiles } = await import("../../checkpoints/index.js");
	const place = { homeDir: io.env.HOME || homedir(), env: io.env };
	if (!workspace) {
		const root = await realpath(cwd);
		const local = createLocalWorkspace(root);
		return createCheckpoints({
			...place,
			workspace: root,
			files: checkpointFilesOf(local, { roots: [root] }),
			guard: judge ?? restoreGuardOf(local, place.homeDir),
		});
	}
	const root = await workspace.files.realpath(workspace.cwd);
	return createCheckpoints({
		...place,
		workspace: workspace.urlOf(root),
		root,
		files: remoteCheckpointFiles(workspace, { roots: [root] }),
		guard: judge ?? restoreGuardOf(workspace, place.homeDir),
	});
}

/** `createCliCheckpoints`, or undefined and a warning on stderr when that fails (the session goes on without). */
export async function openCliCheckpoints(
	cwd: string,
	io: CliIO,
	workspace?: RemoteWorkspace,
	judge?: RestoreGuard,
): Promise<Checkpoints | undefined> {
	try {
		return await createCliCheckpoints(cwd, io, workspace, judge);
	} catch (error) {
		const reason = error instanceof Error ? error.message : String(error);
		io.stderr.write(`toolbelt: checkpoints are off (undo will not see this session's changes): ${reason}\n`);
		return undefined;
	}
}

function modeFlag(flags: OptionValues): PermissionMode | undefined {
	const text = stringOption(flags, "mode");
	if (text === undefined) return undefined;
	if (!(permissionModes as readonly string[]).includes(text)) {
		throw new UsageError(`Unknown mode '${text}'. Use one of: ${permissionModes.join(", ")}.`);
	}
	return text as PermissionMode;
}

/**
 * The folder trust of the CLI: `--trust-project` trusts; so do the user's own records and
 * `trustedProjects`; otherwise the person is asked when they can be ("trust" is remembered).
 * `asked` is set once the person has answered (they need no list of what was ignored then).
 */
function trustCheck(
	flag: boolean,
	homeDir: string,
	options: Pick<CliSafetyOptions, "askTrust" | "io">,
	asked: { value: boolean },
): boolean | ProjectTrustCheck {
	if (flag) return true;
	return async (review) => {
		if (review.trustedBy !== undefined) return true;
		if (!options.askTrust) return false;
		const answer = await options.askTrust(review);
		asked.value = true;
		if (answer === "trust") {
			await recordProjectTrust(review, homeDir).catch((error: Error) => {
				options.io.stderr.write(
					`toolbelt: could not record the trust in ~/.toolbelt (${error.message}); the folder is trusted for this session only.\n`,
				);
			});
		}
		return answer !== "no";
	};
}

/** The settings' `edit.syntaxCheck`, as the options of every tool that changes files. */
function syntaxCheckOptions(edit: LoadedSettings["edit"]): Pick<ToolsOptions, "write" | "edit" | "apply_patch"> {
	const syntaxCheck = edit?.syntaxCheck;
	if (!syntaxCheck) return {};
	return { write: { syntaxCheck }, edit: { syntaxCheck }, apply_patch: { syntaxCheck } };
}

/**
 * Builds the safety layer from the settings files and the command-line flags: permission rules
 * and mode, workspace confinement (on unless `--no-confine`), stale-write protection (write over
 * an unread file refused unless `--allow-write-without-read`), command hooks, and the sandbox
 * with `--sandbox`. The folder's own settings that widen what runs need its trust (`--trust-project`,
the user's records, or `askTrust`); without it stderr names what was ignored. A malformed settings file, a bad rule or an unavailable sandbox becomes a
 * `UsageError` (exit 2) naming the problem.
 *
 * For `toolbelt mcp`: `createCliSafety({ cwd, flags: args.values, io })` (no `ask`: the server cannot ask).
 */
export async function createCliSafety(options: CliSafetyOptions): Promise<CliSafety> {
	const { flags, io } = options;
	const mode = modeFlag(flags) ?? options.mode;
	const homeDir = io.env.HOME || homedir();
	const asked = { value: false };
	const workspace = await openCliWorkspace(flags);
	const cwd = workspace?.cwd ?? options.cwd;
	let layer: SafetyLayer;
	try {
		layer = await createSafetyLayer({
			cwd,
			workspace,
			homeDir,
			mode,
			rules: { allow: listOption(flags, "allow"), ask: listOption(flags, "ask"), deny: listOption(flags, "deny") },
			ask: options.ask,
			confine: !booleanOption(flags, "no-confine"),
			// The flag only turns the list off; without it the settings decide.
			autoAllowReadOnlyCommands: booleanOption(flags, "no-read-only-commands") ? false : undefined,
			allowWriteWithoutRead: options.allowWriteWithoutRead || booleanOption(flags, "allow-write-without-read"),
			checkStaleWrites: options.checkStaleWrites,
			// Without the flag the settings decide; the flag cannot turn a configured sandbox off.
			sandbox: booleanOption(flags, "sandbox") ? true : undefined,
			passEnvironment: listOption(flags, "pass-env"),
			trustProject: trustCheck(booleanOption(flags, "trust-project"), homeDir, options, asked),
			onHookError: (failure) =>
				io.stderr.write(
					`toolbelt: ${failure.event} hook failed (${failure.onError === "block" ? "call blocked" : "ignored"}): ${failure.command}: ${failure.message}\n`,
				),
		});
	} catch (error) {
		if (error instanceof SettingsError || error instanceof RuleSyntaxError || error instanceof NetworkRuleError) {
			throw new UsageError(error.message, { showHelpHint: error instanceof RuleSyntaxError });
		}
		// Its message already says what to do (install bwrap, or run without the sandbox).
		if (error instanceof SandboxUnavailableError) throw new UsageError(error.message, { showHelpHint: false });
		throw error;
	}
	const notice = asked.value
		? "toolbelt: this folder's settings that widen what runs are ignored in this session (start with --trust-project to use them).\n"
		: untrustedNotice(layer.settings.project, mode !== undefined);
	if (notice && layer.settings.project?.trusted === false) io.stderr.write(notice);
	const approvals = new ApprovalHint();
	const shell = { ...layer.shell };
	// After the layer: only calls that really run are recorded.
	// A remote workspace's checkpoints read and restore its files through it, kept on this machine.
	const wanted = options.checkpoints !== false;
	const lazy = wanted && options.openCheckpointsOnFirstCall === true;
	// Undo within the session is judged by the session's own rules (its flags included).
	const judge = layer.judgeRestore;
	const checkpoints = wanted && !lazy ? await openCliCheckpoints(options.cwd, io, workspace, judge) : undefined;
	// The same hooks over a store opened now or at the first call that may change a file.
	const around = lazy
		? lazyCheckpointHooks(() => openCliCheckpoints(options.cwd, io, workspace, judge), options.turnPerCall === true)
		: checkpoints
			? lazyCheckpointHooks(() => Promise.resolve(checkpoints), options.turnPerCall === true)
			: undefined;
	const toolOptions: ToolsOptions = {
		bash: shell,
		powershell: shell,
		...syntaxCheckOptions(layer.settings.edit),
		...(layer.settings.code ? { code: { ...layer.settings.code } } : {}),
	};
	if (workspace) {
		const { workspaceToolsOptions } = await import("../../tools/index.js");
		Object.assign(toolOptions, workspaceToolsOptions(workspace, toolOptions));
	}
	return {
		cwd,
		workspace,
		layer,
		checkpoints,
		hooks: approvals.watch(around ? composeHooks([around.before, layer.hooks, around.after]) : layer.hooks),
		toolOptions,
		mode: layer.mode,
		approvals,
		prepareFor: (toolNames) => {
			layer.prepareFor(toolNames);
			if (lazy) around?.openAhead();
		},
	};
}
