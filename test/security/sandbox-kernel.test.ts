// Red-team tests of what the sandbox's filter refuses beyond mounts and namespaces (issue 25):
// tracing another process — the toolbelt process that started the command, or a host process of
// the same user holding a secret — and loading code into the kernel. Driven through the built CLI
// as a user starts it (one `toolbelt mcp --sandbox` per user), as root and as an unprivileged user.
// Effects only: the secret is not read, the processes are not traced, the calls get EPERM (the
// filter's answer, which no kernel gives for a missing process or a malformed module).
import { type ChildProcessWithoutNullStreams, execFileSync, spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { systemCallNumber } from "../../src/safety/sandbox/seccomp/system-calls.js";
import { cleanEnv, ensureBuiltCli } from "../cli/helpers/cli-binary.js";
import { startUserMcpServer, type UserMcpServer } from "../cli/helpers/user-mcp-server.js";
import { sandboxUnavailableReason } from "../helpers/prerequisites.js";
import { handOver, type TestUser, testUsers, userPrefix } from "../helpers/test-users.js";
import { kernelProbeScript, victimScript } from "./fixtures/kernel-probe.js";

vi.setConfig({ testTimeout: 120_000, hookTimeout: 180_000 });

const unavailable = await sandboxUnavailableReason();
// The system's Python: one every user can run (a per-user install under /root is not).
const python = ["/usr/bin/python3", "/usr/local/bin/python3"].find((path) => existsSync(path));
const arch = process.arch === "arm64" ? "arm64" : "x64";
const secret = "PTRACE-SECRET-42";
const permissionDenied = 1;

/** What the probe printed: errno (0: it worked) and any data it got, by attempt. */
type ProbeReport = Record<string, { errno: number; data: string }>;

function parseReport(output: string): ProbeReport {
	const report: ProbeReport = {};
	for (const match of output.matchAll(/^(ptrace-[\w-]+|vm-read-host|finit_module|init_module) (\d+) ?(.*)$/gm)) {
		report[match[1] ?? ""] = { errno: Number(match[2]), data: match[3] ?? "" };
	}
	return report;
}

/** The traced-by and state fields of a process, read on the host. */
function tracerAndState(pid: number): { tracer: string; state: string } {
	const status = readFileSync(`/proc/${pid}/status`, "utf8");
	return {
		tracer: /^TracerPid:\s+(\d+)/m.exec(status)?.[1] ?? "?",
		state: /^State:\s+(\S)/m.exec(status)?.[1] ?? "?",
	};
}

describe.skipIf(unavailable !== undefined || python === undefined)(
	"ptrace and module loading from the sandbox (built CLI)",
	() => {
		describe.each(testUsers())("as %s", (user: TestUser) => {
			let root = "";
			let server: UserMcpServer | undefined;
			let victim: ChildProcessWithoutNullStreams | undefined;
			let sandboxed: ProbeReport = {};
			let control: ProbeReport = {};
			let sandboxedOutput = "";
			let target: Record<string, number> = {};

			beforeAll(async () => {
				ensureBuiltCli();
				root = await mkdtemp(join(tmpdir(), "toolbelt-sandbox-kernel-"));
				const project = join(root, "project");
				const home = join(root, "home");
				for (const folder of [project, home]) await mkdir(folder, { recursive: true });
				await writeFile(join(project, "probe.py"), kernelProbeScript);
				await writeFile(join(root, "victim.py"), victimScript);
				await handOver(root, user);

				// A process of the same user, outside the sandbox, with a secret in its memory.
				const [file, ...prefix] = [...userPrefix(user), python ?? "python3"];
				victim = spawn(file ?? "python3", [...prefix, join(root, "victim.py")], { stdio: "pipe" });
				const firstLine = await new Promise<string>((resolve, reject) => {
					let text = "";
					victim?.stdout.on("data", (chunk: Buffer) => {
						text += chunk.toString();
						if (text.includes("\n")) resolve(text.slice(0, text.indexOf("\n")));
					});
					victim?.once("exit", (code) => reject(new Error(`the host process ended (${code}) before it was ready`)));
				});
				const [address, length] = firstLine.split(" ").map(Number);
				target = {
					victim: victim.pid ?? 0,
					address: address ?? 0,
					length: length ?? 0,
					finit_module: systemCallNumber("finit_module", arch),
					init_module: systemCallNumber("init_module", arch),
				};

				const env = cleanEnv({ HOME: home });
				server = await startUserMcpServer({ user, cwd: project, env, flags: ["--sandbox"] });
				const argument = JSON.stringify({ ...target, toolbelt: server.pid });
				const result = await server.call("bash", { command: `${python} probe.py '${argument}'` });
				sandboxedOutput = result.text;
				sandboxed = parseReport(result.text);

				// The control: the same probe on the host as the same user, outside the sandbox.
				const [hostFile, ...hostPrefix] = [...userPrefix(user), python ?? "python3"];
				control = parseReport(
					execFileSync(hostFile ?? "python3", [...hostPrefix, join(project, "probe.py"), JSON.stringify(target)], {
						cwd: project,
						env,
						encoding: "utf8",
					}),
				);
			});

			afterAll(async () => {
				await server?.close();
				victim?.stdin.end();
				victim?.kill();
				await rm(root, { recursive: true, force: true });
			});

			it("the control: outside the sandbox, the same user's probe traces the host process and reads its secret", () => {
				expect(control["ptrace-host"]).toEqual({ errno: 0, data: secret });
				expect(control["vm-read-host"]).toEqual({ errno: 0, data: secret });
				expect(control["ptrace-own-child"]?.errno).toBe(0);
			});

			it("cannot attach to the toolbelt process or to a host process, nor read the host process's memory", () => {
				expect(Object.keys(sandboxed), sandboxedOutput).toContain("ptrace-toolbelt");
				for (const name of ["ptrace-toolbelt", "ptrace-host", "vm-read-host"]) {
					expect(sandboxed[name]?.errno, `${name}\n${sandboxedOutput}`).toBe(permissionDenied);
				}
				expect(sandboxedOutput).not.toContain(secret);
			});

			it("cannot trace even its own child, nor ask its parent to trace it", () => {
				expect(sandboxed["ptrace-own-child"]?.errno, sandboxedOutput).toBe(permissionDenied);
				expect(sandboxed["ptrace-traceme"]?.errno, sandboxedOutput).toBe(permissionDenied);
			});

			it("cannot load a kernel module (finit_module, init_module)", () => {
				expect(sandboxed.finit_module?.errno, sandboxedOutput).toBe(permissionDenied);
				expect(sandboxed.init_module?.errno, sandboxedOutput).toBe(permissionDenied);
			});

			it("the toolbelt process and the host process run on untraced, and toolbelt still answers", async () => {
				for (const pid of [server?.pid ?? 0, target.victim ?? 0]) {
					const { tracer, state } = tracerAndState(pid);
					expect(tracer, `process ${pid}`).toBe("0");
					expect(state, `process ${pid}`).not.toMatch(/[tTZX]/);
				}
				const next = await server?.call("bash", { command: "echo still-$((6*7))" });
				expect(next?.text).toContain("still-42");
			});
		});
	},
);
