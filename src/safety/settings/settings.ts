import { realpathSync } from "node:fs";
import { mkdir, rename, writeFile } from "node:fs/promises";
import { homedir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { type PermissionBehavior, type PermissionMode, type PermissionRule, parseRule } from "../permissions/rules.js";
import {
	type ProjectSettingsTrust,
	type ProjectTrustCheck,
	settingsContentHash,
	splitProjectSettings,
	trustedByUser,
	userTrustOf,
} from "../trust/trust.js";
import { type ProjectDisk, readSettingsBytes, SettingsReadError, writeSettingsText } from "./settings-disk.js";
import { parseSettings, SettingsError } from "./settings-parse.js";
import { diagnosticsServersOf, type HookMatcherSettings, type Settings } from "./settings-schema.js";

export { type ProjectDisk, SETTINGS_MAX_BYTES } from "./settings-disk.js";
export { parseSettings, SettingsError } from "./settings-parse.js";
export {
	type DiagnosticsServerSetting,
	diagnosticsServersOf,
	type HookCommandSettings,
	type HookMatcherSettings,
	type Settings,
	settingsSchema,
} from "./settings-schema.js";

/** A settings file that was found and read. */
export interface SettingsSource {
	/** `user` (`~/.toolbelt/settings.json`) or `project` (`<project>/.toolbelt/settings.json`). */
	scope: "user" | "project";
	/** The file: its absolute path, or for a project on another disk (`projectDisk`) its name there (`ssh://box/srv/app/.toolbelt/settings.json`). */
	file: string;
	/** Its validated contents as applied: of a project file in an untrusted folder, only what restricts. */
	settings: Settings;
}

/** Options of `loadSettings`. */
export interface LoadSettingsOptions {
	/** The project directory; its `.toolbelt/settings.json` is read (on `projectDisk` when given). */
	projectDir: string;
	/**
	 * The disk the project directory is on when it is not this machine's (a remote workspace):
	 * the project file is read there, and trust names the folder by `projectDisk.nameOf`. The user
	 * file is always read from this machine. Default: this machine's disk.
	 */
	projectDisk?: ProjectDisk;
	/** The home directory whose `.toolbelt/settings.json` is read. Default: the user's home (tests pass a temp dir). */
	homeDir?: string;
	/**
	 * Whether the project file's settings that widen what runs (hooks, allow rules, a less strict
	 * mode, extra directories, sandbox relaxations) apply: `true`, `false`, or a check that sees
	 * exactly what they enable (asked only when the file widens anything). Settings that only
	 * restrict always apply. Default: only when the user already trusts the folder — a record in
	 * `~/.toolbelt/trusted-folders.json` for this exact file, or `trustedProjects` in the user file.
	 */
	trustProject?: boolean | ProjectTrustCheck;
}

/** Settings of all files, merged. */
export interface LoadedSettings {
	/** Files that existed, user first, then project. */
	sources: SettingsSource[];
	/** Every rule of every file, tagged with its file. */
	rules: PermissionRule[];
	/** The mode the project asks for, else the user's, if any. */
	defaultMode?: PermissionMode;
	/** `permissions.autoAllowReadOnlyCommands` of the project file, else the user's, if any. */
	autoAllowReadOnlyCommands?: boolean;
	/** Extra workspace roots from every file, resolved against the file's project. */
	additionalDirectories: string[];
	/** PreToolUse hooks of every file: user first, then project. */
	preToolUse: HookMatcherSettings[];
	/** PostToolUse hooks of every file: user first, then project. */
	postToolUse: HookMatcherSettings[];
	/** Sandbox settings: project fields over user fields. */
	sandbox: NonNullable<Settings["sandbox"]>;
	/** Shell settings: `passEnvironment` of every file (user first). Default: none. */
	shell?: { passEnvironment: string[] };
	/** Diagnostics settings: the project's `enabled` over the user's, servers merged by name (the project's first). */
	diagnostics?: NonNullable<Settings["diagnostics"]>;
	/** Edit settings: the project's `syntaxCheck` over the user's. Default: none (the tools' own default). */
	edit?: NonNullable<Settings["edit"]>;
	/** Tool search settings: the project's `threshold` over the user's. Default: none (`DEFAULT_TOOL_SEARCH_THRESHOLD`). */
	toolSearch?: NonNullable<Settings["toolSearch"]>;
	/** Code mode's bounds per program: the project's fields over the user's. Default: none (the tool's own defaults). */
	code?: NonNullable<Settings["code"]>;
	/** How the project file was applied (trusted, or which widening settings were ignored); absent without a project file. */
	project?: ProjectSettingsTrust;
}

/** The path of the project settings file. */
export function projectSettingsPath(projectDir: string): string {
	return join(projectDir, ".toolbelt", "settings.json");
}

/** The path of the user settings file. */
export function userSettingsPath(homeDir: string = homedir()): string {
	return join(homeDir, ".toolbelt", "settings.json");
}

/**
 * The text of a settings file, undefined when it does not exist: a regular file of at most
 * `SETTINGS_MAX_BYTES`, and with `within` one inside that folder (see `readSettingsBytes`).
 * `shownAs` names the file in errors (default: `file`).
 */
async function readSettingsText(
	file: string,
	options: { disk?: ProjectDisk; within?: string; shownAs?: string } = {},
): Promise<string | undefined> {
	try {
		return (await readSettingsBytes(file, options.disk?.files, options.within))?.toString("utf8");
	} catch (error) {
		if (error instanceof SettingsReadError)
			throw new SettingsError(options.shownAs ?? file, error.message, { unreadable: error.unreadable });
		throw error;
	}
}

/** Rules of one settings file, tagged with the file. */
export function rulesOf(settings: Settings, source: string): PermissionRule[] {
	const behaviors: PermissionBehavior[] = ["deny", "ask", "allow"];
	return behaviors.flatMap((behavior) =>
		(settings.permissions?.[behavior] ?? []).map((rule) => parseRule(rule, behavior, source)),
	);
}

/** Where the project file is, how messages name it, and the real folder trust is keyed by. */
interface ProjectPlace {
	/** The file's path on its disk. */
	file: string;
	/** How messages and rule sources name it: the path, or its remote name. */
	shownAs: string;
	/** The project folder's real path on its disk: the file must lie inside it. */
	realDir: string;
	/** The trust key: the real path, or for another disk its name there (never a bare local path). */
	key: string;
}

/**
 * The real path of a local folder, or the folder as given when it cannot be resolved. Synchronous,
 * as the local disk's metadata calls are: through the thread pool this one call started its four
 * threads (and loaded `fs/promises`) in every one-shot `toolbelt tool read`.
 */
function localRealPath(folder: string): string {
	try {
		return realpathSync.native(folder);
	} catch {
		return resolve(folder);
	}
}

async function projectPlace(options: LoadSettingsOptions): Promise<ProjectPlace> {
	const file = projectSettingsPath(options.projectDir);
	const disk = options.projectDisk;
	if (!disk) {
		const realDir = localRealPath(options.projectDir);
		return { file, shownAs: file, realDir, key: realDir };
	}
	// A folder that cannot be resolved has no file either: the read then says so, or finds none.
	const realDir = await disk.files.realpath(options.projectDir).catch(() => options.projectDir);
	return { file, shownAs: disk.nameOf(file), realDir, key: disk.nameOf(realDir) };
}

/**
 * The project source as it may apply: all of it when trusted, else only what restricts. The
 * trust check sees exactly the bytes that were parsed, so what is trusted is what is used.
 */
async function applyProjectTrust(
	source: SettingsSource,
	text: string,
	place: ProjectPlace,
	options: LoadSettingsOptions,
	user: Settings | undefined,
): Promise<{ settings: Settings; project: ProjectSettingsTrust }> {
	const homeDir = options.homeDir ?? homedir();
	const { restrictive, widening } = splitProjectSettings(
		source.settings,
		user?.permissions?.defaultMode,
		user?.permissions?.autoAllowReadOnlyCommands,
	);
	const realProjectDir = place.key;
	const contentHash = settingsContentHash(text);
	const project = { file: source.file, realProjectDir, contentHash, widening };
	const check = options.trustProject ?? trustedByUser;
	let trusted = widening.length === 0 || check === true;
	if (!trusted && typeof check === "function") {
		const trustedBy = await userTrustOf({
			realProjectDir,
			contentHash,
			trustedProjects: user?.trustedProjects,
			homeDir,
		});
		trusted = (await check({ ...project, trustedBy })) === true;
	}
	const { trustedProjects: _neverFromAProject, ...all } = source.settings;
	return {
		settings: trusted ? all : restrictive,
		project: { ...project, trusted, ignored: trusted ? [] : widening },
	};
}

/**
 * Loads `~/.toolbelt/settings.json` and `<project>/.toolbelt/settings.json`. Rules and hooks of
 * both apply (deny beats ask beats allow, wherever a rule comes from); for single values the
 * project file wins over the user file. The project file's settings that widen what runs apply
 * only when the folder is trusted (`trustProject`); what only restricts always applies. A missing
 * file is fine; a malformed, oversized or non-regular one, or a project file leading outside its
 * project (a symlink), throws `SettingsError` naming the file and the problem. The project file
 * is read on `projectDisk` when given (a remote workspace), the user file always on this machine.
 */
export async function loadSettings(options: LoadSettingsOptions): Promise<LoadedSettings> {
	const sources: SettingsSource[] = [];
	const userFile = userSettingsPath(options.homeDir ?? homedir());
	const userText = await readSettingsText(userFile);
	if (userText !== undefined)
		sources.push({ scope: "user", file: userFile, settings: parseSettings(userText, userFile) });
	let project: ProjectSettingsTrust | undefined;
	const place = await projectPlace(options);
	// The same file twice (project dir = home dir) would double every hook; it is the user's own.
	const sameAsUser = !options.projectDisk && place.file === userFile;
	const text = sameAsUser
		? undefined
		: await readSettingsText(place.file, { disk: options.projectDisk, within: place.realDir, shownAs: place.shownAs });
	if (text !== undefined) {
		const source: SettingsSource = {
			scope: "project",
			file: place.shownAs,
			settings: parseSettings(text, place.shownAs),
		};
		const applied = await applyProjectTrust(source, text, place, options, sources[0]?.settings);
		source.settings = applied.settings;
		project = applied.project;
		sources.push(source);
	}
	const loaded: LoadedSettings = {
		sources,
		rules: sources.flatMap((source) => rulesOf(source.settings, source.file)),
		additionalDirectories: [],
		preToolUse: [],
		postToolUse: [],
		sandbox: {},
		shell: { passEnvironment: [] },
		project,
	};
	for (const { settings, scope } of sources) {
		const permissions = settings.permissions;
		if (permissions?.defaultMode) loaded.defaultMode = permissions.defaultMode;
		if (permissions?.autoAllowReadOnlyCommands !== undefined)
			loaded.autoAllowReadOnlyCommands = permissions.autoAllowReadOnlyCommands;
		// Relative entries are taken from the project the file belongs to (the parent of `.toolbelt/`).
		const base = scope === "project" ? options.projectDir : dirname(dirname(userFile));
		for (const directory of permissions?.additionalDirectories ?? []) {
			loaded.additionalDirectories.push(directory.startsWith("~/") ? directory : resolve(base, directory));
		}
		loaded.preToolUse.push(...(settings.hooks?.PreToolUse ?? []));
		loaded.postToolUse.push(...(settings.hooks?.PostToolUse ?? []));
		loaded.sandbox = {
			...loaded.sandbox,
			...settings.sandbox,
			...mergedNetwork(loaded.sandbox.network, settings.sandbox?.network),
		};
		loaded.shell?.passEnvironment.push(...(settings.shell?.passEnvironment ?? []));
		// Not a widening: a syntax check left off lets broken files through, it runs nothing.
		if (settings.edit) loaded.edit = { ...loaded.edit, ...settings.edit };
		if (settings.diagnostics) {
			const servers = { ...diagnosticsServersOf(loaded.diagnostics), ...diagnosticsServersOf(settings.diagnostics) };
			loaded.diagnostics = {
				...loaded.diagnostics,
				...settings.diagnostics,
				...(Object.keys(servers).length > 0 ? { servers } : {}),
			};
		}
		if (settings.toolSearch) loaded.toolSearch = { ...loaded.toolSearch, ...settings.toolSearch };
		// Not a widening: a bound only sets how long and how large a program may run; each is capped by the schema.
		if (settings.code) loaded.code = { ...loaded.code, ...settings.code };
	}
	return loaded;
}

type NetworkSettings = NonNullable<NonNullable<Settings["sandbox"]>["network"]>;

/** Both files' network lists apply, as rules do. */
function mergedNetwork(
	earlier: NetworkSettings | undefined,
	later: NetworkSettings | undefined,
): { network?: NetworkSettings } {
	if (!earlier && !later) return {};
	const union = (key: "allow" | "deny" | "hosts") => {
		const entries = [...(earlier?.[key] ?? []), ...(later?.[key] ?? [])];
		return entries.length > 0 ? { [key]: entries } : {};
	};
	const secrets = [...(earlier?.secrets ?? []), ...(later?.secrets ?? [])];
	return {
		network: { ...union("allow"), ...union("deny"), ...union("hosts"), ...(secrets.length > 0 ? { secrets } : {}) },
	};
}

/**
 * Adds `rules` to the `permissions[behavior]` list of a settings file (the project's, for
 * "always" answers), keeping everything else in it. Creates the file if needed; writes atomically.
 * Resolves to the file's text before (undefined when it did not exist) and after.
 */
export async function addRulesToSettingsFile(options: {
	/** The settings file to change. */
	file: string;
	/** The rules to add, as written (`bash(npm test)`). Rules already present are not repeated. */
	rules: string[];
	/** The list to add them to. Default: `allow`. */
	behavior?: PermissionBehavior;
	/** The disk the file is on (a remote project's). Default: this machine's. */
	disk?: ProjectDisk;
}): Promise<{ before?: string; after: string }> {
	const behavior = options.behavior ?? "allow";
	const before = await readSettingsText(options.file, { disk: options.disk });
	const existing = before === undefined ? {} : parseSettings(before, options.file);
	const permissions = { ...existing.permissions };
	const list = [...(permissions[behavior] ?? [])];
	for (const rule of options.rules) if (!list.includes(rule)) list.push(rule);
	permissions[behavior] = list;
	const updated = { ...existing, permissions };
	const after = `${JSON.stringify(updated, null, 2)}\n`;
	if (options.disk) {
		await writeSettingsText(options.file, after, options.disk.files);
		return { before, after };
	}
	await mkdir(dirname(options.file), { recursive: true });
	const temporary = `${options.file}.${process.pid}.${Date.now()}.tmp`;
	await writeFile(temporary, after);
	await rename(temporary, options.file);
	return { before, after };
}
