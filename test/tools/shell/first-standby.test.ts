import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { once } from "node:events";
import { chownSync, existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Writable } from "node:stream";
import { fileURLToPath } from "node:url";
import { describe, expect, it, type TestContext } from "vitest";
import { CONTAINMENT_VARIABLE, ownCgroupDirectory } from "../../../src/workspace/local/process/cgroup.js";
import { removeCgroup } from "../../../src/workspace/local/process/cgroup-members.js";
import { ensureBuiltCli } from "../../cli/helpers/cli-binary.js";
import { commandCgroupsUnavailableReason } from "../../helpers/prerequisites.js";
import { unprivilegedIdentity, unprivilegedUnavailableReason, userPrefix } from "../../helpers/test-users.js";
import { eventually, killMarked, newMarker, processesWithMarker } from "./survivors.js";

const fixture = fileURLToPath(new URL("./fixtures/first-call.mjs", import.meta.url));
const repositoryRoot = fileURLToPath(new URL("../../../", import.meta.url));

interface Printed {
	text?: string;
	fromStandby?: boolean;
	backgroundPids?: number[];
	base?: string;
}

/** One fresh toolbelt process (the fixture), and the JSON lines it printed once it printed `lines`. */
async function startFresh(
	mode: string,
	lines: number,
	env: NodeJS.ProcessEnv,
	onTestFinished: TestContext["onTestFinished"],
	options: { prefix?: string[]; started?: (child: { pid?: number; stdin: Writable }) => void } = {},
) {
	const { marker } = newMarker();
	onTestFinished(() => killMarked(marker));
	const [file = process.execPath, ...prefixArgs] = [...(options.prefix ?? []), process.execPath];
	ensureBuiltCli();
	const child = spawn(file, [...prefixArgs, fixture, mode, marker], {
		cwd: repositoryRoot,
		env: { ...process.env, ...env },
		stdio: ["pipe", "pipe", "inherit"],
	});
	onTestFinished(() => {
		if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
	});
	let output = "";
	child.stdout.on("data", (chunk: Buffer) => {
		output += chunk.toString();
	});
	options.started?.(child);
	expect(await eventually(() => output.split("\n").length > lines, 30_000)).toBe(true);
	const printed = output
		.split("\n")
		.slice(0, lines)
		.map((line) => JSON.parse(line) as Printed);
	return { child, marker, printed };
}

const noCgroups = commandCgroupsUnavailableReason();

/**
 * A fresh toolbelt process run as nobody (setpriv) in a cgroup folder of its own, made below this
 * process's cgroup with `owned` (the folder, and of its files those named) handed to nobody: moved
 * there before its tool is created (`wait-calls`). Its JSON lines once it printed three.
 */
async function startAsNobodyInCgroup(owned: string[], onTestFinished: TestContext["onTestFinished"]) {
	const delegated = join(ownCgroupDirectory() ?? "", `tb-delegated-${randomUUID().slice(0, 8)}`);
	mkdirSync(delegated);
	for (const path of [delegated, ...owned.map((file) => join(delegated, file))])
		chownSync(path, unprivilegedIdentity.uid, unprivilegedIdentity.gid);
	onTestFinished(async () => {
		await eventually(() => removeCgroup(delegated));
	});
	const started = await startFresh("wait-calls", 3, {}, onTestFinished, {
		prefix: userPrefix("unprivileged"),
		// Moved before its first call (it waits for a line on stdin).
		started: (child) => {
			writeFileSync(join(delegated, "cgroup.procs"), String(child.pid));
			child.stdin.write("go\n");
		},
	});
	return { ...started, delegatedName: delegated.slice(delegated.lastIndexOf("/")) };
}

