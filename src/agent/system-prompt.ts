import type { ToolDefinition } from "../engine/index.js";

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

/** The first line of a description, trimmed, so the tool list stays short. */
function summary(description: string): string {
	const line = description.trim().split("\n", 1)[0] ?? "";
	return line.length > 200 ? `${line.slice(0, 197)}...` : line;
}

/** How to work, fitted to the tools: a read-only agent is not told to edit, one without a shell not to run tests. */
function guidance(names: ReadonlySet<string>): string[] {
	const changes = names.has("edit") || names.has("write") || names.has("apply_patch");
	const shell = names.has("bash") || names.has("powershell");
	return [
		"Guidelines:",
		"- Look before you act: find and read the relevant files instead of guessing their contents.",
		...(names.has("grep") || names.has("find") || names.has("ls")
			? ["- Prefer grep, find and ls for searching and listing over shell commands that do the same."]
			: []),
		...(changes
			? [
					...(names.has("apply_patch")
						? [
								"- Change files with apply_patch: one patch (*** Begin Patch … *** End Patch) can add, update, move and delete several files, applied all or nothing; read a file before patching it.",
							]
						: []),
					...(names.has("edit") || names.has("write")
						? [
								"- Change files with edit (exact old_string → new_string) and create them with write; read a file before editing it.",
							]
						: []),
					"- Keep changes focused on what was asked; follow the project's existing style.",
				]
			: ["- You can only read: do not claim to have changed anything."]),
		...(shell ? ["- Run the project's tests or build after a change when that is cheap, and report what failed."] : []),
		...(shell && names.has("bash_output")
			? [
					"- Start anything that does not end by itself (a dev server, a watcher, a long run you want to check on) with run_in_background: true, then read it with bash_output; never wait on it in the foreground.",
					"- Kill each background job with bash_kill as soon as it is no longer needed.",
				]
			: []),
		"- Paths are relative to the working directory unless absolute.",
		"- When a tool fails, read its message: it says what went wrong and what to try next.",
		...(shell ? ["- Do not run destructive commands (deleting files, resetting git history) unless asked to."] : []),
		"- Independent look-ups can go in one reply as several tool calls; they run in parallel.",
		...(names.has("code")
			? [
					"- When a question needs many calls whose results you would only filter, count or combine (search, then read each hit), write one code program that calls the tools and returns just the answer.",
				]
			: []),
		"- Be concise. When done, say briefly what you found or changed, with file paths.",
	];
}

/**
 * Builds the system prompt of a coding agent (the CLI's default): its role, the available tools,
 * guidance fitted to those tools, the working directory, platform and today's date.
 *
 * @example
 * const systemPrompt = buildSystemPrompt({ tools, cwd: process.cwd() });
 */
export function buildSystemPrompt(options: SystemPromptOptions): string {
	const date = (options.date ?? new Date()).toISOString().slice(0, 10);
	const tools =
		options.tools.length > 0
			? options.tools.map((tool) => `- ${tool.name}: ${summary(tool.description)}`).join("\n")
			: "(no tools: answer from the conversation alone)";
	const sections = [
		"You are a coding agent working in a software project on the user's machine. You act through the tools below and answer concisely.",
		`Available tools:\n${tools}`,
		guidance(new Set(options.tools.map((tool) => tool.name))).join("\n"),
		`Working directory: ${options.cwd}\nPlatform: ${options.platform ?? process.platform}\nToday's date: ${date}`,
	];
	if (options.append?.trim()) sections.push(options.append.trim());
	return sections.join("\n\n");
}
