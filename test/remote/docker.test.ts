import { chmodSync, existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAllTools, createTools, workspaceToolsOptions } from "../../src/tools/index.js";
import { createWorkspaceFromUrl, type RemoteWorkspace } from "../../src/workspace/remote/index.js";
import { requiredInCi } from "../helpers/prerequisites.js";
import { runCall, textOf } from "../safety/run-calls.js";
import { dockerUnavailable, ensureTestImage, inContainer, removeContainer, startContainer } from "./docker-fixture.js";

// The docker backend, and the kubectl backend through a stand-in `kubectl` (given as `kubectlPath`) that forwards
// `exec -i [-n ns] pod [-c container] -- …` to `docker exec -i pod …` (no cluster can run here).

const container = `toolbelt-test-${process.pid}`;
let skipReason = dockerUnavailable();
const opened: RemoteWorkspace[] = [];
let standInDir: string | undefined;

beforeAll(() => {
	if (skipReason) {
		console.warn(`skipping the docker and kubectl tests: ${skipReason}`);
		return;
	}
	try {
		ensureTestImage();
		startContainer(container);
	} catch (error) {
		// Under CI dockerd and busybox-static are installed: a container that cannot start is a failure.
		skipReason = requiredInCi("a test container", `the test container could not start: ${(error as Error).message}`);
		return;
	}
	standInDir = mkdtempSync(join(tmpdir(), "toolbelt-kubectl-"));
	const script = [
		"#!/bin/sh",
		"# A kubectl stand-in: exec -i [-n ns] pod [-c container] -- cmd... becomes docker exec -i pod cmd...",
		'[ "$1" = exec ] || { echo "stand-in supports only exec" >&2; exit 1; }; shift',
		"pod=''",
		'while [ "$#" -gt 0 ]; do case "$1" in -i) shift;; -n|-c) shift 2;; --) shift; break;; *) pod=$1; shift;; esac; done',
		'exec docker exec -i "$pod" "$@"',
		"",
	].join("\n");
	writeFileSync(join(standInDir, "kubectl"), script);
	chmodSync(join(standInDir, "kubectl"), 0o755);
}, 120_000);

afterAll(async () => {
	await Promise.all(opened.map((workspace) => workspace.close()));
	removeContainer(container);
	if (standInDir) rmSync(standInDir, { recursive: true, force: true });
});

/** The kubectl stand-in, by path: a bare `kubectl` is never taken from a temp folder. */
const clients = () => ({ kubectlPath: join(standInDir ?? "", "kubectl") });

function open(url: string) {
	const workspace = createWorkspaceFromUrl(url, clients());
	opened.push(workspace);
	return { workspace, tools: Object.values(createAllTools(workspace.cwd, workspaceToolsOptions(workspace))) };
}

