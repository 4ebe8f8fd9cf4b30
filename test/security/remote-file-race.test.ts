import { type ChildProcess, spawn } from "node:child_process";
import {
	chmodSync,
	mkdirSync,
	readdirSync,
	readFileSync,
	realpathSync,
	statSync,
	symlinkSync,
	writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createSafetyLayer } from "../../src/safety/index.js";
import { createAllTools, workspaceToolsOptions } from "../../src/tools/index.js";
import { createWorkspaceFromUrl } from "../../src/workspace/remote/index.js";
import { noSettings } from "../helpers/no-settings.js";
import { useTempDir } from "../helpers/temp-dir.js";
import { useSshd } from "../remote/sshd-fixture.js";
import { runCall, textOf } from "../safety/run-calls.js";

// A red-team test of issue 15: on the remote disk a process flips links between a target inside
// the workspace and one outside it, as fast as it can, while the tools read and write through
// them over ssh. The check and the use are one remote command, but two steps in it: the file
// judged must be the file used, so nothing outside is ever shown or changed.

const SECRET = "OUTSIDE-SECRET";
/**
 * Flips each `link=inside|outside` given by atomic rename until killed, and for a minute at most
 * (a test that died before killing it leaves no busy loop behind). It flips as fast as it can for
 * 40 ms, then leaves every link on its inside target for 40 ms: the bursts race the tools, the
 * calm spells make sure some calls do get through, so the test cannot pass by refusing everything.
 * Run by `node -e`: its arguments start at argv[1].
 */
const SWAPPER = `
const fs = require("node:fs");
const links = process.argv.slice(1).map((spec) => { const [link, targets] = spec.split("="); return [link, targets.split("|")]; });
const point = (link, target) => {
	const temp = link + ".swap";
	try { fs.unlinkSync(temp); } catch {}
	fs.symlinkSync(target, temp);
	fs.renameSync(temp, link);
};
const pause = new Int32Array(new SharedArrayBuffer(4));
const end = Date.now() + 60000;
while (Date.now() < end) {
	const burstEnd = Date.now() + 40;
	for (let flips = 0; Date.now() < burstEnd; flips++) for (const [link, targets] of links) point(link, targets[flips % 2]);
	for (const [link, targets] of links) point(link, targets[0]);
	Atomics.wait(pause, 0, 0, 40);
}
`;
const state = useSshd();

describe("remote file tools against a concurrent link swapper", () => {
	const dir = useTempDir();
	const children: ChildProcess[] = [];
	afterEach(() => {
		for (const child of children.splice(0)) child.kill("SIGKILL");
	});

	it("read and write through flipping links never show or change anything outside", async (context) => {
		const { sshd } = state;
		if (!sshd) return context.skip();
		const root = realpathSync(dir());
		const workspace = join(root, "ws");
		const outside = join(root, "outside");
		mkdirSync(join(workspace, "sub"), { recursive: true });
		mkdirSync(outside);
		writeFileSync(join(workspace, "inside.txt"), "inside content\n");
		writeFileSync(join(outside, "secret.txt"), `${SECRET}\n`);
		writeFileSync(join(outside, "note.txt"), "outside note\n");
		writeFileSync(join(workspace, "sub", "note.txt"), "inside note\n");
		symlinkSync(join(workspace, "inside.txt"), join(workspace, "link.txt"));
		symlinkSync(join(workspace, "sub"), join(workspace, "dir"));
		const swapper = spawn(
			process.execPath,
			[
				"-e",
				SWAPPER,
				`${join(workspace, "link.txt")}=${join(workspace, "inside.txt")}|${join(outside, "secret.txt")}`,
				`${join(workspace, "dir")}=${join(workspace, "sub")}|${outside}`,
			],
			{ stdio: "ignore" },
		);
		children.push(swapper);

		const remote = createWorkspaceFromUrl(`${sshd.urlPrefix}${workspace}`, { sshOptions: sshd.sshOptions });
		try {
			const tools = Object.values(createAllTools(remote.cwd, workspaceToolsOptions(remote)));
			const { hooks } = await createSafetyLayer({
				cwd: workspace,
				homeDir: root,
				mode: "yolo",
				workspace: remote,
				settings: noSettings,
				allowWriteWithoutRead: true,
			});
			let insideReads = 0;
			const deadline = Date.now() + 6000;
			for (let round = 0; Date.now() < deadline; round++) {
				for (const path of ["link.txt", "dir/note.txt"]) {
					const read = textOf(await runCall(tools, hooks, "read", { path }));
					expect(read).not.toContain(SECRET);
					expect(read).not.toContain("outside note");
					if (/inside (content|note)/.test(read)) insideReads++;
				}
				await runCall(tools, hooks, "write", { path: "dir/note.txt", content: `inside note ${round}\n` });
				// A new folder too: made inside, never where the link pointed a moment later.
				await runCall(tools, hooks, "write", { path: `dir/made-${round}/new.txt`, content: "new\n" });
			}
			expect(insideReads).toBeGreaterThan(0);
		} finally {
			await remote.close();
			swapper.kill("SIGKILL");
		}
		expect(readFileSync(join(outside, "secret.txt"), "utf8")).toBe(`${SECRET}\n`);
		expect(readFileSync(join(outside, "note.txt"), "utf8")).toBe("outside note\n");
		expect(readdirSync(outside).sort()).toEqual(["note.txt", "secret.txt"]);
	}, 60_000);

	it("a confined chmod through a flipping link never changes the mode outside", async (context) => {
		const { sshd } = state;
		if (!sshd) return context.skip();
		const root = realpathSync(dir());
		const workspace = join(root, "ws");
		const outside = join(root, "outside");
		mkdirSync(workspace);
		mkdirSync(outside);
		writeFileSync(join(workspace, "inside.txt"), "inside\n");
		writeFileSync(join(outside, "secret.txt"), `${SECRET}\n`);
		chmodSync(join(outside, "secret.txt"), 0o640);
		symlinkSync(join(workspace, "inside.txt"), join(workspace, "link.txt"));
		const swapper = spawn(
			process.execPath,
			["-e", SWAPPER, `${join(workspace, "link.txt")}=${join(workspace, "inside.txt")}|${join(outside, "secret.txt")}`],
			{ stdio: "ignore" },
		);
		children.push(swapper);
		const remote = createWorkspaceFromUrl(`${sshd.urlPrefix}${workspace}`, { sshOptions: sshd.sshOptions });
		try {
			// The operations a confined call gets (the patch tool restores a mode through them).
			const files = remote.files.confine?.([workspace]);
			if (!files) throw new Error("remote file operations offer no confine");
			let changed = 0;
			const deadline = Date.now() + 4000;
			for (let round = 0; Date.now() < deadline; round++) {
				await files.chmod(join(workspace, "link.txt"), round % 2 ? 0o600 : 0o644).then(
					() => changed++,
					() => {},
				);
				expect(statSync(join(outside, "secret.txt")).mode & 0o777).toBe(0o640);
			}
			expect(changed).toBeGreaterThan(0);
		} finally {
			await remote.close();
			swapper.kill("SIGKILL");
		}
	}, 60_000);
});
