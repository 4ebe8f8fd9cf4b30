import type { ErrorObject, ValidateFunction } from "ajv";
import { loadAjv } from "../../engine/index.js";
import { parseRule } from "../permissions/rules.js";
import { type Settings, settingsSchema } from "./settings-schema.js";

// The text of one settings file read as settings: JSON, the schema, and each rule's and matcher's
// own syntax, with every problem named by file and path.

/** Thrown for a settings file that cannot be used; the message names the file and the problem. */
export class SettingsError extends Error {
	/** The file at fault. */
	readonly file: string;

	/** `unreadable`: the file could not be read at all (not a problem of its contents). Default: false. */
	constructor(file: string, problem: string, options: { unreadable?: boolean } = {}) {
		super(
			options.unreadable
				? `Cannot read the settings file ${file}, so its deny and ask rules cannot be applied and toolbelt does not start: ${problem}`
				: `Invalid settings file ${file}: ${problem}`,
		);
		this.name = "SettingsError";
		this.file = file;
	}
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
