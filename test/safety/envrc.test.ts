import { describe, expect, it } from "vitest";
import { envrcLoadedFiles } from "../../src/safety/runs-later/envrc.js";

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
