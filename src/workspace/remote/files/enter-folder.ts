import { ToolError } from "../../../engine/index.js";

/** The first word of the line `enterFolderScript` writes to stderr when the folder moved. */
const MOVED_MARKER = "TOOLBELT_MOVED";

/**
 * Shell text that starts every remote search command (ripgrep, the POSIX listing, ignore files and
 * grep): it enters folder `$1`, or, when the guards checked the folder (`$2` is then the real path
 * they checked, else empty), that real path with `cd -P`, and goes on only when the folder it now
 * stands in still has that real path. A link swapped in after the check (between the two round
 * trips) is caught here, in the same command that then searches; once inside, the shell and what
 * it starts hold that folder whatever happens to the names that led to it, as the local search
 * holds its `/proc/self/fd` path. Leaves the arguments after the two as `$1…`.
 */
export const enterFolderScript = String.raw`if [ -n "$2" ]; then
	cd -P -- "$2" 2>/dev/null || exit 2
	[ "$PWD" = "$2" ] || { printf '${MOVED_MARKER} %s\n' "$PWD" >&2; exit 2; }
else cd -- "$1" || exit 2; fi
shift 2`;

/** The two arguments `enterFolderScript` takes: the folder, and its checked real path or "". */
export function enterFolderArguments(request: { root: string; realRoot?: string }): [string, string] {
	return [request.root, request.realRoot ?? ""];
}

/**
 * Rethrows a search failure caused by `enterFolderScript` finding the folder moved as an error
 * that says so (and that nothing was searched); any other failure as it is.
 */
export function explainMoved(error: unknown, request: { root: string; realRoot?: string }): unknown {
	const text = `${(error as Error)?.message ?? ""}\n${(error as { details?: { stderr?: string } })?.details?.stderr ?? ""}`;
	const moved = new RegExp(`${MOVED_MARKER} ([^\\n]*)`).exec(text);
	if (!moved) return error;
	return new ToolError(
		`The folder ${request.root} changed after the workspace check: its real path was ${request.realRoot}, it now leads to ${moved[1]}. Nothing was searched there. A link in the workspace was swapped meanwhile; check the folder before searching it again.`,
		{ path: request.root },
	);
}
