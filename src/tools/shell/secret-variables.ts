// Which environment variables a command does not inherit: those whose names mark a secret. A
// prompt-injected model needs only `printenv` to hand a provider key or a deploy token to whoever
// wrote the injection, sandboxed or not; the commands an agent runs rarely need one, and a user
// who wants one passed names it (`shell.passEnvironment`).

/** Parts of a name that mark a secret wherever they appear (`PGPASSWORD`, `npm_config__authToken`). */
const secretParts = [
	"SECRET",
	"PASSWORD",
	"PASSWD",
	"PASSPHRASE",
	"CREDENTIAL",
	"APIKEY",
	"API_KEY",
	"ACCESS_KEY",
	"PRIVATE_KEY",
	"AUTHORIZATION",
	"COOKIE",
	"WEBHOOK",
	"CONNECTION_STRING",
];

/**
 * The rules, on the name in upper case: a secret part anywhere; `TOKEN` (also `…TOKENS`, but not
 * `TOKENIZERS_PARALLELISM`); the words `KEY`, `KEYS`, `JWT` between underscores or at an end
 * (`OPENAI_API_KEY`, `KAGGLE_KEY`, `CI_JOB_JWT`); `_PASS`, `_PWD`, `_PW`, `_PAT`, `_CREDS` as a word
 * after an underscore (`DB_PASS`, `MYSQL_PWD`, `LDAP_BIND_PW`, `GITHUB_PAT` — never `PWD` or `OLDPWD`); `_AUTH` at the
 * end (`NPM_CONFIG__AUTH`, `COMPOSER_AUTH`, but not `SSH_AUTH_SOCK`, a socket path); password
 * managers' session variables (`OP_SESSION_…`, `BW_SESSION`) and `DOCKER_AUTH_CONFIG`.
 */
const secretNameRules: readonly RegExp[] = [
	new RegExp(secretParts.join("|")),
	/TOKEN(?![A-RT-Z])/,
	/(^|_)(KEYS?|JWT)($|_)/,
	/_(PASS|PWD|PW|PAT|CREDS?)($|_)/,
	/_AUTH$/,
	/^OP_SESSION_|^BW_SESSION$|^DOCKER_AUTH_CONFIG$/,
];
/**
 * The rules as one expression (each is an alternation at its top level, so joining them with `|`
 * matches where any one does): V8 compiles a regular expression on its first use, twice as it
 * tiers up, and a call's environment is judged name by name on a process's first command.
 */
const secretName = new RegExp(secretNameRules.map((rule) => rule.source).join("|"));

/**
 * True when an environment variable's name marks a secret (see the rules above): such a variable
 * is kept out of commands' environments unless named in the shell tools' `passEnvironment`.
 * Covers `*_API_KEY`, `*TOKEN*`, `*SECRET*`, `*PASSWORD*`, `*PASSWD*`, `*CREDENTIAL*`,
 * `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`, `AWS_SESSION_TOKEN`, `GITHUB_TOKEN`, `NPM_TOKEN`, ….
 */
export function isSecretVariableName(name: string): boolean {
	return secretName.test(name.toUpperCase());
}

/**
 * A URL's user information, up to the last `@` before the path (a password may hold a raw `@`):
 * `postgres://user:password@host`, `redis://:password@host`, `https://token@host`.
 */
const urlUserinfo = /\b([a-z][a-z0-9+.-]*):\/\/([^\s/?#]*)@/gi;

/** Schemes where a user name alone is a credential (`https://ghp_…@github.com`, a Sentry DSN's key). */
const tokenSchemes = /^(?:https?|wss?|ftps?|git\+https?)$/i;

/**
 * Token formats that are secrets wherever they appear: GitHub, GitLab, Slack, OpenAI/Anthropic,
 * AWS key ids (long-lived and temporary), npm, Hugging Face, PyPI, Google API keys, Stripe live
 * keys, and JSON web tokens.
 */
const knownToken =
	/\b(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_\w{20,}|glpat-[\w-]{20,}|xox[abprs]-[A-Za-z0-9-]{10,}|sk-(?:ant-|proj-)?[A-Za-z0-9_-]{20,}|A(?:KIA|SIA)[0-9A-Z]{16}|npm_[A-Za-z0-9]{36}|hf_[A-Za-z0-9]{30,}|pypi-[\w-]{50,}|AIza[\w-]{35}|[rs]k_live_[A-Za-z0-9]{20,}|eyJ[\w-]{8,}\.eyJ[\w-]{8,}\.[\w-]*)/;

/**
 * A setting inside a value, `name=value` or `name: value`, as option strings and header lists
 * write them: `api-key=…,x-team=…` (OTLP exporters' headers), `Authorization: Bearer …` (git's
 * extra header), `-Djavax.net.ssl.trustStorePassword=…` (JVM options), `--token=…`. The name (its
 * leading dashes dropped, `-` and `.` read as `_`) is judged as a variable's name would be.
 */
const innerSetting = /(?<=^|[\s,;&'"])-*([A-Za-z][\w.-]*)['"]?\s*[=:]\s*['"]?(?=([^\s,;&'"]{4,}))/g;

/** An authorization as a header carries it: `Bearer <token>`, or `Basic <base64 of user:password>`. */
const authorization = /\b(?:bearer\s+[\w.~+/=-]{8,}|basic\s+([A-Za-z0-9+/]{4,}={0,2}))/gi;

/** True when `value` sets a credential by a secret's name inside it, or carries an authorization. */
function holdsNamedCredential(value: string): boolean {
	for (const [, name = "", setting = ""] of value.matchAll(innerSetting)) {
		if (!/^\d+$/.test(setting) && isSecretVariableName(name.replace(/[-.]/g, "_"))) return true;
	}
	// A Bearer token always; Basic only when it decodes to `user:password` (not the word in a sentence).
	for (const [, basic] of value.matchAll(authorization)) {
		if (basic === undefined || Buffer.from(basic, "base64").toString("latin1").includes(":")) return true;
	}
	return false;
}

/**
 * A variable's value as a command may see it, whatever the variable is called: the user
 * information of every URL in it removed when it carries a password (`user:password@`, or a bare
 * token in an http(s) URL: `DATABASE_URL`, `REDIS_URL`, `SENTRY_DSN`, a git remote with a token),
 * so the host and path stay usable; undefined when the value holds a known token format (`ghp_…`,
 * `sk-…`, `AKIA…`), sets a credential under a secret's name (`api-key=…`, `--token=…`) or carries
 * an authorization (`Bearer …`), so the variable is left out. Values without `://` or a token are returned as
 * they are.
 */
export function withoutCredentials(value: string): string | undefined {
	if (knownToken.test(value) || holdsNamedCredential(value)) return undefined;
	if (!value.includes("://")) return value;
	return value.replace(urlUserinfo, (url: string, scheme: string, userinfo: string) =>
		userinfo.includes(":") || (userinfo !== "" && tokenSchemes.test(scheme)) ? `${scheme}://` : url,
	);
}
