import { applyPatchToolEntry } from "../apply-patch.js";
import { bashToolEntry } from "../bash.js";
import { bashKillToolEntry } from "../bash-kill.js";
import { bashOutputToolEntry } from "../bash-output.js";
import { codeToolEntry } from "../code-mode/code-tool.js";
import { editToolEntry } from "../edit.js";
import { findToolEntry } from "../find.js";
import { grepToolEntry } from "../grep.js";
import { lsToolEntry } from "../ls.js";
import { powerShellToolEntry } from "../powershell.js";
import { readToolEntry } from "../read.js";
import { writeToolEntry } from "../write.js";
import type { ToolEntry } from "./tool-entry.js";

/**
 * The built-in tools, one line each, in their stable order: each tool's module declares its
 * entry (`toolEntry`), and the registry derives from this table the tool names, the per-tool
 * options type (`ToolsOptions`), the name lists and the workspace seams. Adding a tool is its
 * module plus one line here.
 */
export const toolTable = [
	readToolEntry,
	writeToolEntry,
	editToolEntry,
	applyPatchToolEntry,
	bashToolEntry,
	powerShellToolEntry,
	bashOutputToolEntry,
	bashKillToolEntry,
	grepToolEntry,
	findToolEntry,
	lsToolEntry,
	codeToolEntry,
] as const;

type Entry = (typeof toolTable)[number];

/** The names of the built-in tools. */
export type ToolName = Entry["name"];

/** The options of the built-in tool `name` (its `createXTool`'s options). */
export type OptionsOfTool<TName extends ToolName> =
	Extract<Entry, { name: TName }> extends ToolEntry<TName, infer TOptions> ? TOptions : never;

/** Options for the built-in tools: one optional entry per tool, by name. */
export type PerToolOptions = { [TName in ToolName]?: OptionsOfTool<TName> };
