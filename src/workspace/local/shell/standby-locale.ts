// A standby shell waits in the C locale, with an empty environment (standby-shell.ts). The
// command's variables, set as it starts, usually name a locale (`LANG=C.UTF-8`), and bash then
// loads it: about 25 files opened and mapped, on the call's path, where a fresh bash did that at
// its own start. glibc keeps a locale it has loaded, so the standby loads the ones this process's
// environment names while it waits, and goes back to C: setting them again costs no file.

/** The variables that name a locale (a command may name several: each is loaded ahead). */
const localeVariables = [
	"LANG",
	"LC_ALL",
	"LC_CTYPE",
	"LC_COLLATE",
	"LC_MESSAGES",
	"LC_NUMERIC",
	"LC_TIME",
	"LC_MONETARY",
	"LC_ADDRESS",
	"LC_IDENTIFICATION",
	"LC_MEASUREMENT",
	"LC_NAME",
	"LC_PAPER",
	"LC_TELEPHONE",
];

/** A locale name written into shell text unquoted: plain characters only, as locale names are. */
const plainLocaleName = /^[A-Za-z0-9_.@-]{1,64}$/;

/**
 * Shell text that loads the locales `env` names into a waiting bash and returns it to the C
 * locale it started in (unsetting `LC_ALL`, the only variable it sets). Empty when `env` names no
 * locale but C or POSIX. A name the machine does not have only makes bash warn on its stderr.
 */
export function localeWarmUpScript(env: NodeJS.ProcessEnv): string {
	const names = new Set<string>();
	for (const variable of localeVariables) {
		const name = env[variable];
		if (name === undefined || name === "C" || name === "POSIX" || !plainLocaleName.test(name)) continue;
		names.add(name);
	}
	if (names.size === 0) return "";
	return `${[...names].map((name) => `LC_ALL=${name}`).join("; ")}; unset LC_ALL`;
}
