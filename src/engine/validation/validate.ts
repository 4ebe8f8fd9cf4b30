import type { ErrorObject, ValidateFunction } from "ajv";
import { cutText } from "../truncate.js";
import type { ToolDefinition } from "../types.js";
import { type AjvClass, loadAjv } from "./ajv-loader.js";
import { precompiledValidator } from "./precompiled-validators.js";
import { validatorOptions } from "./validator-options.js";

/**
 * One validator for every schema, TypeBox-built or foreign (MCP), with `validatorOptions`
 * (coercion, defaults). Created on the first schema the build did not precompile.
 */
let ajv: InstanceType<AjvClass> | undefined;

const compiled = new WeakMap<object, ValidateFunction>();

/** The build's validator of `schema` (by its JSON without `$schema`), remembered for the schema object. */
function precompiledFor(schema: object): ValidateFunction | undefined {
	let validate = compiled.get(schema);
	if (!validate) {
		// A `$schema` naming a draft ajv was not built with would fail compilation; the keywords are what matter.
		const { $schema: _ignored, ...rest } = schema as Record<string, unknown>;
		validate = precompiledValidator(JSON.stringify(rest));
		if (validate) compiled.set(schema, validate);
	}
	return validate;
}

/**
 * Looks up the build's validator of a tool's schema now (loading the build's validators at the
 * first), so that the tool's first call does not pay for it; a schema the build did not compile is
 * left to its first call (compiling it costs more than a tool never called should).
 */
export function prepareValidator(schema: object): void {
	precompiledFor(schema);
}

function validatorFor(schema: object): ValidateFunction {
	let validate = precompiledFor(schema);
	if (!validate) {
		const { $schema: _ignored, ...rest } = schema as Record<string, unknown>;
		ajv ??= new (loadAjv())({ ...validatorOptions });
		validate = ajv.compile(rest);
		compiled.set(schema, validate);
	}
	return validate;
}

/**
 * Failing paths the message lists. An array of 100,000 wrong items fails at each (4 MB of lines); the
 * first ones show the model the mistake, and the count says how far it goes.
 */
const MAX_LISTED_PROBLEMS = 20;

/** The message's list of failing paths: the first `MAX_LISTED_PROBLEMS`, then how many more. */
function listed(problems: readonly string[]): string {
	const lines = problems.slice(0, MAX_LISTED_PROBLEMS).map((problem) => `  - ${problem}`);
	const more = problems.length - MAX_LISTED_PROBLEMS;
	if (more > 0) lines.push(`  … and ${more.toLocaleString("en-US")} more failing paths`);
	return lines.join("\n");
}

/** Thrown when arguments do not match a tool's schema. The message lists the failing paths (the first 20). */
export class ValidationError extends Error {
	/** One line per failing path, e.g. `limit: must be number`. */
	readonly problems: string[];

	constructor(toolName: string, problems: string[], received: unknown) {
		super(
			`Validation failed for tool "${toolName}":\n${listed(problems)}\n\n` +
				`Received arguments:\n${safeJson(received)}\n\nFix the arguments and call the tool again.`,
		);
		this.name = "ValidationError";
		this.problems = problems;
	}
}

function safeJson(value: unknown): string {
	try {
		const text = JSON.stringify(value, null, 2) ?? String(value);
		return cutText(text, { maxLength: 2000 }).text;
	} catch {
		return String(value);
	}
}

function describe(error: ErrorObject): string {
	const segments = error.instancePath
		.split("/")
		.slice(1)
		.map((segment) => segment.replace(/~1/g, "/").replace(/~0/g, "~"));
	const missing = (error.params as { missingProperty?: string }).missingProperty;
	const extra = (error.params as { additionalProperty?: string }).additionalProperty;
	if (missing !== undefined) segments.push(missing);
	if (extra !== undefined) segments.push(extra);
	const path = segments.length > 0 ? segments.join(".") : "(root)";
	if (missing !== undefined) return `${path}: is required`;
	if (extra !== undefined) return `${path}: is not a known property; remove it`;
	const allowed = (error.params as { allowedValues?: unknown[] }).allowedValues;
	if (allowed)
		return `${path}: ${error.message ?? "is invalid"} (${allowed.map((value) => JSON.stringify(value)).join(", ")})`;
	return `${path}: ${error.message ?? "is invalid"}`;
}

/**
 * A copy of a plain object whose values are all primitives (the usual tool call: a path and a
 * content string), which is then exactly what `structuredClone` would make, at a fraction of
 * its cost; undefined for anything else.
 */
function flatCopy(args: unknown): Record<string, unknown> | undefined {
	if (typeof args !== "object" || args === null || Object.getPrototypeOf(args) !== Object.prototype) return undefined;
	if (Object.getOwnPropertySymbols(args).length > 0) return undefined;
	const copy: Record<string, unknown> = {};
	for (const name of Object.keys(args)) {
		const value = (args as Record<string, unknown>)[name];
		if (typeof value === "object" && value !== null) return undefined;
		if (typeof value === "function" || typeof value === "symbol" || name === "__proto__") return undefined;
		copy[name] = value;
	}
	return copy;
}

/**
 * Most levels of arrays and objects in a call's arguments. JSON.parse reads any depth, but copying
 * and validating recurse: arguments 100,000 levels deep overflowed the stack ("Maximum call stack
 * size exceeded" was all the model read). No tool's schema nests near this deep.
 */
export const MAX_ARGUMENT_DEPTH = 64;

/** True when `value` nests arrays or objects deeper than `maxDepth`; walked without recursion, stops at the first too deep. */
function nestedDeeperThan(value: unknown, maxDepth: number): boolean {
	const stack: [unknown, number][] = [[value, 0]];
	for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
		const [item, depth] = next;
		if (typeof item !== "object" || item === null) continue;
		if (depth >= maxDepth) return true;
		for (const child of Object.values(item))
			if (typeof child === "object" && child !== null) stack.push([child, depth + 1]);
	}
	return false;
}

/**
 * Validates `args` against the tool's schema after coercion and returns the coerced copy.
 * The input is never mutated. Throws `ValidationError` listing every failing path.
 */
export function validateToolArguments(tool: ToolDefinition, args: unknown): Record<string, unknown> {
	if (nestedDeeperThan(args, MAX_ARGUMENT_DEPTH)) {
		throw new ValidationError(
			tool.name,
			[`(root): nests arrays or objects more than ${MAX_ARGUMENT_DEPTH} levels deep; send flatter arguments`],
			"(not shown: nested too deep)",
		);
	}
	const copy = args === undefined ? {} : (flatCopy(args) ?? structuredClone(args));
	const validate = validatorFor(tool.parameters as object);
	if (validate(copy)) return copy as Record<string, unknown>;
	const problems = [...new Set((validate.errors ?? []).map(describe))];
	throw new ValidationError(tool.name, problems, args);
}
