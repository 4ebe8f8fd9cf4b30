// Red-team test: a workspace URL whose host, container, pod or namespace is spelled as an option.
// `kubectl://--kubeconfig=evil.yaml/…` handed that "pod" to kubectl, which read it as a flag and
// loaded a config whose exec plugin runs a program here. Stand-in clients, given by path (--ssh-path,
// …), record every argument list they are started with; the effect checked is whether one started
// with an injected option.
import { existsSync } from "node:fs";
import { chmod, mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { CliProcesses, cleanEnv, ensureBuiltCli } from "../cli/helpers/cli-binary.js";
import { useTempDir } from "../helpers/temp-dir.js";
import { handOver, testUsers } from "../helpers/test-users.js";

const tempDir = useTempDir();
const cli = new CliProcesses();
afterEach(() => cli.killAll());

/**
 * Stand-ins for ssh, docker, podman and kubectl that append their arguments to `log` and fail: the
 * flags that make toolbelt run them.
 */
async function recordingClients(dir: string, log: string): Promise<string[]> {
	const bin = join(dir, "bin");
	await mkdir(bin);
	const flags: string[] = [];
	for (const name of ["ssh", "docker", "podman", "kubectl"]) {
		const script = `#!/bin/sh\nprintf '%s %s\\n' "${name}" "$*" >> '${log}'\nexit 1\n`;
		await writeFile(join(bin, name), script);
		await chmod(join(bin, name), 0o755);
		flags.push(`--${name}-path`, join(bin, name));
	}
	return flags;
}

const injected = [
	"kubectl://--kubeconfig=evil.yaml/srv",
	"kubectl://-n/--kubeconfig=evil.yaml//srv",
	"kubectl://ns/pod/--privileged//srv",
	"docker://--privileged/srv",
	"podman://-e/srv",
	"ssh://-oProxyCommand=touch%20owned/srv",
	"ssh://-oProxyCommand=x@host/srv",
	"ssh://dev%0Aforged@host/srv",
];

describe.each(testUsers())("remote workspace names spelled as options, as %s", (user) => {
	it.each(injected)("%s: refused before any client starts", async (url) => {
		ensureBuiltCli();
		const dir = tempDir();
		const log = join(dir, "started.log");
		const clients = await recordingClients(dir, log);
		await handOver(dir, user);
		const run = await cli.run(["tool", "ls", "{}", "--workspace", url, ...clients], {
			cwd: dir,
			env: cleanEnv({ HOME: join(dir, "home") }),
			user,
		});
		expect(existsSync(log) ? await readFile(log, "utf8") : "").toBe("");
		expect(run.code).toBe(2);
	});

	it("a plain name still reaches its client (the stand-in is what would run)", async () => {
		ensureBuiltCli();
		const dir = tempDir();
		const log = join(dir, "started.log");
		const clients = await recordingClients(dir, log);
		await handOver(dir, user);
		await cli.run(["tool", "ls", "{}", "--workspace", "docker://web/srv", ...clients], {
			cwd: dir,
			env: cleanEnv({ HOME: join(dir, "home") }),
			user,
		});
		expect(await readFile(log, "utf8")).toMatch(/^docker exec -i web /m);
	});
});
