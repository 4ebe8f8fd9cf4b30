/**
 * Variables a command line may not set, judged by what they change: setting one decides which code
 * runs, so the rules could no longer tell what the command runs from the words they read.
 *
 * - Code in the value: the shell, the dynamic loader or a program runs it or reads options from it
 *   (`BASH_ENV`, `LD_PRELOAD`, `PAGER`, `EDITOR`, `SHELL` for `flock -c`, `CC` for make's rules,
 *   `NODE_OPTIONS`, `*FLAGS`), or bash evaluates it as arithmetic when it is assigned (`RANDOM`,
 *   `SRANDOM`, `OPTIND`, `HISTCMD`: `RANDOM='a[$(cmd)]'` runs `cmd`, a literal value and all).
 * - Where programs are found: a search path (`PATH=. ls` runs a planted `./ls`; `GCONV_PATH`,
 *   `LOCPATH`, `NLSPATH`, `NODE_PATH`, `CLASSPATH`, every `*PATH`) or a library folder (`*LIB`).
 * - Where configuration is read, which can name programs: `HOME` and every `*HOME`, `XDG_*`
 *   (`HOME=. git status` reads a planted `./.gitconfig` whose `core.fsmonitor` runs anything),
 *   `*CONFIG*`, `*_CONF`, `TERMINFO`; and whole families a program reads as its own options (`GIT_*`,
 *   `npm_config_*`, `PYTHON*` but for a few switches).
 *
 * Every other name is data to the rules (`CI=1 npm test`, `NODE_ENV=test node x.js`, `LANG=C sort`).
 */

/** Names and families of names whose value is code, options, a program or a file of code. */
const codeVariable = new RegExp(
	`^(?:${[
		// Bash's own.
		"BASH_\\w*|BASH|ENV|PS\\d|PROMPT_COMMAND|PROMPT_DIRTRIM|SHELLOPTS|BASHOPTS|IFS|GLOBIGNORE|EXECIGNORE",
		"FUNCNEST|HISTFILE|HISTCONTROL|INPUTRC|POSIXLY_CORRECT|TEXTDOMAIN|TEXTDOMAINDIR|RANDOM|SRANDOM|OPTIND|HISTCMD",
		// The dynamic loader and the C library: libraries, conversion modules, locales, catalogs, terminals.
		"LD_\\w+|GLIBC_TUNABLES|MALLOC_\\w+|TERMINFO|TERMINFO_DIRS|HOSTALIASES|TZDIR",
		// Programs that name a program to run, by family.
		"GIT_\\w+|NPM_CONFIG_\\w+|npm_config_\\w+|XDG_\\w+|CARGO_\\w+|RUSTC_\\w+|RUSTUP_\\w+|BUNDLE_\\w+|GEM_\\w+",
		"PERL\\w*|RUBY\\w*|PYTHON(?!UNBUFFERED$|DONTWRITEBYTECODE$|IOENCODING$|HASHSEED$|UTF8$|FAULTHANDLER$|WARNDEFAULTENCODING$)\\w*",
		"NODE_REPL_EXTERNAL_MODULE|GOENV|GOTOOLCHAIN|GOROOT|GOBIN|OPENSSL_\\w+|DOTNET_STARTUP_HOOKS|CORECLR_\\w+",
		// Programs make's rules, configure scripts and build tools run by name.
		"CC|CXX|CPP|LD|AR|AS|NM|RANLIB|STRIP|OBJCOPY|OBJDUMP|FC|F77|YACC|LEX|M4|MAKE|RUSTC|RUSTDOC|CARGO|GO",
		"PYTHON|NODE|PERL|RUBY|JAVA|JAVAC|TAR|MAKESHELL|CONFIG_SHELL|CONFIG_SITE",
		// Editors, pagers, shells and helpers the user's tools start.
		"TAR_OPTIONS|MAKEFLAGS|MFLAGS|MANOPT|LESS|LESSOPEN|LESSCLOSE|LESSKEY|GDBINIT|VIMINIT|EXINIT|MYVIMRC|ZDOTDIR",
		"VISUAL|FCEDIT|TERMINAL|WGETRC|SCREENRC|CURL_HOME|CDPATH",
		// Families by the end of the name: program search paths, homes of configuration, options, programs.
		"\\w*(?:PATH|HOME|_LIB|LIB|LIBS|OPTIONS|_OPTS|OPTS|FLAGS|PAGER|EDITOR|SHELL|BROWSER|ASKPASS|PRELOAD|STARTUP)",
		"\\w*(?:_COMMAND|_CMD|WRAPPER|_RUNNER|_LAUNCHER|_INTERPRETER|_EXECUTABLE|_BIN|_PROGRAM|_PLUGINS?|_HOOKS?|_CONF)",
		// Configuration files and folders, which may name programs.
		"\\w*CONFIG\\w*|\\w*_RC|\\w*RCFILE",
	].join("|")})$`,
);

/**
 * True when assigning `name` decides which code runs: by a prefix assignment, `export`/`declare`/
 * `local`, a builtin that assigns a name (`read`, `printf -v`, `getopts`, `mapfile`), or `env`/`sudo`.
 */
export function isCodeVariable(name: string): boolean {
	// A name that long is no variable a command needs; refusing it keeps the match's cost bounded.
	return name.length > MAX_NAME_LENGTH || codeVariable.test(name);
}

/** The longest name judged; a longer one counts as code. */
export const MAX_NAME_LENGTH = 256;
