#!/bin/sh
# tests/golden_record.sh - re-create the recordings of testdata/recordings/.
#
# They are the fixed inputs of tests/cli/test_golden.sh: real recordings of
# the bundled workload, made self-contained with `archive --mini --no-debug`
# (the reduced ELF files of every DSO the samples hit are embedded), so that
# they analyze the same on any machine; stat.amber holds counts only.  Run by hand, as root, after
# `make programs`; then regenerate the expected outputs with
#     AMB_GOLDEN_UPDATE=1 sh tests/cli/test_golden.sh
# and review the diff before committing both.
set -e
ROOT=$(cd "$(dirname "$0")/.." && pwd)
B=${AMB_BUILD:-$ROOT/build}
REC=$B/amber-rec
ANA=$B/amber-analyze
P=$B/programs
OUT=$ROOT/testdata/recordings
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

mount | grep -q ' /sys/kernel/tracing ' || mount -t tracefs nodev /sys/kernel/tracing

rec() {
	name=$1
	shift
	"$REC" -o "$T/$name.raw" "$@"
	rm -f "$OUT/$name.amber"
	"$ANA" archive --mini --no-debug --no-debuginfod -o "$OUT/$name.amber" "$T/$name.raw"
}

rec fp -e cpu-clock -F 999 -g -- "$P/workload" --work 30
rec fp2 -e cpu-clock -F 999 -g -- "$P/workload" --work 30 --mix 2,3,5
rec dwarf -e cpu-clock -F 499 --call-graph dwarf,8192 -- "$P/workload-nofp" --work 15
rec tp -e sched:sched_switch -e '{cpu-clock,task-clock}' -g -- "$P/workload" --work 10 --sleep-ms 2
# -d -W: data addresses, data sources and weights (-W was part of -d before issue 15).
rec pf -e page-faults -c 1 -d -W -g -- "$P/workload" --work 2
# Counts, not samples: per CPU, in 50 ms intervals (nothing to archive).
rm -f "$OUT/stat.amber"
"$REC" stat -o "$OUT/stat.amber" -a -A -I 50 -e '{cpu-clock,context-switches},page-faults,cycles' \
	-- "$P/workload" --work 10
ls -l "$OUT"
