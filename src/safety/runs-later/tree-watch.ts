// Finds the nested entries that run later (a repository's `.git`, a project's `.toolbelt`) below
// the workspace roots, and notices new ones, without walking the whole tree on every call: each
// folder's change time is kept, and only folders whose change time moved are listed again (an
// entry created, removed or renamed inside a folder moves it; nothing a process can do sets it
// back). Folders ignored by a root's `.gitignore` as it was when the watch began are listed but
// not entered, so `node_modules` costs one folder (its packages none), while a `build/.git` or
// `node_modules/.git` is seen: git there, and in every folder below, would take it for the
// repository. The rules are read once, so a command cannot hide a folder by writing a `.gitignore`. Synchronous: thousands of tiny lstat calls cost less than as many
// thread-pool round trips. With change hints (`FolderHints`), `refreshChanged` looks only at the
// folders the kernel reported events for; `refresh` is always the full pass.
import { type Dirent, lstatSync, readdirSync, readFileSync } from "node:fs";
import { join, relative, sep } from "node:path";
import ignoreModule from "ignore";
import { autoRunEntries, isStartupFile, nestedAutoRunNames } from "./auto-run-entries.js";
import { FolderHints } from "./folder-hints.js";

const ignore = (ignoreModule as unknown as { default?: typeof ignoreModule }).default ?? ignoreModule;

/** One nested entry that runs later. */
export interface NestedEntry {
	/** Absolute path, e.g. `<root>/sub/.git`. */
	path: string;
	/** A folder or a file (a `.git` file points to a git directory elsewhere). */
	kind: "directory" | "file";
	/** Its inode: a new entry under an old name is new. */
	ino: number;
	/** Its change time in ms (when it was made or last renamed). */
	ctimeMs: number;
}

/** What a refresh found. */
export interface TreeChanges {
	/** Entries that are new since the last refresh (or replaced under the same name). */
	added: NestedEntry[];
}

/** Thrown when a root holds more folders than the watch may keep. */
export class TreeTooLargeError extends Error {}

interface FolderRecord {
	ctimeMs: number;
	ino: number;
}

/**
 * The way down a virtual environment (a folder holding `pyvenv.cfg`) to its startup files:
 * `lib/`, then `python3.X/`, then `site-packages/`, whose own entries are all that is looked at.
 * Entered even where .gitignore ignores the environment (it nearly always does), and nothing else
 * of it is: its thousands of package folders cost three folders.
 */
type VenvStep = "lib" | "python" | "site-packages";

/** Names a root's own auto-run entries keep (mounted whether they exist or not): not reported. */
const rootEntryNames = new Set(autoRunEntries.map((entry) => entry.path));

function readText(path: string): string {
	try {
		return readFileSync(path, "utf8");
	} catch {
		return "";
	}
}

/** Options of `TreeWatch`. */
export interface TreeWatchOptions {
	/** The folders to watch (real paths): the sandbox's writable roots. */
	roots: readonly string[];
	/** The most folders kept; beyond it `refresh` throws `TreeTooLargeError`. Default: 100,000. */
	maxFolders?: number;
	/** Collect the kernel's change events of the folders for `refreshChanged`. Default: false. */
	hints?: boolean;
}

/**
 * The nested entries below some roots, kept current by `refresh`. The roots' own entries are
 * reported only where no auto-run entry keeps them (the sandbox protects those at the top whether
 * they exist or not): a root's `sitecustomize.py` is, its `.git` is not.
 */
export class TreeWatch {
	private readonly folders = new Map<string, FolderRecord>();
	private readonly entries = new Map<string, NestedEntry>();
	private readonly ignored: ((path: string) => boolean)[];
	private readonly maxFolders: number;
	private readonly hints?: FolderHints;
	private readonly venvSteps = new Map<string, VenvStep>();

	constructor(private readonly options: TreeWatchOptions) {
		this.maxFolders = options.maxFolders ?? 100_000;
		if (options.hints) this.hints = new FolderHints();
		this.ignored = options.roots.map((root) => {
			const rules = ignore({ allowRelativePaths: true }).add(readText(join(root, ".gitignore")));
			rules.add(readText(join(root, ".git", "info", "exclude")));
			return (path: string) => {
				const inside = relative(root, path);
				if (inside === "" || inside.startsWith("..")) return false;
				return rules.ignores(`${inside.split(sep).join("/")}/`);
			};
		});
	}

	/** The nested entries known now. */
	known(): NestedEntry[] {
		return [...this.entries.values()];
	}

	/** Forgets an entry that is gone (renamed away by the caller). */
	forget(path: string): void {
		this.entries.delete(path);
	}

	/** Lists again every folder whose change time moved; returns the entries that are new. */
	refresh(): TreeChanges {
		const added: NestedEntry[] = [];
		this.hints?.reset();
		if (this.folders.size === 0) {
			for (const root of this.options.roots) this.walk(root, added);
			return { added };
		}
		for (const folder of [...this.folders.keys()]) this.recheck(folder, added);
		return { added };
	}

