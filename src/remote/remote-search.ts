import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import { ToolError } from "../engine/errors.js";
import {
	locateRipgrep,
	type RipgrepLauncher,
	ripgrepGrep,
	ripgrepListFiles,
	type SearchOperations,
} from "../tools/index.js";
import { runRemote } from "./run-remote.js";
import type { RemoteTransport } from "./transport.js";

/** Runs a program in a folder with stdin from /dev/null (ripgrep would search a readable stdin). */
const launchScript = `cd -- "$1" || exit 2; shift; exec "$@" < /dev/null`;

/**
 * Finds ripgrep on the remote side: `rg` on PATH, else the copy in the per-user cache whose name
 * holds its checksum. Prints its path, or `NONE os arch` with the remote `uname -s` and `uname -m`.
 */
const findScript = String.raw`
if command -v rg >/dev/null 2>&1; then command -v rg; exit 0; fi
cached="$HOME/.cache/toolbelt/rg-$1"
if [ -x "$cached" ]; then printf '%s\n' "$cached"; exit 0; fi
printf 'NONE %s %s\n' "$(uname -s)" "$(uname -m)"
`;

/** Stores stdin as the cached ripgrep when its sha256 is `$1`; prints the path. Never in the workspace. */
const installScript = String.raw`
set -e
dir="$HOME/.cache/toolbelt"; mkdir -p "$dir"; chmod 700 "$dir"
tmp=$(mktemp "$dir/.rg.XXXXXX"); trap 'rm -f "$tmp"' EXIT
cat > "$tmp"
[ "$(sha256sum < "$tmp" | cut -c1-64)" = "$1" ] || { echo "checksum mismatch" >&2; exit 3; }
chmod 755 "$tmp"; mv -f "$tmp" "$dir/rg-$1"; trap - EXIT
printf '%s\n' "$dir/rg-$1"
`;

const localSystem = { Linux: "linux", Darwin: "darwin" } as Record<string, string>;
const localArch = { x86_64: "x64", amd64: "x64", aarch64: "arm64", arm64: "arm64" } as Record<string, string>;

/** Finds or installs ripgrep on the remote side once; the reason when it cannot be had. */
async function remoteRipgrep(transport: RemoteTransport): Promise<{ path: string } | { reason: string }> {
	const bundled = await locateRipgrep();
	const bytes = bundled.path ? await readFile(bundled.path).catch(() => undefined) : undefined;
	const checksum = bytes ? createHash("sha256").update(bytes).digest("hex") : "none";
	const found = (await runRemote(transport, findScript, [checksum])).stdout.toString("utf8").trim();
	if (!found.startsWith("NONE")) return { path: found };
	const [, system = "", machine = ""] = found.split(" ");
	if (!bytes) return { reason: "ripgrep is not installed there and no bundled copy is available here" };
	if (localSystem[system] !== process.platform || localArch[machine] !== process.arch) {
		return {
			reason: `ripgrep is not installed there, and the bundled one is for ${process.platform}/${process.arch}, not ${system}/${machine}`,
		};
	}
	const installed = await runRemote(transport, installScript, [checksum], { stdin: bytes });
	if (installed.exitCode !== 0) return { reason: `copying ripgrep there failed (${installed.stderr.trim()})` };
	return { path: installed.stdout.toString("utf8").trim() };
}

/**
 * grep and find for a remote workspace: ripgrep runs on the remote side (its own `rg`, or the
 * bundled one copied once into `~/.cache/toolbelt` there when the OS and architecture match,
 * checksum verified), with the same arguments and output parsing as locally.
 */
export function createRemoteSearchOperations(transport: RemoteTransport): SearchOperations {
	let located: Promise<{ path: string } | { reason: string }> | undefined;
	const launch: RipgrepLauncher = async (rgPath, args, cwd) => {
		const child = await transport.spawn(launchScript, [cwd, rgPath, ...args]);
		child.stdin.end();
		return child;
	};
	const ripgrep = async (): Promise<string> => {
		located ??= remoteRipgrep(transport).catch((error: Error) => {
			located = undefined;
			throw error;
		});
		const found = await located;
		if ("path" in found) return found.path;
		throw new ToolError(
			`Cannot search ${transport.label}: ${found.reason}. Install ripgrep there (e.g. apt-get install ripgrep), or search with bash (grep -rn, find).`,
		);
	};
	return {
		stat: async (absolutePath) => {
			const result = await runRemote(transport, `[ -e "$1" ] || exit 1; [ -d "$1" ] && echo d || echo f`, [
				absolutePath,
			]);
			return result.exitCode === 0 ? { isDirectory: result.stdout.toString().trim() === "d" } : undefined;
		},
		grep: async (request, signal) => ({
			backend: "ripgrep",
			items: await ripgrepGrep(await ripgrep(), request, signal, launch),
		}),
		listFiles: async (request, signal) => ({
			backend: "ripgrep",
			items: await ripgrepListFiles(await ripgrep(), request, signal, launch),
		}),
	};
}
