// Where toolbelt takes the programs it runs itself from (findTrustedProgram): the system folders,
// then PATH folders that no sandboxed command, tool or other user can write. Each case plants a
// program of a name no system folder holds and checks whether it would run.
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import {
	findTrustedProgram,
	noteWritableRoots,
	ProgramNotFoundError,
	requireTrustedProgram,
	SYSTEM_PROGRAM_FOLDERS,
} from "../../src/workspace/local/index.js";
import { createExecTransport, RemoteConnectionError } from "../../src/workspace/remote/index.js";

const repositoryRoot = resolve(import.meta.dirname, "../..");
let counter = 0;
/** A program name no system folder holds, new for each case (the look-up is kept per name). */
const freshName = () => `toolbelt-test-program-${process.pid}-${++counter}`;

function plant(folder: string, name: string, mode = 0o755): string {
	mkdirSync(folder, { recursive: true });
	const path = join(folder, name);
	writeFileSync(path, "#!/bin/sh\nexit 0\n", { mode });
	chmodSync(path, mode);
	return path;
}

/** Why folders below the repository cannot stand for a safe PATH folder here, if they cannot. */
function repositoryUnsafeReason(): string | undefined {
	for (let folder = repositoryRoot; ; folder = dirname(folder)) {
		const info = statSync(folder);
		const ours = info.uid === 0 || info.uid === process.geteuid?.();
		if (!ours || (info.mode & 0o022) !== 0) return `${folder} is writable by others or not ours`;
		if (folder === dirname(folder)) return undefined;
	}
}

const temps: string[] = [];
afterAll(() => {
	for (const folder of temps) rmSync(folder, { recursive: true, force: true });
});
/** A folder of its own: below the repository (outside every temp folder) or in the temp folder. */
function folderIn(parent: string): string {
	const folder = mkdtempSync(join(parent, ".trusted-programs-test-"));
	temps.push(folder);
	return folder;
}

describe.skipIf(process.platform === "win32")("the programs toolbelt runs itself", () => {
	it("come from the system folders first, whatever PATH puts before them", () => {
		const shell = SYSTEM_PROGRAM_FOLDERS.map((folder) => join(folder, "sh")).find((path) => existsSync(path));
		const early = folderIn(tmpdir());
		plant(early, "sh");
		expect(findTrustedProgram("sh", `${early}:/usr/bin:/bin`)).toBe(shell);
	});

	it("never come from a temp folder, a relative entry or the empty entry (the current folder)", () => {
		const name = freshName();
		const inTemp = folderIn(tmpdir());
		plant(inTemp, name);
		const besideUs = folderIn(process.cwd());
		plant(besideUs, name);
		expect(findTrustedProgram(name, `${relative(process.cwd(), besideUs)}:${inTemp}`)).toBeUndefined();
		// The empty entry: the current folder.
		const here = plant(process.cwd(), name);
		try {
			expect(findTrustedProgram(freshName(), "")).toBeUndefined();
			expect(findTrustedProgram(name, `:${inTemp}`)).toBeUndefined();
		} finally {
			rmSync(here, { force: true });
		}
	});

	it("an unsafe PATH alone gives a clear error, never the planted program", () => {
		const name = freshName();
		const inTemp = folderIn(tmpdir());
		plant(inTemp, name);
		expect(() => requireTrustedProgram(name, "test the error", `${inTemp}:bin:`)).toThrow(ProgramNotFoundError);
		expect(() => requireTrustedProgram(name, "test the error", `${inTemp}:bin:`)).toThrow(
			/needed to test the error, but none was found in \/usr\/local\/sbin.*relative or empty PATH entries, temp folders, the workspace/,
		);
	});

	it("a remote workspace's client comes from the same look-up: planted on PATH alone, it is a connection error that says where toolbelt looked", async () => {
		const name = freshName();
		const marker = join(folderIn(tmpdir()), "ran");
		const inTemp = folderIn(tmpdir());
		writeFileSync(join(inTemp, name), `#!/bin/sh\ntouch '${marker}'\n`, { mode: 0o755 });
		const savedPath = process.env.PATH;
		process.env.PATH = `${inTemp}:bin:`;
		try {
			const transport = createExecTransport({ label: "docker://web", program: name, prefix: ["exec", "-i", "web"] });
			const started = transport.spawn("true", []);
			await expect(started).rejects.toThrow(RemoteConnectionError);
			await expect(started).rejects.toThrow(
				/needed to reach a remote workspace, but none was found in \/usr\/local\/sbin/,
			);
		} finally {
			process.env.PATH = savedPath;
		}
		expect(existsSync(marker)).toBe(false);
		// A path given is taken as given, wherever it is.
		const given = createExecTransport({ label: "docker://web", program: join(inTemp, name), prefix: [] });
		const child = await given.spawn("true", []);
		await new Promise((resolve) => child.once("exit", resolve));
		expect(existsSync(marker)).toBe(true);
	});

	it("names where the user can give the path instead", () => {
		const name = freshName();
		expect(() => requireTrustedProgram(name, "test the error", "", "the --x-path flag")).toThrow(
			/Install it in a system folder, or give its path with the --x-path flag\./,
		);
	});

	const unsafeRepository = repositoryUnsafeReason();
	describe.skipIf(unsafeRepository !== undefined)("from a PATH folder outside the temp folders", () => {
		it("are taken from a folder only root or this user can change, until it is noted as writable", () => {
			const name = freshName();
			const folder = folderIn(repositoryRoot);
			const program = plant(folder, name);
			expect(findTrustedProgram(name, `bin::${folder}`)).toBe(program);
			// A workspace or sandbox root is noted: what was found below it is looked up again, and refused.
			noteWritableRoots([folder]);
			expect(findTrustedProgram(name, `bin::${folder}`)).toBeUndefined();
		});

		it("are not taken from a folder, or below a parent, that group or others may write, nor when the program is", () => {
			const name = freshName();
			const open = folderIn(repositoryRoot);
			chmodSync(open, 0o775);
			plant(open, name);
			const parent = folderIn(repositoryRoot);
			chmodSync(parent, 0o777);
			const below = join(parent, "bin");
			plant(below, name);
			const folder = folderIn(repositoryRoot);
			plant(folder, name, 0o777);
			expect(findTrustedProgram(name, [open, below, folder].join(":"))).toBeUndefined();
		});

		it("are not taken through a link that leads into a temp folder", () => {
			const name = freshName();
			const target = plant(folderIn(tmpdir()), name);
			const folder = folderIn(repositoryRoot);
			symlinkSync(target, join(folder, name));
			expect(findTrustedProgram(name, folder)).toBeUndefined();
			const real = folderIn(repositoryRoot);
			const other = freshName();
			plant(real, other);
			symlinkSync(join(real, other), join(folder, other));
			expect(findTrustedProgram(other, folder)).toBe(join(folder, other));
		});
	});
});
