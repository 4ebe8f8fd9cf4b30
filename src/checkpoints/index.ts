export {
	type Checkpoints,
	type CheckpointsOptions,
	createCheckpoints,
	type RestoreGuard,
	type RestoreOptions,
	type RestoreReport,
} from "./checkpoints.js";
export { type CheckpointEntry, type CheckpointFileAccess, localCheckpointFiles } from "./file-access.js";
export {
	inspectPrivateFolder,
	type PrivateFolderCheck,
	type PrivateFolderOptions,
	privateFolder,
} from "./private-folder/index.js";
export { remoteCheckpointFiles } from "./remote-file-access.js";
export {
	type Checkpoint,
	type CheckpointFile,
	CheckpointStore,
	type CheckpointStoreOptions,
	CheckpointStoreRefusedError,
	checkpointDirOf,
	DEFAULT_CHECKPOINT_MAX_AGE_MS,
	DEFAULT_CHECKPOINT_MAX_BYTES,
	DEFAULT_CHECKPOINT_MAX_LOG_BYTES,
	type FileImage,
	stateHomeOf,
} from "./store.js";
export { type CheckpointFilesOptions, checkpointFilesOf } from "./workspace-file-access.js";
