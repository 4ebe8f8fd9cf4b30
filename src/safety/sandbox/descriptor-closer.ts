// A descriptor toolbelt inherited without close-on-exec (a parent shell's `exec 200>>file`, a
// socket a launcher leaked) passes through every exec on the way in — the shell that starts bwrap,
// bwrap, the bridge — and writes through it land outside the read-only file system. Node opens its
// own descriptors close-on-exec, so only such strays are open here; none of them is the command's.
// bwrap has no option to close them, and dash cannot name a descriptor above 9, so bash does it inside
// the sandbox, last before the command, and becomes the command (about half a millisecond of CPU).

/** The shell that closes the strays: an absolute path, as bwrap sees it (the host's, read-only). */
export const descriptorCloserShell = "/bin/bash";

// The glob is expanded before the loop runs, so the descriptor that listed the folder is closed by then.
const closeStraysScript = `for fd in /proc/self/fd/*; do fd=\${fd##*/}; case $fd in 0|1|2) ;; *) eval "exec $fd>&-" ;; esac; done; exec "$@"`;

/**
 * The words that come last before the command inside the sandbox (after bwrap's `--`, after the
 * network bridge when there is one): bash closes every descriptor but stdin, stdout and stderr,
 * then runs the program and arguments appended after them.
 */
export const descriptorCloser: readonly string[] = [descriptorCloserShell, "-c", closeStraysScript, "toolbelt-sandbox"];
