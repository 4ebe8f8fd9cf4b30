import { executeToolCalls } from "../../engine/index.js";
import { booleanOption, type ParsedArgs, UsageError } from "../args.js";
import { loadToolCatalog } from "../catalog/tool-catalog.js";
import { selectToolNames } from "../catalog/tool-selection.js";
import { type CliIO, ExitCode, readPipedStdin } from "../io.js";
import { resolveCwd } from "../paths.js";
import { contentToText } from "../render/content.js";
import { createCliSafety } from "../setup/safety-setup.js";

/**
 * `toolbelt tool <name> '<json>'`: one tool call through `executeToolCalls`, so argument repair,
 * validation, coercion and the abort plumbing are exactly what a model gets.
 */
export async function runToolCommand(args: ParsedArgs, io: CliIO): Promise<number> {
	const [name, json, extra] = args.positionals;
	if (name === undefined) throw new UsageError("Missing the tool name: toolbelt tool <name> '<json arguments>'.");
	if (extra !== undefined) {
		throw new UsageError(`Unexpected argument '${extra}'. Quote the JSON arguments as one argument.`);
	}
	const catalog = await loadToolCatalog();
	if (!catalog.isToolName(name)) {
		throw new UsageError(`Unknown tool '${name}'. Known tools: ${catalog.allToolNames.join(", ")}.`);
	}
	const toolArguments = parseJsonArguments(json ?? (await readPipedStdin(io)));
	const cwd = await resolveCwd(io, args.values);
	// A person typed this call: nothing to ask about (yolo unless --mode), and no model has to
	// have read a file before write replaces it. Confinement, deny rules and hooks still apply.
	// The process makes this one call: no read comes before it to compare a write with, and none
	// after it that a record of this read would serve (the stale-write snapshot, read's memory of
	// unchanged ranges): both would only hash what was read, and load crypto to do it.
	const safety = await createCliSafety({
		cwd,
		flags: args.values,
		io,
		mode: "yolo",
		allowWriteWithoutRead: true,
		checkStaleWrites: false,
		checkpoints: !catalog.readOnlyToolNames.includes(name),
		// A call that changes no file (a command) records nothing: the store opens only for one that may.
		openCheckpointsOnFirstCall: true,
	});
	const { openCliDiagnostics, withDiagnostics } = await import("../setup/diagnostics-setup.js");
	// Off unless the settings turn it on for `tool` (a one-off call pays a server's start).
	const diagnostics = await openCliDiagnostics(safety, "tool", {
		trustProjectFlag: booleanOption(args.values, "trust-project"),
		env: io.env,
	});
	const withoutMemory = { ...safety.toolOptions, read: { ...safety.toolOptions.read, unchangedReads: false } };
	// One call, then the process ends: a read has no later change to prepare a server for.
	const toolOptions = withDiagnostics(withoutMemory, diagnostics, { readsPrepare: false });
	const tool = catalog.createTool(name, safety.cwd, toolOptions);
	// A program calls the other tools: they come along (selected as for the agent, --tools honoured).
	const siblings =
		name === "code"
			? selectToolNames(args.values, catalog)
					.filter((other) => other !== name)
					.map((other) => catalog.createTool(other, safety.cwd, toolOptions))
			: [];

	const controller = new AbortController();
	const unsubscribe = io.onInterrupt?.(() => controller.abort());
	try {
		const { messages } = await executeToolCalls({
			tools: [tool, ...siblings],
			toolCalls: [{ type: "toolCall", id: "cli-call-1", name, arguments: toolArguments }],
			signal: controller.signal,
			...safety.hooks,
		});
		const message = messages[0]!;
		if (booleanOption(args.values, "json")) {
			const { content, details, isError } = message;
			io.stdout.write(`${JSON.stringify({ content, details, isError }, null, 2)}\n`);
		} else {
			const text = contentToText(message.content);
			(message.isError ? io.stderr : io.stdout).write(text.endsWith("\n") || text === "" ? text : `${text}\n`);
		}
		const hint = safety.approvals.text("toolbelt tool");
		if (hint) io.stderr.write(hint);
		if (controller.signal.aborted) return ExitCode.cancelled;
		return message.isError ? ExitCode.error : ExitCode.ok;
	} finally {
		unsubscribe?.();
		await diagnostics?.dispose();
	}
}

function parseJsonArguments(text: string | undefined): Record<string, unknown> {
	if (text === undefined || text.trim() === "") return {};
	let value: unknown;
	try {
		value = JSON.parse(text);
	} catch (error) {
		const reason = error instanceof Error ? error.message : String(error);
		throw new UsageError(`The arguments are not valid JSON (${reason}). Example: '{"path": "README.md"}'.`);
	}
	if (typeof value !== "object" || value === null || Array.isArray(value)) {
		throw new UsageError(
			`The arguments must be a JSON object, like '{"path": "README.md"}'; got ${JSON.stringify(value)}.`,
		);
	}
	return value as Record<string, unknown>;
}
