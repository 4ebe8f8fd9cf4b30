// The one list of files that run later: entries of a project that something outside toolbelt
// runs, or reads as commands to run, without being asked. The file tools need a rule naming a
// path in them before writing there (in every mode); the sandbox keeps them read-only.

/** One entry of a project that runs later, and why. */
export interface AutoRunEntry {
	/** The name at the top of a workspace root (`.git`, `.envrc`). */
	path: string;
	/** What to make as a mount point when it is missing. */
	kind: "directory" | "file";
	/** What runs it. */
	why: string;
}

/**
 * Entries at each workspace root that run later. Besides these, every hooks folder a git config
 * names (`core.hooksPath` at any level, e.g. `.githooks`) and every file a git config includes
 * are protected where they lie (see `git-locations.ts`).
 */
export const autoRunEntries: readonly AutoRunEntry[] = [
	{
		path: ".git",
		kind: "directory",
		why: "config (core.fsmonitor, core.hooksPath, aliases, filters) and hooks run on the next git status or commit",
	},
	{ path: ".toolbelt", kind: "directory", why: "settings and hooks of the next toolbelt session" },
	{ path: ".claude", kind: "directory", why: "another agent's settings and hooks" },
	{ path: ".cursor", kind: "directory", why: "an editor agent's rules and MCP servers" },
	{ path: ".mcp.json", kind: "file", why: "MCP servers (commands) agents start in this project" },
	{ path: ".vscode", kind: "directory", why: "tasks run on folder open, interpreter and terminal settings" },
	{ path: ".idea", kind: "directory", why: "run configurations and startup tasks" },
	{ path: ".devcontainer", kind: "directory", why: "dev-container lifecycle commands" },
	{ path: ".devcontainer.json", kind: "file", why: "dev-container lifecycle commands" },
	{ path: ".envrc", kind: "file", why: "direnv runs it on cd" },
	{ path: ".husky", kind: "directory", why: "git hooks of husky projects" },
	{ path: ".pre-commit-config.yaml", kind: "file", why: "hooks pre-commit runs on git commit" },
	{
		path: "HEAD",
		kind: "file",
		why: "beside objects/ and refs/, git takes the folder itself for a repository, and runs what its config says (core.fsmonitor with core.worktree) on the next git status there",
	},
];

/**
 * Names that make a folder below a root run later too: a nested repository (`.git`, or `HEAD` —
 * git takes a folder holding `HEAD`, `objects/` and `refs/` for a repository itself), a nested
 * project's settings (`.toolbelt`, and `.claude`, whose hooks Claude Code runs when started there),
 * and what an editor runs when that folder is opened as a workspace root (a monorepo's package is
 * often opened alone): `.vscode` (tasks with `runOn: folderOpen`, settings naming interpreters and
 * formatters), `.idea` (run configurations and startup tasks), `.devcontainer` and
 * `.devcontainer.json` (`postCreateCommand` runs when the folder is reopened in a container).
 * Also Python's `sitecustomize.py` and `usercustomize.py`: every interpreter start imports the
 * first one on `sys.path`, which an editable install's `.pth` file extends by project folders.
 * A root's own entries of these names are watched too unless an auto-run entry keeps them.
 */
export const nestedAutoRunNames: readonly string[] = [
	".git",
	".toolbelt",
	".claude",
	"HEAD",
	".vscode",
	".idea",
	".devcontainer",
	".devcontainer.json",
	"sitecustomize.py",
	"usercustomize.py",
];

/**
 * Whether `name`, inside a virtual environment's `site-packages`, runs at every start of its
 * interpreter: a `.pth` file (site.py executes its lines that begin with `import`, and a path line
 * puts a folder whose `sitecustomize.py` is then imported on `sys.path`), and the two customize
 * modules. The interpreter is started without asking by an editor that finds the `.venv` (to list
 * packages, lint, format), by a pre-commit hook installed from it, and by the user's shell after
 * `source .venv/bin/activate`; `pip install` writing the other files of `site-packages` stays free.
 */
export function isStartupFile(name: string): boolean {
	return name.endsWith(".pth") || name === "sitecustomize.py" || name === "usercustomize.py";
}

/**
 * The protected path patterns of the file tools (gitignore-style, at any depth): the auto-run
 * entries, the nested names, a virtual environment's startup files, plus `.env*` (secrets, not
 * code). A write or edit there needs an allow rule naming it.
 */
export const defaultProtectedPatterns: readonly string[] = [
	...new Set([...autoRunEntries.map((entry) => entry.path), ...nestedAutoRunNames]),
	"**/site-packages/*.pth",
	".env*",
];
