/** What the default system prompt is built from. */
export interface SystemPromptOptions {
	/** The tools' working directory. */
	cwd: string;
	/** Names of the tools the model may call. */
	toolNames: readonly string[];
	/** Operating system, e.g. `linux`. Default: `process.platform`. */
	platform?: string;
	/** Today's date. Default: now. */
	date?: Date;
}

/** The CLI's default system prompt: a careful coding agent working in `cwd` with the given tools. */
export function defaultSystemPrompt(options: SystemPromptOptions): string {
	const date = (options.date ?? new Date()).toISOString().slice(0, 10);
	const has = (name: string) => options.toolNames.includes(name);
	const changes = has("edit") || has("write");
	const lines = [
		"You are a coding agent working in a software project on the user's machine. You act through tools and",
		"answer concisely.",
		"",
		"How to work:",
		"- Look before you act: find and read the relevant files instead of guessing their contents.",
		"- Prefer grep, find and ls for searching and listing over shell commands that do the same.",
		...(changes
			? [
					"- Change files with edit (exact old_string → new_string) and create them with write; read a file before editing it.",
					"- Keep changes focused on what was asked; follow the project's existing style.",
				]
			: ["- You can only read: do not claim to have changed anything."]),
		...(has("bash") || has("powershell")
			? ["- Run the project's tests or build after a change when that is cheap, and report what failed."]
			: []),
		"- Independent look-ups can go in one reply as several tool calls; they run in parallel.",
		"- When done, say briefly what you found or changed, with file paths.",
		"",
		`Working directory: ${options.cwd}`,
		`Platform: ${options.platform ?? process.platform}`,
		`Date: ${date}`,
		`Tools: ${options.toolNames.join(", ")}`,
	];
	return lines.join("\n");
}
