// The test-user helper itself: the built CLI really runs as the user asked for, on files handed over to it.
import { rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { CliProcesses, cleanEnv } from "../cli/helpers/cli-binary.js";
import { useTempDir } from "./temp-dir.js";
import { handOver, testUsers } from "./test-users.js";

const tempDir = useTempDir();
const cli = new CliProcesses();
afterEach(() => cli.killAll());

describe.each(testUsers())("as %s", (user) => {
	it("runs a command of the CLI as that user, in a folder it owns", async () => {
		const dir = tempDir();
		await writeFile(join(dir, "a.txt"), "hi\n");
		await handOver(dir, user);
		const command = "id -u; echo x > b.txt; cat a.txt";
		const run = await cli.run(["tool", "bash", JSON.stringify({ command })], {
			cwd: dir,
			env: cleanEnv({ HOME: join(dir, "home") }),
			user,
		});
		expect(run.stdout).toMatch(user === "root" && process.getuid?.() === 0 ? /^0$/m : /^(?!0$)\d+$/m);
		expect(run.stdout).toContain("hi");
		await rm(join(dir, "b.txt"));
	});
});
