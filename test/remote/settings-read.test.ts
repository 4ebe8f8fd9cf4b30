import { execFileSync } from "node:child_process";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadSettings, SETTINGS_MAX_BYTES, SettingsError } from "../../src/safety/index.js";
import { parseWorkspaceUrl, workspaceUrlOf } from "../../src/workspace/remote/transport/workspace-url.js";
import { useTempDir } from "../helpers/temp-dir.js";

// The rules a settings file is read by, on any disk (here the local one, the same code a remote
// workspace's files go through), and the names remote folders get in trust records.

describe("reading a project settings file", () => {
	const dir = useTempDir();

	function project(): { projectDir: string; homeDir: string; file: string } {
		const projectDir = join(dir(), "project");
		const homeDir = join(dir(), "home");
		mkdirSync(join(projectDir, ".toolbelt"), { recursive: true });
		mkdirSync(homeDir, { recursive: true });
		return { projectDir, homeDir, file: join(projectDir, ".toolbelt", "settings.json") };
	}

	it("refuses a file symlinked out of the project, and follows one that stays inside", async () => {
		const { projectDir, homeDir, file } = project();
		writeFileSync(join(dir(), "elsewhere.json"), JSON.stringify({ permissions: { deny: ["bash(rm:*)"] } }));
		symlinkSync(join(dir(), "elsewhere.json"), file);
		await expect(loadSettings({ projectDir, homeDir })).rejects.toThrow(/outside its project folder/);
		execFileSync("rm", [file]);
		writeFileSync(join(projectDir, "shared.json"), JSON.stringify({ permissions: { deny: ["bash(rm:*)"] } }));
		symlinkSync(join(projectDir, "shared.json"), file);
		expect((await loadSettings({ projectDir, homeDir })).rules.map((rule) => rule.text)).toEqual(["bash(rm:*)"]);
	});

	it("refuses a file over the size limit and one that is not a regular file (a FIFO would never end)", async () => {
		const { projectDir, homeDir, file } = project();
		writeFileSync(file, `${" ".repeat(SETTINGS_MAX_BYTES)}{}`);
		await expect(loadSettings({ projectDir, homeDir })).rejects.toThrow(/at most 1048576 bytes/);
		execFileSync("rm", [file]);
		execFileSync("mkfifo", [file]);
		const error = await loadSettings({ projectDir, homeDir }).catch((caught: unknown) => caught);
		expect(error).toBeInstanceOf(SettingsError);
		expect((error as Error).message).toContain("not a regular file");
	});
});

describe("the names of remote folders in trust records", () => {
	it("name the remote and the path, one spelling per remote, none like a local path or another remote's", () => {
		const urls = [
			"ssh://box/srv/app",
			"ssh://dev@box/srv/app",
			"ssh://dev@box:2222/srv/app",
			"docker://web/srv/app",
			"podman://web/srv/app",
			"kubectl://pod/srv/app",
			"kubectl://ns/pod//srv/app",
			"kubectl://ns/pod/c//srv/app",
		];
		// Each URL names its folder as written: the trust record reads as the --workspace flag did.
		expect(urls.map((url) => workspaceUrlOf(parseWorkspaceUrl(url), "/srv/app"))).toEqual(urls);
		const containerOnly = workspaceUrlOf({ kind: "kubectl", pod: "pod", container: "c", path: "/" }, "/srv/app");
		expect(containerOnly).toBe("kubectl:///pod/c//srv/app");
		expect(new Set([...urls, containerOnly]).size).toBe(urls.length + 1);
	});
});
