/**
 * The POSIX `sh` functions behind every remote file operation, `file_op OP ROOTS ARGS…`: the
 * script channel defines them once in its long-lived shell, and a one-off process runs them as
 * `fileScript`. `ROOTS` (real paths, one per line, or empty) confines the calls that read or change content
 * (metadata calls are not confined, as with local files): the path is resolved to its real
 * path and checked against them inside the same remote command that then does the I/O, so no
 * second round trip opens a window between check and use. Within that command the thing judged is
 * the thing used: a file read (and a file written in place) is opened first and judged by what its
 * descriptor opened (`opened_in`, where `/proc/self/fd` and `readlink` exist: Linux), a file
 * replaced, created or removed is named `./NAME` inside its folder after that folder was entered
 * with `cd -P` and judged where the shell stands (`enter_parent`), as are a folder listed, the
 * folder a new one is made in, and a rename's source (its destination's folder is held open on a
 * descriptor and judged by it), and a chmod goes through the descriptor of the file it judged.
 * Left with a window of one step where `/proc` is missing (reads, rename targets, chmod), and for
 * a chmod of a file that can be opened neither to read nor to write.
 *
 * Modes arrive in octal. Failures print `TOOLBELT_ERRNO CODE detail` on stderr and exit 97; `stat` and friends run with
 * `LC_ALL=C`, so their messages map to POSIX codes too. (Written with `%{` for the shell's `${`,
 * which a template literal would take.)
 */
