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

/**
 * A package manager's own bin folder (`node_modules/.bin`, a virtual environment's `bin`, composer's
 * `vendor/bin`): the package manager must keep writing it, as `layout` makes it (see `envrcPathFolders`).
 */
const packageManagerBin = /(?:^|\/)node_modules(?:\/|$)|(?:^|\/)(?:\.?venv|vendor)\/bin\/?$/;

/** A PATH entry as written in an `.envrc`: `$PWD/bin` and `${PWD}/bin` are `bin`; other variables are unknown. */
function pathEntry(entry: string): string | undefined {
	const local = entry.replace(/^\$(?:\{PWD\}|PWD)(?=\/|$)/, ".");
	if (local === "" || local.startsWith("$") || local.startsWith("~")) return undefined;
	return packageManagerBin.test(local) ? undefined : local;
}

/**
 * The folders an `.envrc` puts on PATH by name, relative to its folder: `PATH_add bin`,
 * `path_add PATH tools/bin`, `export PATH=$PWD/scripts:$PATH`. A file in one of them runs instead
 * of the program of that name (`git`, `ls`) at each command the user types after the next `cd`, so
 * they are kept read-only like what the `.envrc` loads. `layout node`, `layout go` and their kin put
 * a package manager's bin folder there (`node_modules/.bin`), which `npm install` and `go install`
 * must keep writing: those are the project's dependencies, as a `node_modules/` is, and left out,
 * also when named (`PATH_add node_modules/.bin`, `.venv/bin`, `vendor/bin`): kept read-only, they
 * would make every `npm install` in the sandbox fail.
 */
export function envrcPathFolders(text: string): string[] {
	const folders: string[] = [];
	const words = shellWords(text);
	for (const [index, word] of words.entries()) {
		const assignment = /^PATH=(.*)$/s.exec(word.text);
		if (assignment && (word.isProgram || words[index - 1]?.text === "export")) {
			folders.push(...(assignment[1] ?? "").split(":").flatMap((entry) => pathEntry(entry) ?? []));
			continue;
		}
		if (!word.isProgram || (word.text !== "PATH_add" && word.text !== "path_add")) continue;
		const rest: string[] = [];
		for (const next of words.slice(index + 1)) {
			if (next.isProgram) break;
			rest.push(next.text);
		}
		if (word.text === "path_add" && rest.shift() !== "PATH") continue;
		folders.push(...rest.flatMap((entry) => pathEntry(entry) ?? []));
	}
	return folders;
}
