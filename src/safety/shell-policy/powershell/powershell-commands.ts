/**
 * What a PowerShell command is, beyond its words: the other names it goes by (`rm`, `del` and
 * `Remove-Item` are one cmdlet, so a deny rule for one names them all), the cmdlets that run code
 * the rules cannot read (`Invoke-Expression`, `Start-Process`, `Set-Alias`…), the files the
 * writing cmdlets write (`Out-File`, `Set-Content`…) and where `Set-Location` goes. Programs that
 * are not cmdlets (git, find, bash) are judged by the same readers as under bash.
 */
import type { OpaqueConstructName } from "../opaque-constructs.js";
import { isLiteral, type ShellWord } from "../shell-words.js";

/** Built-in aliases, each line a cmdlet followed by its aliases (Windows PowerShell and PowerShell 7). */
const aliasLines = [
	"remove-item rm del erase rd ri rmdir",
	"copy-item copy cp cpi",
	"move-item move mv mi",
	"rename-item ren rni",
	"set-content sc",
	"add-content ac",
	"clear-content clc",
	"get-content cat gc type",
	"get-childitem dir gci ls",
	"set-location cd chdir sl",
	"push-location pushd",
	"pop-location popd",
	"invoke-expression iex",
	"invoke-command icm",
	"invoke-item ii",
	"invoke-history ihy r",
	"start-process saps start",
	"start-job sajb",
	"set-alias sal",
	"new-alias nal",
	"import-alias ipal",
	"import-module ipmo",
	"new-module nmo",
	"foreach-object % foreach",
	"where-object ? where",
	"tee-object tee",
	"new-item ni",
	"set-item si",
	"clear-item cli",
	"stop-process kill spps",
	"write-output echo write",
	"set-variable set sv",
	"invoke-webrequest iwr curl wget",
	"invoke-restmethod irm",
	"sort-object sort",
	"export-csv epcsv",
	"enter-pssession etsn",
	"invoke-wmimethod iwmi",
];

/** Every name of a command, by any of its names (lower case). */
const namesOf = new Map<string, readonly string[]>();
for (const line of aliasLines) {
	const names = line.split(" ");
	for (const name of names) namesOf.set(name, names);
}

/** Cmdlets (and Windows programs) that run code given to them, define code to run later, or load it. */
const codeCommands: ReadonlyMap<string, OpaqueConstructName> = new Map([
	["invoke-expression", "eval"],
	["invoke-command", "eval"],
	["invoke-history", "eval"],
	["add-type", "eval"],
	["new-module", "eval"],
	["import-module", "sourced code"],
	["start-process", "command runner"],
	["start-job", "command runner"],
	["start-threadjob", "command runner"],
	["invoke-item", "command runner"],
	["enter-pssession", "command runner"],
	["invoke-wmimethod", "command runner"],
	["invoke-cimmethod", "command runner"],
	["set-alias", "code run later"],
	["new-alias", "code run later"],
	["import-alias", "code run later"],
	["register-engineevent", "code run later"],
	["register-objectevent", "code run later"],
	["register-wmievent", "code run later"],
	["register-cimindicationevent", "code run later"],
	["register-scheduledjob", "code run later"],
	["register-scheduledtask", "code run later"],
	["set-psbreakpoint", "code run later"],
	["set-psreadlinekeyhandler", "code run later"],
	["cmd", "interpreter with inline code"],
	["wsl", "command runner"],
	["runas", "command runner"],
	["schtasks", "code run later"],
	["mshta", "interpreter with inline code"],
	["wscript", "interpreter with inline code"],
	["cscript", "interpreter with inline code"],
	["rundll32", "command runner"],
]);

/** Drives that hold code: a path on them defines a function or an alias (`Set-Item function:ls`). */
const codeDrive = /^(?:function|alias):/i;

/** Cmdlets that write the file named by one of these parameters or by their first positional argument. */
const writingCmdlets: ReadonlyMap<string, readonly string[]> = new Map([
	["out-file", ["-filepath", "-literalpath", "-path", "-lp", "-pspath"]],
	["set-content", ["-path", "-literalpath", "-lp", "-pspath"]],
	["add-content", ["-path", "-literalpath", "-lp", "-pspath"]],
	["clear-content", ["-path", "-literalpath", "-lp", "-pspath"]],
	["tee-object", ["-filepath", "-literalpath", "-path", "-lp", "-pspath"]],
	["new-item", ["-path", "-pspath"]],
	["export-csv", ["-path", "-literalpath", "-lp", "-pspath"]],
	["export-clixml", ["-path", "-literalpath", "-lp", "-pspath"]],
	["copy-item", ["-destination"]],
	["move-item", ["-destination"]],
]);

