import { realpath } from "node:fs/promises";
import { homedir } from "node:os";
import { resolve } from "node:path";
import { confineFileOperations } from "../../tools/index.js";
import { addRulesToSettingsFile, type ProjectDisk, projectSettingsPath } from "../settings/settings.js";
import { type ProjectSettingsTrust, recordProjectTrust, settingsContentHash } from "./trust.js";
import { trustRecordOf } from "./trust-store.js";

/** Writes the allow rules of an "always" answer to the project settings file. */
export type SaveAlwaysRules = (rules: string[]) => Promise<void>;

/**
 * How "always" answers are kept, given how the project file was applied:
 * - in a folder that is not trusted, nowhere but the session (undefined): the file's widening
 *   settings are ignored, so a rule written there would be ignored too, and vouching for the file
 *   would trust what the user declined;
 * - otherwise in the project file, and when the user's trust covered the file as it was (a trust
 *   record for it, or a file that widened nothing), the record moves to the new content, so the
 *   user's own answer does not make the next session ask again. A file that changed since it was
 *   loaded is written but not vouched for.
 */
export function alwaysRulesSaver(options: {
	/** The project directory. */
	projectDir: string;
	/** How the project file was applied at load (`LoadedSettings.project`); undefined when there was none. */
	project: ProjectSettingsTrust | undefined;
	/** Home directory of the trust records. Default: the user's home. */
	homeDir?: string;
	/** The disk the project is on, when not this machine's (a remote workspace): the file is written there. Default: this machine's. */
	projectDisk?: ProjectDisk;
}): SaveAlwaysRules | undefined {
	const { project } = options;
	if (project && !project.trusted) return undefined;
	const homeDir = options.homeDir ?? homedir();
	return async (rules) => {
		const disk = options.projectDisk && (await confinedToProject(options.projectDisk, options.projectDir));
		const file = projectSettingsPath(options.projectDir);
		const { before, after } = await addRulesToSettingsFile({ file, rules, disk });
		const hashBefore = before === undefined ? undefined : settingsContentHash(before);
		if (hashBefore !== project?.contentHash) return;
		const realProjectDir = project?.realProjectDir ?? (await trustKeyOf(options.projectDir, disk));
		const covered =
			project === undefined ||
			project.widening.length === 0 ||
			(await trustRecordOf(realProjectDir, homeDir))?.settingsHash === hashBefore;
		if (covered) await recordProjectTrust({ realProjectDir, contentHash: settingsContentHash(after) }, homeDir);
	};
}

/** The trust key of a project folder: its real path, or on another disk that disk's name for it. */
async function trustKeyOf(projectDir: string, disk: ProjectDisk | undefined): Promise<string> {
	if (!disk) return realpath(projectDir).catch(() => resolve(projectDir));
	return disk.nameOf(await disk.files.realpath(projectDir).catch(() => projectDir));
}

/**
 * The project's disk with writes kept inside the project's real folder: a `.toolbelt` that a
 * remote repository made a symlink out of the project does not carry the write elsewhere.
 */
async function confinedToProject(disk: ProjectDisk, projectDir: string): Promise<ProjectDisk> {
	const real = await disk.files.realpath(projectDir).catch(() => projectDir);
	return { ...disk, files: confineFileOperations(disk.files, [real]) };
}
