// Keeps nested entries that run later from being planted by sandboxed commands: the ones that
// exist are protected read-only by the sandbox (from `protectedEntries`), and the ones a call
// creates are renamed out of the way once it is over, with a notice for the model.
import { renameSync } from "node:fs";
import { basename, dirname, join, relative } from "node:path";
import { randomHex } from "../../workspace/index.js";
import { pinLocalFolder } from "../../workspace/local/index.js";
import { type NestedEntry, TreeTooLargeError, TreeWatch } from "./tree-watch.js";

/** Options of `NestedGuard`. */
export interface NestedGuardOptions {
	/** The sandbox's writable roots (real paths). */
	roots: readonly string[];
	/** The most folders watched (see `TreeWatch`). Default: 100,000. */
	maxFolders?: number;
}

function stamp(): string {
	const time = new Date().toISOString().replace(/[-:]/g, "").replace(/\..*$/, "");
	return `${time}-${randomHex(3)}`;
}

const editorReason = (editor: string, what: string) =>
	`${editor} would ${what} on the host, outside the sandbox, the next time that folder is opened in it`;
const pythonReason =
	"the next Python interpreter started there (by an editor opening the folder, a git hook, the user's shell) would run it on the host, outside the sandbox";

/** Why a new nested entry is renamed away, by its name (the model reads it). */
const quarantineReasons: Record<string, string> = {
	".git":
		"git would run what its config says (core.fsmonitor, hooks, aliases) on the host, outside the sandbox, the next time anyone runs git in that folder",
	HEAD: "beside objects/ and refs/ it makes git take the folder itself for a repository, and git would run what the folder's config says (core.fsmonitor, hooks, aliases) on the host, outside the sandbox, the next time anyone runs git there",
	".toolbelt":
		"toolbelt would read its settings (hooks, rules) on the host, outside the sandbox, the next time it starts in that folder",
	".claude":
		"Claude Code would read its settings (hooks, MCP servers) on the host, outside the sandbox, the next time it starts in that folder",
	".vscode": editorReason("VS Code", "run its tasks (runOn: folderOpen) and the programs its settings name"),
	".idea": editorReason("a JetBrains IDE", "run its startup tasks and run configurations"),
	".devcontainer": editorReason("a dev-container tool", "run its lifecycle commands (postCreateCommand)"),
	".devcontainer.json": editorReason("a dev-container tool", "run its lifecycle commands (postCreateCommand)"),
	"sitecustomize.py": pythonReason,
	"usercustomize.py": pythonReason,
};

/** Why `name` is renamed away: by its name, or a virtual environment's `.pth` startup file. */
function reasonFor(name: string): string {
	if (name.endsWith(".pth"))
		return `a .pth file in site-packages runs at every start of the environment's Python: ${pythonReason}`;
	return quarantineReasons[name] ?? (quarantineReasons[".toolbelt"] as string);
}

/**
 * Watches the writable roots for nested repositories (`sub/.git`, a `.git` file, a `sub/HEAD` that
 * makes `sub` one), nested agent and editor settings (`sub/.toolbelt`, `sub/.claude`, `sub/.vscode`…)
 * and the startup files of virtual environments (`.venv/lib/python3.X/site-packages/*.pth`). What exists before a sandboxed call is kept read-only in
 * it; what appears while one runs is renamed to `<name>.quarantined-<time>-<random>` after it
 * (git then finds no repository there, toolbelt no settings), and the model is told.
 */
export class NestedGuard {
	private readonly watch: TreeWatch;
	private running = 0;

	constructor(private readonly options: NestedGuardOptions) {
		this.watch = new TreeWatch({ roots: options.roots, maxFolders: options.maxFolders, hints: true });
	}

	/**
	 * Before a sandboxed call: takes in what appeared since the last call (made outside the
	 * sandbox: the user's), unless another sandboxed call ran meanwhile (then it is quarantined),
	 * and returns the nested entries to keep read-only. Looks only at the folders with change
	 * events since the last call: one the hints miss is renamed away by the full sweep after the
	 * call, never trusted. Throws `TreeTooLargeError` for a tree too large to watch.
	 */
	async begin(): Promise<{ protectedEntries: NestedEntry[]; notices: string[] }> {
		const changes = await this.watch.refreshChanged();
		const notices = this.running > 0 ? this.quarantine(changes.added) : [];
		this.running++;
		return { protectedEntries: this.watch.known(), notices };
	}

	/**
	 * After a sandboxed call's command ended: quarantines what appeared; returns the notices for the
	 * model. Never throws.
	 */
	sweep(): string[] {
		try {
			return this.quarantine(this.watch.refresh().added);
		} catch (error) {
			if (error instanceof TreeTooLargeError) return [error.message];
			throw error;
		}
	}

	/**
	 * When a sandboxed call is over, with everything it left running: a last sweep, unless the
	 * caller knows nothing of the call ran after its `sweep` (`swept`). Never throws.
	 */
	end(options: { swept?: boolean } = {}): string[] {
		const notices = options.swept ? [] : this.sweep();
		this.running = Math.max(0, this.running - 1);
		return notices;
	}

	/** Stops watching (the sandbox is closed). */
	close(): void {
		this.watch.close();
	}

	/**
	 * Renames `path` to `target` in the same folder, through that folder opened and verified inside
	 * the roots: a background command could otherwise swap a folder on the way for a link between
	 * the sweep and the rename, and have toolbelt rename a `.git` outside the workspace.
	 */
	private renameInPlace(path: string, target: string): void {
		const folder = pinLocalFolder(dirname(path), this.options.roots);
		if (!folder) {
			renameSync(path, target);
			return;
		}
		try {
			renameSync(join(folder.path, basename(path)), join(folder.path, basename(target)));
		} finally {
			folder.release();
		}
	}

	private quarantine(entries: readonly NestedEntry[]): string[] {
		return entries.map((entry) => {
			const shown = relative(this.options.roots.find((root) => entry.path.startsWith(root)) ?? "/", entry.path);
			const name = basename(entry.path);
			const target = join(dirname(entry.path), `${name}.quarantined-${stamp()}`);
			const why = reasonFor(name);
			try {
				this.renameInPlace(entry.path, target);
				this.watch.forget(entry.path);
				return `[The command created ${shown}: toolbelt renamed it to ${relative(dirname(entry.path), target)} in the same folder, because ${why}. A sandboxed command may not make one; if one is needed, ask the user to make it outside the sandbox.]`;
			} catch (error) {
				return `[The command created ${shown}, and toolbelt could not rename it out of the way (${(error as Error).message}): ${why}. Tell the user to remove it before running anything in that folder.]`;
			}
		});
	}
}
