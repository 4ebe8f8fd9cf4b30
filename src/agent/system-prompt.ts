import type { ToolDefinition } from "../engine/types.js";

/** Options of `buildSystemPrompt`. */
export interface SystemPromptOptions {
	/** The tools the model may call; each is listed with the first line of its description. */
	tools: readonly Pick<ToolDefinition, "name" | "description">[];
	/** The working directory the tools resolve paths against. */
	cwd: string;
	/** The date to state (the model's training cut-off is older). Default: now. */
	date?: Date;
	/** Text appended at the end (project rules, user instructions). Default: none. */
	append?: string;
	/** Operating system name to state. Default: `process.platform`. */
	platform?: string;
}

const GUIDANCE = `Guidelines:
- Look before you change: read the relevant files and search the code base before editing.
- Prefer small, exact edits to rewriting whole files; write only new files or full rewrites.
- Paths are relative to the working directory unless absolute.
- Run the project's tests or build after a change when you can, and report what you ran.
- When a tool fails, read its message: it says what went wrong and what to try next.
- Do not run destructive commands (deleting files, resetting git history) unless asked to.
- Be concise. Show file paths when you talk about code. Finish with a short summary of what you did.`;

/** The first line of a description, trimmed, so the tool list stays short. */
function summary(description: string): string {
	const line = description.trim().split("\n", 1)[0] ?? "";
	return line.length > 200 ? `${line.slice(0, 197)}...` : line;
}

/**
 * Builds a concise system prompt for a coding agent: its role, the available tools, guidance for
 * working on a code base, the working directory and today's date.
 */
export function buildSystemPrompt(options: SystemPromptOptions): string {
	const date = (options.date ?? new Date()).toISOString().slice(0, 10);
	const tools =
		options.tools.length > 0
			? options.tools.map((tool) => `- ${tool.name}: ${summary(tool.description)}`).join("\n")
			: "(no tools: answer from the conversation alone)";
	const sections = [
		"You are a coding agent working in a software project on the user's machine. You help by reading, searching, editing and running code with the tools below.",
		`Available tools:\n${tools}`,
		GUIDANCE,
		`Working directory: ${options.cwd}\nPlatform: ${options.platform ?? process.platform}\nToday's date: ${date}`,
	];
	if (options.append?.trim()) sections.push(options.append.trim());
	return sections.join("\n\n");
}
