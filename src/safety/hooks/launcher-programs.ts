import { findTrustedProgram } from "../../workspace/local/index.js";

// The two programs a hook launcher can be (see `hook-launcher.ts`). Perl where it is found and the
// machine's system call numbers are known: it reads a request with one read, makes the PID namespace
// itself and reads every hook's output in one loop; per hook one fork, against two forks of a shell
// plus an exec of `unshare` (whose start alone cost ~2 ms of CPU on the bench VM). `/bin/sh`
// everywhere else.

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
 * The Perl launcher; its arguments are the numbers of `unshare`, `prctl` and `setns` and the bytes
 * of each stream it keeps. A request is a line `ID LENGTH` and LENGTH bytes of NUL-separated words:
 * `DIR CWD COUNT NAME=VALUE… FILE ARG…` (no escaping: none of them can hold a NUL), read with
 * `sysread` (a buffered STDIN would be seeked by Perl on the hook's stdin at its exec). For each it
 * enters CWD, makes a PID namespace for its next child (and steps back into its own after the fork,
 * ready for the next hook), and forks the hook as that namespace's first process, which dies with the
 * launcher (whose end means toolbelt is gone; the kernel then ends the whole namespace): exactly the
 * COUNT variables as its environment, stdin from DIR/in, stdout and stderr into two pipes that the
 * launcher reads beside every other hook's. Answers: `p ID PID` (the hook's first process: the one
 * to kill), then `x ID STATUS OUT ERR` once the hook has ended and its pipes are closed (or half a
 * second after it ended, should something outside hold them), STATUS as the shell's `$?`, the first
 * OUT + ERR bytes of its stdout and stderr in DIR/out (each cut once it reached the limit); `e ID`
 * when CWD cannot be entered, `u ID` when the namespace, a pipe or the fork failed. An exec failure
 * is said as the shell says it (`FILE: reason`, 127 for a missing file, else 126). Not covered: a
 * launcher killed in the instant between forking a hook and the hook's own `PR_SET_PDEATHSIG`.
 */
export const PERL_LAUNCHER = String.raw`
my ($unshare, $prctl, $setns, $limit) = @ARGV;
open(my $own, '<', '/proc/self/ns/pid') or exit 1;
# A child's end interrupts the wait below.
$SIG{CHLD} = sub {};
my (%hooks, %readers);
sub answer { syswrite(STDOUT, join(' ', @_) . "\n"); return }
sub start {
  my ($id, $dir, $cwd, $count, @words) = @_;
  my ($out, $outw, $err, $errw);
  pipe($out, $outw) && pipe($err, $errw) or return answer('u', $id);
  chdir($cwd) or return answer('e', $id);
  my $pid = syscall($unshare, 0x20000000) == 0 ? fork : undef;
  if (defined($pid) && $pid == 0) {
    syscall($prctl, 1, 9);
    %ENV = map { split(/=/, $_, 2) } splice(@words, 0, $count);
    my ($file, @args) = @words;
    open(STDOUT, '>&', $outw); open(STDERR, '>&', $errw); open(STDIN, '<', "$dir/in");
    exec { $file } $file, @args;
    my $failed = $! + 0;
    print STDERR "$file: $!\n";
    exit($failed == 2 ? 127 : 126);
  }
  syscall($setns, fileno($own), 0x20000000);
  chdir('/');
  close($outw); close($errw);
  return answer('u', $id) unless defined $pid;
  answer('p', $id, $pid);
  $hooks{$pid} = { id => $id, dir => $dir, open => 2, grace => 0.5, kept => ['', ''], fds => [fileno($out), fileno($err)] };
  $readers{fileno($out)} = [$pid, $out, 0];
  $readers{fileno($err)} = [$pid, $err, 1];
}
sub finish {
  my ($pid) = @_;
  my $hook = delete $hooks{$pid};
  for my $fd (@{$hook->{fds}}) {
    next unless $readers{$fd} && $readers{$fd}[0] == $pid;
    close($readers{$fd}[1]);
    delete $readers{$fd};
  }
  my ($stdout, $stderr) = @{$hook->{kept}};
  my $status = $hook->{status};
  my $code = ($status & 127) ? 128 + ($status & 127) : $status >> 8;
  if (length($stdout) + length($stderr) > 0) {
    my $file;
    open($file, '>', "$hook->{dir}/out") && print($file $stdout, $stderr) && close($file) or return answer('u', $hook->{id});
  }
  answer('x', $hook->{id}, $code, length($stdout), length($stderr));
}
my $requests = '';
while (1) {
  my $wanted = '';
  vec($wanted, $_, 1) = 1 for 0, keys %readers;
  my $wait = !%hooks ? undef : (grep { !defined($_->{status}) && $_->{open} == 0 } values %hooks) ? 0.001 : 0.1;
  my ($ready, $left) = select(my $got = $wanted, undef, undef, $wait);
  while ((my $pid = waitpid(-1, 1)) > 0) { $hooks{$pid}{status} = $? if $hooks{$pid} }
  for my $fd ($ready > 0 ? keys %readers : ()) {
    next unless vec($got, $fd, 1);
    my ($pid, $handle, $stream) = @{$readers{$fd}};
    my $kept = $hooks{$pid}{kept};
    if (sysread($handle, my $chunk, 65536)) { $kept->[$stream] .= $chunk if length($kept->[$stream]) < $limit }
    else { close($handle); delete $readers{$fd}; $hooks{$pid}{open}-- }
  }
  for my $pid (keys %hooks) {
    my $hook = $hooks{$pid};
    next unless defined $hook->{status};
    $hook->{grace} -= $wait - $left if defined($wait) && $ready >= 0;
    finish($pid) if $hook->{open} == 0 || $hook->{grace} <= 0;
  }
  next unless $ready > 0 && vec($got, 0, 1);
  sysread(STDIN, $requests, 65536, length($requests)) or exit 0;
  while (1) {
    my $newline = index($requests, "\n");
    last if $newline < 0;
    my ($id, $length) = split(' ', substr($requests, 0, $newline));
    last if length($requests) < $newline + 1 + $length;
    my $body = substr($requests, $newline + 1, $length);
    $requests = substr($requests, $newline + 1 + $length);
    start($id, split(/\0/, $body, -1));
  }
}
`;

/** `unshare`, `prctl` and `setns` by machine: the Perl launcher calls them by number. */
const SYSTEM_CALLS: Partial<Record<NodeJS.Architecture, { unshare: number; prctl: number; setns: number }>> = {
	x64: { unshare: 272, prctl: 157, setns: 308 },
	arm64: { unshare: 97, prctl: 167, setns: 268 },
};

/** Which program a hook launcher is. */
export type LauncherKind = "perl" | "sh";

/**
 * Perl where there is a `perl` toolbelt may run (in a system folder, or a PATH folder no sandboxed
 * command can write: see `findTrustedProgram`) and the machine's system call numbers are known, unless `TOOLBELT_HOOK_LAUNCHER=sh` asks for the shell (the tests of that launcher do).
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
		args: ["-e", PERL_LAUNCHER, String(calls.unshare), String(calls.prctl), String(calls.setns), String(captureBytes)],
	};
}

/**
 * The `perl` the launcher runs: from a folder no sandboxed command can write (see
 * `findTrustedProgram`); a `perl` planted in a writable PATH folder would otherwise run at the next
 * hook, outside the sandbox.
 */
function findPerl(): string | undefined {
	return findTrustedProgram("perl");
}
