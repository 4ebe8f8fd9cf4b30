// A file inside the workspace that is a hard link to a file outside it (pnpm's default layout:
// node_modules/… linked to the store in the home folder) must not be modified in place: the
// outside name would change too. write, edit, apply_patch and a notebook cell edit replace the
// name instead; the outside file keeps its bytes, also after undo.
import { link, mkdir, readFile, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { CliProcesses, cleanEnv } from "../cli/helpers/cli-binary.js";
import { useTempDir } from "../helpers/temp-dir.js";
import { handOver, type TestUser, testUsers } from "../helpers/test-users.js";

const tempDir = useTempDir();
const cli = new CliProcesses();
afterEach(() => cli.killAll());

const MODULE = "module.exports = 1;\n";
const NOTEBOOK = `${JSON.stringify(
	{
		cells: [{ cell_type: "code", source: ["x = 1\n"], metadata: {}, outputs: [], execution_count: null }],
		metadata: {},
		nbformat: 4,
		nbformat_minor: 5,
	},
	null,
	1,
)}\n`;

interface Place {
	workspace: string;
	store: string;
	env: Record<string, string>;
}

/** A pnpm-style layout: the store outside, the workspace's names hard links to its files. */
async function layout(user: TestUser): Promise<Place> {
	const workspace = join(tempDir(), "workspace");
	const home = join(tempDir(), "home");
	const store = join(home, ".local", "share", "pnpm", "store");
	await mkdir(join(workspace, "node_modules", "pkg"), { recursive: true });
	await mkdir(store, { recursive: true });
	await writeFile(join(store, "index.js"), MODULE);
	await writeFile(join(store, "demo.ipynb"), NOTEBOOK);
	await link(join(store, "index.js"), join(workspace, "node_modules", "pkg", "index.js"));
	await link(join(store, "demo.ipynb"), join(workspace, "demo.ipynb"));
	await handOver(tempDir(), user);
	return { workspace, store, env: cleanEnv({ HOME: home }) };
}

const calls: [string, string, Record<string, unknown>, string][] = [
	["write", "write", { path: "node_modules/pkg/index.js", content: "module.exports = 2;\n" }, "index.js"],
	["edit", "edit", { path: "node_modules/pkg/index.js", old_string: "= 1", new_string: "= 2" }, "index.js"],
	[
		"apply_patch",
		"apply_patch",
		{
			patch: [
				"*** Begin Patch",
				"*** Update File: node_modules/pkg/index.js",
				"@@",
				"-module.exports = 1;",
				"+module.exports = 2;",
				"*** End Patch",
			].join("\n"),
		},
		"index.js",
	],
	["a notebook cell edit", "edit", { path: "demo.ipynb", cell: 1, new_source: "x = 2\n" }, "demo.ipynb"],
];

describe.each(testUsers())("a hard link to a file outside the workspace, as %s", (user) => {
	it.each(calls)(
		"%s changes the workspace's name only, also after undo",
		async (_name, tool, args, file) => {
			const place = await layout(user);
			const outside = join(place.store, file);
			const inside =
				file === "index.js" ? join(place.workspace, "node_modules", "pkg", file) : join(place.workspace, file);
			const original = await readFile(outside, "utf8");

			const result = await cli.run(["tool", tool, JSON.stringify(args)], {
				cwd: place.workspace,
				env: place.env,
				user,
			});
			expect(result.code, result.stderr).toBe(0);
			expect(await readFile(outside, "utf8")).toEqual(original);
			expect(await readFile(inside, "utf8")).not.toEqual(original);
			expect((await stat(outside)).nlink).toBe(1);

			const undo = await cli.run(["undo"], { cwd: place.workspace, env: place.env, user });
			expect(undo.code, undo.stderr).toBe(0);
			expect(await readFile(outside, "utf8")).toEqual(original);
			expect(await readFile(inside, "utf8")).toEqual(original);
		},
		60_000,
	);
});
