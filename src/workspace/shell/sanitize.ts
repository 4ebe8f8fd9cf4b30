// Terminal control sequences: CSI (colours, cursor moves), OSC (titles, hyperlinks) ended by BEL
// or ST, DCS/SOS/PM/APC strings, and the short two- and three-byte escapes.
const escapeSequence =
	/\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b[PX^_][^\x1b]*(?:\x1b\\)?|\x1b[ -/]*[0-~]|\x1b/g;
// Control characters other than tab, newline, carriage return and backspace (handled separately).
const strayControl = /[\x00-\x07\x0b\x0c\x0e-\x1f\x7f]/g;

function applyBackspaces(segment: string): string {
	if (!segment.includes("\b")) return segment;
	const kept: string[] = [];
	for (const character of segment) {
		if (character === "\b") kept.pop();
		else kept.push(character);
	}
	return kept.join("");
}

/**
 * Collapses the redraws of one line. A bare `\r` starts redrawing the line: the intermediate
 * states (10%, 20%, …) are noise, so only the final state is kept, after whatever the line said
 * before the first redraw (often a label, or text the progress display would otherwise hide).
 */
function collapseRedraws(line: string): string {
	if (!line.includes("\r")) return applyBackspaces(line);
	const segments = line.split("\r");
	const before = applyBackspaces(segments[0] ?? "");
	let last = "";
	for (let index = segments.length - 1; index > 0; index--) {
		const segment = segments[index] ?? "";
		if (segment !== "") {
			last = applyBackspaces(segment);
			break;
		}
	}
	if (before === "") return last;
	if (last === "") return before;
	return `${before}\n${last}`;
}

/**
 * Terminal output made readable for a model: colour and cursor sequences removed, progress
 * redraws (`\r`) collapsed to their final state, backspaces applied, CRLF turned into LF, other
 * control bytes dropped: `"\x1b[31mred\x1b[0m\r10%\r100%\n"` becomes `"red\n100%\n"`.
 */
export function sanitizeTerminalOutput(text: string): string {
	let clean = text.includes("\x1b") ? text.replace(escapeSequence, "") : text;
	clean = clean.replace(strayControl, "");
	if (!clean.includes("\r") && !clean.includes("\b")) return clean;
	clean = clean.replace(/\r+\n/g, "\n");
	return clean.split("\n").map(collapseRedraws).join("\n");
}
