import type { AskPermission, PermissionAnswer } from "../../safety/index.js";

/**
 * Connects the safety layer's "ask" decision to the Agents SDK's approval flow. Pass `ask` to
 * `createSafetyLayer` and the bridge to `createOpenAIAgentsTools`: the tools' `needsApproval`
 * runs the layer's checks as a probe, and when the layer would ask the user, the SDK interrupts
 * the run for approval instead. A call the SDK then runs (approved) is answered "yes"; any other
 * question is answered "no", since the SDK's approval is the only way this session asks.
 */
export interface AgentsApprovalBridge {
	/** The `ask` callback for `createSafetyLayer`. */
	readonly ask: AskPermission;
	/** Runs `check` as a probe for `toolCallId`; true when the layer asked during it. */
	probe(toolCallId: string, check: () => Promise<unknown>): Promise<boolean>;
	/** Marks `toolCallId` as approved by the SDK (its `execute` only runs once approved). */
	approve(toolCallId: string): void;
	/** Forgets `toolCallId` once its call has finished. */
	settle(toolCallId: string): void;
}

/** Creates a bridge; share it between the safety layer and one tool set. */
export function createAgentsApprovalBridge(): AgentsApprovalBridge {
	const probing = new Map<string, { asked: boolean }>();
	const approved = new Set<string>();
	const ask: AskPermission = async (request): Promise<PermissionAnswer> => {
		const probe = probing.get(request.toolCallId);
		if (probe) {
			probe.asked = true;
			return "no";
		}
		return approved.has(request.toolCallId) ? "yes" : "no";
	};
	return {
		ask,
		async probe(toolCallId, check) {
			const state = { asked: false };
			probing.set(toolCallId, state);
			try {
				await check();
			} finally {
				probing.delete(toolCallId);
			}
			return state.asked;
		},
		approve: (toolCallId) => approved.add(toolCallId),
		settle: (toolCallId) => approved.delete(toolCallId),
	};
}
