import { workspaceUrlFormsText } from "../../workspace/url-schemes/index.js";
import type { OptionSpecs } from "../args.js";

// Only option specs here: `commands.ts` (loaded for `--help` and `--version`) imports this file,
// so it must not pull in the safety layer itself (ajv, the settings schema).

/** The permission modes, as `--mode` accepts them. */
export const cliPermissionModes = ["default", "accept-edits", "read-only", "yolo"] as const;

/**
 * The flags that give the path of a remote workspace's client, each with the `createWorkspaceFromUrl`
 * option it sets. Without one, the client is looked up where no sandboxed command can have planted it.
 */
export const clientPathFlags = {
	"ssh-path": "sshPath",
	"docker-path": "dockerPath",
	"podman-path": "podmanPath",
	"kubectl-path": "kubectlPath",
} as const;

const clientPathSpecs: OptionSpecs = Object.fromEntries(
	Object.keys(clientPathFlags).map((flag) => {
		const client = flag.replace(/-path$/, "");
		return [
			flag,
			{
				type: "string",
				valueName: "<path>",
				description: `The ${client} client of a ${client}:// workspace, by path. Default: ${client} from a system folder, or a PATH folder no sandboxed command can write.`,
			},
		];
	}),
);

/** Where the tools act: a remote workspace URL, and options for its clients. */
export const workspaceOptions: OptionSpecs = {
	workspace: {
		type: "string",
		valueName: "<url>",
		description: `Act on a remote workspace: ${workspaceUrlFormsText} (instead of --cwd).`,
	},
	"ssh-option": {
		type: "string",
		multiple: true,
		valueName: "<key=value>",
		description:
			"An option for the ssh client of an ssh:// workspace, as ssh -o (e.g. IdentityFile=~/.ssh/dev). Repeatable.",
	},
	...clientPathSpecs,
};

/** The safety flags shared by the commands that run tools (run, the interactive session, tool, mcp). */
export const safetyOptions: OptionSpecs = {
	...workspaceOptions,
	mode: {
		type: "string",
		valueName: "<mode>",
		description:
			"Permission mode: default (ask before file changes and commands), accept-edits (ask before commands), read-only, yolo (ask for nothing). Default: permissions.defaultMode in .toolbelt/settings.json, else default.",
	},
	allow: {
		type: "string",
		multiple: true,
		valueName: "<rule>",
		description: "Allow calls that match a rule, e.g. 'bash(npm run test:*)' or 'edit(src/**)'. Repeatable.",
	},
	ask: {
		type: "string",
		multiple: true,
		valueName: "<rule>",
		description: "Ask before calls that match a rule, e.g. 'bash(git push:*)'. Repeatable.",
	},
	deny: {
		type: "string",
		multiple: true,
		valueName: "<rule>",
		description:
			"Refuse calls that match a rule, e.g. 'read(.env*)' or 'bash(curl:*)'. Beats allow and ask. Repeatable.",
	},
	sandbox: {
		type: "boolean",
		description:
			"Run bash commands in a bubblewrap sandbox (Linux): only the workspace is writable, no network. Fails if bwrap cannot run.",
	},
	"pass-env": {
		type: "string",
		multiple: true,
		valueName: "<name>",
		description:
			"Give commands this variable although its name marks a secret (e.g. NPM_TOKEN; such variables are kept out by default). Repeatable.",
	},
	"no-read-only-commands": {
		type: "boolean",
		description:
			"In default mode, ask before the read-only commands too (ls, cat, grep… run without asking otherwise; permissions.autoAllowReadOnlyCommands: false in settings).",
	},
	"allow-write-without-read": {
		type: "boolean",
		description: "Let write replace an existing file the model has not read (refused by default).",
	},
	"no-confine": {
		type: "boolean",
		description:
			"Let the file tools reach paths outside the working directory (confined by default; the shell never is).",
	},
	"trust-project": {
		type: "boolean",
		description:
			"Trust this folder's .toolbelt/settings.json for this run: its hooks, allow rules, mode, additionalDirectories and sandbox relaxations apply (ignored in an untrusted folder).",
	},
};

/**
 * The safety flags of `toolbelt tool`: the call is typed by a person, so nothing is asked and
 * the default mode is yolo, and write may replace files (no model has to have read them first).
 */
export const toolCommandSafetyOptions: OptionSpecs = {
	...workspaceOptions,
	mode: {
		...safetyOptions.mode!,
		description:
			"Permission mode: yolo (default here: you typed the call), accept-edits, default or read-only. Calls that would need approval are refused; nothing is asked.",
	},
	allow: {
		...safetyOptions.allow!,
		description: "Allow calls that match a rule; needed for protected paths, e.g. 'write(.env.example)'. Repeatable.",
	},
	deny: safetyOptions.deny!,
	sandbox: safetyOptions.sandbox!,
	"pass-env": safetyOptions["pass-env"]!,
	"no-confine": safetyOptions["no-confine"]!,
	"no-read-only-commands": safetyOptions["no-read-only-commands"]!,
	"trust-project": safetyOptions["trust-project"]!,
};

/** What `--help` says about the safety layer (the agent commands). */
export const safetyHelp = `Safety: file tools stay inside the working directory (and permissions.additionalDirectories);
writes to .git, .toolbelt and .env* need an allow rule. Rules come from .toolbelt/settings.json,
~/.toolbelt/settings.json and the flags; deny beats ask beats allow. A folder's own settings that
widen what runs (hooks, allow rules, a laxer mode, extra directories, sandbox relaxations) apply
only once you trust the folder (asked in the session; --trust-project; trustedProjects).`;
