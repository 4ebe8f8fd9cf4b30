/**
 * Programs that run another command given in their arguments (`sudo rm x`, `timeout 5 rm x`,
 * `xargs -a list rm`), each with its option syntax, so that the inner command is what a deny or
 * ask rule is checked against and an option value is never taken for the program.
 */

import { literalWord, maySplit, type ShellWord } from "../shell-words.js";
import { isCodeVariable } from "./code-variables.js";

/** The option syntax of one wrapper. */
interface WrapperSpec {
	/** Short options without a value (clusters such as `-fx` allowed). */
	flags?: string;
	/** Short options with a value, attached (`-n5`) or in the next word (`-n 5`). */
	values?: string;
	/** Short options with an optional value, only ever attached (`xargs -i{}`). */
	optional?: string;
	/** Long options without a value. */
	longFlags?: readonly string[];
	/** Long options with a value (`--name=value` or `--name value`). */
	longValues?: readonly string[];
	/** Long options whose value may only be attached (`--name[=value]`). */
	longOptional?: readonly string[];
	/** Any `--name=value` is accepted (programs with too many long options to list). */
	anyLongWithValue?: boolean;
	/** Options whose value is a command line run by a shell (`flock -c`, `env -S`). */
	scripts?: readonly string[];
	/** Options after which the words are not a command (`ionice -p PID`, `sudo -l`). */
	noCommand?: readonly string[];
	/** Options that, without a command, start a shell reading its input (`sudo -s`). */
	shellWithout?: readonly string[];
	/** Options that, right after the operands, hand the next word to a shell (`flock FILE -c 'cmd'`). */
	scriptsAfterOperands?: readonly string[];
	/** Words the wrapper takes before the command (`timeout DURATION`, `chroot NEWROOT`). */
	operands?: number;
	/** `NAME=value` words may come before the command (`env`, `sudo`). */
	assignments?: boolean;
	/** A lone `-` is an option (`env -` is `env -i`), not the command. */
	dashOption?: boolean;
	/** Options whose value is the directory the command runs in (`env -C`, `sudo -D`). */
	chdir?: readonly string[];
	/** Without a command it starts an interactive shell reading its input (`chroot DIR`). */
	shellWhenEmpty?: boolean;
	/** The command words are joined and run by `sh -c` (`watch`). */
	joinsScript?: boolean;
	/** Arguments read from its input are appended to the command (`xargs`). */
	appendsInput?: boolean;
	/** Options whose value is a placeholder replaced by input (`xargs -I R`). */
	replaceOptions?: readonly string[];
	/** `-5` style numeric options (`nice -5`). */
	numeric?: boolean;
}

const wrapperSpecs: Readonly<Record<string, WrapperSpec>> = {
	env: {
		flags: "i0v",
		values: "uCP",
		longFlags: ["ignore-environment", "null", "debug"],
		longValues: ["unset", "chdir"],
		longOptional: ["default-signal", "ignore-signal", "block-signal", "list-signal-handling"],
		scripts: ["-S", "--split-string"],
		assignments: true,
		dashOption: true,
		chdir: ["-C", "--chdir"],
	},
	command: { flags: "pvV" },
	builtin: {},
	nohup: {},
	setsid: { flags: "cfw", longFlags: ["ctty", "fork", "wait"] },
	time: {
		flags: "pavq",
		values: "fo",
		longFlags: ["portability", "append", "verbose", "quiet"],
		longValues: ["format", "output"],
	},
	nice: { values: "n", longValues: ["adjustment"], numeric: true },
	timeout: {
		flags: "v",
		values: "sk",
		longFlags: ["preserve-status", "foreground", "verbose"],
		longValues: ["signal", "kill-after"],
		operands: 1,
	},
	stdbuf: { values: "ioe", longValues: ["input", "output", "error"] },
	ionice: {
		flags: "t",
		values: "cnpPu",
		longFlags: ["ignore"],
		longValues: ["class", "classdata", "pid", "pgid", "uid"],
		noCommand: ["-p", "-P", "-u", "--pid", "--pgid", "--uid"],
	},
	taskset: { flags: "acp", longFlags: ["all-tasks", "cpu-list", "pid"], noCommand: ["-p", "--pid"], operands: 1 },
	sudo: {
		flags: "AbEeHiKklnPSsVvBN",
		values: "ugpCDrtUTRh",
		longFlags: [
			"askpass",
			"background",
			"bell",
			"edit",
			"set-home",
			"login",
			"remove-timestamp",
			"reset-timestamp",
			"list",
			"non-interactive",
			"preserve-groups",
			"stdin",
			"shell",
			"validate",
			"version",
			"no-update",
		],
		longValues: [
			"user",
			"group",
			"prompt",
			"close-from",
			"chdir",
			"role",
			"type",
			"other-user",
			"command-timeout",
			"host",
			"chroot",
		],
		longOptional: ["preserve-env"],
		noCommand: ["-e", "-l", "-v", "-V", "--edit", "--list", "--validate", "--version"],
		shellWithout: ["-s", "-i", "--shell", "--login"],
		assignments: true,
		chdir: ["-D", "--chdir"],
	},
	doas: { flags: "nsL", values: "uC", shellWithout: ["-s"], noCommand: ["-L", "-C"] },
	pkexec: { longFlags: ["disable-internal-agent", "keep-cwd"], longValues: ["user"] },
	xargs: {
		flags: "0prtxo",
		values: "adEILnPs",
		optional: "eil",
		longFlags: ["null", "interactive", "no-run-if-empty", "verbose", "exit", "open-tty", "show-limits"],
		longValues: ["arg-file", "delimiter", "max-lines", "max-args", "max-procs", "max-chars", "process-slot-var"],
		longOptional: ["eof", "replace"],
		appendsInput: true,
		replaceOptions: ["-I", "-i", "--replace"],
	},
	flock: {
		flags: "sxenuoFv",
		values: "wE",
		longFlags: ["shared", "exclusive", "nonblock", "nb", "unlock", "close", "no-fork", "verbose"],
		longValues: ["timeout", "wait", "conflict-exit-code"],
		scripts: ["-c", "--command"],
		scriptsAfterOperands: ["-c", "--command"],
		operands: 1,
	},
	chroot: { longFlags: ["skip-chdir"], longValues: ["userspec", "groups"], operands: 1, shellWhenEmpty: true },
	strace: {
		flags: "cCdDfFhiqrtTvVwxyzZkn",
		values: "eoOpPsSuEIabX",
		longFlags: ["follow-forks", "summary-only", "summary", "quiet", "output-separately", "no-abbrev", "verbose"],
		anyLongWithValue: true,
	},
	watch: {
		flags: "bcegptwxrC",
		values: "nq",
		optional: "d",
		longFlags: [
			"beep",
			"color",
			"no-color",
			"errexit",
			"chgexit",
			"exec",
			"no-title",
			"precise",
			"no-wrap",
			"no-rerun",
		],
		longValues: ["interval", "equexit"],
		longOptional: ["differences"],
		joinsScript: true,
	},
	busybox: {},
	unbuffer: { flags: "p" },
};

