import { type ParsedArgs, UsageError } from "../args.js";
import { loadToolCatalog } from "../catalog/tool-catalog.js";
import { selectToolNames } from "../catalog/tool-selection.js";
import { type CliIO, ExitCode } from "../io.js";
import { resolveCwd } from "../paths.js";
import { createCliSafety } from "../setup/safety-setup.js";
import { openSessionsForReading } from "./sessions.js";

function shortened(value: unknown): string {
	const text = typeof value === "string" ? value : JSON.stringify(value, null, 2);
	return text.length > 2000 ? `${text.slice(0, 2000)}\n… (${text.length - 2000} more characters)` : text;
}

/**
 * `toolbelt replay <id> [--cwd dir | --workspace URL]`: runs the recorded calls again, batch by
 * batch, and reports the first divergence. Exit 0 when the replay matched, 1 when it diverged.
 */
export async function runReplayCommand(args: ParsedArgs, io: CliIO): Promise<number> {
	const wanted = args.positionals[0];
	if (wanted === undefined)
		throw new UsageError("Name the session: toolbelt replay <id> (list them with toolbelt sessions --all).");
	const store = await openSessionsForReading(io);
	if (!store) return ExitCode.error;
	const { createRedactor, readSessionFile, replaySession } = await import("../../sessions/index.js");
	let path: string;
	try {
		path = store.pathOf(await store.find(wanted));
	} catch (error) {
		throw new UsageError(error instanceof Error ? error.message : String(error), { showHelpHint: false });
	}
	const session = await readSessionFile(path);
	const cwd = await resolveCwd(io, args.values);
	// The recorded calls were the model's: they run with the guards (confinement, deny rules,
	// protected paths, hooks of a trusted folder), in yolo mode as nobody is there to ask.
	const safety = await createCliSafety({ cwd, flags: args.values, io, mode: "yolo", allowWriteWithoutRead: true });
	const catalog = await loadToolCatalog();
	const tools = selectToolNames(args.values, catalog).map((name) =>
		catalog.createTool(name, safety.cwd, safety.toolOptions),
	);
	const { createLocalWorkspace } = await import("../../workspace/index.js");
	const workspace = safety.workspace ?? createLocalWorkspace(safety.cwd);
	const controller = new AbortController();
	const stopListening = io.onInterrupt?.(() => controller.abort());
	try {
		const report = await replaySession({
			session,
			tools,
			workspace,
			hooks: safety.hooks,
			redact: createRedactor(io.env),
			signal: controller.signal,
			onBatch: (batch, results) =>
				void io.stderr.write(`batch ${batch}: ${results.map((result) => result.toolName).join(", ")}\n`),
		});
		if (controller.signal.aborted) return ExitCode.cancelled;
		if (!report.divergence) {
			io.stdout.write(
				`Replayed ${report.replayed} of ${report.calls} calls in ${report.batches} batches against ${workspace.cwd}: no divergence.\n`,
			);
			return ExitCode.ok;
		}
		const { divergence } = report;
		io.stdout.write(
			`${divergence.message}\nRecorded:\n${shortened(divergence.recorded)}\nNow:\n${shortened(divergence.replayed)}\n`,
		);
		return ExitCode.error;
	} finally {
		stopListening?.();
		await safety.workspace?.close();
	}
}
