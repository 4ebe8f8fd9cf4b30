import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { copyFile, mkdir, readdir, rm, stat } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { BenchCase, BenchContext, BenchOutcome } from "../types.js";

// Issue 27's huge inputs through the built CLI, as a model's call runs (with undo's checkpoint hook):
// a write over a 2.5 GB file, grep and a refused edit of a 1 GB file that is one line. They write
// 3.5 GB of data and copy 2.5 GB before each run, so they run only when asked:
// `TOOLBELT_BENCH_HEAVY=1 npm run bench -- huge-files`. Check `df` first; `rm -rf` the group's data
// folder (printed by the case's note) afterwards.

const { rgPath } = (await import("@vscode/ripgrep")) as { rgPath: string };
const rg = `'${rgPath.replace(/'/g, "'\\''")}'`;
/** Makes the CLI print its own (Node's) peak RSS as it exits; /usr/bin/time's figure includes ripgrep. */
const peakPreload = fileURLToPath(new URL("../../test/helpers/report-peak-memory.cjs", import.meta.url));
const PEAK_MARKER = /\ntoolbelt-test-peak-rss-kb (\d+)\n/;
const bin = process.env.TOOLBELT_BENCH_BIN ?? fileURLToPath(new URL("../../dist/cli/bin.cjs", import.meta.url));
const gnuTime = existsSync("/usr/bin/time");
const MiB = 2 ** 20;
const BIG_BYTES = 2500 * 1_000_000;
const LINE_HALF_BYTES = 512 * MiB;

const paths = (context: BenchContext) => ({
	master: join(context.dataDir, "master-2.5GB.txt"),
	big: join(context.dataDir, "project", "big.txt"),
	line: join(context.dataDir, "project", "one-line-1GB.txt"),
	project: join(context.dataDir, "project"),
	home: join(context.dataDir, "home"),
});

/** Runs `bash -c script` and throws with its stderr when it fails. */
function sh(script: string): void {
	const result = spawnSync("bash", ["-c", script], { stdio: ["ignore", "ignore", "pipe"] });
	if (result.status !== 0) throw new Error(`${script}: ${result.stderr.toString()}`);
}

async function setup(context: BenchContext): Promise<void> {
	const { master, line, project, home } = paths(context);
	await mkdir(project, { recursive: true });
	await mkdir(home, { recursive: true });
	// Real text, not a sparse file: every byte is read from the page cache or the disk.
	if ((await stat(master).catch(() => undefined))?.size !== BIG_BYTES) {
		sh(`yes 'a line of text in a file of 2.5 GB, written by the bench' | head -c ${BIG_BYTES} > '${master}'`);
	}
	if ((await stat(line).catch(() => undefined))?.size !== 2 * LINE_HALF_BYTES + "needle\n".length) {
		const half = `yes abcdefghij | tr -d '\\n' | head -c ${LINE_HALF_BYTES}`;
		sh(`{ ${half}; printf needle; ${half}; echo; } > '${line}'`);
	}
}

/** Runs the built CLI under /usr/bin/time; its peak RSS (the largest of Node and its children) goes in the note. */
interface CliRun {
	status: number | null;
	stdout: string;
	stderr: string;
	ms: number;
	/** Peak RSS of the largest process of the run (Node or a child such as ripgrep), from /usr/bin/time. */
	peakMB?: number;
	/** Peak RSS of the CLI's Node process alone. */
	nodePeakMB?: number;
}

function runCli(context: BenchContext, args: string[]): CliRun {
	const { project, home } = paths(context);
	const argv = gnuTime
		? ["/usr/bin/time", "-f", "%M", process.execPath, bin, ...args]
		: [process.execPath, bin, ...args];
	const started = performance.now();
	const result = spawnSync(argv[0] ?? process.execPath, argv.slice(1), {
		encoding: "utf8",
		cwd: project,
		env: {
			...process.env,
			HOME: home,
			XDG_STATE_HOME: join(home, "state"),
			NODE_OPTIONS: `--require ${peakPreload}`,
		},
		maxBuffer: 64 * MiB,
	});
	const ms = performance.now() - started;
	// Not trim(): the peak report starts with a newline, which its marker matches.
	const lines = result.stderr.trimEnd().split("\n");
	const last = lines.at(-1) ?? "";
	const peakMB = gnuTime && /^\d+$/.test(last) ? Number(last) / 1024 : undefined;
	const withoutTime = peakMB === undefined ? result.stderr : `${lines.slice(0, -1).join("\n")}\n`;
	const nodePeak = PEAK_MARKER.exec(withoutTime);
	const nodePeakMB = nodePeak ? Number(nodePeak[1]) / 1024 : undefined;
	const stderr = withoutTime.replace(PEAK_MARKER, "");
	return { status: result.status, stdout: result.stdout, stderr, ms, peakMB, nodePeakMB };
}

