import type { AgentEvent } from "../../agent/index.js";
import type { ToolHooks } from "../../engine/index.js";
import type { SessionRecorder } from "../../sessions/index.js";

/**
 * The agent's hooks and event listener, bound to whichever recorder records now. The agent takes
 * its hooks once, when it is made; `/resume` changes the file being recorded afterwards, so the
 * agent is given these, which ask the current recorder each time.
 */
export class RecordingSwitch {
	private readonly inner: ToolHooks;
	private recorder: SessionRecorder | undefined;
	private wrapped: ToolHooks;

	/** Records with `recorder` (none: the hooks are `inner` alone). */
	constructor(inner: ToolHooks, recorder: SessionRecorder | undefined) {
		this.inner = inner;
		this.recorder = recorder;
		this.wrapped = recorder ? recorder.wrapHooks(inner) : inner;
	}

	/** The hooks to give the agent: `inner`'s, recorded by the current recorder. */
	readonly hooks: ToolHooks = {
		beforeToolCall: (context, signal) => this.wrapped.beforeToolCall?.(context, signal),
		afterToolCall: (context, signal) => this.wrapped.afterToolCall?.(context, signal),
	};

	/** The agent's event listener: feeds the current recorder. */
	readonly onAgentEvent = (event: AgentEvent): void => this.recorder?.onAgentEvent(event);

	/** Closes the current recorder and records with `next` from now on (none: nothing is recorded). */
	switchTo(next: SessionRecorder | undefined): void {
		this.recorder?.close();
		this.recorder = next;
		this.wrapped = next ? next.wrapHooks(this.inner) : this.inner;
	}

	/** Closes the current recorder. Idempotent. */
	close(): void {
		this.recorder?.close();
	}
}
