import { keptLinesScript } from "../shell/kept-lines.js";
import { keptOutputScript } from "../shell/kept-output.js";
import { rawFitsScript } from "./frame-size.js";

/**
 * `toolbeltRun MODE KEEP FITBYTES FITLINES CWD N VARS… FILE ARGS…` starts the command in its
 * own session (its process group id is its pid, sent back on stderr), with stdout and stderr
 * merged in arrival order, and reports its exit status on stderr. `N` variables follow,
 * `NAME=value` each, exported in the command's own subshell (no env process, nothing leaks into
 * the next run). `KEEP FITBYTES FITLINES` say where the output goes: `0 0 0` streams it over the
 * connection; otherwise it goes to a file on the remote side and only its final tail frame comes
 * (see `kept-output.ts`; a long command's progress is read by a watcher of its own); the file is
 * removed when the raw output fits the budget, else kept until the session's orderly end. MODE
 * `session`: stdin is empty, and the loop goes on afterwards; `once`: stdin is the rest of the
 * session's stdin, and the session ends after the run.
 */
const runFunction = String.raw`
toolbeltRun() {
	mode=$1; keep=$2; fitBytes=$3; fitLines=$4; shift 4
	[ -n "$toolbelt_umask" ] || toolbeltSetup
	cd -- "$1" 2>/dev/null || { printf 'TOOLBELT_NOCWD\n' >&2; return 0; }
	shift
	if [ "$keep" -gt 0 ]; then
		# A private name (the token is random, the umask 077) created exclusively: no mktemp to start.
		count=$((count + 1)); files=$((files + 1)); out=$prefix.$count
		set -C
		{ command exec 4>"$out"; } 2>/dev/null || { set +C; printf 'TOOLBELT_NOFILE\n' >&2; return 0; }
		set +C
	else
		exec 4>&1
	fi
	if [ "$mode" = once ]; then exec 3<&0; else exec 3</dev/null; fi
	(
		umask "$toolbelt_umask"
		n=$1; shift
		while [ "$n" -gt 0 ]; do export "$1"; shift; n=$((n - 1)); done
		[ "$has_setsid" = yes ] && exec setsid "$@"
		exec "$@"
	) <&3 >&4 2>&1 &
	pid=$!
	exec 3<&- 4>&-
	# One write for both lines: one packet each way fewer.
	if [ "$keep" -gt 0 ]; then printf 'TOOLBELT_FILE %s\nTOOLBELT_PID %s\n' "$out" "$pid" >&2
	else printf 'TOOLBELT_PID %s\n' "$pid" >&2; fi
	running=$pid; wait "$pid"; code=$?; running=
	fits=no
	if [ "$keep" -gt 0 ]; then
		# Background jobs of the command still run: the session stops them when it ends.
		alive=no; kill -0 "-$pid" 2>/dev/null && alive=yes
		keptOutputFrame F
		[ "$alive" = yes ] && { printf 'TOOLBELT_ALIVE\n' >&2; groups="$groups $pid"; }
		${rawFitsScript} && fits=yes
		# A cut output: the lines worth keeping from it follow the frame (see kept-lines.ts).
		[ "$fits" = yes ] || toolbeltKeptLines
	fi
	printf 'TOOLBELT_EXIT %s\n' "$code" >&2
	# After the report: the caller goes on meanwhile.
	[ "$toolbelt_sweep" = sweep ] && { toolbelt_sweep=; toolbeltSweep; }
	[ "$fits" = yes ] && LC_ALL=C rm -f -- "$out" && files=$((files - 1))
}
`;

/** How the token of a session's file names is written: 24 lowercase hex digits (see `ShellSession.open`). */
const TOKEN_PATTERN = "[0-9a-f]".repeat(24);

/**
 * `toolbeltSweep`, in the background: removes kept files a session of an earlier toolbelt left
 * behind (its connection dropped, toolbelt was killed) once they are a day old. Only what is
 * surely ours: regular files (find tests the entry itself and never follows a symlink) owned by
 * this uid, with one link (a hard link planted by someone else names a file that is not ours to
 * unlink), named as the session names them, at the top of the temp folder. The shell's glob picks
 * the names (no stat of the folder's other entries, which may be thousands): find looks at those only.
 */
const sweepFunction = `
toolbeltSweep() {
	( set --
	# Its own files are young: with no other candidate, no process is started.
	for path in "$folder"/toolbelt-shell.${TOKEN_PATTERN}.[1-9]*; do
		case $path in "$prefix".*) ;; *) { [ -e "$path" ] || [ -L "$path" ]; } && set -- "$@" "$path";; esac
	done
	[ $# -gt 0 ] || exit 0
	uid=$(id -u) || exit 0
	exec find "$@" -prune -type f -links 1 -user "$uid" -mtime +0 -exec rm -f -- {} + ) </dev/null >/dev/null 2>&1 &
}
`;

