import type { WriteFileAtomicResult } from "../../workspace/index.js";

/** The sentence a write or edit result adds when the file was overwritten in place or its hard links broken, else "". */
export function inPlaceNotice(result: Pick<WriteFileAtomicResult, "inPlace" | "replacedLinks">): string {
	if (result.replacedLinks !== undefined) {
		return ` It had ${result.replacedLinks} hard links (names that may be outside the workspace), so it was replaced by a new file rather than changed in place: its other names keep the old content.`;
	}
	const inPlace = result.inPlace;
	if (!inPlace) return "";
	if (inPlace.reason === "hard-links") {
		return ` Written in place (not by rename), so its ${inPlace.links} hard links still share the new content.`;
	}
	if (inPlace.reason === "sandbox-bound") {
		return " Written in place (not by rename): a sandboxed command still running keeps this file read-only, and a rename would have lifted that.";
	}
	return " Its folder does not allow new files (read-only or immutable), so the file was overwritten in place instead of replaced atomically.";
}
