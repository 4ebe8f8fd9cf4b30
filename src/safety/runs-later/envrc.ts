// What direnv runs besides `.envrc`. direnv asks the user to allow an `.envrc` again whenever its
// text changes, but what an allowed one loads is not checked: a `.envrc.local` it sources, the
// `.env` it reads variables from (`BASH_ENV`, `LD_PRELOAD`…), the `shell.nix` whose shellHook
// `use nix` runs. A sandboxed command that wrote one of those would run code in the user's shell
// at their next `cd`, outside the sandbox.
import { shellWords } from "./shell-words.js";

/** direnv's functions that load a file as code or variables, and what they load by default. */
const loaders: Readonly<Record<string, readonly string[]>> = {
	source_env: [],
	source_env_if_exists: [],
	source: [],
	".": [],
	dotenv: [".env"],
	dotenv_if_exists: [".env"],
	use_nix: ["shell.nix", "default.nix"],
	use_flake: ["flake.nix", "flake.lock"],
};

/**
 * The files an `.envrc` loads by direnv's functions (`source_env_if_exists .envrc.local`, `dotenv`,
 * `use nix`, `use flake`), as written, relative to the `.envrc`'s folder. Files those load in turn
 * (a flake's imports) and folders put on PATH (`PATH_add`, `layout`) are not among them.
 */
export function envrcLoadedFiles(text: string): string[] {
	const files: string[] = [];
	const words = shellWords(text);
	for (const [index, word] of words.entries()) {
		if (!word.isProgram) continue;
		const rest: string[] = [];
		for (const next of words.slice(index + 1)) {
			if (next.isProgram) break;
			rest.push(next.text);
		}
		// `use nix` is `use_nix`, `use flake .#dev` is `use_flake .#dev`.
		const name = word.text === "use" && rest[0] ? `use_${rest.shift()}` : word.text;
		const defaults = loaders[name];
		if (!defaults) continue;
		const first = rest[0];
		// A flake's argument names a flake, not a file; `use nix -p jq` names packages.
		if (name === "use_flake" || first === undefined) files.push(...defaults);
		else if (!first.startsWith("-") && !first.startsWith("$")) files.push(first);
	}
	return files;
}