/** A wrapper known by name (after any path: `/usr/bin/sudo` is `sudo`). */
export function isWrapper(name: string): boolean {
	return wrapperNames.has(name);
}

const wrapperNames: ReadonlySet<string> = new Set(Object.keys(wrapperSpecs));

/** What unwrapping one wrapper found. */
export type Unwrapped =
	/**
	 * The inner command's words (possibly none: the wrapper runs nothing then), and the directories
	 * it runs in when the wrapper changes directory (`env -C dir`).
	 */
	| { kind: "command"; words: ShellWord[]; appendsInput: boolean; replace?: string; directories?: ShellWord[] }
	/** A command line the wrapper hands to a shell (`watch 'a; b'`, `flock f -c 'x'`): its words, not yet split. */
	| { kind: "script"; script: ShellWord[] }
	/**
	 * The wrapper cannot be read: an option it does not know, a shell reading the wrapper's input,
	 * or an assignment that runs code (`env BASH_ENV=…`) or that the reader cannot tell from the command.
	 */
	| { kind: "opaque"; construct: WrapperConstruct; text: string };

/** Why a wrapper cannot be read. */
export type WrapperConstruct = "unknown wrapper option" | "shell reading its input" | "code in a variable";

interface OptionState {
	spec: WrapperSpec;
	words: readonly ShellWord[];
	index: number;
	scripts: ShellWord[];
	noCommand: boolean;
	shell: boolean;
	replace?: string;
	directories: ShellWord[];
}

/** Reads one option word at `state.index`; returns false when it is not an option this wrapper knows. */
function readOption(state: OptionState, option: string): boolean {
	const { spec, words } = state;
	const next = words[state.index + 1];
	const takeNext = () => {
		state.index++;
		return next;
	};
	if (spec.noCommand?.some((name) => option === name || option.startsWith(`${name}=`))) state.noCommand = true;
	if (spec.shellWithout?.includes(option)) state.shell = true;
	if (option.startsWith("--")) {
		const equals = option.indexOf("=");
		const name = option.slice(2, equals === -1 ? undefined : equals);
		const valued = spec.longValues?.includes(name) || spec.scripts?.includes(`--${name}`);
		if (equals !== -1) {
			if (!(valued || spec.longOptional?.includes(name) || spec.anyLongWithValue)) return false;
			const value = option.slice(equals + 1);
			if (spec.chdir?.includes(`--${name}`)) state.directories.push(literalWord(value));
			if (spec.scripts?.includes(`--${name}`)) state.scripts.push(literalWord(value));
			if (spec.replaceOptions?.includes(`--${name}`)) state.replace = value;
			return true;
		}
		if (spec.longFlags?.includes(name) || spec.longOptional?.includes(name)) {
			if (spec.replaceOptions?.includes(`--${name}`)) state.replace = "{}";
			return true;
		}
		if (!valued) return false;
		const value = takeNext();
		if (value && spec.chdir?.includes(`--${name}`)) state.directories.push(value);
		if (value && spec.scripts?.includes(`--${name}`)) state.scripts.push(value);
		return value !== undefined;
	}
	if (spec.numeric && /^-\d+$/.test(option)) return true;
	for (let position = 1; position < option.length; position++) {
		const letter = option[position] as string;
		if (spec.flags?.includes(letter)) continue;
		const rest = option.slice(position + 1);
		if (spec.optional?.includes(letter)) {
			if (spec.replaceOptions?.includes(`-${letter}`)) state.replace = rest || "{}";
			return true;
		}
		if (!spec.values?.includes(letter) && !spec.scripts?.includes(`-${letter}`)) return false;
		const value = rest === "" ? takeNext() : literalWord(rest);
		if (value === undefined) return false;
		if (spec.chdir?.includes(`-${letter}`)) state.directories.push(value);
		if (spec.scripts?.includes(`-${letter}`)) state.scripts.push(value);
		if (spec.replaceOptions?.includes(`-${letter}`)) state.replace = value.value;
		return true;
	}
	return true;
}

