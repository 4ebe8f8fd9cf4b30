// Git hook managers: a hook installed in `.git/hooks` or a `core.hooksPath` folder (both kept
// read-only) that starts a manager, which reads the work tree at every run to learn what to run.
// Writing what it reads is as good as writing the hook: a sandboxed command that added a job to
// `lefthook-local.yml` would have it run on the host at the user's next `git commit`. So, for the
// managers the installed hooks start (judged by the hooks' text, so a project without one pays
// nothing), these are protected:
// - lefthook: every config it would load, missing ones too (a new `lefthook-local.yml` is merged,
//   a new `lefthook.yml` wins over an existing `lefthook.toml`), its script folders (`.lefthook`,
//   `.lefthook-local`), the files `extends` names, the `rc` file the hook sources, and the programs
//   its commands name by a path (`run: ./scripts/lint.sh`).
// - pre-commit: the config the hook names (`--config=`; the default one is an auto-run entry at
//   every root anyway), and the programs its local hooks name by a path (`entry: scripts/check.sh`).
// - husky 9 (`core.hooksPath = <dir>/_`): the folder `<dir>` whose scripts `_/h` runs, which at a
//   root is `.husky` (an auto-run entry), but in a monorepo may be `frontend/.husky`.
// Left out on purpose, and why:
// - husky 4 (`"husky": {"hooks"}` in package.json, `.huskyrc`): its hooks start husky's own runner
//   from the work tree's node_modules, which `npm install` must keep writing; a read-only
//   package.json would close nothing while that runner stays writable, and would stop every
//   `npm install` in the sandbox. The same holds for a manager installed in node_modules or a
//   workspace virtual environment: the hook runs the project's dependencies, like `npm test`.
// - simple-git-hooks: its hooks hold the commands themselves, copied from package.json when the
//   user runs `simple-git-hooks`; running that installer is running the project's code knowingly.
// - What the configured commands run in turn (`npm test`, `npx lint-staged`): the project's code,
//   which the agent edits by design; the user's commit runs it as `npm test` would.
import { dirname, isAbsolute, join, resolve } from "node:path";
import { parse } from "yaml";
import { commandFiles } from "./shell-words.js";

/** A request for a file's text (undefined when it cannot be read); the answer is sent back in. */
export type ReadSteps<T> = Generator<string, T, string | undefined>;

/** The hooks git runs (githooks(5)): the names a manager installs under. */
export const gitHookNames: readonly string[] = [
	"applypatch-msg",
	"pre-applypatch",
	"post-applypatch",
	"pre-commit",
	"pre-merge-commit",
	"prepare-commit-msg",
	"commit-msg",
	"post-commit",
	"pre-rebase",
	"post-checkout",
	"post-merge",
	"pre-push",
	"pre-receive",
	"update",
	"proc-receive",
	"post-receive",
	"post-update",
	"reference-transaction",
	"push-to-checkout",
	"pre-auto-gc",
	"post-rewrite",
	"sendemail-validate",
	"fsmonitor-watchman",
	"post-index-change",
];

/** What the managers an installed hook starts read from the work tree. Every path is absolute. */
export interface HookManagerPaths {
	/** Config files (present or not) and programs they name. */
	files: string[];
	/** Folders of scripts a manager runs. */
	folders: string[];
}

const lefthookExtensions = [".yml", ".yaml", ".json", ".jsonc", ".toml"];
const lefthookNames = [
	"lefthook",
	".lefthook",
	".config/lefthook",
	"lefthook-local",
	".lefthook-local",
	".config/lefthook-local",
];

/** A config larger than this is read in part: enough for any real one, bounded for a planted one. */
const maxConfigChars = 512 * 1024;

interface Command {
	/** The command line, or a script's path. */
	text: string;
	/** Where it runs, relative to the top of the work tree. */
	folder: string;
	/** The first word is a script's path even without a `/` (pre-commit's `language: script`). */
	isScript?: boolean;
}

/** Walks a parsed config for the commands it runs and the files it loads (`extends`, `rc`). */
function commandsOf(tree: unknown, folder: string, found: { commands: Command[]; loads: string[] }): void {
	if (Array.isArray(tree)) {
		for (const item of tree) commandsOf(item, folder, found);
		return;
	}
	if (tree === null || typeof tree !== "object") return;
	const node = tree as Record<string, unknown>;
	// lefthook's `root: frontend/` runs a job's command from that folder.
	const here = typeof node.root === "string" ? join(folder, node.root) : folder;
	for (const [key, value] of Object.entries(node)) {
		if (typeof value === "string") {
			if (key === "run") found.commands.push({ text: value, folder: here });
			else if (key === "entry" && !["pygrep", "fail"].includes(String(node.language))) {
				found.commands.push({ text: value, folder: here, isScript: node.language === "script" });
			} else if (key === "rc" || key === "extends") found.loads.push(value);
		} else if (key === "extends" && Array.isArray(value)) {
			found.loads.push(...value.filter((item): item is string => typeof item === "string"));
		} else commandsOf(value, here, found);
	}
}