const mb = (value: number | undefined) => (value === undefined ? "?" : value.toFixed(0));
const peakNote = (run: CliRun) => `CLI Node peak RSS ${mb(run.nodePeakMB)} MB, largest process ${mb(run.peakMB)} MB`;
/** Node's memory must not grow with the file: the CLI's own peak stays under this. */
const NODE_PEAK_LIMIT_MB = 300;
const flat = (run: CliRun) => run.nodePeakMB !== undefined && run.nodePeakMB < NODE_PEAK_LIMIT_MB;

/** The largest file under the CLI's state folder (checkpoints' before-images live there). */
async function largestStateFile(context: BenchContext): Promise<number> {
	const entries = await readdir(join(paths(context).home, "state"), { recursive: true, withFileTypes: true }).catch(
		() => [],
	);
	let largest = 0;
	for (const entry of entries) {
		if (!entry.isFile()) continue;
		largest = Math.max(largest, (await stat(join(entry.parentPath, entry.name))).size);
	}
	return largest;
}

const heavy: BenchCase[] = [
	{
		group: "huge-files",
		name: "write 5 bytes over a 2.5 GB file (CLI, checkpoint hashes the old content)",
		goal: "works; Node peak < 300 MB",
		repeat: 1,
		setup,
		async beforeEach(context) {
			await copyFile(paths(context).master, paths(context).big);
			await rm(join(paths(context).home, "state"), { recursive: true, force: true });
		},
		async toolbelt(context): Promise<BenchOutcome> {
			const run = runCli(context, ["tool", "write", '{"path": "big.txt", "content": "hello"}']);
			const size = (await stat(paths(context).big)).size;
			const largest = await largestStateFile(context);
			return {
				ok: run.status === 0 && size === 5 && largest < MiB && flat(run),
				ms: run.ms,
				note: `${peakNote(run)}; largest checkpoint file ${(largest / 1024).toFixed(0)} KB${run.status === 0 ? "" : `; ${run.stderr.slice(0, 200)}`}`,
			};
		},
		// The same work by hand: hash the old content (what undo's record keeps), then replace atomically.
		// OpenSSL's sha256, as Node's is (coreutils' sha256sum is ~2.5× slower on this machine).
		baseline:
			"openssl dgst -sha256 project/big.txt > /dev/null && printf hello > project/big.txt.tmp && mv project/big.txt.tmp project/big.txt",
	},
	{
		group: "huge-files",
		name: "grep needle in a 1 GB file of one line (CLI, ripgrep)",
		goal: "answers with a window of the line; Node peak < 300 MB",
		repeat: 1,
		setup,
		async toolbelt(context): Promise<BenchOutcome> {
			const run = runCli(context, ["tool", "grep", '{"pattern": "needle", "path": "one-line-1GB.txt"}']);
			return {
				ok: run.status === 0 && run.stdout.includes("needle") && run.stdout.length < 100_000 && flat(run),
				ms: run.ms,
				note: `${peakNote(run)} ; answer ${run.stdout.length} characters`,
			};
		},
		baseline: `${rg} -n --max-columns 500 --max-columns-preview needle project/one-line-1GB.txt > /dev/null`,
	},
	{
		group: "huge-files",
		name: "edit of a 1 GB file of one line, refused (CLI)",
		goal: "refused early, no before-image kept; Node peak < 300 MB",
		repeat: 1,
		setup,
		async beforeEach(context) {
			await rm(join(paths(context).home, "state"), { recursive: true, force: true });
		},
		async toolbelt(context): Promise<BenchOutcome> {
			const run = runCli(context, [
				"tool",
				"edit",
				'{"path": "one-line-1GB.txt", "old_string": "needle", "new_string": "pin"}',
			]);
			const largest = await largestStateFile(context);
			return {
				ok: run.status === 1 && /more than edit loads/.test(run.stderr) && largest < MiB && flat(run),
				ms: run.ms,
				note: `${peakNote(run)}; largest checkpoint file ${(largest / 1024).toFixed(0)} KB`,
			};
		},
		// What the edit would be by hand (without writing the result): sed holds the whole line.
		baseline: "sed 's/needle/pin/' project/one-line-1GB.txt > /dev/null",
	},
];

/** The heavy cases, only with `TOOLBELT_BENCH_HEAVY=1` (they need ~6 GB of disk and minutes). */
export const cases: BenchCase[] = process.env.TOOLBELT_BENCH_HEAVY === "1" ? heavy : [];
