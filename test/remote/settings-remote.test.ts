import {
	existsSync,
	mkdirSync,
	mkdtempSync,
	readdirSync,
	readFileSync,
	realpathSync,
	rmSync,
	symlinkSync,
	writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { alwaysRulesSaver, createSafetyLayer, type ProjectSettingsReview } from "../../src/safety/index.js";
import { settingsContentHash } from "../../src/safety/trust/trust.js";
import { trustRecordOf } from "../../src/safety/trust/trust-store.js";
import { createWorkspaceFromUrl, type RemoteWorkspace } from "../../src/workspace/remote/index.js";
import { dockerUnavailable, ensureTestImage, inContainer, removeContainer, startContainer } from "./docker-fixture.js";
import { bindMountPrefix, useSshd } from "./sshd-fixture.js";

// The project settings of a remote workspace, through the library: read once over the
// connection (what the trust check reviewed is what applies), "always" rules written back to the
// remote project's file, and trust records keyed by the workspace URL. As in
// test/security/remote-settings.test.ts, sshd sees `remote-view/` at the path of `project/`.

const root = realpathSync(mkdtempSync(join(tmpdir(), "toolbelt-remote-settings-lib-")));
const project = join(root, "project");
const remoteView = join(root, "remote-view");
const home = join(root, "home");
for (const folder of [project, remoteView, home]) mkdirSync(folder, { recursive: true });
const state = useSshd({ launchPrefix: bindMountPrefix(remoteView, project) });
afterAll(() => rmSync(root, { recursive: true, force: true }));
beforeEach(() => {
	for (const folder of [project, remoteView, home])
		for (const name of readdirSync(folder)) rmSync(join(folder, name), { recursive: true, force: true });
});

function open(): RemoteWorkspace {
	if (!state.sshd) throw new Error("no sshd");
	const workspace = createWorkspaceFromUrl(`${state.sshd.urlPrefix}${project}`, { sshOptions: state.sshd.sshOptions });
	state.opened.push(workspace);
	return workspace;
}

function writeRemoteSettings(settings: unknown): string {
	mkdirSync(join(remoteView, ".toolbelt"), { recursive: true });
	const text = JSON.stringify(settings);
	writeFileSync(join(remoteView, ".toolbelt", "settings.json"), text);
	return text;
}

describe("remote project settings through the library", () => {
	it("what the trust check reviewed is what applies, even when the remote file changes during the check", async (context) => {
		if (!state.sshd) return context.skip();
		const reviewed = writeRemoteSettings({ permissions: { allow: ["bash(echo one)"] } });
		const workspace = open();
		const reviews: ProjectSettingsReview[] = [];
		const layer = await createSafetyLayer({
			cwd: workspace.cwd,
			workspace,
			homeDir: home,
			trustProject: (review) => {
				reviews.push(review);
				// The hostile side swaps the file while the person reads the prompt.
				writeRemoteSettings({ permissions: { allow: ["bash(*)"] }, hooks: { PreToolUse: [] } });
				return true;
			},
		});
		expect(reviews).toHaveLength(1);
		expect(reviews[0]?.realProjectDir).toBe(`${state.sshd.urlPrefix}${project}`);
		expect(reviews[0]?.file).toBe(`${state.sshd.urlPrefix}${project}/.toolbelt/settings.json`);
		expect(reviews[0]?.contentHash).toBe(settingsContentHash(reviewed));
		expect(layer.settings.project?.contentHash).toBe(settingsContentHash(reviewed));
		const allowed = layer.settings.rules.filter((rule) => rule.behavior === "allow");
		expect(allowed.map((rule) => rule.source)).toEqual([`${state.sshd.urlPrefix}${project}/.toolbelt/settings.json`]);
		expect(JSON.stringify(allowed)).toContain("echo one");
		expect(JSON.stringify(allowed)).not.toContain("*");
	}, 60_000);

	it('"always" rules go to the remote project\'s file, and its trust record (keyed by the URL) follows them', async (context) => {
		if (!state.sshd) return context.skip();
		const before = writeRemoteSettings({ permissions: { allow: ["bash(echo one)"] } });
		const workspace = open();
		const key = `${state.sshd.urlPrefix}${project}`;
		const { recordProjectTrust } = await import("../../src/safety/trust/trust.js");
		await recordProjectTrust({ realProjectDir: key, contentHash: settingsContentHash(before) }, home);
		const layer = await createSafetyLayer({ cwd: workspace.cwd, workspace, homeDir: home });
		expect(layer.settings.project?.trusted).toBe(true);
		const save = alwaysRulesSaver({
			projectDir: workspace.cwd,
			project: layer.settings.project,
			homeDir: home,
			projectDisk: { files: workspace.files, nameOf: (path) => workspace.urlOf(path) },
		});
		await save?.(["bash(npm test)"]);
		const after = readFileSync(join(remoteView, ".toolbelt", "settings.json"), "utf8");
		expect(after).toContain("bash(npm test)");
		expect(existsSync(join(project, ".toolbelt"))).toBe(false);
		expect((await trustRecordOf(key, home))?.settingsHash).toBe(settingsContentHash(after));
		expect(await trustRecordOf(project, home)).toBeUndefined();
	}, 60_000);

	it('an "always" rule is not written through a `.toolbelt` symlinked out of the remote project', async (context) => {
		if (!state.sshd) return context.skip();
		const outside = join(root, "outside");
		mkdirSync(outside, { recursive: true });
		symlinkSync(outside, join(remoteView, ".toolbelt"));
		const workspace = open();
		const layer = await createSafetyLayer({ cwd: workspace.cwd, workspace, homeDir: home });
		// No settings file there (the link's target is empty): answers may be saved, but only inside the project.
		expect(layer.settings.project).toBeUndefined();
		const save = alwaysRulesSaver({
			projectDir: workspace.cwd,
			project: undefined,
			homeDir: home,
			projectDisk: { files: workspace.files, nameOf: (path) => workspace.urlOf(path) },
		});
		await expect(save?.(["bash(npm test)"])).rejects.toThrow(/outside/);
		expect(readdirSync(outside)).toEqual([]);
		rmSync(outside, { recursive: true, force: true });
	}, 60_000);
});

describe("remote project settings in a container", () => {
	const container = `toolbelt-settings-${process.pid}`;
	let skip = dockerUnavailable();
	beforeAll(() => {
		if (skip) return void console.warn(`skipping the container settings test: ${skip}`);
		try {
			ensureTestImage();
			startContainer(container);
		} catch (error) {
			skip = `the test container could not start: ${(error as Error).message}`;
		}
	}, 120_000);
	afterAll(() => removeContainer(container));

	it("come from the container's folder, keyed by the docker URL", async (context) => {
		if (skip) return context.skip();
		inContainer(container, "mkdir -p /srv/app/.toolbelt");
		inContainer(
			container,
			`printf '%s' '{"permissions":{"deny":["read(secret.txt)"],"allow":["bash(ls)"]}}' > /srv/app/.toolbelt/settings.json`,
		);
		const workspace = createWorkspaceFromUrl(`docker://${container}/srv/app`);
		state.opened.push(workspace);
		const layer = await createSafetyLayer({ cwd: workspace.cwd, workspace, homeDir: home });
		expect(layer.settings.rules.map((rule) => `${rule.behavior} ${rule.text}`)).toEqual(["deny read(secret.txt)"]);
		expect(layer.settings.project).toMatchObject({
			file: `docker://${container}/srv/app/.toolbelt/settings.json`,
			realProjectDir: `docker://${container}/srv/app`,
			trusted: false,
		});
	}, 60_000);
});
