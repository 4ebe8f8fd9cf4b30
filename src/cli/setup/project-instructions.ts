import { open, realpath } from "node:fs/promises";
import { homedir } from "node:os";
import { join, sep } from "node:path";
import { isListedInTrustedProjects, trustRecordOf } from "../../safety/index.js";
import { booleanOption, type OptionValues } from "../args.js";
import type { CliSafety } from "./safety-setup.js";

/** The files whose text joins the system prompt in a trusted folder, in this order. */
export const PROJECT_INSTRUCTION_FILES = ["AGENTS.md", "CLAUDE.md"] as const;

/** Most bytes of instructions that join the system prompt (all files together): 32 KiB. */
export const MAX_PROJECT_INSTRUCTIONS_BYTES = 32 * 1024;

/** What the folder's instruction files gave the system prompt. */
export interface ProjectInstructions {
	/** The text to append to the system prompt; undefined when there is none or the folder is untrusted. */
	text?: string;
	/** The files that were found (read, or left unread because the folder is untrusted). */
	files: string[];
	/** True when the files exist but were not read: the folder is not trusted. */
	untrusted: boolean;
	/** Files cut at the size cap, with their full size in bytes. */
	cut: { file: string; size: number }[];
}

/**
 * Whether the person trusts this folder enough for its instruction files to steer the model:
 * `--trust-project`, the folder's settings trusted (the trust prompt's t or s, or a record),
 * a record in `~/.toolbelt/trusted-folders.json`, or `trustedProjects` in the user settings.
 * A repository cloned a minute ago is none of these: its AGENTS.md could carry instructions
 * written to turn the agent against the person running it.
 */
async function folderTrusted(realFolder: string, safety: CliSafety, flags: OptionValues, homeDir: string) {
	if (booleanOption(flags, "trust-project")) return true;
	const { settings } = safety.layer;
	if (settings.project?.trusted === true && settings.project.widening.length > 0) return true;
	const user = settings.sources.find((source) => source.scope === "user");
	if (await isListedInTrustedProjects(realFolder, user?.settings.trustedProjects ?? [], homeDir)) return true;
	return (await trustRecordOf(realFolder, homeDir)) !== undefined;
}

/** Reads at most `limit` bytes of `path`; undefined when it is not a regular file inside `realFolder`. */
async function readBounded(path: string, realFolder: string, limit: number) {
	const real = await realpath(path).catch(() => undefined);
	// A link may point at a sibling (CLAUDE.md → AGENTS.md), never out of the folder.
	if (real === undefined || !real.startsWith(realFolder.endsWith(sep) ? realFolder : realFolder + sep)) return;
	const handle = await open(real, "r").catch(() => undefined);
	if (!handle) return;
	try {
		const info = await handle.stat();
		if (!info.isFile()) return;
		const buffer = Buffer.alloc(Math.min(info.size, limit));
		const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
		return { real, bytes: buffer.subarray(0, bytesRead), size: info.size };
	} finally {
		await handle.close();
	}
}

/** Cuts at a byte count without splitting a UTF-8 character. */
function utf8Prefix(bytes: Buffer, length: number): string {
	let end = Math.min(length, bytes.length);
	while (end > 0 && end < bytes.length && ((bytes[end] ?? 0) & 0xc0) === 0x80) end--;
	return bytes.subarray(0, end).toString("utf8");
}

/**
 * Loads `AGENTS.md` and `CLAUDE.md` of the local working folder for the system prompt, when the
 * folder is trusted; at most `MAX_PROJECT_INSTRUCTIONS_BYTES` in all, a cut file marked as cut.
 * A file linked to one already read (CLAUDE.md → AGENTS.md) is read once. A remote
 * workspace (`--workspace`) is not read: its files are not here.
 */
export async function loadProjectInstructions(options: {
	/** The safety layer, whose settings say whether the folder's own settings are trusted. */
	safety: CliSafety;
	/** Command-line values (`--trust-project`). */
	flags: OptionValues;
	/** Home directory of the trust records and user settings. Default: the user's home. */
	homeDir?: string;
}): Promise<ProjectInstructions> {
	const { safety } = options;
	const none: ProjectInstructions = { files: [], untrusted: false, cut: [] };
	if (safety.workspace) return none;
	const realFolder = await realpath(safety.cwd).catch(() => safety.cwd);
	const homeDir = options.homeDir ?? homedir();
	let trusted: boolean | undefined;
	const sections: string[] = [];
	const seen = new Set<string>();
	const result: ProjectInstructions = { ...none };
	let left = MAX_PROJECT_INSTRUCTIONS_BYTES;
	for (const name of PROJECT_INSTRUCTION_FILES) {
		const read = await readBounded(join(realFolder, name), realFolder, Math.max(left, 0) + 1);
		if (!read) continue;
		result.files.push(name);
		trusted ??= await folderTrusted(realFolder, safety, options.flags, homeDir);
		if (!trusted || seen.has(read.real)) continue;
		seen.add(read.real);
		const whole = read.size <= left;
		if (left <= 0) {
			result.cut.push({ file: name, size: read.size });
			continue;
		}
		const text = whole ? read.bytes.toString("utf8") : utf8Prefix(read.bytes, left);
		left -= Buffer.byteLength(text);
		const note = whole
			? ""
			: `\n[${name} was cut here: ${read.size} bytes, the first ${Buffer.byteLength(text)} shown. Read the file for the rest.]`;
		if (!whole) result.cut.push({ file: name, size: read.size });
		sections.push(`Instructions from ${name} in the working directory (the project's own rules):\n\n${text}${note}`);
	}
	result.untrusted = trusted === false;
	if (sections.length > 0) result.text = sections.join("\n\n");
	return result;
}

/** One line for the person: which files joined the prompt, or why they did not. Empty when there are none. */
export function describeProjectInstructions(instructions: ProjectInstructions): string {
	if (instructions.files.length === 0) return "";
	const names = instructions.files.join(" and ");
	if (instructions.untrusted)
		return `${names} not read: this folder is not trusted (--trust-project, or trustedProjects in ~/.toolbelt/settings.json).`;
	const cut = instructions.cut.map((entry) => `${entry.file} cut at ${MAX_PROJECT_INSTRUCTIONS_BYTES / 1024} KB`);
	return `Instructions: ${names}${cut.length > 0 ? ` (${cut.join(", ")})` : ""}.`;
}
