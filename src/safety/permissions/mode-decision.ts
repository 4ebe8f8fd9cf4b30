/** How the permission modes treat a call no rule decided: by the category of what it does. */
import { commandTools, type PermissionBehavior, type PermissionMode } from "./rule-syntax.js";

/** How a tool is treated by the modes. */
export type ToolCategory = "read" | "edit" | "execute" | "other";

/**
 * The category of a tool: built-ins by name, others by their `readOnlyHint` annotation.
 * @deprecated Guards use `categoryOfAccess` (by the call's declared access); kept for callers without a target.
 */
export function toolCategory(toolName: string, readOnlyHint?: boolean): ToolCategory {
	if (["read", "ls", "grep", "find"].includes(toolName)) return "read";
	if (toolName === "write" || toolName === "edit") return "edit";
	if (commandTools[toolName]) return "execute";
	return readOnlyHint === true ? "read" : "other";
}

/** The category of a call by its declared access: what the modes decide on. */
export function categoryOfAccess(
	access: string | undefined,
	hasCommand: boolean,
	readOnlyHint?: boolean,
): ToolCategory {
	if (access === "read" || access === "list") return "read";
	if (access === "write") return "edit";
	// A declared "execute" is what it says, whatever the tool's annotations claim.
	if (hasCommand || access === "execute") return "execute";
	return readOnlyHint === true ? "read" : "other";
}

/** What a mode decides for a call that no rule matched. */
export function modeDecision(mode: PermissionMode, category: ToolCategory): PermissionBehavior {
	if (category === "read" || mode === "yolo") return "allow";
	if (mode === "read-only") return "deny";
	if (mode === "accept-edits" && category === "edit") return "allow";
	return "ask";
}
