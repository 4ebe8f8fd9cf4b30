import { mkdir, readFile, realpath, rename, writeFile } from "node:fs/promises";
import { homedir } from "node:os";
import { dirname, join, resolve } from "node:path";
import type { ErrorObject, ValidateFunction } from "ajv";
import { loadAjv } from "../engine/ajv-loader.js";
import { type PermissionBehavior, type PermissionMode, type PermissionRule, parseRule } from "./rules.js";
import { type HookMatcherSettings, type Settings, settingsSchema } from "./settings-schema.js";
import {
	type ProjectSettingsTrust,
	type ProjectTrustCheck,
	settingsContentHash,
	splitProjectSettings,
	trustedByUser,
	userTrustOf,
} from "./trust.js";

export {
	type HookCommandSettings,
	type HookMatcherSettings,
	type Settings,
	settingsSchema,
} from "./settings-schema.js";

/** Thrown for a settings file that cannot be used; the message names the file and the problem. */
export class SettingsError extends Error {
	/** The file at fault. */
	readonly file: string;

	constructor(file: string, problem: string) {
		super(`Invalid settings file ${file}: ${problem}`);
		this.name = "SettingsError";
		this.file = file;
	}
}

/** A settings file that was found and read. */
export interface SettingsSource {
	/** `user` (`~/.toolbelt/settings.json`) or `project` (`<project>/.toolbelt/settings.json`). */
	scope: "user" | "project";
	/** Absolute path of the file. */
	file: string;
	/** Its validated contents as applied: of a project file in an untrusted folder, only what restricts. */
	settings: Settings;
}