/**
 * A TOML config is not parsed in full: each table's `run`, `root`, `rc` and `extends` strings are
 * taken as they stand (a table is a job, its `root` where the job runs).
 */
function tomlTree(text: string): unknown {
	return text.split(/^\s*\[[^\]\n]*\]\s*$/m).map((table) => {
		const node: Record<string, unknown> = {};
		const pairs = table.matchAll(/^\s*(run|root|rc|extends)\s*=\s*\[?\s*(?:"((?:[^"\\]|\\.)*)"|'([^']*)')/gm);
		for (const match of pairs) node[match[1] as string] = match[2] ?? match[3] ?? "";
		return node;
	});
}

function parsedConfig(path: string, text: string): unknown {
	const bounded = text.slice(0, maxConfigChars);
	if (path.endsWith(".toml")) return tomlTree(bounded);
	try {
		// JSONC's comments are not YAML; without them JSON is.
		const source = path.endsWith(".jsonc") ? bounded.replace(/^\s*\/\/.*$/gm, "") : bounded;
		return parse(source, { maxAliasCount: 100, prettyErrors: false });
	} catch {
		return undefined;
	}
}

/** The files a command names, absolute: taken from its folder, where the manager runs it. */
function filesOfCommand(top: string, command: Command): string[] {
	const named = commandFiles(command.text);
	const first = command.isScript ? command.text.trim().split(/\s+/)[0] : undefined;
	if (first && !named.includes(first)) named.push(first);
	return named.map((file) => (isAbsolute(file) ? file : resolve(top, command.folder, file)));
}

/** The managers a hook's text starts. */
function managersOf(text: string): {
	lefthook: boolean;
	preCommitConfig?: string;
	huskyScripts: boolean;
	rc: string[];
} {
	const head = text.slice(0, 64 * 1024);
	const config = /\bhook-impl\b[^\n]*?--config[= ]([^\s)"']+)/.exec(head)?.[1];
	return {
		lefthook: /\blefthook\b/.test(head),
		...(config !== undefined ? { preCommitConfig: config } : {}),
		// husky 9: `. "$(dirname "$0")/h"`, and `h` runs `<dir>/<hook>` from the folder above.
		huskyScripts: /dirname[^\n]*\/h"/.test(head),
		// lefthook's `rc`, sourced by the hook before anything else: `[ -f X ] && . X`.
		rc: [...head.matchAll(/^\s*\[ -f (\S+) \] && \. \1\s*$/gm)].map((match) => match[1] as string),
	};
}

/**
 * The steps that find what the managers started by the hooks in `hooksFolders` read from the work
 * tree at `top`: reads each installed hook, then the configs of the managers they start.
 */
export function* hookManagerSteps(top: string, hooksFolders: readonly string[]): ReadSteps<HookManagerPaths> {
	const paths: HookManagerPaths = { files: [], folders: [] };
	const configs = new Set<string>();
	for (const folder of new Set(hooksFolders)) {
		for (const name of gitHookNames) {
			const text = yield join(folder, name);
			if (text === undefined) continue;
			const managers = managersOf(text);
			if (managers.lefthook) {
				for (const extension of lefthookExtensions)
					for (const base of lefthookNames) configs.add(join(top, base + extension));
				paths.folders.push(join(top, ".lefthook"), join(top, ".lefthook-local"));
			}
			if (managers.preCommitConfig) configs.add(resolve(top, managers.preCommitConfig));
			if (managers.huskyScripts && folder.endsWith("/_")) paths.folders.push(dirname(folder));
			paths.files.push(...managers.rc.map((file) => resolve(top, file)));
		}
	}
	// What a config loads (`extends`) is read as a config too, once; extends of extends ten deep at most.
	const queue = [...configs].map((file) => ({ file, depth: 0 }));
	const seen = new Set<string>();
	while (queue.length > 0) {
		const { file, depth } = queue.shift() as { file: string; depth: number };
		if (seen.has(file)) continue;
		seen.add(file);
		paths.files.push(file);
		const text = yield file;
		if (text === undefined) continue;
		const found = { commands: [] as Command[], loads: [] as string[] };
		commandsOf(parsedConfig(file, text), "", found);
		for (const command of found.commands) paths.files.push(...filesOfCommand(top, command));
		for (const load of found.loads) {
			const loaded = resolve(top, load);
			if (depth < 10 && /\.(ya?ml|jsonc?|toml)$/.test(load)) queue.push({ file: loaded, depth: depth + 1 });
			else paths.files.push(loaded);
		}
	}
	return { files: [...new Set(paths.files)], folders: [...new Set(paths.folders)] };
}
