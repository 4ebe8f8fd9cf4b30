import { homedir } from "node:os";
import { resolve } from "node:path";
import type { ToolHooks } from "../engine/index.js";
import { composeHooks } from "../engine/index.js";
import {
	createLocalWorkspace,
	localShellOperations,
	type ShellOperations,
	type Workspace as ToolWorkspace,
} from "../tools/index.js";
import { callStateOf } from "./call-state.js";
import { Confinement, createConfinementHook } from "./confinement.js";
import { postToolUseUnit, preToolUseUnit } from "./hooks/command-hook-units.js";
import { createCommandHooks, type HookFailure } from "./hooks/command-hooks.js";

export { appendContext } from "./hooks/hook-result-patch.js";

import { type AskPermission, createPermissionHook } from "./permissions/permissions.js";
import { checkRuleToolNames } from "./permissions/rule-check.js";
import { assertPermissionMode } from "./permissions/rule-syntax.js";
import { type PermissionMode, type PermissionRule, parseRule, RuleSet } from "./permissions/rules.js";
import { createReadDenyFilter } from "./read-deny-filter.js";
import { type RestoreJudge, restoreJudgeOf } from "./restore-judge.js";
import { type SandboxSetting, sandboxOptionsOf } from "./sandbox/layer-options.js";
import { createSandbox, type Sandbox } from "./sandbox.js";
import { type LoadedSettings, loadSettings, type ProjectDisk, projectSettingsPath } from "./settings/settings.js";
import { createStaleWriteHooks, type SeenFiles } from "./stale-write.js";
import type { ProjectTrustCheck } from "./trust/trust.js";
import { alwaysRulesSaver } from "./trust/trust-always-rules.js";

export { callStateOf, type SafetyCallState } from "./call-state.js";
export { categoryOfCall, familyOfCall, subjectOfCall } from "./call-subject.js";
export {
	Confinement,
	type ConfinementOptions,
	createConfinementHook,
	defaultProtectedPatterns,
	type PathCheck,
	Workspace,
	type WorkspaceOptions,
} from "./confinement.js";
export {
	type CommandHooksOptions,
	createCommandHooks,
	type HookEvent,
	type HookFailure,
	type HookPermissionDecision,
	type PostToolUseOutcome,
	type PreToolUseOutcome,
} from "./hooks/command-hooks.js";
export {
	type BlockedWriteTarget,
	isPermissionBlockDetails,
	type PermissionBlockDetails,
} from "./permissions/permission-details.js";
export {
	type AskPermission,
	createPermissionHook,
	type PermissionAnswer,
	type PermissionHookOptions,
	type PermissionRequest,
} from "./permissions/permissions.js";
export { checkRuleToolNames, UnknownToolRuleError } from "./permissions/rule-check.js";
export {
	type CallSubject,
	compileCommandPattern,
	formatRule,
	modeDecision,
	type PermissionBehavior,
	type PermissionMode,
	type PermissionRule,
	parseRule,
	permissionModes,
	RuleSet,
	RuleSyntaxError,
	subjectOf,
	type ToolCategory,
	toolCategory,
} from "./permissions/rules.js";
export { createReadDenyFilter } from "./read-deny-filter.js";
export { type RestoreJudge, restoreJudgeOf } from "./restore-judge.js";
export {
	autoRunEntries,
	type BwrapLayout,
	buildBwrapArgs,
	createSandbox,
	credentialLocations,
	type HostResolver,
	type NetworkConnectionListener,
	type NetworkConnectionRecord,
	NetworkRuleError,
	type Sandbox,
	type SandboxLaunch,
	type SandboxNetworkOptions,
	type SandboxOptions,
	SandboxUnavailableError,
} from "./sandbox.js";
export {
	addRulesToSettingsFile,
	type DiagnosticsServerSetting,
	diagnosticsServersOf,
	type HookCommandSettings,
	type HookMatcherSettings,
	type LoadedSettings,
	type LoadSettingsOptions,
	loadSettings,
	type ProjectDisk,
	parseSettings,
	projectSettingsPath,
	SETTINGS_MAX_BYTES,
	type Settings,
	SettingsError,
	type SettingsSource,
	settingsSchema,
	userSettingsPath,
} from "./settings/settings.js";
export {
	analyzeCommand,
	type CommandAnalysis,
	isShellParserLoaded,
	loadShellParser,
	type OpaqueConstruct,
	type ShellDialect,
	splitCommand,
	type WriteTarget,
} from "./shell-policy/index.js";
export {
	createStaleWriteHooks,
	type FileSnapshot,
	SeenFiles,
	type StaleWriteOptions,
	snapshotFile,
} from "./stale-write.js";

