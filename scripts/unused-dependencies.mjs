// Fails when a runtime dependency (or peer) of package.json is named nowhere in src/: neither
// imported nor resolved (servers such as pyright are started by path, so `require.resolve("pyright/…")`
// counts). An unused dependency costs every consumer its install size for nothing.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

const root = new URL("..", import.meta.url).pathname;
const manifest = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
const names = [...Object.keys(manifest.dependencies ?? {}), ...Object.keys(manifest.peerDependencies ?? {})];

function sources(folder) {
	return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
		const path = join(folder, entry.name);
		if (entry.isDirectory()) return sources(path);
		return /\.(ts|mts|cts|mjs|js)$/.test(entry.name) ? [readFileSync(path, "utf8")] : [];
	});
}

const text = sources(join(root, "src")).join("\n");
const unused = names.filter((name) => !text.includes(`"${name}"`) && !text.includes(`"${name}/`));
if (unused.length > 0) {
	console.error(`dependencies named nowhere in src/: ${unused.join(", ")} (remove them, or use them)`);
	process.exit(1);
}
console.log(`every one of ${names.length} dependencies is used in src/`);
