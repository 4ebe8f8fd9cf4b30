import { parseArgs } from "node:util";

/** One command-line option, as the parser and the help text need it. */
export interface OptionSpec {
	/** `string` takes a value (`--model gpt-4.1` or `--model=gpt-4.1`); `boolean` is a switch. */
	type: "string" | "boolean";
	/** One-letter alias, e.g. `h` for `-h`. */
	short?: string;
	/** One line for `--help`. */
	description: string;
	/** Placeholder shown in help for a string option, e.g. `<name>`. Default: `<value>`. */
	valueName?: string;
	/** A string option that may be given several times; its value is then a list. Default: false. */
	multiple?: boolean;
}

/** Option specs by long name (without the dashes). */
export type OptionSpecs = Record<string, OptionSpec>;

/** Parsed option values by long name: a string, a list (repeatable options), `true`, or absent. */
export type OptionValues = Record<string, string | string[] | boolean | undefined>;

/** The result of parsing one command's arguments. */
export interface ParsedArgs {
	/** Option values by long name. */
	values: OptionValues;
	/** Positional arguments, in order (everything after `--` included). */
	positionals: string[];
}

/** Bad command-line usage: the CLI prints the message with a pointer to `--help` and exits 2. */
export class UsageError extends Error {
	/** Whether to point at `--help` after the message. Default: true. */
	readonly showHelpHint: boolean;

	constructor(message: string, options?: { showHelpHint?: boolean }) {
		super(message);
		this.name = "UsageError";
		this.showHelpHint = options?.showHelpHint ?? true;
	}
}

function flagName(token: string): string {
	return token.replace(/=.*$/, "");
}

/**
 * Parses `argv` strictly against `specs`: unknown flags, a missing value and a value given to a
 * switch throw a `UsageError` with a short message naming the culprit.
 */
export function parseCommandArgs(argv: readonly string[], specs: OptionSpecs): ParsedArgs {
	const options: Record<string, { type: "string" | "boolean"; short?: string; multiple?: boolean }> = {};
	for (const [name, spec] of Object.entries(specs)) {
		options[name] = { type: spec.type };
		if (spec.short) options[name].short = spec.short;
		if (spec.multiple) options[name].multiple = true;
	}
	try {
		const { values, positionals } = parseArgs({ args: [...argv], options, strict: true, allowPositionals: true });
		return { values: values as OptionValues, positionals };
	} catch (error) {
		throw new UsageError(describeParseError(error, argv, specs));
	}
}

function describeParseError(error: unknown, argv: readonly string[], specs: OptionSpecs): string {
	const code = (error as { code?: string }).code;
	const message = error instanceof Error ? error.message : String(error);
	const quoted = /'(-[^' ]*)/.exec(message)?.[1];
	if (code === "ERR_PARSE_ARGS_UNKNOWN_OPTION") {
		const flag = quoted ?? argv.find((token) => token.startsWith("-")) ?? "?";
		const known = suggestFlag(flagName(flag), specs);
		return `Unknown option '${flagName(flag)}'.${known ? ` Did you mean '${known}'?` : ""}`;
	}
	if (code === "ERR_PARSE_ARGS_INVALID_OPTION_VALUE") {
		const name = quoted ? flagName(quoted).replace(/^-+/, "") : "";
		const spec = Object.entries(specs).find(([long, option]) => long === name || option.short === name);
		if (spec?.[1].type === "boolean") return `Option '--${spec[0]}' is a switch and takes no value.`;
		if (spec) return `Option '--${spec[0]}' needs a value: --${spec[0]} ${spec[1].valueName ?? "<value>"}.`;
	}
	return message;
}

/** The closest known flag to a mistyped one (shared prefix or a small edit distance). */
function suggestFlag(flag: string, specs: OptionSpecs): string | undefined {
	const wanted = flag.replace(/^-+/, "");
	let best: { name: string; distance: number } | undefined;
	for (const name of Object.keys(specs)) {
		const distance = name.startsWith(wanted) || wanted.startsWith(name) ? 1 : editDistance(wanted, name);
		if (distance <= 2 && (!best || distance < best.distance)) best = { name, distance };
	}
	return best ? `--${best.name}` : undefined;
}

/** Edits (insert, delete, replace, swap two neighbours) from one word to the other: `--modle` is one from `--model`. */
function editDistance(left: string, right: string): number {
	const rows: number[][] = [Array.from({ length: right.length + 1 }, (_, index) => index)];
	for (let row = 1; row <= left.length; row++) {
		const current = [row];
		for (let column = 1; column <= right.length; column++) {
			const cost = left[row - 1] === right[column - 1] ? 0 : 1;
			const previous = rows[row - 1]!;
			let best = Math.min(previous[column]! + 1, current[column - 1]! + 1, previous[column - 1]! + cost);
			const swapped =
				row > 1 && column > 1 && left[row - 1] === right[column - 2] && left[row - 2] === right[column - 1];
			if (swapped) best = Math.min(best, rows[row - 2]![column - 2]! + 1);
			current[column] = best;
		}
		rows.push(current);
	}
	return rows[left.length]![right.length]!;
}

/**
 * Splits `argv` into the command name and its arguments. The command is the first positional
 * token that names a known command, so global flags may come before it
 * (`toolbelt --cwd src tool ls`); flags that take a value have their value skipped.
 */
export function findCommand(
	argv: readonly string[],
	options: { commands: readonly string[]; valueFlags: ReadonlySet<string> },
): { command: string | undefined; rest: string[] } {
	for (let index = 0; index < argv.length; index++) {
		const token = argv[index]!;
		if (token === "--") break;
		if (token.startsWith("-")) {
			if (!token.includes("=") && options.valueFlags.has(token)) index++;
			continue;
		}
		if (options.commands.includes(token)) {
			return { command: token, rest: [...argv.slice(0, index), ...argv.slice(index + 1)] };
		}
		break;
	}
	return { command: undefined, rest: [...argv] };
}

/** A string option's value, or undefined when absent. */
export function stringOption(values: OptionValues, name: string): string | undefined {
	const value = values[name];
	return typeof value === "string" ? value : undefined;
}

/** A repeatable option's values, in order (empty when absent). */
export function listOption(values: OptionValues, name: string): string[] {
	const value = values[name];
	return Array.isArray(value) ? value : typeof value === "string" ? [value] : [];
}

/** A boolean option's value (false when absent). */
export function booleanOption(values: OptionValues, name: string): boolean {
	return values[name] === true;
}

/**
 * `--batch-budget <KB>` (the agent and `toolbelt mcp`): the batch output budget in bytes, or an
 * empty object when absent. Throws a usage error for a size that is not a number ≥ 1.
 */
export function batchBudgetOption(values: OptionValues): { batchOutputBudget?: number } {
	const text = stringOption(values, "batch-budget");
	if (text === undefined) return {};
	const kilobytes = Number(text);
	if (!Number.isFinite(kilobytes) || kilobytes < 1)
		throw new UsageError(`--batch-budget needs a size in KB ≥ 1, got '${text}'.`);
	return { batchOutputBudget: Math.floor(kilobytes * 1024) };
}