import { expandHome } from "../workspace/index.js";
import { noteWritableRoots } from "../workspace/local/index.js";

export * from "./trust/trust-exports.js";

/** Options of `createSafetyLayer`. Flags given here win over the settings files. */
export interface SafetyLayerOptions {
	/** The tools' working directory: relative paths are taken from here; the first workspace root. */
	cwd: string;
	/** Where `.toolbelt/settings.json` is read and "always" rules are written; path rules are anchored here. Default: `cwd`. */
	projectDir?: string;
	/** Home directory for `~/.toolbelt/settings.json` and `~/` rules. Default: the user's home (tests pass a temp dir). */
	homeDir?: string;
	/** Permission mode (e.g. from `--mode`). Default: the settings' `defaultMode`, else `default`. */
	mode?: PermissionMode;
	/** Extra rules (e.g. from `--allow` / `--ask` / `--deny`), on top of the settings files. Default: none. */
	rules?: { allow?: readonly string[]; ask?: readonly string[]; deny?: readonly string[] };
	/** Names of the embedder's own tools that rules may name, besides the built-ins and MCP tools (`server__tool`). Default: none. */
	toolNames?: readonly string[];
	/** Asks the user (yes / no / always). Without it, a call that needs approval is denied with a reason for the model. */
	ask?: AskPermission;
	/**
	 * In default mode, run the commands on the read-only list without asking (`ls`, `cat`, `grep`,
	 * `head`, … with harmless options only, reading inside the workspace; README "Read-only
	 * commands"). Default: the settings' `permissions.autoAllowReadOnlyCommands`, else true.
	 */
	autoAllowReadOnlyCommands?: boolean;
	/** Write "always" answers to the project settings file. Default: true (false keeps them for the session). */
	persistAlways?: boolean;
	/** Keep file tools inside the workspace roots. Default: true. */
	confine?: boolean;
	/** More workspace roots, besides `cwd` and the settings' `additionalDirectories`. Default: none. */
	roots?: readonly string[];
	/** Patterns that write and edit need an explicit allow rule for. Default: the files that run later (`autoRunEntries`) and `.env*`. */
	protectedPatterns?: readonly string[];
	/** Let `write` replace an existing file the model has not read. Default: false. */
	allowWriteWithoutRead?: boolean;
	/** The record of what the model has seen; share one between tool sets on the same files. Default: a new one. */
	seenFiles?: SeenFiles;
	/**
	 * Refuse writes over files that changed on disk since the model read them (`createStaleWriteHooks`).
	 * False only where each process makes one call (`toolbelt tool`): there is no earlier read to compare
	 * with, and snapshotting the file after a read (a second open and a SHA-256 of it) is wasted. Default: true.
	 */
	checkStaleWrites?: boolean;
	/**
	 * Run bash in the bubblewrap sandbox: `true`, or options. Default: the settings' `sandbox.enabled`, else off.
	 * When on and bwrap cannot run, `createSafetyLayer` throws `SandboxUnavailableError`.
	 */
	sandbox?: boolean | SandboxSetting;
	/**
	 * Whether the project settings file may widen what runs (hooks, allow rules, a less strict mode,
	 * extra directories, sandbox relaxations): `true`, `false`, or a check shown exactly what it
	 * enables. What only restricts always applies. Default: only when the user already trusts the
	 * folder (a trust record for this exact file, or `trustedProjects` in the user settings).
	 */
	trustProject?: boolean | ProjectTrustCheck;
	/** Settings already loaded (skips reading the files). Default: loaded from `projectDir` and `homeDir`. */
	settings?: LoadedSettings;
	/**
	 * The workspace the tools act on, whose disk the roots are resolved on. A remote one (with
	 * `urlOf`, as `createWorkspaceFromUrl` makes) is also where the project settings are read and
	 * "always" rules written, trust keyed by its URL (see `projectDisk`). Default: a local workspace at `cwd`.
	 */
	workspace?: ToolWorkspace;
	/**
	 * The disk the project folder is on when it is not this machine's. Default: the workspace's,
	 * when it names its paths (`urlOf`: a remote workspace), else this machine's.
	 */
	projectDisk?: ProjectDisk;
	/**
	 * Variables that commands get although their names mark a secret (`isSecretVariableName`),
	 * besides the settings' `shell.passEnvironment`. Default: none.
	 */
	passEnvironment?: readonly string[];
	/** `session_id` for command hooks. Default: a random UUID. */
	sessionId?: string;
	/** Told about every command hook that failed. Default: none. */
	onHookError?: (failure: HookFailure) => void;
}

