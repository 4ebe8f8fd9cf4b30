import type { WriteFileAtomicResult } from "../../workspace/index.js";

/** The sentence a write or edit result adds when the file was overwritten in place, else "". */
export function inPlaceNotice(result: Pick<WriteFileAtomicResult, "inPlace">): string {
	const inPlace = result.inPlace;
	if (!inPlace) return "";
	if (inPlace.reason === "hard-links") {
		return ` Written in place (not by rename), so its ${inPlace.links} hard links still share the new content.`;
	}
	return " Its folder does not allow new files (read-only or immutable), so the file was overwritten in place instead of replaced atomically.";
}
