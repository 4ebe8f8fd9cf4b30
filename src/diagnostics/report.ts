// How a change's diagnostics read to the model: neutral facts (where, what, which server), bounded,
// never an instruction — a "please fix" makes models loop on diagnostics they cannot fix.
import type { FileDiagnostic, FileDiagnosticsReport } from "./types.js";

/** Lines of one message kept (pyright explains a type error over several indented lines). */
const MESSAGE_LINES = 3;
/** Characters of one message kept. */
const MESSAGE_CHARS = 400;

function codeOf(diagnostic: FileDiagnostic): string {
	if (diagnostic.code === undefined) return "";
	return diagnostic.source === "typescript" && /^\d+$/.test(diagnostic.code)
		? ` TS${diagnostic.code}`
		: ` ${diagnostic.code}`;
}

function messageOf(diagnostic: FileDiagnostic): string {
	const lines = diagnostic.message.split("\n").map((line) => line.trimEnd());
	let text = lines.slice(0, MESSAGE_LINES).join("\n      ");
	if (lines.length > MESSAGE_LINES) text += " …";
	return text.length > MESSAGE_CHARS ? `${text.slice(0, MESSAGE_CHARS)}…` : text;
}

/** One diagnostic as a line: `12:5 error TS2322: message`. */
export function diagnosticLine(diagnostic: FileDiagnostic): string {
	return `${diagnostic.line}:${diagnostic.column} ${diagnostic.severity}${codeOf(diagnostic)}: ${messageOf(diagnostic)}`;
}

function counted(count: number, noun: string): string {
	return `${count} ${noun}${count === 1 ? "" : "s"}`;
}

/** The note for one file's report, or undefined when there is nothing to say (no new diagnostics). */
export function reportNote(
	report: FileDiagnosticsReport,
	options: { maxItems: number; budgetMs: number },
): string | undefined {
	const head = `[diagnostics] ${report.path}`;
	if (report.status === "unavailable")
		return `${head}: not checked, the ${report.server} language server is unavailable (${report.note}).`;
	if (report.status === "pending") {
		const seconds = `${options.budgetMs / 1000} s`;
		return `${head}: diagnostics pending (${report.note ?? `the ${report.server} language server did not answer within ${seconds}`}); a later change of this file may report them.`;
	}
	if (report.introduced.length === 0) return undefined;
	const errors = report.introduced.filter((diagnostic) => diagnostic.severity === "error").length;
	const warnings = report.introduced.length - errors;
	const what = [errors > 0 ? counted(errors, "new error") : "", warnings > 0 ? counted(warnings, "new warning") : ""]
		.filter(Boolean)
		.join(" and ");
	const when = report.late ? " after the previous change of this file (pending then)" : " after this change";
	const shown = report.introduced.slice(0, options.maxItems).map((diagnostic) => `  ${diagnosticLine(diagnostic)}`);
	const cut = report.introduced.length - shown.length;
	const more = cut > 0 ? [`  (${cut} more not shown)`] : [];
	return [`${head}: ${what}${when} (${report.server} language server):`, ...shown, ...more].join("\n");
}
