// The settings file's schema and types, apart from the loader so that trust.ts can use the types
// without an import circle (settings.ts decides trust with trust.ts).
import type { Static } from "typebox";
import { Type } from "../../engine/index.js";
import { workspaceUrlSchemeAlternatives } from "../../workspace/url-schemes/index.js";
import { permissionModes } from "../permissions/rules.js";

/** One entry of `diagnostics.servers`: a server's command and the files it checks, or `false` (off). */
const diagnosticsServerSchema = Type.Union([
	Type.Literal(false),
	Type.Object(
		{
			command: Type.Array(Type.String({ minLength: 1 }), { minItems: 1 }),
			extensions: Type.Array(Type.String({ pattern: "^\\.[^/\\\\]+$" }), { minItems: 1 }),
			languageId: Type.Optional(Type.String({ minLength: 1 })),
		},
		{ additionalProperties: false },
	),
]);

/** One entry of `diagnostics.servers` (see the settings' `diagnostics`). */
export type DiagnosticsServerSetting = Static<typeof diagnosticsServerSchema>;

/** The servers of a settings file's `diagnostics.servers`, by name (the schema checks each entry). */
export function diagnosticsServersOf(
	diagnostics: { servers?: object } | undefined,
): Record<string, DiagnosticsServerSetting> {
	return (diagnostics?.servers ?? {}) as Record<string, DiagnosticsServerSetting>;
}

const hookCommandSchema = Type.Object(
	{
		type: Type.Literal("command"),
		command: Type.String({ minLength: 1 }),
		timeout: Type.Optional(Type.Number({ exclusiveMinimum: 0 })),
		onError: Type.Optional(Type.Union([Type.Literal("block"), Type.Literal("continue")])),
	},
	{ additionalProperties: false },
);

const hookMatcherSchema = Type.Object(
	{
		matcher: Type.Optional(Type.String()),
		hooks: Type.Array(hookCommandSchema),
	},
	{ additionalProperties: false },
);

