// Diagnostics from real language servers after a change: which servers, the LSP client, what a
// change introduced and how it reads. Entered here; the tools take a `ChangeDiagnostics` (read a `ReadDiagnostics`).

export { introducedDiagnostics } from "./introduced.js";
export { reportNote } from "./report.js";
export { builtInServers, type ConfiguredServer, serverSpecs, tsserverPath } from "./servers.js";
export {
	type ChangeDiagnostics,
	createDiagnosticsSession,
	DEFAULT_DIAGNOSTICS_BUDGET_MS,
	DEFAULT_MAX_DIAGNOSTICS,
	DEFAULT_MAX_RESTARTS,
	type DiagnosedChange,
	type DiagnosticsOutcome,
	type DiagnosticsSession,
	type DiagnosticsSessionOptions,
	type ReadDiagnostics,
} from "./session.js";
export {
	type ChangedContent,
	type DiagnosticsDetails,
	type DiagnosticsToolOptions,
	diagnoseChanges,
} from "./tool-fields.js";
export type {
	DiagnosticSeverity,
	DiagnosticsRequestKind,
	FileDiagnostic,
	FileDiagnosticsReport,
	LanguageServerSpec,
} from "./types.js";
