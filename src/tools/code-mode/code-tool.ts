import type { Static } from "typebox";
import {
	type AgentTool,
	DEFAULT_MAX_BYTES,
	DEFAULT_MAX_LINES,
	ToolError,
	Type,
	throwIfAborted,
} from "../../engine/index.js";
import { toolEntry, toolSeams } from "../registry/tool-entry.js";
import { defineTool, toolFrom } from "../tool-definition.js";
import { createInnerCalls } from "./inner-calls.js";
import { type CodeToolDetails, programResult } from "./program-result.js";
import { type ProgramLimits, runProgram } from "./run-program.js";

const DESCRIPTION = `Run a short JavaScript or TypeScript program that calls your other tools, to do in one step what would take many tool calls: search, loop, filter, read several files in parallel, and answer with only what matters.
Every tool is an async function: \`await tools.grep({ pattern: "TODO", limit: 500 })\` takes the same arguments as a direct call and returns { text, details } (text: what the call would show you; details: its structured data), or throws an Error with the message a direct call would get (denied, invalid arguments, failed). Run calls in parallel with Promise.all. Print with console.log; \`return\` a value (it is shown as JSON). You get back what the program printed and returned.
The program runs in an isolated interpreter: no require/import, no file system, network, process or environment except through tools. Each call goes through the same permissions as a direct call. Bounded interpreter time, memory and number of tool calls; a program over a bound is stopped and you are told which.
Example: const hits = await tools.grep({ pattern: "TODO", limit: 1000 }); const byFolder = {}; for (const line of hits.text.split("\\n")) { const folder = line.split("/")[0]; byFolder[folder] = (byFolder[folder] ?? 0) + 1; } return byFolder;`;

/** Arguments of the code tool. */
export const codeSchema = Type.Object({
	code: Type.String({
		description:
			"The program: JavaScript or TypeScript statements (types are stripped), run as the body of an async function (top-level await and return work).",
	}),
});

/** Arguments of the code tool, as the model sends them. */
export type CodeToolInput = Static<typeof codeSchema>;
/** The runnable code tool. */
export type CodeTool = AgentTool<typeof codeSchema, CodeToolDetails>;

/** Options of the code tool: the bounds of each program and the budget of its result. */
export interface CodeToolOptions {
	/** Interpreter time per program, in ms (time waiting on tools does not count). Default: 10,000. */
	cpuMs?: number;
	/** Interpreter memory per program, in bytes. Default: 64 MiB. */
	memoryBytes?: number;
	/** Interpreter stack per program, in bytes (bounds recursion depth). Default: 256 KiB. */
	stackBytes?: number;
	/** Tool calls per program. Default: 1,000. */
	maxToolCalls?: number;
	/** Printed output kept per program before the result budget cuts it, in bytes. Default: 1 MiB. */
	maxOutputBytes?: number;
	/** Most UTF-8 bytes of the result the model reads. Default: 50 KB. */
	maxBytes?: number;
	/** Most lines of the result the model reads. Default: 2,000. */
	maxLines?: number;
}

/** Default bounds of a program (see `CodeToolOptions`). */
export const DEFAULT_PROGRAM_LIMITS: ProgramLimits = {
	cpuMs: 10_000,
	memoryBytes: 64 * 1024 * 1024,
	stackBytes: 256 * 1024,
	maxToolCalls: 1000,
	maxOutputBytes: 1024 * 1024,
};

// A program may call any tool, commands included: a barrier like them.
/** The code tool's definition: what the model sees. */
export const createCodeToolDefinition = defineTool(
	{ name: "code", title: "Run a program that calls the tools", effect: "runs" },
	codeSchema,
	DESCRIPTION,
);

function limitsOf(options: CodeToolOptions): ProgramLimits {
	return {
		cpuMs: options.cpuMs ?? DEFAULT_PROGRAM_LIMITS.cpuMs,
		memoryBytes: options.memoryBytes ?? DEFAULT_PROGRAM_LIMITS.memoryBytes,
		stackBytes: options.stackBytes ?? DEFAULT_PROGRAM_LIMITS.stackBytes,
		maxToolCalls: options.maxToolCalls ?? DEFAULT_PROGRAM_LIMITS.maxToolCalls,
		maxOutputBytes: options.maxOutputBytes ?? DEFAULT_PROGRAM_LIMITS.maxOutputBytes,
	};
}

/**
 * The code tool (code mode): runs a program in QuickJS compiled to WebAssembly, on a worker thread
 * of its own, with the batch's other tools as async functions. Every call the program makes goes
 * through the engine's path of a direct call (`ToolExecuteContext.nestedCalls`), so the hooks,
 * the mutation queue, truncation, checkpoints and abort apply to it, and its events are children
 * of the code call. The call itself declares a read with no path: it does nothing but through
 * those calls, each judged on its own.
 */
export function createCodeTool(cwd: string, options: CodeToolOptions = {}): CodeTool {
	const limits = limitsOf(options);
	const budget = { maxBytes: options.maxBytes ?? DEFAULT_MAX_BYTES, maxLines: options.maxLines ?? DEFAULT_MAX_LINES };
	const definition = createCodeToolDefinition(cwd, options);
	return toolFrom(definition, {
		prepareArguments: (args) => {
			if (typeof args !== "object" || args === null) return args;
			const { program, script, source, ...rest } = args as Record<string, unknown>;
			const code = (rest as { code?: unknown }).code ?? program ?? script ?? source;
			return code === undefined ? rest : { ...rest, code };
		},
		target: () => ({ access: "read" }),
		execute: async (_toolCallId, args, signal, _onUpdate, context) => {
			throwIfAborted(signal);
			const nested = context?.nestedCalls;
			if (!nested) {
				throw new ToolError(
					"The code tool runs only inside executeToolCalls (an agent, the CLI, the MCP server or an adapter), which gives it the other tools.",
				);
			}
			const inner = createInnerCalls(nested, definition.name);
			const outcome = await runProgram({
				code: args.code,
				toolNames: inner.names,
				limits,
				callTool: inner.call,
				signal,
			});
			return programResult(outcome, limits, budget);
		},
	});
}

/** The registry's entry of code (see `ToolEntry`). */
export const codeToolEntry = toolEntry({
	name: "code",
	definition: createCodeToolDefinition,
	tool: createCodeTool,
	seam: toolSeams.none,
	groups: ["optIn"],
});
