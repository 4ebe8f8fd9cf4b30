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
 * (`OPENAI_API_KEY`, `KAGGLE_KEY`, `CI_JOB_JWT`); `_PASS`, `_PWD`, `_PAT`, `_CREDS` as a word after
 * an underscore (`DB_PASS`, `MYSQL_PWD`, `GITHUB_PAT` — never `PWD` or `OLDPWD`); `_AUTH` at the
 * end (`NPM_CONFIG__AUTH`, `COMPOSER_AUTH`, but not `SSH_AUTH_SOCK`, a socket path); password
 * managers' session variables (`OP_SESSION_…`, `BW_SESSION`) and `DOCKER_AUTH_CONFIG`.
 */
const secretNameRules: readonly RegExp[] = [
	new RegExp(secretParts.join("|")),
	/TOKEN(?![A-RT-Z])/,
	/(^|_)(KEYS?|JWT)($|_)/,
	/_(PASS|PWD|PAT|CREDS?)($|_)/,
	/_AUTH$/,
	/^OP_SESSION_|^BW_SESSION$|^DOCKER_AUTH_CONFIG$/,
];

/**
 * True when an environment variable's name marks a secret (see the rules above): such a variable
 * is kept out of commands' environments unless named in the shell tools' `passEnvironment`.
 * Covers `*_API_KEY`, `*TOKEN*`, `*SECRET*`, `*PASSWORD*`, `*PASSWD*`, `*CREDENTIAL*`,
 * `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`, `AWS_SESSION_TOKEN`, `GITHUB_TOKEN`, `NPM_TOKEN`, ….
 */
export function isSecretVariableName(name: string): boolean {
	const upper = name.toUpperCase();
	return secretNameRules.some((rule) => rule.test(upper));
}
