import { createHash } from "node:crypto";
import { readFile, stat } from "node:fs/promises";
import { locateRipgrep } from "../../local/index.js";
import { type RemoteRunResult, runRemote } from "../transport/run-remote.js";
import type { RemoteTransport } from "../transport/transport.js";

/**
 * Which ripgrep a remote search may use: `auto` — ripgrep on the remote PATH, else the copy in the
 * per-user cache there, else the bundled one copied there (Linux on the same architecture only);
 * `installed` — never copy one; `never` — always the POSIX tools (find, grep). Without ripgrep the
 * search falls back to the POSIX tools.
 */
export type RemoteRipgrepMode = "auto" | "installed" | "never";

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

const checksums = new Map<string, { size: number; mtimeMs: number; checksum: Promise<string> }>();

/**
 * The sha256 of the bundled ripgrep (5–6 MB: about 15 ms to read and hash), once per process and
 * file version: every workspace of a process looks for the same copy.
 */
async function checksumOf(path: string): Promise<string> {
	const info = await stat(path).catch(() => undefined);
	if (!info) return "none";
	const known = checksums.get(path);
	if (known && known.size === info.size && known.mtimeMs === info.mtimeMs) return known.checksum;
	const checksum = readFile(path).then(
		(bytes) => createHash("sha256").update(bytes).digest("hex"),
		() => "none",
	);
	checksums.set(path, { size: info.size, mtimeMs: info.mtimeMs, checksum });
	return checksum;
}

const localSystem = { Linux: "linux", Darwin: "darwin" } as Record<string, string>;
const localArch = { x86_64: "x64", amd64: "x64", aarch64: "arm64", arm64: "arm64" } as Record<string, string>;

/** Finds (or, in `auto` mode, installs) ripgrep on the remote side; the reason when it cannot be had. */
export async function remoteRipgrep(
	transport: RemoteTransport,
	run: (script: string, args: string[]) => Promise<RemoteRunResult>,
	mode: RemoteRipgrepMode,
): Promise<{ path: string } | { reason: string }> {
	if (mode === "never") return { reason: "ripgrep is not used there (ripgrep: never)" };
	const bundled = await locateRipgrep();
	const checksum = bundled.path ? await checksumOf(bundled.path) : "none";
	const found = (await run(findScript, [checksum])).stdout.toString("utf8").trim();
	if (!found.startsWith("NONE")) return { path: found };
	const [, system = "", machine = ""] = found.split(" ");
	if (mode === "installed") return { reason: "ripgrep is not installed there (and ripgrep: installed copies none)" };
	const bytes = bundled.path ? await readFile(bundled.path).catch(() => undefined) : undefined;
	if (!bytes) return { reason: "ripgrep is not installed there and no bundled copy is available here" };
	if (localSystem[system] !== process.platform || localArch[machine] !== process.arch) {
		return {
			reason: `ripgrep is not installed there, and the bundled one is for ${process.platform}/${process.arch}, not ${system}/${machine}`,
		};
	}
	// The copy sent is checked against the checksum of the bytes sent, not of an earlier read.
	const sentChecksum = createHash("sha256").update(bytes).digest("hex");
	const installed = await runRemote(transport, installScript, [sentChecksum], { stdin: bytes });
	if (installed.exitCode !== 0) return { reason: `copying ripgrep there failed (${installed.stderr.trim()})` };
	return { path: installed.stdout.toString("utf8").trim() };
}
