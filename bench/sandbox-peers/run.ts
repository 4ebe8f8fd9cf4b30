// `npm run bench:sandbox-peers`: the same sandbox attacks under toolbelt, Anthropic's sandbox runtime
// and Codex's sandbox, as root and as nobody; prints a table of held / fell per attack.
// The peers are installed here on first use from this folder's own lock file (they are large and
// nothing else needs them). Needs: bubblewrap, socat (srt), keyutils, git; run as root for both users.
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { ATTACKS, type Attack } from "./attacks.js";
import { asUser, type Fixture, makeFixture, type PeerUser, removeFixture } from "./fixture.js";
import { attackEnvironment, type PeerSandbox, SANDBOXES } from "./sandboxes.js";

const here = dirname(fileURLToPath(import.meta.url));

function ensurePeersInstalled(): void {
	if (existsSync(join(here, "node_modules/.bin/codex"))) return;
	console.error("installing the peer sandboxes (first run only) …");
	const result = spawnSync("npm", ["ci", "--no-audit", "--no-fund"], { cwd: here, stdio: "inherit", timeout: 600_000 });
	if (result.status !== 0) throw new Error("npm ci of the peer sandboxes failed");
}

function runInSandbox(
	sandbox: PeerSandbox,
	fixture: Fixture,
	command: string,
	through: string[] = [],
): { output: string; status: number | null } {
	const [program, ...rest] = [...asUser(fixture.user), ...through, ...sandbox.argv(fixture, command)];
	const result = spawnSync(program ?? "false", rest, {
		cwd: fixture.workspace,
		env: attackEnvironment(fixture),
		encoding: "utf8",
		timeout: 60_000,
	});
	return {
		output: `${result.stdout ?? ""}${result.stderr ?? ""}${result.error?.message ?? ""}`,
		status: result.status,
	};
}

/** A benign command must work, or the sandbox's column says it did not run here. */
function controlWorks(sandbox: PeerSandbox, user: PeerUser): string | undefined {
	const fixture = makeFixture(user);
	try {
		const { output } = runInSandbox(sandbox, fixture, "echo control-ok > control.txt && cat control.txt");
		const written = existsSync(join(fixture.workspace, "control.txt"));
		if (output.includes("control-ok") && written) return undefined;
		return output.trim().split("\n").slice(-2).join(" ").slice(0, 160) || "no output";
	} finally {
		removeFixture(fixture);
	}
}

function tryAttack(sandbox: PeerSandbox, user: PeerUser, attack: Attack): "held" | "FELL" {
	const fixture = makeFixture(user);
	try {
		attack.before?.(fixture);
		const { output } = runInSandbox(sandbox, fixture, attack.command(fixture), attack.through);
		if (process.env.PEERS_VERBOSE)
			console.error(`[${sandbox.name}/${user}] ${attack.name}: ${output.trim().slice(0, 300)}`);
		attack.afterwards?.(fixture);
		return attack.fell(fixture, output) ? "FELL" : "held";
	} finally {
		removeFixture(fixture);
	}
}

function main(): void {
	if (!existsSync(join(here, "../../dist/cli/bin.cjs"))) throw new Error("build toolbelt first: npm run build");
	ensurePeersInstalled();
	const users: PeerUser[] = process.getuid?.() === 0 ? ["root", "nobody"] : ["nobody"];
	const only = process.env.PEERS_ONLY?.split(",");
	const chosen = SANDBOXES.filter((sandbox) => !only || only.includes(sandbox.name));
	const columns = chosen.flatMap((sandbox) => users.map((user) => ({ sandbox, user })));
	const broken = new Map<string, string>();
	for (const { sandbox, user } of columns) {
		const reason = controlWorks(sandbox, user);
		if (reason) broken.set(`${sandbox.name}/${user}`, reason);
	}
	const version = (file: string) => (JSON.parse(readFileSync(join(here, file), "utf8")) as { version: string }).version;
	console.log(
		`toolbelt ${version("../../package.json")}, srt ${version("node_modules/@anthropic-ai/sandbox-runtime/package.json")}, codex ${version("node_modules/@openai/codex/package.json")}\n`,
	);
	console.log(`| attack | ${columns.map(({ sandbox, user }) => `${sandbox.name} (${user})`).join(" | ")} |`);
	console.log(`|---|${columns.map(() => "---").join("|")}|`);
	const fell = new Map<string, number>();
	for (const attack of ATTACKS) {
		const cells = columns.map(({ sandbox, user }) => {
			const key = `${sandbox.name}/${user}`;
			if (broken.has(key)) return "did not run";
			const verdict = tryAttack(sandbox, user, attack);
			if (verdict === "FELL") fell.set(key, (fell.get(key) ?? 0) + 1);
			return verdict;
		});
		console.log(`| ${attack.name} | ${cells.join(" | ")} |`);
	}
	const totals = columns.map(({ sandbox, user }) => {
		const key = `${sandbox.name}/${user}`;
		return broken.has(key) ? "—" : `${ATTACKS.length - (fell.get(key) ?? 0)}/${ATTACKS.length} held`;
	});
	console.log(`| **total** | ${totals.join(" | ")} |`);
	for (const [key, reason] of broken) console.log(`\n${key} did not run a benign command here: ${reason}`);
}

main();