/** The JSON Schema of a settings file. Unknown top-level keys are allowed (settings may be shared); our sections are strict. */
export const settingsSchema = Type.Object({
	permissions: Type.Optional(
		Type.Object(
			{
				allow: Type.Optional(Type.Array(Type.String())),
				ask: Type.Optional(Type.Array(Type.String())),
				deny: Type.Optional(Type.Array(Type.String())),
				defaultMode: Type.Optional(Type.Union(permissionModes.map((mode) => Type.Literal(mode)))),
				additionalDirectories: Type.Optional(Type.Array(Type.String())),
				/** In default mode, run the read-only commands (README "Read-only commands") without asking. Default: true. */
				autoAllowReadOnlyCommands: Type.Optional(Type.Boolean()),
			},
			{ additionalProperties: false },
		),
	),
	hooks: Type.Optional(
		Type.Object(
			{
				PreToolUse: Type.Optional(Type.Array(hookMatcherSchema)),
				PostToolUse: Type.Optional(Type.Array(hookMatcherSchema)),
			},
			{ additionalProperties: false },
		),
	),
	toolSearch: Type.Optional(
		Type.Object(
			{
				/**
				 * The agent sends every tool's definition while there are at most this many tools (MCP
				 * servers' included); above it, the core set and `tool_search`. Default: 40; 0 searches always.
				 */
				threshold: Type.Optional(Type.Integer({ minimum: 0 })),
			},
			{ additionalProperties: false },
		),
	),
	code: Type.Optional(
		Type.Object(
			{
				/** Interpreter time per program, in ms (waiting on tools does not count). Default: 10,000; at most 10 minutes. */
				cpuMs: Type.Optional(Type.Integer({ minimum: 1, maximum: 600_000 })),
				/** Interpreter memory per program, in bytes. Default: 64 MiB; at most 1 GiB. */
				memoryBytes: Type.Optional(Type.Integer({ minimum: 1024 * 1024, maximum: 1024 ** 3 })),
				/** Interpreter stack per program, in bytes. Default: 256 KiB; at most 64 MiB. */
				stackBytes: Type.Optional(Type.Integer({ minimum: 16 * 1024, maximum: 64 * 1024 * 1024 })),
				/** Tool calls per program. Default: 1,000; at most 100,000. */
				maxToolCalls: Type.Optional(Type.Integer({ minimum: 0, maximum: 100_000 })),
				/** Printed output kept per program, in bytes. Default: 1 MiB; at most 64 MiB. */
				maxOutputBytes: Type.Optional(Type.Integer({ minimum: 1024, maximum: 64 * 1024 * 1024 })),
			},
			{ additionalProperties: false },
		),
	),
	sandbox: Type.Optional(
		Type.Object(
			{
				enabled: Type.Optional(Type.Boolean()),
				allowNetwork: Type.Optional(Type.Boolean()),
				writablePaths: Type.Optional(Type.Array(Type.String())),
				exposeCredentials: Type.Optional(Type.Array(Type.String())),
				network: Type.Optional(
					Type.Object(
						{
							/** Hosts sandboxed commands may reach through the proxy (`example.org`, `*.example.org`, `localhost:5432`, `10.0.0.0/8`). */
							allow: Type.Optional(Type.Array(Type.String({ minLength: 1 }))),
							/** Hosts refused whatever `allow` says. */
							deny: Type.Optional(Type.Array(Type.String({ minLength: 1 }))),
							/** Names pinned to an address, as an /etc/hosts line would: `"name=address"`. */
							hosts: Type.Optional(Type.Array(Type.String({ pattern: "^[^=\\s]+=[^=\\s]+$" }))),
							/**
							 * Secrets kept out of the sandbox: `{ "env": "NPM_TOKEN", "hosts": ["registry.npmjs.org"] }` or
							 * `{ "file": "~/.npmrc", "hosts": […] }`. Inside, a placeholder; the proxy puts the real value in
							 * requests to those hosts only.
							 */
							secrets: Type.Optional(
								Type.Array(
									Type.Object(
										{
											env: Type.Optional(Type.String({ minLength: 1, pattern: "^[^=]+$" })),
											file: Type.Optional(Type.String({ minLength: 1 })),
											hosts: Type.Array(Type.String({ minLength: 1 }), { minItems: 1 }),
										},
										{ additionalProperties: false },
									),
								),
							),
						},
						{ additionalProperties: false },
					),
				),
			},
			{ additionalProperties: false },
		),
	),
	shell: Type.Optional(
		Type.Object(
			{
				/** Variables commands get although their names mark a secret (`NPM_TOKEN`, …). */
				passEnvironment: Type.Optional(Type.Array(Type.String({ minLength: 1, pattern: "^[^=]+$" }))),
			},
			{ additionalProperties: false },
		),
	),
	edit: Type.Optional(
		Type.Object(
			{
				/**
				 * What write, edit, apply_patch and notebook edits do with a change that adds syntax errors:
				 * `reject` (default) refuses one that breaks a file that parsed, `warn` applies it with a
				 * warning, `off` does not parse.
				 */
				syntaxCheck: Type.Optional(Type.Union([Type.Literal("reject"), Type.Literal("warn"), Type.Literal("off")])),
			},
			{ additionalProperties: false },
		),
	),
	diagnostics: Type.Optional(
		Type.Object(
			{
				/**
				 * Language-server diagnostics after a change: `true` or `false` for every entry point, or per
				 * entry point. Default: on in the agent CLI (`agent`) and the MCP server (`mcp`), off in
				 * `toolbelt tool` (`tool`).
				 */
				enabled: Type.Optional(
					Type.Union([
						Type.Boolean(),
						Type.Object(
							{
								tool: Type.Optional(Type.Boolean()),
								agent: Type.Optional(Type.Boolean()),
								mcp: Type.Optional(Type.Boolean()),
							},
							{ additionalProperties: false },
						),
					]),
				),
				/**
				 * Servers by name: `{ "command": ["gopls"], "extensions": [".go"] }` adds one (or replaces the
				 * built-in `typescript` or `python`), `false` turns one off.
				 */
				servers: Type.Optional(Type.Object({}, { additionalProperties: diagnosticsServerSchema })),
			},
			{ additionalProperties: false },
		),
	),
	/**
	 * Folders whose project settings are trusted without asking (user file only; ignored in a
	 * project file): absolute paths or `~/…`, or remote folders as workspace URLs
	 * (`ssh://dev@box/srv/app`); a trailing `/**` covers every folder below.
	 */
	trustedProjects: Type.Optional(
		Type.Array(Type.String({ pattern: `^(/|~/|~$|(${workspaceUrlSchemeAlternatives})://)` })),
	),
});

/** The contents of one settings file, as validated. */
export type Settings = Static<typeof settingsSchema>;
/** One `{ type: "command", command, timeout, onError }` entry of `hooks`. */
export type HookCommandSettings = Static<typeof hookCommandSchema>;
/** One `{ matcher, hooks }` entry of `hooks.PreToolUse` / `hooks.PostToolUse`. */
export type HookMatcherSettings = Static<typeof hookMatcherSchema>;
