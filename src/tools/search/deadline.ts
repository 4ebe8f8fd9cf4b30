// The deadline lives with the engine's other abort helpers; this path stays for the search modules.
export { type Deadline, startDeadline } from "../../engine/index.js";