/**
 * Unwraps `words` (the wrapper's name first) by the wrapper's option syntax. The caller has
 * checked `isWrapper`. Option words must be literal; an option it does not know makes the
 * wrapper opaque, because its value could otherwise be taken for the program.
 */
export function unwrap(name: string, words: readonly ShellWord[]): Unwrapped {
	const spec = wrapperSpecs[name] ?? {};
	const state: OptionState = { spec, words, index: 1, scripts: [], noCommand: false, shell: false, directories: [] };
	for (; state.index < words.length; state.index++) {
		const word = words[state.index] as ShellWord;
		const text = word.value;
		if (text === "-" && spec.dashOption && !word.expands) continue;
		// An option may hold a brace or star (`-I{}`), never an expansion.
		if (word.expands || !text.startsWith("-") || text === "-") break;
		if (text === "--") {
			state.index++;
			break;
		}
		if (!readOption(state, text))
			return { kind: "opaque", construct: "unknown wrapper option", text: `${name} ${text}` };
	}
	if (state.scripts.length > 0 || state.noCommand) {
		const split = splitWord(name, words.slice(1, state.index));
		if (split) return split;
		if (state.scripts.length > 0) return { kind: "script", script: state.scripts };
		return { kind: "command", words: [], appendsInput: false };
	}
	let rest = words.slice(state.index);
	if (spec.assignments) {
		const assignments = leadingAssignments(rest);
		if (typeof assignments !== "number") return { kind: "opaque", ...assignments };
		rest = rest.slice(assignments);
	}
	rest = rest.slice(Math.min(spec.operands ?? 0, rest.length));
	const split = splitWord(name, words.slice(1, words.length - rest.length));
	if (split) return split;
	const scriptOption = rest[0];
	if (scriptOption && spec.scriptsAfterOperands?.includes(scriptOption.value)) {
		const script = rest[1];
		if (!script)
			return { kind: "opaque", construct: "shell reading its input", text: words.map((word) => word.raw).join(" ") };
		return { kind: "script", script: [script] };
	}
	if (rest.length === 0 && (state.shell || spec.shellWhenEmpty)) {
		return { kind: "opaque", construct: "shell reading its input", text: words.map((word) => word.raw).join(" ") };
	}
	if (spec.joinsScript && rest.length > 0) return { kind: "script", script: rest };
	const unwrapped: Unwrapped = { kind: "command", words: rest, appendsInput: spec.appendsInput === true };
	if (state.replace !== undefined) unwrapped.replace = state.replace;
	if (state.directories.length > 0) unwrapped.directories = state.directories;
	return unwrapped;
}

/**
 * The wrapper's own words (options, their values, its operands) must stay one word each: bash turns
 * `timeout {5,rm} victim` into `timeout 5 rm victim`, where the reader would take `victim` for the
 * program. Such a word makes the wrapper opaque.
 */
function splitWord(name: string, own: readonly ShellWord[]): Unwrapped | undefined {
	const word = own.find(maySplit);
	return word ? { kind: "opaque", construct: "unknown wrapper option", text: `${name} ${word.raw}` } : undefined;
}

/**
 * How many words before the command are assignments to its environment, or why they cannot be
 * read. `env` takes every word holding `=` for one, whatever its name (`env a-b=c rm x` runs
 * `rm`); the name is read from the word's value (`env 'BASH_ENV=x' …`). A name that is not a
 * shell name, or one whose value runs code, makes the wrapper opaque.
 */
function leadingAssignments(words: readonly ShellWord[]): number | { construct: WrapperConstruct; text: string } {
	let count = 0;
	for (const word of words) {
		const equals = word.value.indexOf("=");
		if (equals === -1) break;
		const name = word.value.slice(0, equals);
		if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) return { construct: "unknown wrapper option", text: word.raw };
		if (isCodeVariable(name)) return { construct: "code in a variable", text: word.raw };
		count++;
	}
	return count;
}
