/** Field names other tools and other agents use for a path argument. */
export const PATH_ALIASES = ["file_path", "filePath", "file", "filename"] as const;

/**
 * Builds a `prepareArguments` that renames aliased fields to their canonical names (a canonical
 * field that is set wins) and drops `null` values, which models send for options they do not use.
 * Anything else is left for validation to report.
 */
export function aliasArguments(aliases: Record<string, readonly string[]>): (args: unknown) => unknown {
	const pairs = Object.entries(aliases).flatMap(([field, names]) => names.map((alias) => [field, alias] as const));
	const aliasNames = pairs.map((pair) => pair[1]);
	return (args) => {
		if (typeof args !== "object" || args === null || Array.isArray(args)) return args;
		const given = args as Record<string, unknown>;
		// The usual call names no alias and sends no null: it is passed on as it is (validation copies it).
		// Asked with plain loops: every call of a batch comes through here, mostly before its code is optimized.
		if (!namesAny(given, aliasNames) && !holdsNull(given)) return args;
		const result: Record<string, unknown> = { ...given };
		for (const [field, alias] of pairs) {
			if (!(alias in result)) continue;
			if (result[field] === undefined || result[field] === null) result[field] = result[alias];
			delete result[alias];
		}
		for (const [field, value] of Object.entries(result)) if (value === null) delete result[field];
		return result;
	};
}

/** True when `given` has a field of one of `names`. */
function namesAny(given: Record<string, unknown>, names: readonly string[]): boolean {
	for (let index = 0; index < names.length; index++) if ((names[index] as string) in given) return true;
	return false;
}

/** True when a field of `given` is `null`. */
function holdsNull(given: Record<string, unknown>): boolean {
	for (const field in given) if (Object.hasOwn(given, field) && given[field] === null) return true;
	return false;
}
