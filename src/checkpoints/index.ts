export {
	type Checkpoints,
	type CheckpointsOptions,
	createCheckpoints,
	type RestoreOptions,
	type RestoreReport,
} from "./checkpoints.js";
export { type CheckpointEntry, type CheckpointFileAccess, localCheckpointFiles } from "./file-access.js";
export { remoteCheckpointFiles } from "./remote-file-access.js";
export {
	type Checkpoint,
	type CheckpointFile,
	CheckpointStore,
	type CheckpointStoreOptions,
	checkpointDirOf,
	DEFAULT_CHECKPOINT_MAX_AGE_MS,
	DEFAULT_CHECKPOINT_MAX_BYTES,
	type FileImage,
} from "./store.js";
