/**
 * Repairs common model mistakes in shell tool arguments before validation: the command sent as
 * `cmd` or `script`, a timeout written with a unit (`"30s"`, `"2m"`, `"500ms"`), flags written as
 * `"true"`/`"false"`, and `null` for an option not used (as strict structured output sends every
 * optional field).
 */
export function prepareShellArguments(args: unknown): unknown {
	if (typeof args !== "object" || args === null || Array.isArray(args)) return args;
	const repaired: Record<string, unknown> = {};
	for (const [field, value] of Object.entries(args)) if (value !== null) repaired[field] = value;
	if (repaired.command === undefined) {
		for (const alias of ["cmd", "script"]) {
			if (typeof repaired[alias] === "string") {
				repaired.command = repaired[alias];
				delete repaired[alias];
				break;
			}
		}
	}
	for (const flag of ["run_in_background", "tty"]) {
		if (repaired[flag] === "true" || repaired[flag] === "false") repaired[flag] = repaired[flag] === "true";
	}
	if (typeof repaired.timeout === "string") {
		const match = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|sec|seconds?|m|min|minutes?)\s*$/i.exec(repaired.timeout);
		if (match) {
			const value = Number(match[1]);
			const unit = (match[2] ?? "s").toLowerCase();
			repaired.timeout = unit === "ms" ? value / 1000 : unit.startsWith("m") ? value * 60 : value;
		}
	}
	return repaired;
}
