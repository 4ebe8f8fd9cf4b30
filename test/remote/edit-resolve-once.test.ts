import { describe, expect, it } from "vitest";
import type { FileOperations } from "../../src/tools/index.js";
import { createTools } from "../../src/tools/index.js";
import { createWorkspaceFromUrl, type RemoteWorkspace } from "../../src/workspace/remote/index.js";
import { runCall, runCalls, textOf } from "../safety/run-calls.js";
import { inContainer, useTestContainer } from "./docker-fixture.js";

// edit on a workspace in a container: the path is resolved once, by the workspace (in the
// container), and that answer — the name found, the real path, the mutation queue's key — is used
// to the end of the call. Nothing about the path is asked of this machine's disk.

const folder = "/work/edit-once";
const container = useTestContainer("toolbelt-edit-once", "the docker edit tests", (name) =>
	// `link` is a symlink to `real` in the container only: this machine has no such folder.
	inContainer(name, `mkdir -p ${folder}/real && ln -s real ${folder}/link`),
);

function open(): RemoteWorkspace {
	const workspace = createWorkspaceFromUrl(`docker://${container.name}${folder}`);
	container.opened.push(workspace);
	return workspace;
}

/** The metadata questions (stat, lstat, realpath) asked about `path`, counted on the workspace's own file operations. */
function countLookups(files: FileOperations, path: string): { count: number } {
	const counter = { count: 0 };
	for (const name of ["stat", "lstat", "realpath"] as const) {
		const original = files[name].bind(files) as (...args: unknown[]) => Promise<unknown>;
		Object.assign(files, {
			[name]: (asked: string, ...rest: unknown[]) => {
				if (asked === path) counter.count++;
				return original(asked, ...rest);
			},
		});
	}
	return counter;
}

describe("edit on a docker workspace", () => {
	it("serializes two names of one file under the container's real path, so no edit is lost", {
		timeout: 120_000,
	}, async (context) => {
		if (container.skipReason) return context.skip();
		const lines = Array.from({ length: 6 }, (_, index) => `line ${index}`);
		inContainer(container.name, `printf '${lines.join("\\n")}\\n' > ${folder}/real/f.txt`);
		const { edit } = createTools(open());
		// Six edits at once, half through the symlinked folder: keyed by the container's real path,
		// they queue one after another; keyed by anything this machine's disk says, they would
		// overlap, read the same old text and write over each other.
		const messages = await Promise.all(
			lines.map((line, index) =>
				runCall([edit], {}, "edit", {
					path: `${index % 2 === 0 ? "real" : "link"}/f.txt`,
					old_string: `${line}\n`,
					new_string: `${line} edited\n`,
				}),
			),
		);
		for (const message of messages) expect(message.isError, textOf(message)).toBe(false);
		expect(inContainer(container.name, `cat ${folder}/real/f.txt`)).toBe(
			`${lines.map((line) => `${line} edited`).join("\n")}\n`,
		);
	});

	it("resolves its path once per call: the workspace's look-ups of the file before its read are at most one resolve's", {
		timeout: 120_000,
	}, async (context) => {
		if (container.skipReason) return context.skip();
		inContainer(container.name, `printf 'alpha\\nbeta\\n' > ${folder}/real/g.txt`);
		const workspace = open();
		const path = `${folder}/link/g.txt`;
		const lookups = countLookups(workspace.files, path);
		await workspace.resolve(path);
		const oneResolve = lookups.count;
		expect(oneResolve).toBeGreaterThan(0);

		const { edit } = createTools(workspace);
		let resolves = 0;
		const resolve = workspace.resolve.bind(workspace);
		workspace.resolve = (...args) => {
			resolves++;
			return resolve(...args);
		};
		let lookupsBeforeRead: number | undefined;
		const readFile = workspace.files.readFile.bind(workspace.files);
		Object.assign(workspace.files, {
			readFile: (asked: string, ...rest: unknown[]) => {
				if (asked === path && lookupsBeforeRead === undefined) lookupsBeforeRead = lookups.count;
				return (readFile as (...args: unknown[]) => Promise<Buffer>)(asked, ...rest);
			},
		});
		lookups.count = 0;
		const [message] = await runCalls([edit], {}, [
			["edit", { path: "link/g.txt", old_string: "beta", new_string: "gamma" }],
		]);
		expect(message?.isError, message && textOf(message)).toBe(false);
		expect(resolves).toBe(1);
		// At most one resolve's worth: in a batch the folder's real path stands for the file's (a name
		// that is no link lies in its folder's real path), so the file itself may be looked at less.
		expect(lookupsBeforeRead).toBeGreaterThan(0);
		expect(lookupsBeforeRead).toBeLessThanOrEqual(oneResolve);
		expect(inContainer(container.name, `cat ${folder}/real/g.txt`)).toBe("alpha\ngamma\n");
	});
});