/** The assembled safety layer. */
export interface SafetyLayer {
	/** Pass to the agent / `executeToolCalls` (compose with others using `composeHooks`). */
	hooks: ToolHooks;
	/** The mode in force. */
	mode: PermissionMode;
	/** The merged settings. */
	settings: LoadedSettings;
	/** The rules in force (settings, flags, and "always" answers as they come). */
	rules: RuleSet;
	/** The workspace roots and the checks of calls' targets against them. */
	workspace: Confinement;
	/** The record of what the model has seen. */
	seenFiles: SeenFiles;
	/** The sandbox, when enabled. */
	sandbox?: Sandbox;
	/**
	 * Options for `createBashTool` / `createPowerShellTool`: with the sandbox on, operations that
	 * run every command inside it; the secret-named variables commands may still get
	 * (`shell.passEnvironment` and the option). Spread them into the tool options.
	 */
	shell: { operations?: ShellOperations; passEnvironment?: readonly string[] };
	/** Wraps other shell operations (e.g. a remote executor) in the sandbox; returns them unchanged when it is off. */
	wrapShellOperations(operations: ShellOperations): ShellOperations;
	/**
	 * Undo's judge under this layer's rules (pass as `guard` of `createCheckpoints`): a restore is
	 * refused where a write would be — outside the roots, a protected path, or a deny rule names it.
	 */
	judgeRestore: RestoreJudge;
	/**
	 * Call once the tools are made, with their names: for each command tool among them (`bash`,
	 * `powershell`), the parser its commands are judged with loads in the pause that follows (~80
	 * ms for bash), instead of inside its first call. Optional: without it, the first check loads it.
	 */
	prepareFor(toolNames: readonly string[]): void;
}

/** Where "always" answers go: the project file (not in an untrusted folder), keeping its trust record current. */
function alwaysRulesOptions(
	persist: boolean,
	projectDir: string,
	homeDir: string,
	settings: LoadedSettings,
	projectDisk: ProjectDisk | undefined,
) {
	const saveRules = persist
		? alwaysRulesSaver({ projectDir, project: settings.project, homeDir, projectDisk })
		: undefined;
	const file = projectSettingsPath(projectDir);
	return saveRules ? { settingsFile: projectDisk ? projectDisk.nameOf(file) : file, saveRules } : {};
}

/** The disk of a workspace that names its paths (a remote one), else undefined (this machine's). */
function diskOfWorkspace(workspace: ToolWorkspace | undefined): ProjectDisk | undefined {
	const urlOf = (workspace as { urlOf?: unknown } | undefined)?.urlOf;
	if (!workspace || typeof urlOf !== "function") return undefined;
	return { files: workspace.files, nameOf: (path) => (urlOf as (path: string) => string).call(workspace, path) };
}

/**
 * Builds the whole safety layer from the settings files and the given flags: command hooks
 * (PreToolUse), workspace confinement, stale-write protection, permission rules with the `ask`
 * callback, then after the call the seen-file record and PostToolUse hooks — as one `ToolHooks`
 * pair, plus the sandboxed shell options. Throws `SettingsError` for a malformed settings file,
 * `RuleSyntaxError` for a bad flag rule (`UnknownToolRuleError` for a rule naming no known tool), `SandboxUnavailableError` when a requested sandbox cannot run, `NetworkRuleError` for a bad `sandbox.network` entry.
 */
