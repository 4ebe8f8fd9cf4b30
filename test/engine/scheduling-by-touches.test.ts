import { Type } from "typebox";
import { describe, expect, it } from "vitest";
import { executeToolCalls } from "../../src/engine/execute-tool-calls.js";
import type { AgentTool } from "../../src/engine/types.js";
import { call } from "./stub-tools.js";

const schema = Type.Object({ key: Type.Optional(Type.String()), label: Type.String() });

/** What the stub tools saw: the order calls began and ended in, and which were running at once. */
interface Log {
	events: string[];
	/** Labels of the calls running now. */
	running: Set<string>;
	/** For each label, the labels that were running when it began. */
	beganBeside: Record<string, string[]>;
}

function newLog(): Log {
	return { events: [], running: new Set(), beganBeside: {} };
}

/**
 * A stub tool whose calls touch `/files/<key>` (or declare nothing without a key). A call waits,
 * before it ends, for the promise `holds[label]` gives it, so a test decides when it ends. `onTarget`
 * is told each time the engine asks a call for its target.
 */
function touchingTool(options: {
	name: string;
	mode: "parallel" | "sequential";
	log: Log;
	holds?: Record<string, () => Promise<void>>;
	onTarget?: (label: string) => void;
}): AgentTool<typeof schema> {
	const { log } = options;
	return {
		name: options.name,
		description: "Touches one key.",
		parameters: schema,
		executionMode: options.mode,
		target: ({ key, label }) => {
			options.onTarget?.(label);
			return key === undefined ? { access: "execute" } : { access: "write", touches: [`/files/${key}`] };
		},
		execute: async (_id, { label }) => {
			log.beganBeside[label] = [...log.running];
			log.running.add(label);
			log.events.push(`${label} began`);
			await options.holds?.[label]?.();
			log.running.delete(label);
			log.events.push(`${label} ended`);
			return { content: [{ type: "text", text: label }] };
		},
	};
}

/** A promise and the function that resolves it. */
function latch(): { promise: Promise<void>; open: () => void } {
	let open: () => void = () => {};
	const promise = new Promise<void>((resolve) => {
		open = resolve;
	});
	return { promise, open };
}

/** Resolves once the event loop has gone round (every pending microtask has run). */
function afterMicrotasks(): Promise<void> {
	return new Promise((resolve) => setImmediate(resolve));
}

describe("executeToolCalls: a sequential call is a barrier only for what it touches", () => {
	it("runs writes to different keys at once: the first ends only once the second has begun", {
		timeout: 60_000,
	}, async () => {
		const log = newLog();
		const secondBegan = latch();
		const tools = [
			touchingTool({
				name: "write",
				mode: "sequential",
				log,
				// The test's own barrier: with writes run one after another this never opens.
				holds: { first: () => secondBegan.promise, second: async () => secondBegan.open() },
			}),
		];
		const { messages } = await executeToolCalls({
			tools,
			toolCalls: [call("write", { key: "a.txt", label: "first" }), call("write", { key: "b.txt", label: "second" })],
		});
		expect(messages.map((message) => message.isError)).toEqual([false, false]);
		expect(log.beganBeside.second).toEqual(["first"]);
	});

	it("keeps two writes of one key, and a read after a write of it, in source order", async () => {
		const log = newLog();
		// A call ends only after the engine has looked at the next one (asked for its target) and the
		// event loop has gone round: had the next one been free to start, it would have started by then.
		const lookedAt = { w2: latch(), r: latch() };
		const holds = {
			w1: () => lookedAt.w2.promise.then(afterMicrotasks),
			w2: () => lookedAt.r.promise.then(afterMicrotasks),
		};
		const onTarget = (label: string) => {
			if (label === "w2" || label === "r") lookedAt[label].open();
		};
		const tools = [
			touchingTool({ name: "write", mode: "sequential", log, holds, onTarget }),
			touchingTool({ name: "read", mode: "parallel", log, onTarget }),
		];
		await executeToolCalls({
			tools,
			toolCalls: [
				call("write", { key: "same.txt", label: "w1" }),
				call("write", { key: "same.txt", label: "w2" }),
				call("read", { key: "same.txt", label: "r" }),
			],
		});
		expect(log.events).toEqual(["w1 began", "w1 ended", "w2 began", "w2 ended", "r began", "r ended"]);
	});

	it("orders a call on a folder with a call on a file inside it, and a call with no target against all", async () => {
		const log = newLog();
		const lookedAt = latch();
		const tools = [
			touchingTool({
				name: "write",
				mode: "sequential",
				log,
				holds: { folder: () => lookedAt.promise.then(afterMicrotasks) },
				onTarget: (label) => {
					if (label === "inside") lookedAt.open();
				},
			}),
			touchingTool({ name: "read", mode: "parallel", log }),
		];
		await executeToolCalls({
			tools,
			toolCalls: [
				call("write", { key: "d", label: "folder" }),
				call("write", { key: "d/f.txt", label: "inside" }),
				call("read", { label: "command" }),
				call("read", { key: "other.txt", label: "other" }),
			],
		});
		expect(log.events.slice(0, 4)).toEqual(["folder began", "folder ended", "inside began", "inside ended"]);
		// `command` touches everything: it waits for `inside`; `other` is a parallel read and may overlap it.
		expect(log.beganBeside.command).toEqual([]);
	});
});
