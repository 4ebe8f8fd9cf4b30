import { sep } from "node:path";
import { nameFromVisible } from "./visible-name.js";

/** Whitespace of any kind (NBSP, U+202F, trailing newlines) and a pasted mention's leading `@`. */
const IGNORED = /[\s@]/gu;

/** One name folded so that every spelling the path look-up may take for it (`resolveExistingPath`) and a case-blind disk's other cases give the same key. */
function foldName(name: string): string {
	return (nameFromVisible(name) ?? name).normalize("NFKC").toLowerCase().replace(IGNORED, "");
}

/** The folder of the last key made and its folded form: the calls of a batch mostly share a folder. */
let lastFolder: string | undefined;
let lastFolderKey = "";

function foldPath(path: string): string {
	const names = path.split(sep === "\\" ? /[\\/]/ : "/");
	// The root's own key is "" (it lies above every other key), so no key ends with `/`.
	if (names.at(-1) === "") names.pop();
	return names.map(foldName).join("/");
}

/**
 * The key the scheduler compares for the file at `realPath` (`ToolTarget.touches`): its names
 * folded as wide as any disk or any of the look-up's tolerances could equate two of them (case,
 * Unicode forms, spaces, escapes as results show them), joined with `/`. Two different files may
 * share a key (their calls then just keep their order); one file never has two.
 */
export function schedulingKey(realPath: string): string {
	const cut =
		sep === "\\" ? Math.max(realPath.lastIndexOf("/"), realPath.lastIndexOf("\\")) : realPath.lastIndexOf("/");
	if (cut === -1 || cut === realPath.length - 1) return foldPath(realPath);
	const folder = realPath.slice(0, cut);
	if (folder !== lastFolder) {
		lastFolderKey = foldPath(folder);
		lastFolder = folder;
	}
	return `${lastFolderKey}/${foldName(realPath.slice(cut + 1))}`;
}