	/**
	 * Like `refresh`, but looks only at the folders with change events since the last look, once
	 * the events queued so far are delivered; a full pass when the hints cannot be trusted (no
	 * hints, a watch failed, too many events).
	 */
	async refreshChanged(): Promise<TreeChanges> {
		await this.hints?.settle();
		const changed = this.folders.size > 0 ? this.hints?.take() : undefined;
		if (!changed) return this.refresh();
		const added: NestedEntry[] = [];
		for (const folder of changed) this.recheck(folder, added);
		return { added };
	}

	/** Stops collecting change events. */
	close(): void {
		this.hints?.close();
	}

	/** Looks at one known folder again: lists it when its change time moved, walks it anew when it was replaced. */
	private recheck(folder: string, added: NestedEntry[]): void {
		const record = this.folders.get(folder);
		if (!record) return; // dropped with a parent, or never watched
		const info = lstatSync(folder, { throwIfNoEntry: false });
		if (!info?.isDirectory()) {
			this.drop(folder);
		} else if (info.ino !== record.ino) {
			// Another folder now has this name (`mv sub old && mkdir sub`): everything in it is new.
			this.drop(folder);
			this.walk(folder, added);
		} else if (info.ctimeMs !== record.ctimeMs) {
			for (const fresh of this.list(folder, added)) this.walk(fresh, added);
		}
	}

	private drop(folder: string): void {
		const prefix = folder + sep;
		for (const path of this.folders.keys()) {
			if (path !== folder && !path.startsWith(prefix)) continue;
			this.folders.delete(path);
			this.hints?.unwatch(path);
		}
		for (const path of this.entries.keys()) if (path.startsWith(prefix)) this.entries.delete(path);
		for (const path of this.venvSteps.keys()) if (path.startsWith(prefix)) this.venvSteps.delete(path);
	}

	private walk(folder: string, added: NestedEntry[]): void {
		const stack = [folder];
		while (stack.length > 0) stack.push(...this.list(stack.pop() as string, added));
	}

	/** Lists one folder: records it, updates its entries, returns its new subfolders to walk. */
	private list(folder: string, added: NestedEntry[]): string[] {
		this.hints?.watch(folder);
		const info = lstatSync(folder, { throwIfNoEntry: false });
		let children: Dirent[];
		try {
			children = info?.isDirectory() ? readdirSync(folder, { withFileTypes: true }) : [];
		} catch {
			children = [];
		}
		if (!info?.isDirectory()) {
			this.drop(folder);
			return [];
		}
		const isRoot = this.options.roots.includes(folder);
		const step = this.venvSteps.get(folder);
		const shallow = step !== undefined || (!isRoot && this.isIgnored(folder));
		if (!this.folders.has(folder) && this.folders.size >= this.maxFolders) {
			throw new TreeTooLargeError(
				`The workspace holds more than ${this.maxFolders} folders that .gitignore does not ignore, too many to watch for new repositories.`,
			);
		}
		this.folders.set(folder, { ctimeMs: info.ctimeMs, ino: info.ino });
		const present = new Set<string>();
		const fresh: string[] = [];
		const isVenv = step === undefined && children.some((child) => child.name === "pyvenv.cfg" && child.isFile());
		for (const child of children) {
			const path = join(folder, child.name);
			if (this.runsLater(child.name, isRoot, step)) {
				present.add(path);
				this.note(path, added);
			}
			const next = this.venvStepOf(child, step, isVenv);
			if (next) this.venvSteps.set(path, next);
			// A git directory is protected whole; what lies in it is git's. An ignored folder's own
			// entries are looked at, not its subfolders', but for the way down a virtual environment.
			if (child.name === ".git" || !child.isDirectory() || this.folders.has(path)) continue;
			if (!shallow || next) fresh.push(path);
		}
		const prefix = folder + sep;
		for (const path of this.entries.keys()) {
			if (path.startsWith(prefix) && !path.slice(prefix.length).includes(sep) && !present.has(path)) {
				this.entries.delete(path);
			}
		}
		return fresh;
	}

	/** Whether an entry named `name` runs later, in a root, a nested folder or a step down a virtual environment. */
	private runsLater(name: string, isRoot: boolean, step: VenvStep | undefined): boolean {
		if (step === "site-packages") return isStartupFile(name);
		if (step !== undefined || !nestedAutoRunNames.includes(name)) return false;
		return !isRoot || !rootEntryNames.has(name);
	}

	/** The next step down a virtual environment `child` is, if it is one. */
	private venvStepOf(child: Dirent, step: VenvStep | undefined, isVenv: boolean): VenvStep | undefined {
		if (!child.isDirectory()) return undefined;
		if (isVenv && child.name === "lib") return "lib";
		if (step === "lib" && /^python\d/.test(child.name)) return "python";
		if (step === "python" && child.name === "site-packages") return "site-packages";
		return undefined;
	}

	private isIgnored(folder: string): boolean {
		return this.ignored.some((isIgnored) => isIgnored(folder));
	}

	private note(path: string, added: NestedEntry[]): void {
		const info = lstatSync(path, { throwIfNoEntry: false });
		if (!info) return;
		const entry: NestedEntry = {
			path,
			kind: info.isDirectory() ? "directory" : "file",
			ino: info.ino,
			ctimeMs: info.ctimeMs,
		};
		const before = this.entries.get(path);
		this.entries.set(path, entry);
		if (!before || before.ino !== entry.ino) added.push(entry);
	}
}
