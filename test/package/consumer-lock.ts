import { createHash } from "node:crypto";
import { copyFile, readFile, writeFile } from "node:fs/promises";
import { basename, join } from "node:path";

interface LockEntry {
	dev?: boolean;
	devOptional?: boolean;
	optional?: boolean;
	[field: string]: unknown;
}

/**
 * Makes `dir` a project that depends on the packed tarball `tarball`, with a lock file pinning
 * every dependency to the version this repository's lock holds (its production entries only: what a
 * consumer gets). `npm ci --offline` then installs it from the npm cache alone, as a consumer's
 * install would, without asking the registry for version lists.
 */
export async function writeConsumerProject(repoRoot: string, tarball: string, dir: string): Promise<void> {
	const lock = JSON.parse(await readFile(join(repoRoot, "package-lock.json"), "utf8")) as {
		packages: Record<string, LockEntry>;
	};
	const manifest = JSON.parse(await readFile(join(repoRoot, "package.json"), "utf8")) as Record<string, unknown>;
	const name = basename(tarball);
	await copyFile(tarball, join(dir, name));
	const integrity = `sha512-${createHash("sha512")
		.update(await readFile(tarball))
		.digest("base64")}`;
	const dependencies = { toolbelt: `file:${name}` };
	const packages: Record<string, unknown> = {
		"": { name: "consumer", version: "1.0.0", dependencies },
		"node_modules/toolbelt": {
			version: manifest.version,
			resolved: `file:${name}`,
			integrity,
			license: manifest.license,
			dependencies: manifest.dependencies,
			peerDependencies: manifest.peerDependencies,
			peerDependenciesMeta: manifest.peerDependenciesMeta,
			bin: manifest.bin,
			engines: manifest.engines,
		},
	};
	for (const [key, entry] of Object.entries(lock.packages)) {
		if (key === "" || entry.dev) continue;
		const { devOptional, ...kept } = entry;
		packages[key] = devOptional ? { ...kept, optional: true } : kept;
	}
	const project = { name: "consumer", version: "1.0.0", private: true, type: "module", dependencies };
	await writeFile(join(dir, "package.json"), `${JSON.stringify(project, null, 2)}\n`);
	const consumerLock = { name: "consumer", version: "1.0.0", lockfileVersion: 3, requires: true, packages };
	await writeFile(join(dir, "package-lock.json"), `${JSON.stringify(consumerLock, null, 2)}\n`);
}