/** Options of `loadSettings`. */
export interface LoadSettingsOptions {
	/** The project directory; its `.toolbelt/settings.json` is read. */
	projectDir: string;
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
	/** Extra workspace roots from every file, resolved against the file's project. */
	additionalDirectories: string[];
	/** PreToolUse hooks of every file: user first, then project. */
	preToolUse: HookMatcherSettings[];
	/** PostToolUse hooks of every file: user first, then project. */
	postToolUse: HookMatcherSettings[];
	/** Sandbox settings: project fields over user fields. */
	sandbox: NonNullable<Settings["sandbox"]>;
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

// Compiled on first use: a start with no settings file pays nothing for ajv.
let validateSettings: ValidateFunction | undefined;

function describeProblem(error: ErrorObject): string {
	const path = error.instancePath
		.split("/")
		.slice(1)
		.map((segment) => (/^\d+$/.test(segment) ? `[${segment}]` : `.${segment}`))
		.join("")
		.replace(/^\./, "");
	const where = path === "" ? "the top level" : path;
	const params = error.params as { additionalProperty?: string; allowedValues?: unknown[] };
	if (params.additionalProperty) return `${where}: unknown key "${params.additionalProperty}"`;
	if (params.allowedValues)
		return `${where}: must be one of ${params.allowedValues.map((value) => JSON.stringify(value)).join(", ")}`;
	return `${where}: ${error.message ?? "is invalid"}`;
}

/** One problem per failing path; a union of constants reports its allowed values once, not one error per branch. */
function summarizeErrors(errors: readonly ErrorObject[]): string[] {
	const allowedByPath = new Map<string, unknown[]>();
	for (const error of errors) {
		if (error.keyword !== "const") continue;
		const list = allowedByPath.get(error.instancePath) ?? [];
		list.push((error.params as { allowedValue?: unknown }).allowedValue);
		allowedByPath.set(error.instancePath, list);
	}
	return errors
		.filter((error) => error.keyword !== "anyOf" || !allowedByPath.has(error.instancePath))
		.map((error) => {
			const allowed = allowedByPath.get(error.instancePath);
			if (error.keyword !== "const" || !allowed) return describeProblem(error);
			return describeProblem({ ...error, params: { allowedValues: allowed } });
		});
}

/** Parses and validates the text of a settings file. Throws `SettingsError` naming the file. */
export function parseSettings(text: string, file: string): Settings {
	let data: unknown;
	try {
		data = JSON.parse(text);
	} catch (error) {
		throw new SettingsError(file, `not valid JSON (${(error as Error).message})`);
	}
	if (typeof data !== "object" || data === null || Array.isArray(data)) {
		throw new SettingsError(file, "the top level must be a JSON object");
	}
	validateSettings ??= new (loadAjv())({ allErrors: true, strict: false }).compile(settingsSchema);
	if (!validateSettings(data)) {
		const problems = [...new Set(summarizeErrors(validateSettings.errors ?? []))].slice(0, 5);
		throw new SettingsError(file, problems.join("; "));
	}
	const settings = data as Settings;
	for (const behavior of ["allow", "ask", "deny"] as const) {
		for (const [index, rule] of (settings.permissions?.[behavior] ?? []).entries()) {
			try {
				parseRule(rule, behavior, file);
			} catch (error) {
				throw new SettingsError(file, `permissions.${behavior}[${index}]: ${(error as Error).message}`);
			}
		}
	}
	for (const event of ["PreToolUse", "PostToolUse"] as const) {
		for (const [index, entry] of (settings.hooks?.[event] ?? []).entries()) {
			try {
				if (entry.matcher !== undefined) new RegExp(entry.matcher);
			} catch (error) {
				throw new SettingsError(
					file,
					`hooks.${event}[${index}].matcher is not a valid regular expression (${(error as Error).message})`,
				);
			}
		}
	}
	return settings;
}

/** The text of a settings file, undefined when it does not exist. */
async function readSettingsText(file: string): Promise<string | undefined> {
	try {
		return await readFile(file, "utf8");
	} catch (error) {
		if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
		throw new SettingsError(file, `cannot be read (${(error as Error).message})`);
	}
}

/** Rules of one settings file, tagged with the file. */
export function rulesOf(settings: Settings, source: string): PermissionRule[] {
	const behaviors: PermissionBehavior[] = ["deny", "ask", "allow"];
	return behaviors.flatMap((behavior) =>
		(settings.permissions?.[behavior] ?? []).map((rule) => parseRule(rule, behavior, source)),
	);
}

/**
 * The project source as it may apply: all of it when trusted, else only what restricts. The
 * trust check sees exactly the bytes that were parsed, so what is trusted is what is used.
 */
async function applyProjectTrust(
	source: SettingsSource,
	text: string,
	options: LoadSettingsOptions,
	user: Settings | undefined,
): Promise<{ settings: Settings; project: ProjectSettingsTrust }> {
	const homeDir = options.homeDir ?? homedir();
	const { restrictive, widening } = splitProjectSettings(source.settings, user?.permissions?.defaultMode);
	const realProjectDir = await realpath(options.projectDir).catch(() => resolve(options.projectDir));
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
 * file is fine; a malformed one throws `SettingsError` naming the file and the problem.
 */
export async function loadSettings(options: LoadSettingsOptions): Promise<LoadedSettings> {
	const candidates: { scope: "user" | "project"; file: string }[] = [
		{ scope: "user", file: userSettingsPath(options.homeDir ?? homedir()) },
		{ scope: "project", file: projectSettingsPath(options.projectDir) },
	];
	const sources: SettingsSource[] = [];
	let project: ProjectSettingsTrust | undefined;
	for (const candidate of candidates) {
		// The same file twice (project dir = home dir) would double every hook; it is the user's own.
		if (sources.some((source) => source.file === candidate.file)) continue;
		const text = await readSettingsText(candidate.file);
		if (text === undefined) continue;
		const source: SettingsSource = { ...candidate, settings: parseSettings(text, candidate.file) };
		if (candidate.scope === "project") {
			const user = sources.find((entry) => entry.scope === "user")?.settings;
			const applied = await applyProjectTrust(source, text, options, user);
			source.settings = applied.settings;
			project = applied.project;
		}
		sources.push(source);
	}
	const loaded: LoadedSettings = {
		sources,
		rules: sources.flatMap((source) => rulesOf(source.settings, source.file)),
		additionalDirectories: [],
		preToolUse: [],
		postToolUse: [],
		sandbox: {},
		project,
	};
	for (const { settings, file } of sources) {
		const permissions = settings.permissions;
		if (permissions?.defaultMode) loaded.defaultMode = permissions.defaultMode;
		for (const directory of permissions?.additionalDirectories ?? []) {
			// Relative entries are taken from the project the file belongs to (the parent of `.toolbelt/`).
			loaded.additionalDirectories.push(
				directory.startsWith("~/") ? directory : resolve(dirname(dirname(file)), directory),
			);
		}
		loaded.preToolUse.push(...(settings.hooks?.PreToolUse ?? []));
		loaded.postToolUse.push(...(settings.hooks?.PostToolUse ?? []));
		loaded.sandbox = { ...loaded.sandbox, ...settings.sandbox };
	}
	return loaded;
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
}): Promise<{ before?: string; after: string }> {
	const behavior = options.behavior ?? "allow";
	const before = await readSettingsText(options.file);
	const existing = before === undefined ? {} : parseSettings(before, options.file);
	const permissions = { ...existing.permissions };
	const list = [...(permissions[behavior] ?? [])];
	for (const rule of options.rules) if (!list.includes(rule)) list.push(rule);
	permissions[behavior] = list;
	const updated = { ...existing, permissions };
	await mkdir(dirname(options.file), { recursive: true });
	const temporary = `${options.file}.${process.pid}.${Date.now()}.tmp`;
	const after = `${JSON.stringify(updated, null, 2)}\n`;
	await writeFile(temporary, after);
	await rename(temporary, options.file);
	return { before, after };
}
