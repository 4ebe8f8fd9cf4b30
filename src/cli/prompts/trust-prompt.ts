import type { ReadStream } from "node:tty";
import type { ProjectSettingsReview, ProjectSettingsTrust, WideningSetting } from "../../safety/index.js";
import type { CliIO } from "../io.js";
import type { Style } from "../render/style.js";
import { keyAnswer } from "./key-answer.js";

/** The person's answer about a folder: trust it (remembered until its settings file changes), for this session only, or not. */
export type TrustAnswer = "trust" | "session" | "no";

/**
 * A repository's text made safe for a terminal: control characters (escape sequences) dropped,
 * and characters that reorder or hide text (bidi controls, zero-width) shown as `\u{…}`, so the
 * person reads what would run, not what the file's author wants them to see.
 */
export function terminalSafe(text: string): string {
	return text
		.replace(/\r?\n/g, " ⏎ ")
		.replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g, "")
		.replace(/[\u061c\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff]/g, (character) => {
			return `\\u{${character.codePointAt(0)?.toString(16)}}`;
		});
}

/** One line per widening setting: `  hooks.PreToolUse: ./scripts/check.sh (matcher bash)`. */
export function formatWideningSettings(settings: readonly WideningSetting[], indent = "  "): string {
	return settings.map((setting) => `${indent}${setting.key}: ${terminalSafe(setting.value)}`).join("\n");
}

/**
 * What `run`, `tool` and `mcp` say once on stderr in an untrusted folder: the file, each setting
 * ignored, and how to trust it. Undefined when nothing was ignored. `modeFromCaller` drops
 * `permissions.defaultMode` from the list (a flag or the command set the mode, so it was moot).
 */
export function untrustedNotice(project: ProjectSettingsTrust | undefined, modeFromCaller = false): string | undefined {
	const ignored = (project?.ignored ?? []).filter(
		(setting) => !(modeFromCaller && setting.key === "permissions.defaultMode"),
	);
	if (!project || ignored.length === 0) return undefined;
	return (
		`toolbelt: this folder is not trusted, so these settings of ${terminalSafe(project.file)} were ignored ` +
		"(they would widen what runs):\n" +
		`${formatWideningSettings(ignored)}\n` +
		"Its deny and ask rules and stricter settings still apply. If you trust the file, pass --trust-project " +
		'(or list the folder in "trustedProjects" in ~/.toolbelt/settings.json).\n'
	);
}

/**
 * Asks the person at the terminal, once per start, whether the folder's settings file may widen
 * what runs, showing every such setting: t (trust, remembered in ~/.toolbelt/trusted-folders.json
 * until the file changes), s (this session only), n (don't trust). One key press; Esc, Ctrl-C and
 * Ctrl-D answer no. Asked before the session starts, so it puts the terminal in raw mode itself.
 */
export class TerminalTrustPrompt {
	private readonly io: CliIO;
	private readonly style: Style;

	constructor(options: {
		/** The terminal: the question goes to stdout, the key is read from stdin. */
		io: CliIO;
		/** Colours. */
		style: Style;
	}) {
		this.io = options.io;
		this.style = options.style;
	}

	/** The question for `createCliSafety({ askTrust })`. */
	readonly ask = async (review: ProjectSettingsReview): Promise<TrustAnswer> => {
		const { io, style } = this;
		io.stdout.write(
			`${style.yellow("?")} ${style.bold("Trust this folder's settings?")} ${terminalSafe(review.file)} would:\n` +
				`${formatWideningSettings(review.widening, "    ")}\n` +
				`  ${style.dim("Hooks run as commands on this machine. Trust only a repository whose files you know; its deny and ask rules apply either way.")}\n` +
				`  ${style.bold("t")}rust (until the file changes) · ${style.bold("s")}ession only · ${style.bold("n")}o (ignore these settings) `,
		);
		const answer = await this.readAnswer();
		const label = { trust: "trusted", session: "trusted for this session", no: "not trusted" }[answer];
		io.stdout.write(`${answer === "no" ? style.red(label) : style.green(label)}\n\n`);
		return answer;
	};

	private readAnswer(): Promise<TrustAnswer> {
		const input = this.io.stdin as Partial<ReadStream> & typeof this.io.stdin;
		const raw = typeof input.setRawMode === "function" && input.isTTY === true;
		if (raw) input.setRawMode?.(true);
		return new Promise((resolve) => {
			const finish = (answer: TrustAnswer) => {
				input.off("data", onData);
				input.off("end", onEnd);
				input.pause();
				if (raw) input.setRawMode?.(false);
				resolve(answer);
			};
			const onData = (chunk: Buffer | string) => {
				const answer = keyAnswer<TrustAnswer>(chunk, { t: "trust", s: "session" }, "no");
				if (answer) finish(answer);
			};
			const onEnd = () => finish("no");
			input.on("data", onData);
			input.once("end", onEnd);
			input.resume();
		});
	}
}
