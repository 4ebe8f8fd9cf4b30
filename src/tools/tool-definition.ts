import type { TSchema } from "typebox";
import {
	type AgentTool,
	type ExecutionMode,
	prepareValidator,
	type ToolAnnotations,
	type ToolDefinition,
} from "../engine/index.js";

/**
 * What a built-in tool does to its environment, which fixes its annotations and its scheduling:
 * - `reads`: looks only (read-only, not destructive, idempotent, closed world), runs in parallel;
 * - `writes`: changes files in the workspace (destructive, closed world), runs one at a time;
 * - `runs`: runs commands (destructive, open world: a command can reach anything), one at a time.
 */
export type ToolEffect = "reads" | "writes" | "runs";

/**
 * How a built-in tool is named, presented and scheduled: its name, title and effect, and any hint
 * that differs. Each tool's module states its own (in its `defineTool` call).
 */
export interface ToolTraits<TName extends string = string> {
	/** The tool's name, e.g. `read`. */
	name: TName;
	/** A human-readable title, e.g. `Read file`. */
	title: string;
	/** What the tool does to its environment. */
	effect: ToolEffect;
	/** For `writes`: calling again with the same arguments changes nothing more (write, not edit). Default: false. */
	idempotent?: boolean;
	/** Hints that differ from what `effect` implies. Default: none. */
	hints?: Partial<Omit<ToolAnnotations, "title">>;
}

/**
 * A built-in tool's `createXToolDefinition`. The working directory and options are taken for the
 * public signature; no built-in definition depends on them.
 */
export type ToolDefinitionFactory<TParameters extends TSchema> = (
	cwd?: string,
	options?: unknown,
) => ToolDefinition<TParameters>;

function annotationsOf(traits: ToolTraits): ToolAnnotations {
	const { title, effect } = traits;
	const implied: ToolAnnotations =
		effect === "reads"
			? { title, readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false }
			: effect === "runs"
				? { title, readOnlyHint: false, destructiveHint: true, openWorldHint: true }
				: {
						title,
						readOnlyHint: false,
						destructiveHint: true,
						idempotentHint: traits.idempotent ?? false,
						openWorldHint: false,
					};
	return { ...implied, ...traits.hints };
}

/**
 * The one way a built-in tool's model-facing definition is written: its name, the JSON Schema of
 * its arguments and its description for the model, with the annotations its traits imply. Returns
 * the tool's `createXToolDefinition`; every call gives a fresh object, so a caller may change its copy.
 */
export function defineTool<TParameters extends TSchema>(
	traits: ToolTraits,
	parameters: TParameters,
	description: string,
): ToolDefinitionFactory<TParameters> {
	const { name } = traits;
	return () => ({ name, description, parameters, annotations: annotationsOf(traits) });
}

/** What a built-in tool adds to its definition to be runnable. */
export type ToolBehaviour<TParameters extends TSchema, TDetails> = Pick<
	AgentTool<TParameters, TDetails>,
	"execute" | "target" | "prepareArguments"
>;

/**
 * A runnable built-in tool: its definition and behaviour, scheduled by what it does. A read-only
 * tool runs in parallel with others; a tool that changes things (or may, like a job's stdin) is
 * a barrier (`sequential`).
 */
export function toolFrom<TParameters extends TSchema, TDetails>(
	definition: ToolDefinition<TParameters>,
	behaviour: ToolBehaviour<TParameters, TDetails>,
): AgentTool<TParameters, TDetails> {
	const executionMode: ExecutionMode = definition.annotations?.readOnlyHint ? "parallel" : "sequential";
	// At creation, not at the first call: a fresh process's first call is the one a user waits on.
	prepareValidator(definition.parameters);
	return { ...definition, executionMode, ...behaviour };
}
