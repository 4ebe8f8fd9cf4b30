// Reading git config files the way git does, as far as deciding what git would run later needs:
// which files a config includes, which hooks folders and which programs it names.
import { commandFiles } from "./shell-words.js";

/** One `key = value` of a git config file. Section and key are lower case; a subsection keeps its case. */
export interface GitConfigEntry {
	/** `core`, `include`, `includeif`, … */
	section: string;
	/** `gitdir:~/work/` of `[includeIf "gitdir:~/work/"]`, if any. */
	subsection?: string;
	/** `hookspath`, `path`, … */
	key: string;
	/** The value with quotes and escapes taken out; `true` for a key without `=`. */
	value: string;
}

function unquote(raw: string): string {
	let value = "";
	let quoted = false;
	for (let index = 0; index < raw.length; index++) {
		const char = raw[index] as string;
		if (char === '"') quoted = !quoted;
		else if (char === "\\" && index + 1 < raw.length) {
			const next = raw[++index] as string;
			value += next === "n" ? "\n" : next === "t" ? "\t" : next;
		} else if (!quoted && (char === "#" || char === ";")) break;
		else value += char;
	}
	return value.trim();
}

/** Joins lines continued with a trailing backslash, as git reads them. */
function logicalLines(text: string): string[] {
	return text.replace(/\\\r?\n/g, "").split(/\r?\n/);
}

/**
 * The entries of a git config file. Lenient where git is strict (a line git would reject is
 * skipped, not an error): what matters is never missing an entry git would honour.
 */
export function parseGitConfig(text: string): GitConfigEntry[] {
	const entries: GitConfigEntry[] = [];
	let section = "";
	let subsection: string | undefined;
	for (const line of logicalLines(text)) {
		let rest = line;
		const header = /^\s*\[\s*([^\]\s"]+)\s*(?:"((?:[^"\\]|\\.)*)")?\s*\]/.exec(rest);
		if (header?.[1]) {
			const name = header[1];
			const dot = name.indexOf(".");
			// `[section.sub]` is the old spelling of `[section "sub"]`.
			section = (dot === -1 ? name : name.slice(0, dot)).toLowerCase();
			subsection =
				header[2] !== undefined ? header[2].replace(/\\(.)/g, "$1") : dot === -1 ? undefined : name.slice(dot + 1);
			rest = rest.slice(header[0].length);
		}
		const entry = /^\s*([A-Za-z][A-Za-z0-9-]*)\s*(?:=(.*))?$/.exec(rest);
		if (!entry?.[1] || section === "") continue;
		entries.push({
			section,
			...(subsection !== undefined ? { subsection } : {}),
			key: entry[1].toLowerCase(),
			value: entry[2] === undefined ? "true" : unquote(entry[2]),
		});
	}
	return entries;
}

/** `core.hooksPath` of a git config file, if set (the last one wins, as in git). */
export function hooksPathOf(configText: string): string | undefined {
	return hooksPathsOf(configText).at(-1);
}

/** Every `core.hooksPath` a config file sets, in order (a later file or line may override an earlier one). */
export function hooksPathsOf(configText: string): string[] {
	return parseGitConfig(configText)
		.filter((entry) => entry.section === "core" && entry.key === "hookspath" && entry.value !== "")
		.map((entry) => entry.value);
}

/**
 * The files a config file includes: every `include.path` and `includeIf.<condition>.path`,
 * whatever the condition (it may hold later, in another folder or on another branch).
 */
export function includedPathsOf(configText: string): string[] {
	return parseGitConfig(configText)
		.filter((entry) => (entry.section === "include" || entry.section === "includeif") && entry.key === "path")
		.map((entry) => entry.value)
		.filter((value) => value !== "");
}

/** Keys whose value is a command git starts, by section (any subsection). */
const commandKeys: Readonly<Record<string, readonly string[]>> = {
	core: ["fsmonitor", "sshcommand", "pager", "editor", "askpass"],
	sequence: ["editor"],
	gpg: ["program"],
	credential: ["helper"],
	diff: ["command", "textconv"],
	filter: ["clean", "smudge", "process"],
	merge: ["driver"],
};

/**
 * The files a config file's commands name by a path, as written: any word of the commands of
 * `core.fsmonitor`, `core.pager`, `diff.*.textconv`, `filter.*.clean` and their kin, shell aliases
 * and credential helpers (`!./tools/lint.sh`) — the program itself and what it is given to run
 * (`sh tools/x.sh`, `!f() { bash scripts/check.sh; }; f`). A relative one is taken from the top of
 * the work tree, where git runs them.
 */
export function programPathsOf(configText: string): string[] {
	const programs: string[] = [];
	for (const entry of parseGitConfig(configText)) {
		const isShell = (entry.section === "alias" || entry.section === "credential") && entry.value.startsWith("!");
		if (!isShell && !commandKeys[entry.section]?.includes(entry.key)) continue;
		programs.push(...commandFiles(isShell ? entry.value.slice(1) : entry.value));
	}
	return programs;
}
