import { createHash } from "node:crypto";
import { realpath } from "node:fs/promises";
import { homedir } from "node:os";
import { isAbsolute, resolve, sep } from "node:path";
import type { PermissionMode } from "../permissions/rules.js";
import { diagnosticsServersOf, type Settings } from "../settings/settings-schema.js";
import { trustRecordOf, writeTrustRecord } from "./trust-store.js";

/**
 * One setting of a project file that widens what runs, as shown to the user: `key` names the
 * setting (`hooks.PreToolUse`, `permissions.allow`, `sandbox.writablePaths`, …), `value` says
 * exactly what it enables (the hook's command, the rule, the directory).
 */
export interface WideningSetting {
	/** The setting's path in the file, e.g. `permissions.allow`. */
	key: string;
	/** What it enables, as written in the file (a command, a rule, a path, a value). */
	value: string;
}

/** What the project settings file asks for, given to a `ProjectTrustCheck`. */
export interface ProjectSettingsReview {
	/** The project settings file. */
	file: string;
	/**
	 * The project folder's real path: trust is keyed by it. For a folder on another disk (a remote
	 * workspace) its name there, e.g. `ssh://dev@box/srv/app`, so it never matches a local folder.
	 */
	realProjectDir: string;
	/** `sha256:<hex>` of the file's bytes: trust is keyed by it too, so a changed file asks again. */
	contentHash: string;
	/** Every setting of the file that widens what runs; never empty when a check is asked. */
	widening: WideningSetting[];
	/**
	 * Set when the user already trusts this folder: `record` (they trusted this exact file before,
	 * in `~/.toolbelt/trusted-folders.json`) or `user-settings` (`trustedProjects` lists the folder).
	 */
	trustedBy?: "record" | "user-settings";
}

/** Decides whether the project settings may widen what runs. */
export type ProjectTrustCheck = (review: ProjectSettingsReview) => boolean | Promise<boolean>;

/** How the project settings file was applied. */
export interface ProjectSettingsTrust {
	/** The project settings file. */
	file: string;
	/** The project folder's real path. */
	realProjectDir: string;
	/** `sha256:<hex>` of the file as read. */
	contentHash: string;
	/** Its settings that widen what runs (empty when it only restricts). */
	widening: WideningSetting[];
	/** True when the widening settings apply (the folder is trusted, or the file widens nothing). */
	trusted: boolean;
	/** The widening settings that were left out because the folder is not trusted (empty when trusted). */
	ignored: WideningSetting[];
}

/** `sha256:<hex>` of a settings file's bytes. */
export function settingsContentHash(content: string | Uint8Array): string {
	return `sha256:${createHash("sha256").update(content).digest("hex")}`;
}

// The order of strictness: a project file may always move the mode towards read-only, never away.
const modeStrictness: Record<PermissionMode, number> = { yolo: 0, "accept-edits": 1, default: 2, "read-only": 3 };

/** True when `mode` asks at least as much as `baseline`: such a mode only restricts. */
export function isModeAtLeastAsStrict(mode: PermissionMode, baseline: PermissionMode): boolean {
	return modeStrictness[mode] >= modeStrictness[baseline];
}

function describeValue(value: unknown): string {
	return typeof value === "string" ? value : JSON.stringify(value);
}

/**
 * Splits a project settings file into what always applies (what only restricts: deny and ask
 * rules, a mode at least as strict as `baselineMode`, `autoAllowReadOnlyCommands: false` (or `true`
 * unless the user file, `baselineReadOnlyCommands`, turned the list off), `sandbox.enabled: true`,
 * `sandbox.allowNetwork: false`, `sandbox.network.deny`) and what widens what runs, which needs the folder's trust:
 * command hooks, allow rules, a less strict mode, `additionalDirectories`, `shell.passEnvironment`, and every other sandbox
 * key (`allowNetwork: true`, `network.allow`, `network.hosts`, `writablePaths`, `exposeCredentials`, `enabled: false`, and any key
 * added later: unknown means widening). `trustedProjects` is never taken from a project file.
 */
