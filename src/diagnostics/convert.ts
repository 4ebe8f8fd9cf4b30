// Diagnostics as servers send them, made into toolbelt's one shape: errors and warnings only
// (hints such as "declared but never read" are an editor's greyed text, not a problem of the change).
import type { FileDiagnostic } from "./types.js";

/** A diagnostic as LSP sends it. */
export interface LspDiagnostic {
	range?: { start?: { line?: number; character?: number } };
	severity?: number;
	code?: string | number;
	source?: string;
	message?: string;
}

/** A diagnostic as tsserver sends it. */
export interface TsserverDiagnostic {
	start?: { line?: number; offset?: number };
	text?: string;
	code?: number;
	category?: string;
	source?: string;
}

const severities: Record<number, FileDiagnostic["severity"] | undefined> = { 1: "error", 2: "warning" };

/** LSP diagnostics (0-based positions; a missing severity counts as an error, as LSP says a client may). */
export function fromLspDiagnostics(diagnostics: readonly LspDiagnostic[]): FileDiagnostic[] {
	const found: FileDiagnostic[] = [];
	for (const diagnostic of diagnostics) {
		const severity = severities[diagnostic.severity ?? 1];
		if (!severity || typeof diagnostic.message !== "string") continue;
		const start = diagnostic.range?.start;
		found.push({
			line: (start?.line ?? 0) + 1,
			column: (start?.character ?? 0) + 1,
			severity,
			message: diagnostic.message,
			...(diagnostic.code !== undefined ? { code: String(diagnostic.code) } : {}),
			...(diagnostic.source ? { source: diagnostic.source } : {}),
		});
	}
	return sorted(found);
}

/** tsserver diagnostics (1-based positions; categories `error`, `warning`, `suggestion`, `message`). */
export function fromTsserverDiagnostics(diagnostics: readonly TsserverDiagnostic[]): FileDiagnostic[] {
	const found: FileDiagnostic[] = [];
	for (const diagnostic of diagnostics) {
		const severity =
			diagnostic.category === "error" || diagnostic.category === "warning" ? diagnostic.category : undefined;
		if (!severity || typeof diagnostic.text !== "string") continue;
		found.push({
			line: diagnostic.start?.line ?? 1,
			column: diagnostic.start?.offset ?? 1,
			severity,
			message: diagnostic.text,
			...(diagnostic.code !== undefined ? { code: String(diagnostic.code) } : {}),
			source: diagnostic.source ?? "typescript",
		});
	}
	return sorted(found);
}

function sorted(diagnostics: FileDiagnostic[]): FileDiagnostic[] {
	return diagnostics.sort((a, b) => a.line - b.line || a.column - b.column);
}
