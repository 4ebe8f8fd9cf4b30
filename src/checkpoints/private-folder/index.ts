// The user's own private state folder (checked, then used): a part of its own, because the CLI's
// first module (`cli/start.ts`, bundled alone for a quick start) needs it without the rest of
// checkpoints/. The checkpoint store, the session recorder and the code cache all keep state there.
export {
	inspectPrivateFolder,
	type PrivateFolderCheck,
	type PrivateFolderOptions,
	privateFolder,
} from "./private-folder.js";