describe.skipIf(noCgroups !== undefined)("the first command of a fresh process", () => {
	it.concurrent("starts from the standby shell its tool's creation makes: in a fresh cgroup, leftovers reported and ended at exit", {
		timeout: 60_000,
	}, async ({ onTestFinished }) => {
		const { child, marker, printed } = await startFresh("calls", 3, {}, onTestFinished);
		const [first, second, end] = printed;
		expect(first?.fromStandby).toBe(true);
		const [cgroup, ...output] = (first?.text ?? "").split("\n");
		expect(cgroup).toMatch(/\/toolbelt-\d+-[0-9a-f]+\/run-\d+$/);
		expect(output.join("\n")).toContain("1\n2\n3");
		expect(output).toContain("relay in the cgroup");
		// Run by the standby itself, not by a second bash it execs.
		expect(output).toContain("toolbelt-standby");
		// Both sleeps, the one in its own session too: the cgroup holds them.
		expect(first?.backgroundPids).toHaveLength(2);
		expect(first?.text).toContain("[Still running in the background: pid");
		// The first command prepares no further standby (a one-shot process would not use it): the
		// second call starts its own as it begins, while it checks the folder and finds the shell.
		expect(second).toMatchObject({ text: "second", fromStandby: true });
		expect(end?.base).toBeDefined();
		child.stdin.write("go\n");
		const [code] = await once(child, "exit");
		expect(code).toBe(0);
		expect(await eventually(() => processesWithMarker(marker).length === 0)).toBe(true);
		expect(existsSync(end?.base ?? "")).toBe(false);
	});

	it.concurrent("makes the standby as the tool is created, and leaves nothing behind when the process exits meanwhile", {
		timeout: 60_000,
	}, async ({ onTestFinished }) => {
		const { child, printed } = await startFresh("create-only", 1, {}, onTestFinished);
		const base = printed[0]?.base ?? "";
		expect(base).toMatch(/\/toolbelt-\d+-[0-9a-f]+$/);
		if (child.exitCode === null) await once(child, "exit");
		expect(await eventually(() => !existsSync(base))).toBe(true);
	});

	it.concurrent("lets the standby made as the tool was created join its cgroup on its own when no call comes", {
		timeout: 60_000,
	}, async ({ onTestFinished }) => {
		const { child, printed } = await startFresh("joins-idle", 1, {}, onTestFinished);
		expect(printed[0]?.base).toMatch(/\/toolbelt-\d+-[0-9a-f]+$/);
		// The standby's shell, and its relay once it joined too.
		expect(printed[0]?.text).toMatch(/^\d+( \d+)*$/);
		if (child.exitCode === null) await once(child, "exit");
		expect(await eventually(() => !existsSync(printed[0]?.base ?? ""))).toBe(true);
	});

	// As nobody in a cgroup folder of its own, it can make cgroups below it but not move a process
	// into one (that needs write access to the common ancestor's cgroup.procs, root's here).
	const asNobody = process.getuid?.() === 0 && unprivilegedUnavailableReason() === undefined;
	it.runIf(asNobody)(
		"runs in its standby's process group when that standby could not join its cgroup",
		{
			timeout: 60_000,
		},
		async ({ onTestFinished }) => {
			const { child, marker, printed, delegatedName } = await startAsNobodyInCgroup([], onTestFinished);
			const [first, second, end] = printed;
			// The standby was handed the command before it said it could not join, and ran it.
			expect(first?.fromStandby).toBe(true);
			const [cgroup, ...output] = (first?.text ?? "").split("\n");
			expect(cgroup?.endsWith(delegatedName)).toBe(true);
			expect(output.join("\n")).toContain("1\n2\n3");
			// Found by its process group and its marker: the one in its own session too.
			expect(first?.backgroundPids).toHaveLength(2);
			expect(second).toMatchObject({ text: "second", fromStandby: false });
			expect(end?.base).toBeUndefined();
			child.stdin.write("go\n");
			await once(child, "exit");
			expect(await eventually(() => processesWithMarker(marker).length === 0)).toBe(true);
		},
	);

	// As nobody in a cgroup subtree delegated to it (its folder and the files that move processes its
	// own, as a service manager delegates one), it can move its shells into cgroups it makes below.
	it.runIf(asNobody)(
		"runs its commands in cgroups, in place in its standby, as a user in a delegated cgroup subtree",
		{
			timeout: 60_000,
		},
		async ({ onTestFinished }) => {
			const { child, marker, printed, delegatedName } = await startAsNobodyInCgroup(
				["cgroup.procs", "cgroup.threads", "cgroup.subtree_control"],
				onTestFinished,
			);
			const [first, second, end] = printed;
			expect(first?.fromStandby).toBe(true);
			const [cgroup, ...output] = (first?.text ?? "").split("\n");
			expect(cgroup).toMatch(new RegExp(`${delegatedName}/toolbelt-\\d+-[0-9a-f]+/run-\\d+$`));
			expect(output.join("\n")).toContain("1\n2\n3");
			expect(output).toContain("relay in the cgroup");
			expect(output).toContain("toolbelt-standby");
			expect(first?.backgroundPids).toHaveLength(2);
			expect(second).toMatchObject({ text: "second", fromStandby: true });
			child.stdin.write("go\n");
			await once(child, "exit");
			expect(await eventually(() => processesWithMarker(marker).length === 0)).toBe(true);
			expect(await eventually(() => !existsSync(end?.base ?? ""))).toBe(true);
		},
	);

	it.concurrent("runs as before without cgroups (process groups): no standby, same output, leftovers reported", {
		timeout: 60_000,
	}, async ({ onTestFinished }) => {
		const env = { [CONTAINMENT_VARIABLE]: "process-group" };
		const { child, marker, printed } = await startFresh("calls", 3, env, onTestFinished);
		const [first, second, end] = printed;
		expect(first?.fromStandby).toBe(false);
		expect(first?.text).toContain("1\n2\n3");
		expect(first?.text).not.toContain("/toolbelt-");
		expect(first?.backgroundPids?.length).toBeGreaterThanOrEqual(1);
		expect(second).toMatchObject({ text: "second", fromStandby: false });
		expect(end?.base).toBeUndefined();
		child.stdin.write("go\n");
		await once(child, "exit");
		expect(await eventually(() => processesWithMarker(marker).length === 0)).toBe(true);
	});
});
