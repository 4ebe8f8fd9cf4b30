/**
 * The one POSIX `sh` script behind every remote file operation: `sh -c SCRIPT sh OP ROOTS ARGS…`.
 * `ROOTS` (real paths, one per line, or empty) confines the calls that read or change content
 * (metadata calls are not confined, as with local files): the path is resolved to its real
 * path and checked against them inside the same remote command that then does the I/O, so no
 * second round trip opens a window between check and use (a symlink swapped in between the two
 * commands of one script remains possible: the remote side has no `/proc/self/fd` pinning).
 *
 * Failures print `TOOLBELT_ERRNO CODE detail` on stderr and exit 97; `stat` and friends run with
 * `LC_ALL=C`, so their messages map to POSIX codes too. (Written with `%{` for the shell's `${`,
 * which a template literal would take.)
 */
export const fileScript = String.raw`
export LC_ALL=C
# Paths are always absolute here, so no "--" is needed (busybox realpath takes none).
op=$1; roots=$2; shift 2
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
real_of() {
	r=$(realpath "$1" 2>/dev/null) && { printf '%s' "$r"; return; }
	d=$(dirname -- "$1"); b=$(basename -- "$1")
	if [ "$d" = "$1" ]; then printf '%s' "$1"; return; fi
	printf '%s/%s' "$(real_of "$d")" "$b" | sed 's#^//#/#'
}
confine() {
	[ -z "$roots" ] && return 0
	real=$(real_of "$1")
	old_ifs=$IFS; IFS='
'
	for root in $roots; do
		root=%{root%/}
		case "$real/" in "$root"/*) IFS=$old_ifs; return 0;; esac
	done
	IFS=$old_ifs
	fail EACCES "outside the workspace roots: $1 (real path $real)"
}
kind_of() {
	case "$1" in
	"regular file"|"regular empty file") echo file;;
	directory) echo directory;;
	"symbolic link") echo symlink;;
	*) echo other;;
	esac
}
info() {
	out=$(stat $1 -c '%s|%a|%Y|%F' -- "$2" 2>/dev/null) || fail "$(errno_of "$2")" "$2"
	printf '%s|%s' "$(kind_of "%{out##*|*|*|}")" "%{out%|*}"
}
check_size() {
	n=$(wc -c < "$1" | tr -d ' ')
	[ "$n" = "$2" ] || fail EIO "only $n of $2 bytes arrived (the connection was lost?)"
}
case $op in
stat) info -L "$1";;
lstat) info "" "$1";;
realpath) must_exist "$1"; r=$(realpath "$1" 2>/dev/null) || fail "$(errno_of "$1")" "$1"; printf '%s' "$r";;
readlink) must_exist "$1"; [ -L "$1" ] || fail EINVAL "$1"; readlink -- "$1";;
readdir)
	confine "$1"; must_exist "$1"; [ -d "$1" ] || fail ENOTDIR "$1"; cd -- "$1" 2>/dev/null || fail EACCES "$1"
	for f in * .[!.]* ..?*; do
		if [ -L "$f" ]; then k=symlink; elif [ -d "$f" ]; then k=directory; elif [ -f "$f" ]; then k=file; elif [ -e "$f" ]; then k=other; else continue; fi
		printf '%s/%s\n' "$k" "$f"
	done;;
read)
	confine "$1"; [ -r "$1" ] || fail "$(errno_of "$1")" "$1"; [ -d "$1" ] && fail EISDIR "$1"
	if [ "$2" = 0 ]; then head -c "$3" < "$1"; else tail -c +"$(($2 + 1))" < "$1" | head -c "$3"; fi;;
skiplines)
	confine "$1"
	# From the start no tail is needed: one pipe less for the whole skipped part.
	if [ "$2" = 0 ]; then counts=$(head -n "$3" < "$1" | wc -lc); else counts=$(tail -c +"$(($2 + 1))" < "$1" | head -n "$3" | wc -lc); fi
	set -- "$1" "$2" "$3" $counts
	partial=no
	if [ "$4" -lt "$3" ] && [ "$5" -gt 0 ] && [ "$(tail -c 1 < "$1" | od -An -c | tr -d ' ')" != '\n' ]; then partial=yes; fi
	printf '%s %s %s\n' "$4" "$5" "$partial";;
readfile) confine "$1"; [ -r "$1" ] || fail "$(errno_of "$1")" "$1"; [ -d "$1" ] && fail EISDIR "$1"; cat < "$1";;
sha256) confine "$1"; [ -r "$1" ] || fail "$(errno_of "$1")" "$1"; sha256sum < "$1" | cut -c1-64;;
writefile)
	confine "$1"; [ -d "$1" ] && fail EISDIR "$1"
	existed=no; [ -e "$1" ] && existed=yes
	if [ "$3" = exclusive ]; then [ -e "$1" ] || [ -L "$1" ] && fail EEXIST "$1"; fi
	cat > "$1" 2>/dev/null || fail "$(errno_of "$1")" "$1"
	[ "$existed" = no ] && chmod "$(printf '%o' $(( $2 & ~0$(umask) )))" "$1"
	check_size "$1" "$4";;
replacefile)
	confine "$1"; d=$(dirname -- "$1"); b=$(basename -- "$1")
	[ -d "$d" ] || fail "$(errno_of "$d/x")" "$d"
	t=$(mktemp "$d/.$b.tmp.XXXXXX" 2>/dev/null) || fail EACCES "$d"
	trap 'rm -f "$t"' EXIT
	trap 'rm -f "$t"; exit 1' HUP INT TERM PIPE
	cat > "$t" || fail EIO "$t"
	check_size "$t" "$4"
	if [ "$3" = exact ]; then m=$2; else m=$(( $2 & ~0$(umask) )); fi
	chmod "$(printf '%o' "$m")" "$t" || fail EPERM "$t"
	mv -f -- "$t" "$1" || fail EACCES "$1";;
mkdir)
	confine "$1"
	if [ "$2" = recursive ]; then mkdir -p -- "$1" 2>/dev/null || fail "$(errno_of "$1")" "$1"
	else [ -e "$1" ] && fail EEXIST "$1"; mkdir -- "$1" 2>/dev/null || fail "$(errno_of "$1")" "$1"; fi;;
rename)
	confine "$1"; confine "$2"; must_exist "$1"
	[ -d "$2" ] && [ ! -L "$2" ] && fail EISDIR "$2"
	mv -f -- "$1" "$2" || fail EACCES "$2";;
unlink) confine "$1"; must_exist "$1"; [ -d "$1" ] && [ ! -L "$1" ] && fail EISDIR "$1"; rm -f -- "$1" || fail EACCES "$1";;
chmod) confine "$1"; must_exist "$1"; chmod "$(printf '%o' "$2")" -- "$1" 2>/dev/null || fail EPERM "$1";;
*) fail ENOSYS "unknown operation $op";;
esac
`.replaceAll("%{", "${");
