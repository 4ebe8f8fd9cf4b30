/**
 * Variables a command line may not set, because setting one runs code: the shell, the dynamic
 * loader or a program runs its value or reads its options from it (`BASH_ENV`, `LD_PRELOAD`,
 * `GIT_*`, `PAGER`), or bash evaluates the value as arithmetic when it is assigned (`RANDOM`,
 * `SRANDOM`, `OPTIND`, `HISTCMD`: `RANDOM='a[$(cmd)]'` runs `cmd`, a literal value and all).
 */

const codeVariable =
	/^(?:BASH_\w*|BASH|ENV|PS\d|PROMPT_COMMAND|PROMPT_DIRTRIM|SHELLOPTS|BASHOPTS|IFS|GLOBIGNORE|EXECIGNORE|CDPATH|FUNCNEST|HISTFILE|HISTCONTROL|INPUTRC|LD_\w+|GIT_\w+|NODE_OPTIONS|NPM_CONFIG_\w+|npm_config_\w+|PERL5OPT|PERL5LIB|PERLLIB|RUBYOPT|RUBYLIB|PYTHONSTARTUP|PYTHONPATH|PYTHONHOME|PAGER|MANPAGER|MANOPT|EDITOR|VISUAL|LESSOPEN|LESSCLOSE|LESSKEY|LESS|SSH_ASKPASS|SUDO_ASKPASS|BROWSER|TAR_OPTIONS|MAKEFLAGS|MFLAGS|GDBINIT|VIMINIT|EXINIT|MYVIMRC|ZDOTDIR|RANDOM|SRANDOM|OPTIND|HISTCMD)$/;

/**
 * True when assigning `name` runs code: by a prefix assignment, `export`/`declare`/`local`, a
 * builtin that assigns a name (`read`, `printf -v`, `getopts`, `mapfile`), or `env`/`sudo`.
 */
export function isCodeVariable(name: string): boolean {
	return codeVariable.test(name);
}
