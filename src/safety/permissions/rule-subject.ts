/** What a call is judged on by the rules: its analysed command, its paths, or only its tool. */
import { analyzeCommand, type CommandAnalysis, collapseBlanks, type ShellDialect } from "../shell-policy/index.js";
import { commandTools } from "./rule-syntax.js";

/** The analysis of a command subject (kept for callers of the first wave: it is computed with the subject now). */
export function analysisOf(subject: CallSubject & { kind: "command" }): CommandAnalysis {
	return subject.analysis;
}

/** What a call is judged on: its commands, its path, or only its tool name. */
export type CallSubject =
	| {
			kind: "command";
			/** The command line, whitespace collapsed. */
			command: string;
			/** The simple commands, as written. */
			parts: string[];
			/** The shell syntax of the command. Default: `bash`. */
			dialect?: ShellDialect;
			/** What the command runs and writes, and whether the rules can read it. */
			analysis: CommandAnalysis;
	  }
	| {
			kind: "path";
			lexicalPath: string;
			realPath: string;
			/** The tool reads what lies below the path (ls, grep, find), so a deny for its contents applies. */
			scansBelow?: boolean;
	  }
	| { kind: "tool" };

/**
 * Builds the subject of a call: its command (analysed in `dialect`, by default the shell the tool
 * is named after; the parser of the dialect must be loaded, `loadShellParser`, unless the command
 * is plain words, else `ShellParserNotLoaded` is thrown), else its resolved paths, else only the
 * tool.
 */
export function subjectOf(
	toolName: string,
	args: { command?: unknown },
	paths?: { lexicalPath: string; realPath: string; scansBelow?: boolean },
	dialect: ShellDialect | undefined = commandTools[toolName],
): CallSubject {
	if (dialect && typeof args.command === "string") {
		const analysis = analyzeCommand(args.command, dialect);
		// Bash's blanks only: a Unicode space is part of a word to bash, and an exact rule must not see it as one.
		const command = dialect === "bash" ? collapseBlanks(args.command) : args.command.trim().replace(/\s+/g, " ");
		return { kind: "command", command, parts: analysis.parts, dialect, analysis };
	}
	if (paths) return paths.scansBelow ? { kind: "path", ...paths, scansBelow: true } : { kind: "path", ...paths };
	return { kind: "tool" };
}