for (const scheme of ["docker", "kubectl"] as const) {
	describe(`the ${scheme} backend`, () => {
		const folder = `/work/${scheme}`;
		const url =
			scheme === "docker" ? `docker://${container}${folder}` : `kubectl://default/${container}//${folder.slice(1)}`;

		it("write, read, edit, ls, bash and grep act inside the container", async (context) => {
			if (skipReason) return context.skip();
			inContainer(container, `mkdir -p ${folder}`);
			const { tools } = open(url);
			const lines = Array.from({ length: 3000 }, (_, index) => `row ${index + 1}`).join("\n");
			const wrote = await runCall(tools, {}, "write", { path: "rows.txt", content: `${lines}\n` });
			expect(wrote.isError, textOf(wrote)).toBe(false);
			expect(inContainer(container, `wc -l < ${folder}/rows.txt`).trim()).toBe("3000");
			const page = textOf(await runCall(tools, {}, "read", { path: "rows.txt", offset: 2998, limit: 2 }));
			expect(page).toMatch(/2998\trow 2998\n\s+2999\trow 2999/);
			const edited = await runCall(tools, {}, "edit", {
				path: "rows.txt",
				old_string: "row 17\n",
				new_string: "seventeen\n",
			});
			expect(edited.isError, textOf(edited)).toBe(false);
			expect(inContainer(container, `sed -n 17p ${folder}/rows.txt`)).toBe("seventeen\n");
			expect(textOf(await runCall(tools, {}, "ls", {}))).toContain("rows.txt");
			expect(textOf(await runCall(tools, {}, "bash", { command: "pwd; uname -s" }))).toContain(folder);
			// A long output stays in a file inside the container (busybox's mktemp, wc, tail, head).
			const long = textOf(await runCall(tools, {}, "bash", { command: "seq 1 100000" }));
			expect(long).toMatch(/\n100000$|\n100000\n/);
			expect(long).toMatch(/of 100000 lines/);
			const kept = /Full output: (\S+) \(on the remote host /.exec(long)?.[1] ?? "";
			expect(inContainer(container, `wc -l < ${kept}`).trim()).toBe("100000");
			const grep = await runCall(tools, {}, "grep", { pattern: "seventeen", literal: true });
			expect(textOf(grep)).toMatch(/rows\.txt:17/);
		}, 60_000);

		it("apply_patch adds, updates and deletes files on the container's disk, never on this one", async (context) => {
			if (skipReason) return context.skip();
			inContainer(container, `mkdir -p ${folder}/patch && printf 'one\\ntwo\\n' > ${folder}/patch/kept.txt`);
			inContainer(container, `printf 'bye\\n' > ${folder}/patch/gone.txt`);
			const workspace = createWorkspaceFromUrl(`${url}/patch`, clients());
			opened.push(workspace);
			const tools = Object.values(createTools(workspace));
			const patch = [
				"*** Begin Patch",
				"*** Add File: added.txt",
				"+made by apply_patch",
				"*** Update File: kept.txt",
				"@@",
				" one",
				"-two",
				"+2",
				"*** Delete File: gone.txt",
				"*** End Patch",
			].join("\n");
			const result = await runCall(tools, {}, "apply_patch", { patch });
			expect(result.isError, textOf(result)).toBe(false);
			expect(inContainer(container, `cat ${folder}/patch/added.txt`)).toBe("made by apply_patch\n");
			expect(inContainer(container, `cat ${folder}/patch/kept.txt`)).toBe("one\n2\n");
			expect(inContainer(container, `ls ${folder}/patch`)).not.toContain("gone.txt");
			// The container's folder does not exist on this machine: nothing may have been made here.
			expect(existsSync(folder)).toBe(false);
		}, 60_000);

		it("grep honours an ignore file above the folder on the container's disk, not on this one", async (context) => {
			if (skipReason) return context.skip();
			const above = `${folder}-above`;
			inContainer(container, `mkdir -p ${above}/tree && printf 'hidden.txt\\n' > ${above}/.gitignore`);
			inContainer(
				container,
				`printf 'needle\\n' > ${above}/tree/hidden.txt && printf 'needle\\n' > ${above}/tree/shown.txt`,
			);
			const url = scheme === "docker" ? `docker://${container}${above}/tree` : `kubectl://${container}${above}/tree`;
			const { tools } = open(url);
			const grep = textOf(await runCall(tools, {}, "grep", { pattern: "needle", literal: true }));
			expect(grep).toContain("shown.txt");
			expect(grep).not.toContain("hidden.txt");
		}, 60_000);

		it("leaves no zombie after commands that leave children behind (the container runs an init that reaps)", async (context) => {
			if (skipReason || scheme !== "docker") return context.skip();
			inContainer(container, `mkdir -p ${folder}`);
			const { tools } = open(url);
			// Each command's subshell exits at once; its child, orphaned, is the container's PID 1's to reap.
			for (let index = 0; index < 12; index++) {
				const ran = await runCall(tools, {}, "bash", { command: "(sleep 0 &); (true &); echo ran" });
				expect(textOf(ran)).toContain("ran");
			}
			// An init reaps an orphan as it ends; a zombie of `sleep` as PID 1 stays forever. Asked again
			// a few times, so one that ended a moment before the look does not count.
			const zombies = inContainer(
				container,
				"for i in 1 2 3 4 5 6 7 8 9 10; do n=$(cat /proc/[0-9]*/status 2>/dev/null | grep -c '^State:.*Z'); [ \"$n\" = 0 ] && break; sleep 0.3; done; echo $n",
			);
			expect(Number(zombies.trim())).toBe(0);
		}, 120_000);

		it("a stopped container is reported clearly", async (context) => {
			if (skipReason) return context.skip();
			const gone =
				scheme === "docker" ? "docker://toolbelt-no-such-container/work" : "kubectl://toolbelt-no-such-pod/work";
			const { tools } = open(gone);
			const result = await runCall(tools, {}, "read", { path: "x.txt" });
			expect(result.isError).toBe(true);
			expect(textOf(result)).toMatch(/not running or does not exist/);
		});
	});
}
