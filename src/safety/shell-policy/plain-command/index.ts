/** Which command lines are one program and its plain words, without the bash parser. */
export { plainCommandTexts } from "./plain-command.js";
