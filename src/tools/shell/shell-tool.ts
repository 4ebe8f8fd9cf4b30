import type { AgentTool, ToolDefinition } from "../../engine/index.js";
import { type CommandTarget, commandTarget } from "../../workspace/index.js";
import { localShellOperations } from "../../workspace/local/index.js";
import { compileNewlineCountAhead } from "../read/newline-count.js";
import { prepareAhead } from "../registry/prepare-ahead.js";
import { toolFrom } from "../tool-definition.js";
import { judgeEnvironmentAhead } from "./environment.js";
import { prepareShellArguments } from "./prepare-arguments.js";
import type { ShellResolver } from "./resolve-shell.js";
import { shellToolExecute } from "./run-shell-tool.js";
import type { ShellCommandSchema } from "./schema-fields.js";
import type { ShellToolDetails, ShellToolOptions } from "./types.js";

/** What `createShellTool` builds a shell tool (bash, powershell) from. */
export interface ShellToolSpec<TSchema extends ShellCommandSchema> {
	/** The tool's model-facing definition. */
	definition: ToolDefinition<TSchema>;
	/** The tool's working directory. */
	cwd: string;
	/** The tool's options. */
	options: ShellToolOptions;
	/** The shell's syntax, so command rules split the command the way that shell would. */
	dialect: CommandTarget["dialect"];
	/** Finds the shell binary and how it takes the command. */
	resolveShell: ShellResolver;
}

/**
 * A runnable shell tool: the one shell runner, with one shell's syntax and binary. The shell its
 * first command will run in is started as it is created (`ShellOperations.prepare`): that start (a
 * fork of this process) and the shell's cgroup join then happen before any call, where a model's
 * reply or the caller's own work leaves time, instead of on the first call's path; so is the
 * code that builds a command's environment compiled (`judgeEnvironmentAhead`), and the output's
 * line count (`compileNewlineCountAhead`).
 */
export function createShellTool<TSchema extends ShellCommandSchema>(
	spec: ShellToolSpec<TSchema>,
): AgentTool<TSchema, ShellToolDetails> {
	const operations = spec.options.operations ?? localShellOperations;
	const ahead = prepareAhead(() => operations.prepare?.(spec.cwd, "created"), spec.options.prepareAfterMs);
	judgeEnvironmentAhead();
	void compileNewlineCountAhead();
	const execute = shellToolExecute(spec.cwd, spec.options, spec.resolveShell);
	return toolFrom(spec.definition, {
		prepareArguments: prepareShellArguments,
		target: ({ command }) => commandTarget(command, spec.dialect),
		execute: (...call) => {
			ahead.beforeCall();
			return execute(...call);
		},
	});
}
