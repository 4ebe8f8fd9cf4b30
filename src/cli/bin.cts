#!/usr/bin/env node
// The package's bin. CommonJS because Node starts a CommonJS main about 10 ms sooner than an ES
// module one (no ES module loader to set up before the first line runs); `bin.js` is the same
// start as an ES module. Runs `start.ts`: bundled with the loader into `start.cjs` by
// `npm run build`, else (a `tsc`-only build) as tsc's module.
type Start = typeof import("./start.js");

function bundledStart(): Start | undefined {
	try {
		return require("./start.cjs") as Start;
	} catch {
		return undefined;
	}
}

const start = bundledStart();
void (start ? Promise.resolve(start) : (import("./start.js") as Promise<Start>)).then((loaded) =>
	loaded.startCli(__dirname),
);
