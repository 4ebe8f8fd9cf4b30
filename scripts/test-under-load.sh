#!/usr/bin/env bash
# Runs the test suite several times while a mixed load runs beside it: CPU hogs, a loop that
# spawns processes, and a loop that writes and fsyncs files. Not part of `npm test`: it shows
# whether a test assumes a quiet machine (a deadline, a fixed sleep, a fast disk).
#
#   scripts/test-under-load.sh [vitest arguments…]
#
# Environment: LOAD_RUNS (suite runs, default 3), LOAD_HOGS (CPU hogs, default: the number of
# cores), LOAD_MAX_SECONDS (the load stops after this long whatever happens, default 3600).
# Every load process is started here, in its own process group, and stopped on exit (also on
# Ctrl-C); the scratch folder is removed. Exit status: 0 when every run passed.
set -u

runs="${LOAD_RUNS:-3}"
hogs="${LOAD_HOGS:-$(nproc 2>/dev/null || echo 2)}"
max_seconds="${LOAD_MAX_SECONDS:-3600}"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
scratch="$(mktemp -d "${TMPDIR:-/tmp}/toolbelt-load.XXXXXX")"
load_groups=()

stop_load() {
	for group in "${load_groups[@]}"; do
		kill -TERM -- "-$group" 2>/dev/null
	done
	for group in "${load_groups[@]}"; do
		# Wait briefly for each group; a straggler gets SIGKILL.
		for _ in 1 2 3 4 5 6 7 8 9 10; do
			kill -0 -- "-$group" 2>/dev/null || break
			sleep 0.2
		done
		kill -KILL -- "-$group" 2>/dev/null
	done
	load_groups=()
	rm -rf "$scratch"
}
trap stop_load EXIT
trap 'exit 130' INT TERM

# Starts a load loop in a new process group (setsid), bounded by `timeout`, and records the group.
start_load() {
	setsid timeout "$max_seconds" bash -c "$1" >/dev/null 2>&1 &
	load_groups+=("$!")
}

for ((index = 0; index < hogs; index++)); do
	start_load 'exec yes >/dev/null'
done
# Process spawning: short-lived shells and processes, as test harnesses beside us make.
start_load 'while :; do for i in 1 2 3 4 5 6 7 8; do sh -c "true" & done; wait; done'
# Disk: 32 MB written and fsynced, again and again, in our scratch folder.
start_load "while :; do dd if=/dev/zero of='$scratch/load.bin' bs=1M count=32 conv=fsync status=none; rm -f '$scratch/load.bin'; done"

echo "test-under-load: $hogs CPU hogs, a process-spawning loop and a disk-writing loop running; $runs suite runs." >&2
cd "$root" || exit 1
failed_runs=0
for ((run = 1; run <= runs; run++)); do
	log="$scratch/run-$run.log"
	started=$(date +%s)
	npx vitest run "$@" >"$log" 2>&1
	status=$?
	elapsed=$(($(date +%s) - started))
	summary="$(sed 's/\x1b\[[0-9;]*m//g' "$log" | grep -E '^\s*(Test Files|Tests) ' | tr -s ' ' | tr '\n' ';')"
	echo "run $run: exit $status in ${elapsed}s: $summary" >&2
	if [ "$status" -ne 0 ]; then
		failed_runs=$((failed_runs + 1))
		# The failing tests, by file and name, with the first lines of each reason.
		sed 's/\x1b\[[0-9;]*m//g' "$log" | grep -E '^\s*(FAIL|×|✗) |AssertionError|Error: |Timed out|timed out' | head -40 >&2
		cp "$log" "$root/.test-under-load-run-$run.log" 2>/dev/null && echo "  full log: .test-under-load-run-$run.log" >&2
	fi
done
echo "test-under-load: $failed_runs of $runs runs failed." >&2
[ "$failed_runs" -eq 0 ]