/** Parameters of the writing cmdlets that take no value, so the next word is not theirs. */
const switchParameters = new Set(
	"-append -force -noclobber -nonewline -confirm -whatif -passthru -asbytestream -recurse -verbose -debug -container".split(
		" ",
	),
);

/** What a PowerShell command is, from its words. */
export interface PowerShellCommand {
	/** The program word as the rules see it: its name without folder or `.exe`, in lower case. */
	program: ShellWord;
	/** Every name of the command (`remove-item`, `rm`, `del`…), the program's own included. */
	names: readonly string[];
	/** The construct that makes it unreadable (code it runs or defines), if any. */
	construct?: OpaqueConstructName;
	/** Files a writing cmdlet writes, with the cmdlet's name. */
	writes: { word: ShellWord; via: string }[];
	/** For `Set-Location` and `Push-Location`: the literal directory, `~` for home, undefined when unknown. */
	directory?: { path?: string };
}

/** The program name as PowerShell looks it up: no folder (`/` or `\`), no module prefix, no `.exe`. */
export function programName(value: string): string {
	const base = value.slice(Math.max(value.lastIndexOf("/"), value.lastIndexOf("\\")) + 1);
	return base.replace(/\.(?:exe|com|cmd|bat)$/i, "").toLowerCase();
}

/** Reads a command's words (`words[0]` is the program). */
export function powerShellCommand(words: readonly ShellWord[]): PowerShellCommand {
	const first = words[0] as ShellWord;
	const name = programName(first.value);
	const program: ShellWord = { ...first, value: name };
	const names = namesOf.get(name) ?? [name];
	const canonical = names[0] as string;
	const command: PowerShellCommand = { program, names, writes: [] };
	const args = words.slice(1);
	const construct = codeCommands.get(canonical);
	if (construct) command.construct = construct;
	else if (
		/^(?:set|new)-item$/.test(canonical) &&
		args.some((word) => codeDrive.test(word.value) || !isLiteral(word))
	) {
		command.construct = "code run later";
	}
	const parameters = writingCmdlets.get(canonical);
	if (parameters) command.writes = writtenPaths(canonical, parameters, args);
	if (canonical === "set-location" || canonical === "push-location") command.directory = directoryOf(args);
	return command;
}

/** The words a writing cmdlet writes: its path parameters' values, else its first positional argument. */
function writtenPaths(cmdlet: string, parameters: readonly string[], args: readonly ShellWord[]) {
	const written: ShellWord[] = [];
	const positional: ShellWord[] = [];
	for (let index = 0; index < args.length; index++) {
		const word = args[index] as ShellWord;
		const lower = word.value.toLowerCase();
		if (!lower.startsWith("-")) {
			positional.push(word);
			continue;
		}
		const colon = lower.indexOf(":");
		const parameter = colon === -1 ? lower : lower.slice(0, colon);
		const attached = colon === -1 ? undefined : { ...word, raw: word.raw, value: word.value.slice(colon + 1) };
		const value = attached ?? (switchParameters.has(parameter) ? undefined : args[++index]);
		if (value && parameters.includes(parameter)) written.push(value);
	}
	// Copy-Item and Move-Item take the destination second; the others take the path first.
	const position = cmdlet === "copy-item" || cmdlet === "move-item" ? 1 : 0;
	const fallback = positional[position];
	if (written.length === 0 && fallback) written.push(fallback);
	return written.map((word) => ({ word, via: cmdlet }));
}

/** Where `Set-Location` goes: its literal operand, `~` without one, unknown otherwise. */
function directoryOf(args: readonly ShellWord[]): { path?: string } {
	const operands = args.filter((word) => !/^-(?:path|literalpath|lp)$/i.test(word.value));
	const operand = operands[0];
	if (!operand) return { path: "~" };
	if (operands.length > 1 || !isLiteral(operand) || operand.value.startsWith("-")) return {};
	return { path: operand.value };
}

/**
 * True when PowerShell binds the parameters of the command `name` (a program name as `programName`
 * gives it) itself rather than passing its words to a program: a built-in alias, a
 * Verb-Noun name (cmdlets and functions) or a script (`.ps1`, `.psm1`).
 */
export function bindsParameters(name: string): boolean {
	return namesOf.has(name) || /^[a-z]+-[a-z]\w*$/.test(name) || /\.psm?1$/.test(name);
}