export function splitProjectSettings(
	settings: Settings,
	baselineMode: PermissionMode = "default",
	baselineReadOnlyCommands?: boolean,
): { restrictive: Settings; widening: WideningSetting[] } {
	const widening: WideningSetting[] = [];
	const permissions = settings.permissions ?? {};
	const restrictivePermissions: NonNullable<Settings["permissions"]> = {};
	if (permissions.deny) restrictivePermissions.deny = permissions.deny;
	if (permissions.ask) restrictivePermissions.ask = permissions.ask;
	for (const rule of permissions.allow ?? []) widening.push({ key: "permissions.allow", value: rule });
	if (permissions.defaultMode) {
		if (isModeAtLeastAsStrict(permissions.defaultMode, baselineMode))
			restrictivePermissions.defaultMode = permissions.defaultMode;
		else widening.push({ key: "permissions.defaultMode", value: permissions.defaultMode });
	}
	// Turning the read-only list off only asks more; turning it on widens only what the user turned off.
	const readOnly = permissions.autoAllowReadOnlyCommands;
	if (readOnly === false || (readOnly === true && baselineReadOnlyCommands !== false))
		restrictivePermissions.autoAllowReadOnlyCommands = readOnly;
	else if (readOnly === true) widening.push({ key: "permissions.autoAllowReadOnlyCommands", value: "true" });
	for (const directory of permissions.additionalDirectories ?? [])
		widening.push({ key: "permissions.additionalDirectories", value: directory });

	for (const event of ["PreToolUse", "PostToolUse"] as const) {
		for (const entry of settings.hooks?.[event] ?? []) {
			const matcher = entry.matcher === undefined || entry.matcher === "" ? "every tool" : `matcher ${entry.matcher}`;
			for (const hook of entry.hooks) widening.push({ key: `hooks.${event}`, value: `${hook.command} (${matcher})` });
		}
	}

	// A variable passed to commands hands its secret to whatever runs there.
	for (const name of settings.shell?.passEnvironment ?? [])
		widening.push({ key: "shell.passEnvironment", value: name });

	const restrictiveSandbox: Record<string, unknown> = {};
	for (const [key, value] of Object.entries(settings.sandbox ?? {})) {
		if (Array.isArray(value) && value.length === 0) continue; // an empty list widens nothing
		if (key === "network") {
			const network = splitNetworkSettings(settings.sandbox?.network ?? {}, widening);
			if (network) restrictiveSandbox.network = network;
			continue;
		}
		if ((key === "enabled" && value === true) || (key === "allowNetwork" && value === false))
			restrictiveSandbox[key] = value;
		else widening.push({ key: `sandbox.${key}`, value: describeValue(value) });
	}

	const restrictiveDiagnostics = splitDiagnosticsSettings(settings.diagnostics, widening);

	const restrictive: Settings = {};
	if (restrictiveDiagnostics) restrictive.diagnostics = restrictiveDiagnostics;
	if (Object.keys(restrictivePermissions).length > 0) restrictive.permissions = restrictivePermissions;
	if (Object.keys(restrictiveSandbox).length > 0) restrictive.sandbox = restrictiveSandbox as Settings["sandbox"];
	return { restrictive, widening };
}

/**
 * `diagnostics`: turning diagnostics or a server off only restricts; turning them on, or naming a
 * server's command, runs programs (a server named by a repository is the repository's code).
 */
function splitDiagnosticsSettings(
	diagnostics: Settings["diagnostics"],
	widening: WideningSetting[],
): Settings["diagnostics"] | undefined {
	if (!diagnostics) return undefined;
	const restrictive: NonNullable<Settings["diagnostics"]> = {};
	const enabled = diagnostics.enabled;
	if (enabled === false || (typeof enabled === "object" && Object.values(enabled).every((value) => value === false)))
		restrictive.enabled = enabled;
	else if (enabled !== undefined) widening.push({ key: "diagnostics.enabled", value: describeValue(enabled) });
	for (const [name, server] of Object.entries(diagnosticsServersOf(diagnostics))) {
		if (server === false) restrictive.servers = { ...restrictive.servers, [name]: false };
		else widening.push({ key: "diagnostics.servers", value: `${name}: ${server.command.join(" ")}` });
	}
	return Object.keys(restrictive).length > 0 ? restrictive : undefined;
}

