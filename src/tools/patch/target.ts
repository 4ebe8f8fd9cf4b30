import { isWorkspaceTarget, type Workspace, type WorkspaceTarget } from "../../workspace/index.js";
import { type PatchOperation, parsePatch, pathsOfPatch } from "./parse.js";

/** The declared part for one path of a patch: every part writes; only an added file is created whole. */
function declarePart(workspace: Workspace, path: string, created: boolean): Promise<WorkspaceTarget> {
	// A new name is taken as written: an existing near-miss must not be overwritten in its stead.
	return workspace.resolveTarget({ access: "write", path, partial: !created }, { nearMiss: !created });
}

function resolveGroups(workspace: Workspace, operations: readonly PatchOperation[]): Promise<WorkspaceTarget[][]> {
	return Promise.all(
		operations.map((operation) => {
			if (operation.kind === "add") return Promise.all([declarePart(workspace, operation.path, true)]);
			if (operation.kind === "delete") return Promise.all([declarePart(workspace, operation.path, false)]);
			const source = declarePart(workspace, operation.path, false);
			if (operation.moveTo === undefined) return Promise.all([source]);
			return Promise.all([source, declarePart(workspace, operation.moveTo, true)]);
		}),
	);
}

/**
 * The target of an apply_patch call: `write` access, with one part per path the patch touches
 * (a move has two), each resolved by the workspace, so the guards judge every file. A patch that
 * does not parse has no parts; the tool then reports the parse error and changes nothing.
 */
export async function declarePatchTarget(workspace: Workspace, patch: string): Promise<WorkspaceTarget> {
	let operations: PatchOperation[];
	try {
		operations = parsePatch(patch);
	} catch {
		return { access: "write", partial: true, workspace, parts: [] };
	}
	const parts = (await resolveGroups(workspace, operations)).flat();
	const target: WorkspaceTarget = { access: "write", partial: true, workspace, parts };
	// The patch touches what its files touch; one unknown part leaves the whole call unknown.
	if (parts.every((part) => part.touches)) target.touches = parts.flatMap((part) => part.touches ?? []);
	return target;
}

/**
 * The parts of each operation: those the engine carried (the same objects the guards judged and
 * confined) when they are this patch's, else resolved now (a direct `execute`).
 */
export async function targetsOfPatch(
	workspace: Workspace,
	operations: readonly PatchOperation[],
	given: WorkspaceTarget | undefined,
): Promise<WorkspaceTarget[][]> {
	const paths = pathsOfPatch(operations);
	const parts = isWorkspaceTarget(given) && given.workspace === workspace ? given.parts : undefined;
	if (!parts || parts.length !== paths.length || parts.some((part, index) => part.path !== paths[index])) {
		return resolveGroups(workspace, operations);
	}
	let next = 0;
	return operations.map((operation) => {
		const count = operation.kind === "update" && operation.moveTo !== undefined ? 2 : 1;
		const group = parts.slice(next, next + count);
		next += count;
		return group;
	});
}
