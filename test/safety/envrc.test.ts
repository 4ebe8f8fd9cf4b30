import { describe, expect, it } from "vitest";
import { envrcLoadedFiles, envrcPathFolders } from "../../src/safety/runs-later/envrc.js";

describe("envrcLoadedFiles", () => {
	it("names what direnv's functions load, with their defaults, and nothing from comments, packages or flake references", () => {
		const envrc = [
			"# source_env commented.sh",
			"source_env_if_exists .envrc.local",
			"dotenv_if_exists",
			"dotenv .env.dev # the team's",
			"use nix",
			"use flake .#dev",
			". ./scripts/env.sh; use nix -p jq",
			"export A=1",
			"source_up",
			"PATH_add bin",
		].join("\n");
		expect(envrcLoadedFiles(envrc)).toEqual([
			".envrc.local",
			".env",
			".env.dev",
			"shell.nix",
			"default.nix",
			"flake.nix",
			"flake.lock",
			"./scripts/env.sh",
		]);
	});
});

describe("envrcPathFolders", () => {
	it("names the folders PATH_add, path_add PATH and a PATH assignment put on PATH, and no package manager's", () => {
		const envrc = [
			"PATH_add bin tools/bin # ours",
			"path_add PYTHONPATH src",
			"path_add PATH scripts",
			// biome-ignore lint/suspicious/noTemplateCurlyInString: the shell's own ${PWD}
			'export PATH="$PWD/local/bin:${PWD}/more:$HOME/bin:$PATH"',
			"layout node",
			"use nix",
			// Package managers' own bin folders, named: npm, pip and composer write them.
			"PATH_add node_modules/.bin",
			'export PATH="$PWD/.venv/bin:$PWD/vendor/bin/:$PATH"',
			"PATH_add packages/web/node_modules/.bin",
		].join("\n");
		expect(envrcPathFolders(envrc)).toEqual(["bin", "tools/bin", "scripts", "./local/bin", "./more"]);
	});
});
