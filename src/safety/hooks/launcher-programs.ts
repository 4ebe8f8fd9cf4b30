import { accessSync, constants as fsConstants } from "node:fs";
import { delimiter, join } from "node:path";

// The two programs a hook launcher can be (see `hook-launcher.ts`). Perl where it is found and the
// machine's system call numbers are known: it reads a request with one buffered read, makes the PID
// namespace itself and reads the hook's output; per hook one fork of the launcher and one of the
// hook, against two forks of a shell plus an exec of `unshare` (whose start alone cost ~2 ms of CPU
// on the bench VM). `/bin/sh` everywhere else.

/**
 * The `/bin/sh` launcher. Each request is one short line of single-quoted words (a newline inside
 * a word is written as `'"$nl"'`), read back with `eval "set -- …"`, so nothing in it is expanded;
 * it stays short because the shell's `read` takes a pipe one byte per system call:
 * - `fifo ID DIR`: makes DIR's `out` and `err` FIFOs (once per slot); answers `f ID STATUS`.
 * - `run ID DIR`: in a subshell, reads DIR/run (`cwd=…; set -- COUNT NAME=VALUE… FILE ARG…`, one
 *   buffered read), enters the folder, exports exactly the COUNT variables given (the launcher starts
 *   with an empty environment; `cd` adds `PWD`, and `OLDPWD`, which is dropped), then starts FILE
 *   with stdin from DIR/in and stdout and stderr into DIR's FIFOs; answers `p ID PID` once started
 *   and `x ID STATUS` when it ended (STATUS is `$?`), or `e ID` when the folder cannot be entered.
 * The hook's own descriptors are only those three: the launcher's request and answer pipes stay
 * behind. Nothing waits in the main loop, so hooks run side by side.
 */
export const SHELL_LAUNCHER = `nl='
'
while IFS= read -r line; do
  eval "set -- $line" || continue
  case $1 in
  fifo) mkfifo -m 600 -- "$3/out" "$3/err"; echo "f $2 $?" ;;
  run) id=$2 dir=$3
    {
      . "$dir/run"
      if cd -- "$cwd" 2>/dev/null; then
        unset OLDPWD
        count=$1; shift
        while [ "$count" -gt 0 ]; do export "$1"; shift; count=$((count - 1)); done
        "$@" <"$dir/in" >"$dir/out" 2>"$dir/err" &
        pid=$!; echo "p $id $pid"; wait "$pid"; echo "x $id $?"
      else echo "e $id"; fi
    } & ;;
  esac
done`;

/**
 * The Perl launcher; its arguments are the numbers of `unshare`, `prctl` and `exit_group` and the
 * bytes of each stream it keeps. A request is a line `ID LENGTH` and LENGTH bytes of NUL-separated
 * words: `DIR CWD COUNT NAME=VALUE… FILE ARG…` (no escaping: none of them can hold a NUL), read with
 * `sysread` (a buffered STDIN would be seeked by Perl on the hook's stdin at its exec). For each it
 * forks a keeper, which dies with the launcher (whose end means toolbelt is gone), enters CWD, takes
 * exactly the COUNT variables as its environment, makes a PID namespace and forks the hook into it
 * as its first process (which dies with the keeper: the kernel then ends the whole namespace), stdin
 * from DIR/in, stdout and stderr into two pipes. Answers: `p ID PID` (the hook's first process: the
 * one to kill), then `x ID STATUS OUT ERR` once the hook has ended and its pipes are closed (or half
 * a second after it ended, should something outside hold them), STATUS as the shell's `$?`, the
 * first OUT + ERR bytes of its stdout and stderr in DIR/out (each cut once it reached the limit);
 * `e ID` when CWD cannot be entered, `u ID` when the namespace, a pipe or a fork failed. An exec
 * failure is said as the shell says it (`FILE: reason`, 127 for a missing file, else 126).
 * Not covered: a keeper killed in the instant between forking the hook and the hook's own
 * `PR_SET_PDEATHSIG` (only the launcher's end kills a keeper, and only once toolbelt is gone).
 */
