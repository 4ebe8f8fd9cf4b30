/** ANSI styling that turns itself off for pipes and `NO_COLOR`. */
export interface Style {
	dim(text: string): string;
	bold(text: string): string;
	red(text: string): string;
	green(text: string): string;
	cyan(text: string): string;
	yellow(text: string): string;
}

function wrap(open: number, close: number): (text: string) => string {
	return (text) => `\x1b[${open}m${text}\x1b[${close}m`;
}

const identity = (text: string) => text;

/** ANSI colours when `enabled`, plain text otherwise. */
export function createStyle(enabled: boolean): Style {
	if (!enabled)
		return { dim: identity, bold: identity, red: identity, green: identity, cyan: identity, yellow: identity };
	return {
		dim: wrap(2, 22),
		bold: wrap(1, 22),
		red: wrap(31, 39),
		green: wrap(32, 39),
		cyan: wrap(36, 39),
		yellow: wrap(33, 39),
	};
}

/** Whether to colour a terminal stream: yes unless `NO_COLOR` is set (https://no-color.org). */
export function colorEnabled(isTTY: boolean, env: Record<string, string | undefined>): boolean {
	if (env.NO_COLOR !== undefined && env.NO_COLOR !== "") return false;
	if (env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== "0") return true;
	return isTTY && env.TERM !== "dumb";
}
