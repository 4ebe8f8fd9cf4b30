import { execFileSync } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll } from "vitest";
import { requiredInCi } from "../helpers/prerequisites.js";

/** The local test image: a busybox-static root file system, imported (there is no registry). */
export const testImage = "toolbelt-test-busybox:latest";

function docker(args: string[], input?: string): string {
	return execFileSync("docker", args, { encoding: "utf8", input, timeout: 60_000, stdio: ["pipe", "pipe", "pipe"] });
}

/**
 * Why docker tests cannot run here, or undefined when the daemon answers and busybox is there.
 * Under CI, which installs and starts both, a missing one is a failure (see `requiredInCi`).
 */
export function dockerUnavailable(): string | undefined {
	return requiredInCi("dockerd and busybox-static", dockerProblem());
}

function dockerProblem(): string | undefined {
	try {
		docker(["info", "--format", "{{.ServerVersion}}"]);
	} catch (error) {
		return `dockerd is not reachable (${(error as Error).message.split("\n")[0]})`;
	}
	try {
		execFileSync("/bin/busybox", ["true"]);
	} catch {
		return "busybox-static is not installed (apt-get install busybox-static)";
	}
	return undefined;
}

/** Imports the busybox image once (relative applet links, so they work inside the container). */
export function ensureTestImage(): void {
	if (docker(["images", "-q", testImage]).trim() !== "") return;
	const root = mkdtempSync(join(tmpdir(), "toolbelt-rootfs-"));
	try {
		for (const folder of ["bin", "tmp", "root", "etc", "work"]) mkdirSync(join(root, folder));
		chmodSync(join(root, "tmp"), 0o1777);
		execFileSync("cp", ["/bin/busybox", join(root, "bin", "busybox")]);
		for (const applet of execFileSync("/bin/busybox", ["--list"], { encoding: "utf8" }).split("\n")) {
			if (applet && applet !== "busybox") symlinkSync("busybox", join(root, "bin", applet));
		}
		writeFileSync(join(root, "etc", "passwd"), "root:x:0:0:root:/root:/bin/sh\n");
		const tar = execFileSync("tar", ["-C", root, "-c", ...readdirSync(root)], { maxBuffer: 64 * 2 ** 20 });
		execFileSync("docker", ["import", "-c", "ENV PATH=/bin", "-", testImage], { input: tar, timeout: 60_000 });
	} finally {
		rmSync(root, { recursive: true, force: true });
	}
}

/**
 * Starts a container of the test image with no network; returns its name. `--init` (docker's own
 * docker-init) is its PID 1 and reaps the orphans commands leave (`sleep` would leave zombies).
 * `mounts` maps a folder of this machine to a path in the container. Default: none.
 */
export function startContainer(name: string, mounts: Record<string, string> = {}): string {
	docker(["rm", "-f", name]);
	const volumes = Object.entries(mounts).flatMap(([here, there]) => ["--volume", `${here}:${there}`]);
	docker(["run", "-d", "--init", "--network", "none", ...volumes, "--name", name, testImage, "sleep", "3600"]);
	return name;
}

/** Removes a container (running or not). */
export function removeContainer(name: string): void {
	try {
		docker(["rm", "-f", name]);
	} catch {
		// Already gone.
	}
}

/** Runs a command in the container (with `input` on its stdin) and returns its stdout. */
export function inContainer(name: string, command: string, input?: string): string {
	return docker(["exec", "-i", name, "sh", "-c", command], input);
}

/** The busybox container of a test file or block (see `useTestContainer`). */
export interface TestContainer {
	/** The container's name. */
	readonly name: string;
	/** Why its tests skip (docker missing outside CI), or undefined once it runs. */
	skipReason: string | undefined;
	/** Workspaces opened on it, closed before it is removed. */
	readonly opened: { close(): Promise<void> }[];
}

/**
 * Starts a container of the test image before the tests of the file (or `describe` block) it is
 * called in — `setUp` then prepares it — and removes it after them, with the workspaces opened on
 * it. Where docker cannot run, `skipReason` says why (under CI that is a failure: `requiredInCi`).
 */
export function useTestContainer(prefix: string, what: string, setUp?: (name: string) => void): TestContainer {
	const container: TestContainer = { name: `${prefix}-${process.pid}`, skipReason: dockerUnavailable(), opened: [] };
	beforeAll(() => {
		if (container.skipReason) return console.warn(`skipping ${what}: ${container.skipReason}`);
		try {
			ensureTestImage();
			startContainer(container.name);
			setUp?.(container.name);
		} catch (error) {
			container.skipReason = requiredInCi(
				"a test container",
				`the test container could not start: ${(error as Error).message}`,
			);
		}
	}, 120_000);
	afterAll(async () => {
		await Promise.all(container.opened.map((workspace) => workspace.close()));
		removeContainer(container.name);
	});
	return container;
}
