/** Which command lines are one program and its plain words, without the bash parser. */
export { isPlainArgument, plainCommandTexts } from "./plain-command.js";