/** `sandbox.network`: `deny` only restricts; `allow`, `hosts` and `secrets` widen where commands (and secrets) reach. */
function splitNetworkSettings(
	network: NonNullable<NonNullable<Settings["sandbox"]>["network"]>,
	widening: WideningSetting[],
): { deny: string[] } | undefined {
	for (const entry of network.allow ?? []) widening.push({ key: "sandbox.network.allow", value: entry });
	for (const entry of network.hosts ?? []) widening.push({ key: "sandbox.network.hosts", value: entry });
	// A project naming where a secret goes could send the user's token to its own host.
	for (const entry of network.secrets ?? [])
		widening.push({
			key: "sandbox.network.secrets",
			value: `${entry.env !== undefined ? `$${entry.env}` : entry.file} → ${entry.hosts.join(", ")}`,
		});
	return network.deny && network.deny.length > 0 ? { deny: [...network.deny] } : undefined;
}

async function realOrSelf(path: string): Promise<string> {
	return realpath(path).catch(() => path);
}

/**
 * True when a `trustedProjects` entry of the user settings covers `realProjectDir`: the folder
 * itself, or with a trailing `/**` every folder below it. Entries are absolute or start with `~/`;
 * an entry that is a workspace URL (`ssh://dev@box/srv/app`, `docker://web/**`) covers remote
 * folders (`realProjectDir` then names one the same way), and a local entry never covers one.
 */
export async function isListedInTrustedProjects(
	realProjectDir: string,
	entries: readonly string[],
	homeDir: string = homedir(),
): Promise<boolean> {
	if (isRemoteFolderName(realProjectDir)) return entries.some((entry) => coversRemoteFolder(entry, realProjectDir));
	for (const entry of entries) {
		if (isRemoteFolderName(entry)) continue;
		const recursive = entry === "/**" || entry.endsWith("/**");
		const base = recursive ? entry.slice(0, -3) || "/" : entry;
		const expanded = base === "~" ? homeDir : base.startsWith("~/") ? resolve(homeDir, base.slice(2)) : base;
		if (!isAbsolute(expanded)) continue;
		const real = await realOrSelf(resolve(expanded));
		if (real === realProjectDir) return true;
		if (recursive && (real === sep || realProjectDir.startsWith(`${real}${sep}`))) return true;
	}
	return false;
}

/** True for the name of a folder on another disk (`ssh://box/srv/app`): a URL, never a local path. */
function isRemoteFolderName(name: string): boolean {
	return /^[a-z][a-z0-9+.-]*:\/\//i.test(name);
}

/**
 * A `trustedProjects` entry naming remote folders covers `remoteFolder` when it is that name, or,
 * ending in `/**`, names a folder above it on the same remote. Compared as written: a remote
 * folder's real path is resolved there, not on this machine. Local entries never cover one.
 */
function coversRemoteFolder(entry: string, remoteFolder: string): boolean {
	if (!isRemoteFolderName(entry)) return false;
	if (!entry.endsWith("/**")) return entry.replace(/\/+$/, "") === remoteFolder;
	const base = entry.slice(0, -3);
	return remoteFolder === base || remoteFolder.startsWith(`${base}/`);
}

/** Whether the user already trusts this folder with this file, and how (see `ProjectSettingsReview.trustedBy`). */
export async function userTrustOf(options: {
	/** The folder's real path. */
	realProjectDir: string;
	/** `sha256:<hex>` of its settings file. */
	contentHash: string;
	/** `trustedProjects` of the user settings. Default: none. */
	trustedProjects?: readonly string[];
	/** Home directory of the trust records. Default: the user's home. */
	homeDir?: string;
}): Promise<ProjectSettingsReview["trustedBy"]> {
	if (await isListedInTrustedProjects(options.realProjectDir, options.trustedProjects ?? [], options.homeDir))
		return "user-settings";
	const record = await trustRecordOf(options.realProjectDir, options.homeDir);
	return record?.settingsHash === options.contentHash ? "record" : undefined;
}

/**
 * Remembers that the user trusts the reviewed folder with exactly the reviewed file (in
 * `~/.toolbelt/trusted-folders.json`; a changed file asks again).
 */
export async function recordProjectTrust(
	review: Pick<ProjectSettingsReview, "realProjectDir" | "contentHash">,
	homeDir: string = homedir(),
): Promise<void> {
	await writeTrustRecord({ realFolder: review.realProjectDir, settingsHash: review.contentHash, homeDir });
}

/** The default `ProjectTrustCheck`: trusted only when the user already said so (a record or `trustedProjects`). */
export const trustedByUser: ProjectTrustCheck = (review) => review.trustedBy !== undefined;