/**
 * The remote script of a shell session (`$1`: a random token naming its files; `$2`: `sweep` to
 * start `toolbeltSweep` after its first run's report, off the path of any answer). It answers the
 * checks a shell tool makes before it runs a command — `dir PATH` (is it a folder?), `which NAME`
 * (where is the program?) — one quoted line each, on stderr as `TOOLBELT_ANSWER …`; `run ARGS…`
 * runs `toolbeltRun session ARGS…` and reads the next line after it; `drop PATH…` removes kept
 * files, its own or other sessions' (no answer); `frame PATH SIZE LENGTH NEWLINES` sends a kept file's tail again as a final
 * frame of LENGTH bytes (then `TOOLBELT_FRAMED` on stderr); `once ARGS…` makes the rest of the session `toolbeltRun once ARGS…` (its stdin
 * then holds only what the command gets), and nothing of it is cleaned up by the session; `bye`
 * is the orderly end.
 *
 * When it ends, the session kills the process groups its runs left running. Only after `bye` (the
 * workspace closed it) does it remove its kept output files too, so closing a workspace costs no
 * further remote command; when its stdin merely ends (the connection dropped, the client died)
 * they stay, since their paths were named to the model: the workspace removes them when it closes,
 * else a later session's sweep once they are a day old. `TOOLBELT_CLEAN yes` on stderr says it
 * removed them, `TOOLBELT_CLEAN` that it kept them.
 */
export const sessionScript = `${keptOutputScript}${keptLinesScript}${runFunction}${sweepFunction}${String.raw`
nl='
'
folder=$TMPDIR; [ -d "$folder" ] || folder=/tmp
prefix=$folder/toolbelt-shell.$1
count=0; files=0; groups=; running=; alive=no; toolbelt_bye=; toolbelt_sweep=$2
toolbelt_umask=
has_setsid=no; command -v setsid >/dev/null 2>&1 && has_setsid=yes
# Output files are private (umask 077; commands get the original back): set up after the first
# answer, while the client reads it. Linux names the umask on the second line of the shell's own
# status file, read by builtins; elsewhere reading it takes a fork.
toolbeltSetup() {
	{ read -r _ && read -r toolbelt_key toolbelt_umask; } </proc/self/status 2>/dev/null
	case $toolbelt_key:$toolbelt_umask in Umask::[0-7][0-7][0-7][0-7]) ;; *) toolbelt_umask=$(umask);; esac
	umask 077
}
toolbeltCleanup() {
	trap '' PIPE
	# A run still going when the session ends (its shell was signalled) goes with it.
	for group in $groups $running; do kill -KILL "-$group" 2>/dev/null; kill -KILL "$group" 2>/dev/null; done
	# Its own names, not a glob: the temp folder may hold thousands of entries to match.
	if [ "$toolbelt_bye" = yes ] && [ "$files" != 0 ]; then
		set --; number=1
		while [ "$number" -le "$count" ]; do set -- "$@" "$prefix.$number"; number=$((number + 1)); done
		LC_ALL=C rm -f -- "$@"
	fi
	# The client waits for this line, not for the channel's teardown.
	printf 'TOOLBELT_CLEAN %s\n' "$toolbelt_bye" >&2
}
trap toolbeltCleanup EXIT
trap 'exit 1' HUP INT TERM PIPE
while IFS= read -r line; do
	eval "set -- $line"
	case $1 in
	dir) answer=; [ -d "$2" ] && answer=yes; printf 'TOOLBELT_ANSWER %s\n' "$answer" >&2;;
	which)
		answer=
		case $2 in */*) [ -x "$2" ] && [ ! -d "$2" ] && answer=$2;; *) answer=$(command -v -- "$2");; esac
		printf 'TOOLBELT_ANSWER %s\n' "$answer" >&2;;
	run) shift; toolbeltRun session "$@";;
	drop)
		shift; LC_ALL=C rm -f -- "$@"
		# Only its own files count: the cleanup looks for them when some are left.
		for path do case $path in "$prefix".*) files=$((files - 1));; esac; done;;
	bye) toolbelt_bye=yes; exit 0;;
	frame)
		# A wider final frame of a kept file: LENGTH bytes before SIZE (background jobs may append).
		[ -f "$2" ] || set -- "$1" "$2" "$3" 0 "$5"
		printf 'F %s %s %s\n' "$3" "$4" "$5"
		[ "$4" -gt 0 ] && LC_ALL=C tail -c "+$(($3 - $4 + 1))" "$2" | LC_ALL=C head -c "$4"
		printf 'TOOLBELT_FRAMED\n' >&2;;
	once) shift; trap - EXIT HUP INT TERM PIPE; toolbeltRun once "$@"; exit 0;;
	esac
	[ -n "$toolbelt_umask" ] || toolbeltSetup
done
`}`;