export async function createSafetyLayer(options: SafetyLayerOptions): Promise<SafetyLayer> {
	const cwd = resolve(options.cwd);
	const projectDir = resolve(options.projectDir ?? cwd);
	const homeDir = options.homeDir ?? homedir();
	const projectDisk = options.projectDisk ?? diskOfWorkspace(options.workspace);
	const settings =
		options.settings ?? (await loadSettings({ projectDir, homeDir, trustProject: options.trustProject, projectDisk }));
	const mode = options.mode ?? settings.defaultMode ?? "default";
	assertPermissionMode(mode);
	const flagRules: PermissionRule[] = (["deny", "ask", "allow"] as const).flatMap((behavior) =>
		(options.rules?.[behavior] ?? []).map((text) => parseRule(text, behavior, "command line")),
	);
	const tools = options.workspace ?? createLocalWorkspace(cwd);
	checkRuleToolNames([...settings.rules, ...flagRules], options.toolNames);
	const realOf = (path: string) => tools.files.realpath(path).catch(() => path);
	const rules = new RuleSet([...settings.rules, ...flagRules], {
		root: projectDir,
		homeDir,
		realRoot: await realOf(projectDir),
		realHomeDir: await realOf(homeDir),
	});
	const roots = [cwd, ...settings.additionalDirectories, ...(options.roots ?? [])].map((root) =>
		resolve(cwd, expandHome(root, homeDir)),
	);
	// The file tools write in these folders: no program toolbelt runs itself is taken from them.
	if (!projectDisk) noteWritableRoots(roots);
	const workspace = await Confinement.create({
		cwd,
		roots,
		protectedPatterns: options.protectedPatterns,
		workspace: tools,
		homeDir,
	});
	let sandbox: Sandbox | undefined;
	const commandHooks = createCommandHooks({
		cwd,
		// The remote folder is not on this machine: hooks run where toolbelt was started.
		processCwd: projectDisk ? process.cwd() : undefined,
		projectDir,
		preToolUse: settings.preToolUse,
		postToolUse: settings.postToolUse,
		sessionId: options.sessionId,
		permissionMode: mode,
		onHookError: options.onHookError,
		// Made below; asked at each run, so hooks run in the same sandbox as commands.
		sandbox: () => sandbox,
	});
	const staleWrite = createStaleWriteHooks({
		seenFiles: options.seenFiles,
		allowWriteWithoutRead: options.allowWriteWithoutRead,
	});
	const permissions = createPermissionHook({
		workspace,
		rules,
		mode,
		ask: options.ask,
		autoAllowReadOnlyCommands: options.autoAllowReadOnlyCommands ?? settings.autoAllowReadOnlyCommands,
		...alwaysRulesOptions(options.persistAlways !== false, projectDir, homeDir, settings, projectDisk),
	});
	const hooks = composeHooks([
		preToolUseUnit(commandHooks),
		options.confine !== false ? createConfinementHook(workspace) : undefined,
		options.checkStaleWrites !== false ? staleWrite : undefined,
		{
			beforeToolCall: (context, signal) => permissions.check(context, signal, callStateOf(context.target).hookDecision),
		},
		createReadDenyFilter(rules),
		postToolUseUnit(commandHooks),
	]);

	// The sandbox confines commands on this machine; a remote workspace's commands run there.
	const sandboxSetting = options.sandbox ?? (projectDisk ? false : settings.sandbox.enabled) ?? false;
	if (sandboxSetting !== false) {
		sandbox = await createSandbox(
			sandboxOptionsOf(typeof sandboxSetting === "object" ? sandboxSetting : {}, settings, {
				roots: workspace.realRoots,
				cwd,
				homeDir,
			}),
		);
	}
	const passEnvironment = [...(settings.shell?.passEnvironment ?? []), ...(options.passEnvironment ?? [])];
	const wrapShellOperations = (operations: ShellOperations) => (sandbox ? sandbox.wrap(operations) : operations);
	return {
		hooks,
		mode,
		settings,
		rules,
		workspace,
		seenFiles: staleWrite.seenFiles,
		sandbox,
		shell: {
			...(sandbox ? { operations: sandbox.wrap(localShellOperations) } : {}),
			...(passEnvironment.length > 0 ? { passEnvironment } : {}),
		},
		wrapShellOperations,
		judgeRestore: restoreJudgeOf(workspace, rules),
		prepareFor: permissions.prepareFor,
	};
}
