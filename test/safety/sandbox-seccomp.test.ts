import { execFileSync, spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { chmod, mkdtemp, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { buildSeccompFilter, seccompArchitecture } from "../../src/safety/sandbox/seccomp/filter.js";
import {
	alwaysRefused,
	modeCalls,
	type SeccompArchitecture,
	type SystemCallName,
	systemCallNumber,
} from "../../src/safety/sandbox/seccomp/system-calls.js";
import { createSandbox, SandboxUnavailableError } from "../../src/safety/sandbox.js";
import { sandboxUnavailableReason } from "../helpers/prerequisites.js";
import { useTempDir } from "../helpers/temp-dir.js";

const tempDir = useTempDir();
const python = ["/usr/bin/python3", "/usr/local/bin/python3"].find((path) => existsSync(path));
const bwrap = ["/usr/bin/bwrap", "/usr/local/bin/bwrap"].find((path) => existsSync(path));

const unavailable = bwrap ? await sandboxUnavailableReason() : "bwrap is not installed";

describe("buildSeccompFilter", () => {
	it("is whole sock_filter instructions that start by checking the architecture", () => {
		for (const arch of ["x64", "arm64"] as const) {
			const program = buildSeccompFilter(arch);
			expect(program.length % 8).toBe(0);
			// ld [4]: seccomp_data.arch
			expect(program.readUInt16LE(0)).toBe(0x20);
			expect(program.readUInt32LE(4)).toBe(4);
			expect(program.readUInt32LE(12)).toBe(arch === "x64" ? 0xc000003e : 0xc00000b7);
			// With the network on, the socket checks go and the rest stays.
			const withNetwork = buildSeccompFilter(arch, { blockUnixSockets: false });
			expect(withNetwork.length).toBeLessThan(program.length);
			expect(withNetwork.readUInt32LE(12)).toBe(program.readUInt32LE(12));
		}
		expect(seccompArchitecture("x64")).toBe("x64");
		expect(seccompArchitecture("ia32")).toBeUndefined();
		expect(seccompArchitecture("riscv64")).toBeUndefined();
	});

	// The numbers are typed in by hand: each must be the call its name says on its architecture.
	const headers: Record<SeccompArchitecture, string> = {
		x64: "/usr/include/x86_64-linux-gnu/asm/unistd_64.h",
		arm64: "/usr/include/asm-generic/unistd.h",
	};
	for (const arch of ["x64", "arm64"] as const) {
		it.skipIf(!existsSync(headers[arch]))(`names the same calls as the kernel headers on ${arch}`, () => {
			const text = readFileSync(headers[arch], "utf8");
			const names: SystemCallName[] = [...alwaysRefused, "clone", "clone3", "openat2", "socket", "socketpair"];
			for (const name of names) {
				const match = new RegExp(`#define __NR(?:3264)?_${name}\\s+(\\d+)`).exec(text);
				expect(match?.[1], name).toBe(String(systemCallNumber(name, arch)));
			}
			for (const call of modeCalls) {
				const match = new RegExp(`#define __NR(?:3264)?_${call.name}\\s+(\\d+)`).exec(text);
				// fchmodat2 (Linux 6.6) is newer than some headers; a call the headers do define must match.
				if (match || call.name !== "fchmodat2") expect(match?.[1], call.name).toBe(call.numbers[arch]?.toString());
			}
		});
	}
});

describe("a sandbox that cannot install its filter refuses", () => {
	let originalArch: PropertyDescriptor | undefined;
	beforeEach(() => {
		originalArch = Object.getOwnPropertyDescriptor(process, "arch");
	});
	afterEach(() => {
		if (originalArch) Object.defineProperty(process, "arch", originalArch);
	});

	it.skipIf(unavailable !== undefined)(
		"on an architecture the filter is not written for, with the network off or on",
		async () => {
			Object.defineProperty(process, "arch", { value: "riscv64", configurable: true });
			for (const allowNetwork of [false, true]) {
				const error = await createSandbox({ writableRoots: [tempDir()], allowNetwork }).catch(
					(caught: unknown) => caught,
				);
				expect(error).toBeInstanceOf(SandboxUnavailableError);
				expect((error as Error).message).toMatch(/x86_64 and aarch64; this machine is riscv64/);
			}
		},
	);

	it.skipIf(unavailable !== undefined)("with a bwrap that has no --seccomp", async () => {
		const fake = join(tempDir(), "old-bwrap");
		await writeFile(
			fake,
			`#!/bin/sh\nfor a in "$@"; do [ "$a" = --seccomp ] && { echo "bwrap: Unknown option --seccomp" >&2; exit 1; }; done\nexec ${bwrap} "$@"\n`,
		);
		await chmod(fake, 0o755);
		const error = await createSandbox({ writableRoots: [tempDir()], bwrapPath: fake }).catch(
			(caught: unknown) => caught,
		);
		expect(error).toBeInstanceOf(SandboxUnavailableError);
		expect((error as Error).message).toMatch(/cannot install its seccomp filter.*Unknown option --seccomp/s);
	});
});

describe.skipIf(unavailable !== undefined || python === undefined)("the filter under real bwrap", () => {
	let outsideTmp = "";
	beforeEach(async () => {
		outsideTmp = await mkdtemp(join("/var/tmp", "toolbelt-seccomp-test-"));
	});
	afterEach(async () => {
		await rm(outsideTmp, { recursive: true, force: true });
	});

	async function runSandboxed(script: string, allowNetwork = false): Promise<string> {
		const sandbox = await createSandbox({ writableRoots: [tempDir()], allowNetwork });
		const launch = await sandbox.prepare(tempDir());
		try {
			return execFileSync(launch.file, [...launch.args, python ?? "python3", "-c", script], {
				encoding: "utf8",
				timeout: 20_000,
			});
		} finally {
			await launch.release();
		}
	}

	it("refuses AF_UNIX sockets and datagram pairs; stream and seqpacket pairs and inet sockets work", async () => {
		const output = await runSandboxed(`
import socket
def attempt(name, make):
    try:
        make(); print(name, "ok")
    except OSError as error:
        print(name, "errno", error.errno)
attempt("unix", lambda: socket.socket(socket.AF_UNIX, socket.SOCK_STREAM))
attempt("unix-dgram", lambda: socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM))
attempt("inet", lambda: socket.socket(socket.AF_INET, socket.SOCK_STREAM))
attempt("pair-stream", lambda: socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM | socket.SOCK_CLOEXEC))
attempt("pair-seqpacket", lambda: socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET))
attempt("pair-dgram", lambda: socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM))
attempt("pair-raw", lambda: socket.socketpair(socket.AF_UNIX, socket.SOCK_RAW))
`);
		expect(output.trim().split("\n")).toEqual([
			"unix errno 1",
			"unix-dgram errno 1",
			"inet ok",
			"pair-stream ok",
			"pair-seqpacket ok",
			"pair-dgram errno 1",
			"pair-raw errno 1",
		]);
	});

	it("an open's mode counts only when it creates: set-ID bits left in the register of a plain open do no harm", async () => {
		// Raw system calls (glibc would pass 0 as the mode of an open that creates nothing).
		const output = await runSandboxed(`
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
AT_FDCWD, O_RDONLY, O_WRONLY, O_CREAT = -100, 0, 1, 0o100
open("existing", "w").close()
def attempt(name, flags, mode, path):
    fd = libc.syscall(257, AT_FDCWD, path.encode(), flags, mode)
    print(name, "ok" if fd >= 0 else "errno %d" % ctypes.get_errno())
    if fd >= 0: os.close(fd)
attempt("plain-open-with-junk-mode", O_RDONLY, 0o6755, "existing")
attempt("creating-open-set-id", O_WRONLY | O_CREAT, 0o4755, "made")
attempt("creating-open-plain", O_WRONLY | O_CREAT, 0o755, "made-plain")
print("made" if os.path.exists("made") else "not made")
`);
		expect(output.trim().split("\n")).toEqual([
			"plain-open-with-junk-mode ok",
			"creating-open-set-id errno 1",
			"creating-open-plain ok",
			"not made",
		]);
	});

	it("a host datagram socket outside /tmp receives nothing from the sandbox", async () => {
		const path = join(outsideTmp, "log.sock");
		// The listener prints every datagram until the test's own "end", so no timing decides the result.
		const listener = spawn(
			python ?? "python3",
			[
				"-c",
				`import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM); s.bind(sys.argv[1]); s.settimeout(20)
print("ready", flush=True)
while True:
    data = s.recv(100)
    if data == b"end": break
    print(data.decode(), flush=True)`,
				path,
			],
			{ stdio: ["ignore", "pipe", "inherit"] },
		);
		let received = "";
		listener.stdout.on("data", (chunk: Buffer) => {
			received += chunk.toString();
		});
		const exited = new Promise<void>((resolve) => listener.on("close", () => resolve()));
		try {
			for (let waited = 0; !received.includes("ready") && waited < 200; waited++) {
				await new Promise((resolve) => setTimeout(resolve, 50));
			}
			expect(received).toContain("ready");
			const send = (text: string) => `
import socket
for make in (lambda: socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM), lambda: socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM)[0]):
    try:
        make().sendto(b"${text}", ${JSON.stringify(path)})
    except OSError:
        pass
`;
			// The control: with the network on there is no filter, and the datagrams arrive.
			await runSandboxed(send("with-network"), true);
			await runSandboxed(send("from-sandbox"));
			execFileSync(python ?? "python3", [
				"-c",
				`import socket; socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM).sendto(b"end", ${JSON.stringify(path)})`,
			]);
			await exited;
			expect(received).toContain("with-network");
			expect(received).not.toContain("from-sandbox");
		} finally {
			listener.kill();
		}
	});
});
