// Pack step: the package.json inside the tarball carries no script npm would count as an install
// script. The repository builds in `prepare` (npm runs it for `npm ci` in a clone), and npm 11.16+
// lists a tarball's `prepare` among the "install scripts not yet covered by allowScripts" when a
// consumer runs `npm i toolbelt-x.tgz`, although it never runs it there. So `prepack` (after the
// build) takes those scripts out of package.json, npm reads the manifest again and packs it, and
// `postpack` puts the file back as it was.
//
//   node scripts/pack-manifest.mjs strip [folder]     before packing
//   node scripts/pack-manifest.mjs restore [folder]   after packing
import { copyFileSync, existsSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";

/** Scripts npm runs, or counts as run, when a package is installed as a dependency. */
const installScripts = ["preinstall", "install", "postinstall", "prepare"];

const [action, folder = "."] = process.argv.slice(2);
const manifestPath = join(resolve(folder), "package.json");
const keptPath = `${manifestPath}.before-pack`;

/** Puts back the manifest a strip kept (a pack that stopped half-way leaves it behind). */
function restore() {
	if (existsSync(keptPath)) renameSync(keptPath, manifestPath);
}

if (action === "strip") {
	restore();
	const text = readFileSync(manifestPath, "utf8");
	const manifest = JSON.parse(text);
	for (const name of installScripts) delete manifest.scripts?.[name];
	copyFileSync(manifestPath, keptPath);
	// Renamed into place, so a reader never sees half a file.
	writeFileSync(`${manifestPath}.packing`, `${JSON.stringify(manifest, null, "\t")}\n`);
	renameSync(`${manifestPath}.packing`, manifestPath);
} else if (action === "restore") {
	restore();
} else {
	console.error("usage: node scripts/pack-manifest.mjs strip|restore [folder]");
	process.exit(2);
}
