// Loads pdf.js on first use only: `import "toolbelt"` and text reads never pay for it (~300 ms, ~40 MB);
// a missing pdf.js (an optional peer dependency) fails only a PDF read, with what to install.

/** The part of pdf.js that read uses. */
export type Pdfjs = typeof import("pdfjs-dist/legacy/build/pdf.mjs");

let pdfjsModule: Promise<Pdfjs> | undefined;

/** Warnings pdf.js prints when its optional canvas package is missing; text extraction never renders. */
const CANVAS_WARNINGS = /^Warning: (Cannot load "@napi-rs\/canvas"|Cannot polyfill `(DOMMatrix|ImageData|Path2D)`)/;

/**
 * The identity matrix pdf.js builds at load time. Rendering needs the real DOMMatrix (from
 * @napi-rs/canvas, an optional dependency); text extraction only needs the constructor to exist.
 */
class IdentityMatrix {
	a = 1;
	b = 0;
	c = 0;
	d = 1;
	e = 0;
	f = 0;
}

/**
 * pdf.js is an optional peer dependency: it and the canvas package it pulls in weigh about 75 MB,
 * which every install would carry for a feature many never use.
 */
const PDFJS_MISSING_TEXT =
	"Reading PDFs needs the optional package pdfjs-dist (version 5), which is not installed beside toolbelt. " +
	"Install it where toolbelt is installed (`npm i pdfjs-dist@5`, or `npm i -g pdfjs-dist@5` for a global toolbelt), " +
	"or extract the text with a command instead, e.g. `pdftotext file.pdf -` (poppler-utils).";

function isMissingPdfjs(error: unknown): boolean {
	const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
	return (
		(code === "ERR_MODULE_NOT_FOUND" || code === "MODULE_NOT_FOUND") &&
		typeof message === "string" &&
		message.includes("pdfjs-dist")
	);
}

async function importPdfjs(): Promise<Pdfjs> {
	const globals = globalThis as { DOMMatrix?: unknown };
	const shimmed = globals.DOMMatrix === undefined;
	if (shimmed) globals.DOMMatrix = IdentityMatrix;
	const warn = console.warn;
	// pdf.js warns on stderr while it loads when @napi-rs/canvas is absent (a platform without a
	// prebuilt binary); those lines are noise for a text read, anything else still shows.
	console.warn = (...values: unknown[]) => {
		if (typeof values[0] === "string" && CANVAS_WARNINGS.test(values[0])) return;
		warn(...values);
	};
	try {
		return await import("pdfjs-dist/legacy/build/pdf.mjs");
	} catch (error) {
		throw isMissingPdfjs(error) ? new Error(PDFJS_MISSING_TEXT) : error;
	} finally {
		console.warn = warn;
		// pdf.js installs the canvas package's DOMMatrix itself when it can; only our shim is removed.
		if (shimmed && globals.DOMMatrix === IdentityMatrix) delete globals.DOMMatrix;
	}
}

/**
 * pdf.js (the legacy build, which runs on every Node version the package supports), loaded once.
 * A failed load is not cached, so a later call tries again.
 */
export function loadPdfjs(): Promise<Pdfjs> {
	pdfjsModule ??= importPdfjs().catch((error: unknown) => {
		pdfjsModule = undefined;
		throw error;
	});
	return pdfjsModule;
}
