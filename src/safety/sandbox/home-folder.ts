// The home folder is where the user's own programs read what to run: shell start files, ~/.ssh/config,
// ~/.config (autostart, systemd user units, editors), PATH folders (~/bin, ~/.local/bin). Unlike a
// project's auto-run entries they cannot be listed, so a writable root that holds the home is
// refused instead of run with a list that misses one.
import { realpath } from "node:fs/promises";
import { resolve } from "node:path";
import { isInsideRoot } from "../../workspace/index.js";
import { SandboxUnavailableError } from "./errors.js";

/**
 * Throws `SandboxUnavailableError` when one of `roots` (real paths) is the home folder or lies
 * above it: a command could then rewrite `~/.bashrc`, `~/.profile`, `~/.ssh/config` or a program in
 * `~/bin`, and the user's next shell or ssh would run it outside the sandbox. `writablePaths` are not
 * checked: the user names those (`sandbox.writablePaths`) knowing what they open.
 */
export async function assertHomeOutsideRoots(roots: readonly string[], homeDir: string): Promise<void> {
	const home = await realpath(homeDir).catch(() => resolve(homeDir));
	const root = roots.find((candidate) => isInsideRoot(candidate, home));
	if (root === undefined) return;
	const which = root === home ? `is your home folder (${home})` : `holds your home folder (${home})`;
	throw new SandboxUnavailableError(
		`The sandbox cannot make ${root} writable: it ${which}, where your shell's start files (~/.bashrc, ~/.profile, ~/.zshrc), ~/.ssh/config, ~/.config and the programs in ~/bin and ~/.local/bin run outside the sandbox later, and they cannot all be kept read-only. ` +
			"Start toolbelt in a project folder below it, or run without the sandbox. The command was not run.",
	);
}
