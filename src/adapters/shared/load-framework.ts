/** What an adapter needs of its framework, for the error when it is missing. */
export interface FrameworkRequirement {
	/** The adapter's subpath, e.g. `toolbelt/ai-sdk`. */
	subpath: string;
	/** The npm package, e.g. `ai`. */
	packageName: string;
	/** The supported version range, e.g. `^7.0.0`. */
	versionRange: string;
	/** The lowest Node major the framework runs on. Default: 20. */
	minimumNodeMajor?: number;
}

/** Thrown when an adapter's framework is missing or cannot run on this Node. */
export class FrameworkUnavailableError extends Error {
	constructor(message: string, options?: { cause?: unknown }) {
		super(message, options);
		this.name = "FrameworkUnavailableError";
	}
}

/** The running Node's major version. */
export function nodeMajor(version: string = process.versions.node): number {
	return Number.parseInt(version.split(".")[0] ?? "0", 10);
}

/** Throws `FrameworkUnavailableError` when the framework needs a newer Node than `nodeVersion`. */
export function checkNodeFor(requirement: FrameworkRequirement, nodeVersion: string = process.versions.node): void {
	const minimum = requirement.minimumNodeMajor ?? 20;
	if (nodeMajor(nodeVersion) >= minimum) return;
	throw new FrameworkUnavailableError(
		`${requirement.subpath} needs ${requirement.packageName}@${requirement.versionRange}, which needs Node ${minimum} or newer; this is Node ${nodeVersion}. Run it on Node ${minimum}+ (toolbelt itself runs on Node 20).`,
	);
}

function isModuleMissing(error: unknown, packageName: string): boolean {
	const code = (error as { code?: unknown } | null)?.code;
	const message = error instanceof Error ? error.message : "";
	return (code === "ERR_MODULE_NOT_FOUND" || code === "MODULE_NOT_FOUND") && message.includes(packageName);
}

/**
 * Loads an adapter's framework with `load` (a dynamic `import` of the package), so that a missing
 * or too-new framework fails with one clear message instead of a resolver error, and so that
 * `import "toolbelt"` never touches it.
 */
export async function loadFramework<T>(
	requirement: FrameworkRequirement,
	load: () => Promise<T>,
	nodeVersion: string = process.versions.node,
): Promise<T> {
	checkNodeFor(requirement, nodeVersion);
	try {
		return await load();
	} catch (error) {
		if (!isModuleMissing(error, requirement.packageName)) throw error;
		throw new FrameworkUnavailableError(
			`${requirement.subpath} needs the package ${requirement.packageName}@${requirement.versionRange}, which is not installed. Install it next to toolbelt: npm install ${requirement.packageName}@"${requirement.versionRange}".`,
			{ cause: error },
		);
	}
}
