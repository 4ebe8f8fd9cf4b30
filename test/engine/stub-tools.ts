import { Type } from "typebox";
import type { AgentTool, ToolCall } from "../../src/engine/types.js";

const sleepSchema = Type.Object({ ms: Type.Number(), label: Type.Optional(Type.String()) });

/** One recorded interval of a stub tool's execution. */
export interface Span {
	label: string;
	start: number;
	end: number;
}

/** A tool that sleeps `ms` (honouring abort) and records when it ran. */
export function sleepTool(options: { name?: string; mode?: "parallel" | "sequential"; spans?: Span[] } = {}) {
	const tool: AgentTool<typeof sleepSchema, { ms: number }> = {
		name: options.name ?? "sleep",
		description: "Sleeps for ms milliseconds.",
		parameters: sleepSchema,
		executionMode: options.mode,
		execute: (_id, args, signal) =>
			new Promise((resolve, reject) => {
				const start = performance.now();
				const timer = setTimeout(() => {
					signal?.removeEventListener("abort", onAbort);
					options.spans?.push({ label: args.label ?? "", start, end: performance.now() });
					resolve({ content: [{ type: "text", text: `slept ${args.ms}` }], details: { ms: args.ms } });
				}, args.ms);
				const onAbort = () => {
					clearTimeout(timer);
					options.spans?.push({ label: args.label ?? "", start, end: performance.now() });
					reject(Object.assign(new Error("aborted"), { name: "AbortError" }));
				};
				if (signal?.aborted) onAbort();
				else signal?.addEventListener("abort", onAbort, { once: true });
			}),
	};
	return tool;
}

const anySchema = Type.Object({ message: Type.Optional(Type.String()) });

/** A tool that always throws `message`. */
export function throwingTool(name = "boom") {
	const tool: AgentTool<typeof anySchema> = {
		name,
		description: "Always throws.",
		parameters: anySchema,
		execute: async (_id, args) => {
			throw new Error(args.message ?? "boom");
		},
	};
	return tool;
}

const recordSchema = Type.Object({
	path: Type.String(),
	limit: Type.Optional(Type.Number()),
	flag: Type.Optional(Type.Boolean()),
	label: Type.Optional(Type.String()),
});

/** A tool that records the arguments it ran with. */
export function recordingTool(calls: unknown[], name = "record") {
	const tool: AgentTool<typeof recordSchema> = {
		name,
		description: "Records its arguments.",
		parameters: recordSchema,
		execute: async (_id, args) => {
			calls.push(args);
			return { content: [{ type: "text", text: `recorded ${args.path}` }], details: args };
		},
	};
	return tool;
}

/** Builds a tool call with a generated id. */
export function call(name: string, args: Record<string, unknown>, id?: string): ToolCall {
	return { type: "toolCall", id: id ?? `${name}-${Math.random().toString(36).slice(2, 8)}`, name, arguments: args };
}
