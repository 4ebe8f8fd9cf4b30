// The sandbox's user namespace, dropped capabilities and always-on seccomp filter, under real bwrap:
// what a command can no longer do (as root too), and that a bwrap which cannot give that refuses.
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { chmod, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { alwaysRefused, systemCallNumber } from "../../src/safety/sandbox/seccomp/system-calls.js";
import { buildBwrapArgs, createSandbox, SandboxUnavailableError } from "../../src/safety/sandbox.js";
import { sandboxUnavailableReason } from "../helpers/prerequisites.js";
import { useTempDir } from "../helpers/temp-dir.js";

const tempDir = useTempDir();
const python = ["/usr/bin/python3", "/usr/local/bin/python3"].find((path) => existsSync(path));
const bwrap = ["/usr/bin/bwrap", "/usr/local/bin/bwrap"].find((path) => existsSync(path));
const unavailable = bwrap ? await sandboxUnavailableReason() : "bwrap is not installed";
const arch = process.arch === "arm64" ? "arm64" : "x64";

// Calls each named system call with harmless arguments and prints `name errno` (0: it succeeded).
// A clone that makes a child ends the child at once (the child sees 0, like fork's).
const callScript = `
import ctypes, json, os, sys
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
for name, number, args in json.loads(sys.argv[1]):
    ctypes.set_errno(0)
    result = libc.syscall(ctypes.c_long(number), *[ctypes.c_long(arg) for arg in args])
    if result == 0 and name.startswith("clone"):
        os._exit(0)
    print(name, 0 if result >= 0 else ctypes.get_errno(), flush=True)
`;

/** Arguments that do nothing harmful where a call is allowed, yet show whether it was. */
const harmlessArguments: Record<string, number[]> = {
	// KEYCTL_GET_KEYRING_ID of the session keyring, without creating one: succeeds where allowed.
	keyctl: [0, -3, 0],
	// An unknown request for no process: ESRCH where allowed.
	ptrace: [-1, 0, 0, 0],
	// Reads nothing from this very process: succeeds where allowed.
	process_vm_readv: [-2, 0, 0, 0, 0, 0],
	unshare: [0x10000000],
};

async function runInSandbox(command: string[], allowNetwork: boolean): Promise<string> {
	const sandbox = await createSandbox({ writableRoots: [tempDir()], allowNetwork });
	const launch = await sandbox.prepare(tempDir());
	try {
		return execFileSync(launch.file, [...launch.args, ...command], { encoding: "utf8", timeout: 20_000 });
	} finally {
		await launch.release();
	}
}

function callsArgument(): string {
	const calls = alwaysRefused.map((name) => [name, systemCallNumber(name, arch), harmlessArguments[name] ?? []]);
	// clone with CLONE_NEWUSER | SIGCHLD; clone3 with no arguments (EINVAL where the call exists).
	calls.push(["clone", systemCallNumber("clone", arch), [0x10000000 | 17, 0, 0, 0, 0]]);
	calls.push(["clone3", systemCallNumber("clone3", arch), [0, 0]]);
	return JSON.stringify(calls);
}

function errnoByName(output: string): Record<string, number> {
	return Object.fromEntries(
		output
			.trim()
			.split("\n")
			.map((line) => line.split(" "))
			.map(([name, errno]) => [name, Number(errno)]),
	);
}

describe.skipIf(unavailable !== undefined || python === undefined)(
	"a sandboxed command, as whoever runs toolbelt",
	() => {
		it("holds no capability: permitted, effective, bounding and ambient sets are empty", async () => {
			const status = await runInSandbox(["/bin/cat", "/proc/self/status"], false);
			for (const set of ["CapPrm", "CapEff", "CapBnd", "CapAmb"]) {
				expect(status).toMatch(new RegExp(`^${set}:\\s+0000000000000000$`, "m"));
			}
			// Its files belong to whoever runs toolbelt (root stays uid 0, only without capabilities).
			await runInSandbox(["/bin/sh", "-c", "echo made > made-inside"], false);
			expect(execFileSync("stat", ["-c", "%u:%g", join(tempDir(), "made-inside")], { encoding: "utf8" }).trim()).toBe(
				`${process.getuid?.()}:${process.getgid?.()}`,
			);
		});

		for (const allowNetwork of [false, true]) {
			it(`cannot make namespaces, mount, use keyrings, trace or load into the kernel (network ${allowNetwork ? "on" : "off"})`, async () => {
				const output = await runInSandbox([python ?? "python3", "-c", callScript, callsArgument()], allowNetwork);
				const errnos = errnoByName(output);
				for (const name of alwaysRefused) expect(errnos[name], name).toBe(1);
				expect(errnos.clone).toBe(1);
				// clone3's flags are out of the filter's sight: ENOSYS, so the C library falls back to clone.
				expect(errnos.clone3).toBe(38);
			});
		}

		it("still starts processes: fork, posix_spawn (clone3, then clone) and a Node child", async () => {
			const output = await runInSandbox(
				[
					"/bin/sh",
					"-c",
					`${python} -c 'import os; pid = os.fork()
if pid == 0: os._exit(7)
print("fork", os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]))
pid = os.posix_spawn("/bin/true", ["true"], os.environ)
print("spawn", os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]))'; '${process.execPath}' -e 'console.log(require("child_process").execFileSync("echo", ["node", "child"]).toString().trim())'`,
				],
				false,
			);
			expect(output.trim().split("\n")).toEqual(["fork 7", "spawn 0", "node child"]);
		});

		it("the same calls without the filter would pass (the control: the filter, not luck, refuses them)", async () => {
			// bwrap with the sandbox's own arguments but no --seccomp: keyrings and process_vm_readv work there.
			const args = buildBwrapArgs({
				writable: [tempDir()],
				identity: { uid: process.getuid?.() ?? 0, gid: process.getgid?.() ?? 0 },
				cwd: tempDir(),
			});
			const output = execFileSync(bwrap ?? "bwrap", [...args, python ?? "python3", "-c", callScript, callsArgument()], {
				encoding: "utf8",
				timeout: 20_000,
			});
			const errnos = errnoByName(output);
			expect(errnos.keyctl).not.toBe(1);
			expect(errnos.ptrace).not.toBe(1);
			expect(errnos.process_vm_readv).not.toBe(1);
			expect(errnos.clone3).not.toBe(38);
		});
	},
);

describe.skipIf(unavailable !== undefined || python === undefined)("a bwrap that cannot give every protection", () => {
	async function fakeBwrap(name: string, filter: string): Promise<string> {
		const path = join(tempDir(), name);
		await writeFile(path, `#!/bin/sh\n${filter}\nexec ${bwrap} "$@"\n`);
		await chmod(path, 0o755);
		return path;
	}

	it("one older than 0.8 (no --disable-userns): the filter still refuses nested user namespaces", async () => {
		const old = await fakeBwrap(
			"bwrap-0.6",
			'for a in "$@"; do [ "$a" = --disable-userns ] && { echo "bwrap: Unknown option --disable-userns" >&2; exit 1; }; done',
		);
		const sandbox = await createSandbox({ writableRoots: [tempDir()], bwrapPath: old });
		const launch = await sandbox.prepare(tempDir());
		try {
			expect(launch.args).not.toContain("--disable-userns");
			const output = execFileSync(launch.file, [...launch.args, "/bin/sh", "-c", "unshare -U true || echo refused"], {
				encoding: "utf8",
				timeout: 20_000,
			});
			expect(output).toContain("refused");
		} finally {
			await launch.release();
		}
	});

	it.skipIf(process.getuid?.() !== 0)(
		"one that leaves root its capabilities: refused, never run with them",
		async () => {
			// Drops the user namespace and the capability drop, as a bwrap ignoring them would.
			const leaky = await fakeBwrap(
				"bwrap-leaky",
				`skip=; for a in "$@"; do shift; if [ -n "$skip" ]; then skip=; continue; fi
case "$a" in --unshare-user|--disable-userns) continue;; --uid|--gid|--cap-drop) skip=1; continue;; esac
set -- "$@" "$a"; done`,
			);
			const error = await createSandbox({ writableRoots: [tempDir()], bwrapPath: leaky }).catch(
				(caught: unknown) => caught,
			);
			expect(error).toBeInstanceOf(SandboxUnavailableError);
			expect((error as Error).message).toMatch(/left capabilities/);
		},
	);
});
