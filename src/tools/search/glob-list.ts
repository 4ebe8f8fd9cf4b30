/**
 * Models often pass several globs where the tools take one: an array (`["*.ts", "*.js"]`) or a
 * comma list (`"*.ts,*.js"`). Both become one brace group (`{*.ts,*.js}`), which ripgrep, the
 * walker and the schema all accept. Anything else is returned unchanged.
 */
export function joinGlobList(value: unknown): unknown {
	let parts: string[];
	if (Array.isArray(value)) {
		if (!value.every((item) => typeof item === "string")) return value;
		parts = value as string[];
	} else if (typeof value === "string") {
		parts = splitTopLevelCommas(value);
		if (parts.length < 2) return value;
	} else {
		return value;
	}
	parts = parts.map((part) => part.trim()).filter((part) => part !== "");
	if (parts.length === 0) return Array.isArray(value) ? undefined : value;
	if (parts.length === 1) return parts[0];
	// ripgrep's globs allow no brace group inside another: spell each inner group out first.
	const globs = parts.flatMap(expandBraces);
	// Inside one group a part without "/" would be anchored by the others' "/": keep it "any depth"
	// (the top level spelled apart, as not every glob engine lets `**/` match no folder).
	const anchored = globs.some((glob) => glob.includes("/"));
	const members = anchored ? globs.flatMap((glob) => (glob.includes("/") ? [glob] : [glob, `**/${glob}`])) : globs;
	return `{${[...new Set(members)].join(",")}}`;
}

/** Splits at commas outside brace groups and character classes: `*.{ts,js},*.md` → two parts. */
function splitTopLevelCommas(text: string): string[] {
	const parts: string[] = [];
	let depth = 0;
	let inClass = false;
	let start = 0;
	for (let index = 0; index < text.length; index++) {
		const character = text[index];
		if (character === "\\") index++;
		else if (inClass) inClass = character !== "]";
		else if (character === "[") inClass = true;
		else if (character === "{") depth++;
		else if (character === "}") depth = Math.max(0, depth - 1);
		else if (character === "," && depth === 0) {
			parts.push(text.slice(start, index));
			start = index + 1;
		}
	}
	parts.push(text.slice(start));
	return parts;
}

/** Spells out brace groups (not nested): `src/*.{ts,tsx}` → `src/*.ts`, `src/*.tsx`. */
function expandBraces(glob: string): string[] {
	const match = /\{([^{}]*)\}/.exec(glob);
	if (!match) return [glob];
	const before = glob.slice(0, match.index);
	const after = glob.slice(match.index + match[0].length);
	return (match[1] as string).split(",").flatMap((choice) => expandBraces(`${before}${choice}${after}`));
}