export const fileLibrary = String.raw`
export LC_ALL=C
# Set per request (or, channel_dir, per loop) by the script channel; never taken from the environment.
toolbelt_staged=no; toolbelt_tag=; channel_dir=; proc_fd_known=
# Paths are always absolute here, so no "--" is needed (busybox realpath takes none).
fail() { printf 'TOOLBELT_ERRNO %s %s\n' "$1" "$2" >&2; exit 97; }
errno_of() {
	if [ -L "$1" ] && [ ! -e "$1" ]; then echo ENOENT
	elif [ -e "$1" ]; then echo EACCES
	else
		parent=$(dirname -- "$1")
		while [ ! -e "$parent" ] && [ "$parent" != / ]; do parent=$(dirname -- "$parent"); done
		if [ -d "$parent" ]; then echo ENOENT; else echo ENOTDIR; fi
	fi
}
must_exist() { [ -e "$1" ] || [ -L "$1" ] || fail "$(errno_of "$1")" "$1"; }
# The real path of a name that is not a symlink is its folder's (cd -P and PWD are built in: no
# process) plus the name; realpath is asked only about symlinks and special names.
plain_real() {
	[ -L "$1" ] && return 1
	case "%{1##*/}" in ""|.|..) return 1;; esac
	cd -P -- "%{1%/*}/" 2>/dev/null || return 1
	printf '%s/%s' "%{PWD%/}" "%{1##*/}"
}
real_of() {
	plain_real "$1" && return
	r=$(realpath "$1" 2>/dev/null) && { printf '%s' "$r"; return; }
	d=$(dirname -- "$1"); b=$(basename -- "$1")
	if [ "$d" = "$1" ]; then printf '%s' "$1"; return; fi
	printf '%s/%s' "$(real_of "$d")" "$b" | sed 's#^//#/#'
}
confine() {
	[ -z "$roots" ] && return 0
	confine_real "$(real_of "$1")" "$1"
}
# confine_real REAL NAME: REAL is a real path already (a folder the shell stands in: $PWD after cd -P).
confine_real() {
	[ -z "$roots" ] && return 0
	old_ifs=$IFS; IFS='
'
	for root in $roots; do
		root=%{root%/}
		case "$1/" in "$root"/*) IFS=$old_ifs; return 0;; esac
	done
	IFS=$old_ifs
	fail EACCES "outside the workspace roots: $2 (real path $1)"
}
# Can what a descriptor opened be told (Linux: /proc/self/fd and readlink)? Asked once per command.
proc_fd() {
	[ -n "$proc_fd_known" ] || { proc_fd_known=no; [ -e /proc/self/fd/0 ] && command -v readlink >/dev/null 2>&1 && proc_fd_known=yes; }
	[ "$proc_fd_known" = yes ]
}
# opened_in FD NAME: judges what descriptor FD opened (for NAME) by its own path, read after the
# open, so a link swapped in between a check and the open is caught: the file judged is the file used.
opened_in() {
	real=$(readlink "/proc/self/fd/$1" 2>/dev/null) || fail EACCES "cannot tell what $2 opened"
	case $real in /*) ;; *) fail EACCES "$2 opened something that is not a file ($real)";; esac
	confine_real "$real" "$2"
}
# open_read PATH: sets src to what to read PATH's content from. Where /proc tells it: the file
# opened once on descriptor 3 (judged by opened_in when confined), and read again only through
# /proc/self/fd/3 (that very file, with an offset of its own per read), so a file renamed over PATH
# meanwhile cannot mix into the call; elsewhere PATH, checked just before.
open_read() {
	src=$1
	if ! proc_fd; then confine "$1"; return 0; fi
	{ command exec 3< "$1"; } 2>/dev/null || fail "$(errno_of "$1")" "$1"
	[ -z "$roots" ] || opened_in 3 "$1"
	src=/proc/self/fd/3
}
# enter_parent PATH: with roots, enters PATH's folder (cd -P) and judges it where the shell then
# stands, so a folder swapped for a link after the check cannot move what follows (which names
# ./NAME); sets here to ./NAME (to PATH without roots).
enter_parent() {
	here=$1
	[ -z "$roots" ] && return 0
	d=%{1%/*}; d=%{d:-/}
	cd -P -- "$d" 2>/dev/null || fail "$(errno_of "$d/x")" "$d"
	confine_real "$PWD" "$1"
	here=./%{1##*/}
}
# Prints SIZE|MODE|MTIME|TYPE|LINKS straight from stat (no subshell to capture it); the caller names the type.
info() {
	stat $1 -c '%s|%a|%Y|%F|%h' -- "$2" 2>/dev/null || fail "$(errno_of "$2")" "$2"
}
# The channel counts the bytes when it takes them (toolbelt_staged=yes): then they need no second count.
check_size() {
	[ "%{toolbelt_staged:-no}" = yes ] && return 0
	n=$(($(wc -c < "$1")))
	[ "$n" = "$2" ] || fail EIO "only $n of $2 bytes arrived (the connection was lost?)"
}
# Do grep -m and head -n leave a seekable stdin just past the lines they read? Probed on a
# channel's first skip, not at its start (three processes that no other call needs), and kept in
# its folder, since each request runs in a subshell. A one-off process takes the slow path.
seek_probe() {
	seek_grep=no; seek_head=no
	[ -n "$channel_dir" ] || return 0
	if [ -s "$channel_dir/seek" ]; then read -r seek_grep seek_head < "$channel_dir/seek"; return 0; fi
	printf 'a\nb\n' > "$channel_dir/probe"
	{ counted=$(grep -a -c -m 1 ''); IFS= read -r probe; } < "$channel_dir/probe"; [ "$probe" = b ] && seek_grep=yes
	[ "$seek_grep" = yes ] || { { head -n 1 > /dev/null; IFS= read -r probe; } < "$channel_dir/probe"; [ "$probe" = b ] && seek_head=yes; }
	printf '%s %s\n' "$seek_grep" "$seek_head" > "$channel_dir/seek"
}
# size_of FILE: its size from stat, no byte read (busybox wc -c reads to the end, which a writer
# may keep moving). FILE is /proc/self/fd/3 where /proc names it: the size of the file this call opened.
size_of() { stat -L -c %s -- "$1" 2>/dev/null || fail "$(errno_of "$1")" "$1"; }
# Skips $3 lines from byte $2 and prints "NEWLINES BYTES PARTIAL", then up to $4 bytes from there.
# No byte at or past $5 (the size the read began with) is counted: a writer that appends faster
# than the skip reads would otherwise keep it reading, and its lines would be counted as if there.
# Where grep -m (or else head -n) leaves a seekable stdin just past the last line it read
# (seek_probe), the skip is one pass and no pipe (see one_pass_skip) — 10 to 30 times faster than
# the pipes; else (and for a file that is growing) head -c | head -n | wc counts what it skipped.
skip_lines() {
	seek_probe
	skip_now=$(size_of "$1"); skip_end=%{5:-$skip_now}
	[ "$skip_end" -gt "$2" ] || { printf '0 0 no\n'; return 0; }
	if [ "$skip_now" = "$skip_end" ] && one_pass_skip "$@"; then
		printf '%s %s no\n' "$3" "$((at - $2))"
		[ "%{4:-0}" -gt 0 ] && tail -c +"$((at + 1))" < "$1" | head -c "$4"
		return 0
	fi
	# head -c ends the stream at skip_end however fast the file grows. From the start no tail is needed.
	if [ "$2" = 0 ]; then counts=$(head -c "$skip_end" < "$1" | head -n "$3" | wc -lc)
	else counts=$(tail -c +"$(($2 + 1))" < "$1" | head -c "$((skip_end - $2))" | head -n "$3" | wc -lc); fi
	set -- "$1" "$2" "$3" "$4" $counts
	partial=no
	# Lines ran short: the last byte counted (not the file's last byte now) says whether one was cut.
	if [ "$5" -lt "$3" ] && [ "$6" -gt 0 ] && [ "$(tail -c +"$(($2 + $6))" < "$1" | head -c 1 | od -An -c | tr -d ' ')" != '\n' ]; then partial=yes; fi
	printf '%s %s %s\n' "$5" "$6" "$partial"
	[ "%{4:-0}" -gt 0 ] && [ "$5" = "$3" ] && tail -c +"$(($2 + $6 + 1))" < "$1" | head -c "$4"
	return 0
}
# one_pass_skip FILE FROM LINES: grep -m (head -n) reads the file itself and leaves it just past the
# lines; sets at to that position, read from /proc (not by reading on to the end). When the lines
# run short it reads on to the file's end, which a writer that starts meanwhile may keep moving
# ahead of it: so it runs under timeout, given as long as the bounded path would take at 100 MB/s
# (2 s at least), and counts only when it ended by itself, with all the lines, before skip_end.
# Otherwise (it is rare) the bounded path answers; what is counted never depends on the timing.
one_pass_skip() {
	{ [ "$seek_grep" = yes ] || [ "$seek_head" = yes ]; } || return 1
	[ -r /proc/self/fdinfo/0 ] && command -v timeout >/dev/null 2>&1 || return 1
	limit=$((2 + (skip_end - $2) / 100000000))
	at=$({
		[ "$2" = 0 ] || dd bs=1 skip="$2" count=0 2>/dev/null
		# Not "> /dev/null": GNU grep then stops at the first line, as -q would.
		if [ "$seek_grep" = yes ]; then counted=$(timeout "$limit" grep -a -c -m "$3" '') || exit 1
		else timeout "$limit" head -n "$3" > /dev/null || exit 1; counted=$3; fi
		[ "$counted" = "$3" ] || exit 1
		sed -n 's/^pos:[[:space:]]*//p' /proc/self/fdinfo/0
	} < "$1") || return 1
	[ -n "$at" ] && [ "$at" -gt "$2" ] && [ "$at" -lt "$skip_end" ]
}
# One file operation: file_op OP ROOTS ARGS…
file_op() {
op=$1; roots=$2; shift 2
case $op in
stat) info -L "$1";;
# stat, lstat and the real path at once (a line each, "E" where one failed): the calls that follow a stat.
# With $2, a fourth line: the sha256 of a regular file of at most $2 bytes (links followed; with
# ROOTS judged as a read is, by open_read), else E: the hash a write's checks ask for next.
describe)
	# A name that is no symlink (test is built in) is what it names: one stat answers for both.
	if [ -L "$1" ]; then
		followed=$(stat -L -c '%s|%a|%Y|%F|%h' -- "$1" 2>/dev/null) || followed=E
		own=$(stat -c '%s|%a|%Y|%F|%h' -- "$1" 2>/dev/null) || own=E
	else own=$(stat -c '%s|%a|%Y|%F|%h' -- "$1" 2>/dev/null) || own=E; followed=$own; fi
	# A failed stat says why (E ENOENT), as the stat operation's error would: no second request.
	[ "$followed" = E ] && followed="E $(errno_of "$1")"
	printf '%s\n%s\n' "$followed" "$own"
	if [ -e "$1" ] && r=$(plain_real "$1" || realpath "$1" 2>/dev/null); then printf '%s\n' "$r"; else echo E; fi
	[ -n "%{2:-}" ] || exit 0
	h=
	case $followed in *"|regular "*)
		[ "%{followed%%|*}" -le "$2" ] && h=$( { open_read "$1" && sha256sum < "$src" | cut -c1-64; } 2>/dev/null );;
	esac
	printf '%s\n' "%{h:-E}";;
lstat) info "" "$1";;
realpath) must_exist "$1"; plain_real "$1" && exit 0; r=$(realpath "$1" 2>/dev/null) || fail "$(errno_of "$1")" "$1"; printf '%s' "$r";;
readlink) must_exist "$1"; [ -L "$1" ] || fail EINVAL "$1"; readlink -- "$1";;
readdir)
	# Judged where the shell then stands (cd -P): a link swapped in after the check cannot move the listing.
	must_exist "$1"; [ -d "$1" ] || fail ENOTDIR "$1"; cd -P -- "$1" 2>/dev/null || fail EACCES "$1"
	confine_real "$PWD" "$1"
	for f in * .[!.]* ..?*; do
		if [ -L "$f" ]; then k=symlink; elif [ -d "$f" ]; then k=directory; elif [ -f "$f" ]; then k=file; elif [ -e "$f" ]; then k=other; else continue; fi
		# NUL-ended: a name may hold a newline, never a NUL.
		printf '%s/%s\000' "$k" "$f"
	done;;
read)
	[ -r "$1" ] || fail "$(errno_of "$1")" "$1"; [ -d "$1" ] && fail EISDIR "$1"; open_read "$1"
	if [ "$2" = 0 ]; then head -c "$3" < "$src"; else tail -c +"$(($2 + 1))" < "$src" | head -c "$3"; fi;;
skiplines)
	[ -r "$1" ] || fail "$(errno_of "$1")" "$1"; [ -d "$1" ] && fail EISDIR "$1"; open_read "$1"
	shift; skip_lines "$src" "$@";;
readfile) [ -r "$1" ] || fail "$(errno_of "$1")" "$1"; [ -d "$1" ] && fail EISDIR "$1"; open_read "$1"; cat < "$src";;
# probe MARK MAX PATHS…: per path a line "\nMARK KIND" (l link, d folder, f file, o other, m missing), then
# for a name that reads as a regular file its first MAX+1 bytes (the extra byte says it was cut).
# MARK is random per call: no file can end its record early. One request for many small files.
probe)
	mark=$1; max=$(($2 + 1)); shift 2
	for p in "$@"; do
		if [ -L "$p" ]; then k=l; elif [ -d "$p" ]; then k=d; elif [ -f "$p" ]; then k=f; elif [ -e "$p" ]; then k=o; else k=m; fi
		printf '\n%s %s\n' "$mark" "$k"
		if [ -f "$p" ] && [ -r "$p" ]; then head -c "$max" < "$p" 2>/dev/null; fi
	done;;
sha256) [ -r "$1" ] || fail "$(errno_of "$1")" "$1"; open_read "$1"; sha256sum < "$src" | cut -c1-64;;
writefile)
	confine "$1"; [ -d "$1" ] && fail EISDIR "$1"
	existed=no; [ -e "$1" ] && existed=yes
	if [ "$3" = exclusive ]; then [ -e "$1" ] || [ -L "$1" ] && fail EEXIST "$1"; fi
	enter_parent "$1"
	# A file there is opened without truncating it (>>: write access is enough, as for cat >) and
	# judged by what was opened before a byte changes; then written through that very file.
	if [ "$existed" = yes ] && [ -n "$roots" ] && proc_fd; then
		{ command exec 4>> "$here"; } 2>/dev/null || fail "$(errno_of "$1")" "$1"
		opened_in 4 "$1"; here=/proc/self/fd/4
	fi
	if [ "$3" = exclusive ]; then set -C; fi
	cat > "$here" 2>/dev/null || fail "$(errno_of "$1")" "$1"
	set +C
	[ "$existed" = no ] && chmod "$(printf '%o' $(( 0$2 & ~0$(umask) )))" "$here"
	check_size "$here" "$4";;
replacefile)
	# Parameter expansion instead of dirname and basename: two processes less per write.
	confine "$1"; d=%{1%/*}; d=%{d:-/}; b=%{1##*/}
	[ -d "$d" ] || fail "$(errno_of "$d/x")" "$d"
	# The temp file and the rename then name ./ of the folder entered and judged (see enter_parent).
	enter_parent "$1"; [ -n "$roots" ] && d=.
	if [ "$3" = exact ]; then m=$2; else m=$(printf '%o' $(( 0$2 & ~0$(umask) ))); fi
	# On the channel the request tag is random: a temp name without mktemp, made exclusively
	# (noclobber), and with the final mode at once when that needs no x bit (no chmod then).
	if [ -n "%{toolbelt_tag:-}" ]; then
		t="$d/.$b.tmp.$toolbelt_tag"
		if [ $(( 0$m & ~0666 )) = 0 ]; then umask "$(printf '%o' $(( 0777 & ~0$m )))"; chmodded=yes; else umask 077; fi
		set -C; { : > "$t"; } 2>/dev/null || fail EACCES "$d"; set +C
	else
		t=$(mktemp "$d/.$b.tmp.XXXXXX" 2>/dev/null) || fail EACCES "$d"
	fi
	trap 'rm -f "$t"' EXIT
	trap 'rm -f "$t"; exit 1' HUP INT TERM PIPE
	cat > "$t" || fail EIO "$t"
	check_size "$t" "$4"
	[ "%{chmodded:-no}" = yes ] || chmod "$m" "$t" || fail EPERM "$t"
	mv -f -- "$t" "$here" || fail EACCES "$1"
	trap - EXIT;;
mkdir)
	confine "$1"
	if [ "$2" = recursive ]; then
		# Made below the deepest folder there, entered and judged first (with roots).
		base=$1; rest=
		while [ ! -d "$base" ]; do rest=%{base##*/}%{rest:+/$rest}; base=%{base%/*}; base=%{base:-/}; done
		if [ -n "$roots" ]; then cd -P -- "$base" 2>/dev/null || fail "$(errno_of "$base")" "$base"; confine_real "$PWD" "$1"; base=.; fi
		[ -z "$rest" ] || mkdir -p -- "$base/$rest" 2>/dev/null || fail "$(errno_of "$1")" "$1"
	else
		enter_parent "$1"
		[ -e "$here" ] && fail EEXIST "$1"; mkdir -- "$here" 2>/dev/null || fail "$(errno_of "$1")" "$1"
	fi;;
rename)
	confine "$1"; confine "$2"; must_exist "$1"
	[ -d "$2" ] && [ ! -L "$2" ] && fail EISDIR "$2"
	from=$1; to=$2
	if [ -n "$roots" ]; then
		# The source inside its folder, entered and judged; the destination's folder held open on
		# descriptor 5 and judged by what that opened (Linux), else by its path just before.
		enter_parent "$1"; from=$here
		to_dir=%{2%/*}; to_dir=%{to_dir:-/}
		if proc_fd; then
			{ command exec 5< "$to_dir"; } 2>/dev/null || fail "$(errno_of "$to_dir/x")" "$to_dir"
			opened_in 5 "$2"; to=/proc/self/fd/5/%{2##*/}
		fi
	fi
	mv -f -- "$from" "$to" || fail EACCES "$2";;
unlink)
	confine "$1"; must_exist "$1"; [ -d "$1" ] && [ ! -L "$1" ] && fail EISDIR "$1"
	enter_parent "$1"; rm -f -- "$here" || fail EACCES "$1";;
rmdir)
	# An empty folder only (rmdir refuses one with entries), never a link: entered by its folder.
	confine "$1"; must_exist "$1"; { [ -d "$1" ] && [ ! -L "$1" ]; } || fail ENOTDIR "$1"
	enter_parent "$1"; rmdir -- "$here" 2>/dev/null || fail ENOTEMPTY "$1";;
symlink)
	# The link's folder is entered and judged (enter_parent); ln -s stores the target as given.
	{ [ -e "$1" ] || [ -L "$1" ]; } && fail EEXIST "$1"
	enter_parent "$1"; ln -s -- "$2" "$here" 2>/dev/null || fail "$(errno_of "$1")" "$1";;
chmod)
	confine "$1"; must_exist "$1"; target=$1
	# chmod follows a link: with roots the file is opened (to read, else to append), judged by what
	# was opened, and its mode changed through that descriptor. One that can be opened neither way
	# is changed by its path, checked just before.
	if [ -n "$roots" ] && proc_fd; then
		if { command exec 3< "$1"; } 2>/dev/null || { command exec 3>> "$1"; } 2>/dev/null; then
			opened_in 3 "$1"; target=/proc/self/fd/3
		fi
	fi
	chmod "$2" -- "$target" 2>/dev/null || fail EPERM "$1";;
*) fail ENOSYS "unknown operation $op";;
esac
}
`.replaceAll("%{", "${");

/** `fileLibrary` as one script: `sh -c fileScript sh OP ROOTS ARGS…`. */
export const fileScript = `${fileLibrary}\nfile_op "$@"\n`;