export const PERL_LAUNCHER = String.raw`
my ($unshare, $prctl, $exit, $limit) = @ARGV;
my $launcher = $$;
sub answer { syswrite(STDOUT, join(' ', @_) . "\n") }
# A keeper ends without Perl's teardown, which cost ~0.3 ms of CPU a fork on the bench VM.
sub done { syscall($exit, 0) }
sub keep {
  my ($id, $dir, $cwd, $count, @words) = @_;
  syscall($prctl, 1, 9);
  done() if getppid() != $launcher;
  chdir($cwd) or do { answer('e', $id); done() };
  %ENV = map { split(/=/, $_, 2) } splice(@words, 0, $count);
  my ($file, @args) = @words;
  my ($out, $outw, $err, $errw);
  pipe($out, $outw) && pipe($err, $errw) && syscall($unshare, 0x20000000) == 0 or do { answer('u', $id); done() };
  my $hook = fork;
  defined($hook) or do { answer('u', $id); done() };
  if ($hook == 0) {
    syscall($prctl, 1, 9);
    open(STDOUT, '>&', $outw); open(STDERR, '>&', $errw); open(STDIN, '<', "$dir/in");
    exec { $file } $file, @args;
    my $failed = $! + 0;
    print STDERR "$file: $!\n";
    exit($failed == 2 ? 127 : 126);
  }
  close($outw); close($errw);
  answer('p', $id, $hook);
  my %kept = (fileno($out) => '', fileno($err) => '');
  my %open = (fileno($out) => $out, fileno($err) => $err);
  my ($status, $grace) = (undef, 5);
  while (%open) {
    my $wanted = '';
    vec($wanted, $_, 1) = 1 for keys %open;
    my $ready = select(my $got = $wanted, undef, undef, 0.1);
    for my $fd ($ready > 0 ? keys %open : ()) {
      next unless vec($got, $fd, 1);
      if (sysread($open{$fd}, my $chunk, 65536)) { $kept{$fd} .= $chunk if length($kept{$fd}) < $limit }
      else { delete $open{$fd} }
    }
    if (!defined $status) { $status = $? if waitpid($hook, 1) == $hook }
    elsif ($ready == 0) { last if --$grace == 0 }
  }
  if (!defined $status) { waitpid($hook, 0); $status = $? }
  my $code = ($status & 127) ? 128 + ($status & 127) : $status >> 8;
  my ($stdout, $stderr) = ($kept{fileno($out)}, $kept{fileno($err)});
  if (length($stdout) + length($stderr) > 0) {
    my $file;
    open($file, '>', "$dir/out") && print($file $stdout, $stderr) && close($file) or do { answer('u', $id); done() };
  }
  answer('x', $id, $code, length($stdout), length($stderr));
  done();
}
my $requests = '';
while (1) {
  my $newline = index($requests, "\n");
  my ($id, $length) = split(' ', substr($requests, 0, $newline < 0 ? 0 : $newline));
  if ($newline >= 0 && length($requests) >= $newline + 1 + $length) {
    my $body = substr($requests, $newline + 1, $length);
    $requests = substr($requests, $newline + 1 + $length);
    1 while waitpid(-1, 1) > 0;
    my $keeper = fork;
    if (!defined $keeper) { answer('u', $id) }
    elsif ($keeper == 0) { keep($id, split(/\0/, $body, -1)) }
    next;
  }
  sysread(STDIN, $requests, 65536, length($requests)) or last;
}
`;

/** `unshare`, `prctl` and `exit_group` by machine: the Perl launcher calls them by number. */
const SYSTEM_CALLS: Partial<Record<NodeJS.Architecture, { unshare: number; prctl: number; exitGroup: number }>> = {
	x64: { unshare: 272, prctl: 157, exitGroup: 231 },
	arm64: { unshare: 97, prctl: 167, exitGroup: 94 },
};

/** Which program a hook launcher is. */
export type LauncherKind = "perl" | "sh";

/**
 * Perl where there is a `perl` on this process's `PATH` and the machine's system call numbers are
 * known, unless `TOOLBELT_HOOK_LAUNCHER=sh` asks for the shell (the tests of that launcher do).
 */
export function launcherKind(): LauncherKind {
	if (process.env.TOOLBELT_HOOK_LAUNCHER === "sh") return "sh";
	return SYSTEM_CALLS[process.arch] !== undefined && findPerl() !== undefined ? "perl" : "sh";
}

/** The program and arguments of a launcher; `captureBytes` is what the Perl one keeps of each stream. */
export function launcherProgram(kind: LauncherKind, captureBytes: number): { file: string; args: string[] } {
	const perl = findPerl();
	const calls = SYSTEM_CALLS[process.arch];
	if (kind === "sh" || perl === undefined || calls === undefined)
		return { file: "/bin/sh", args: ["-c", SHELL_LAUNCHER] };
	return {
		file: perl,
		args: [
			"-e",
			PERL_LAUNCHER,
			String(calls.unshare),
			String(calls.prctl),
			String(calls.exitGroup),
			String(captureBytes),
		],
	};
}

let perlPath: string | null | undefined;

/** The first executable `perl` on `PATH`, looked for once. */
function findPerl(): string | undefined {
	if (perlPath === undefined) {
		perlPath = null;
		for (const folder of (process.env.PATH ?? "").split(delimiter)) {
			if (!folder.startsWith("/")) continue;
			try {
				accessSync(join(folder, "perl"), fsConstants.X_OK);
				perlPath = join(folder, "perl");
				break;
			} catch {
				// Not in this folder.
			}
		}
	}
	return perlPath ?? undefined;
}
