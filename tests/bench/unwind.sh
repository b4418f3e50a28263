#!/bin/sh
# tests/bench/unwind.sh BUILD - DWARF unwinding: speed against perf, and what
# the stack copy size buys.
#
# 1. workload-nofp is recorded with `amber-rec -e cpu-clock -F 999 --call-graph
#    dwarf,SIZE` and with `perf record` with the same options, SIZE being
#    BENCH_UNWIND_SIZE (8192, perf's default; amber-rec's is 32768), so that
#    both unwind the same stack copies; then, in the same
#    run, each pair is timed: `amber-analyze report --children` against
#    `perf report --stdio --children`, and `amber-analyze script` against
#    `perf script`.  Shown: unwound samples per second for each and the
#    amber/perf ratio of those rates (target: >= 2).  BENCH_UNWIND_WORK
#    (300, some 6,000 samples) sets the workload's --work: large enough that
#    unwinding, not start-up, is measured.  Each command runs BENCH_REPEAT
#    (3) times; the best wall time counts.
# 2. For --call-graph dwarf,SIZE with SIZE 8192, 16384, 32768 and 65536:
#    bytes per sample in the .amber file (and raw, before compression) and
#    the share of complete stacks, samples whose unwound stack reaches main
#    or start_thread.  BENCH_WORK (60) sets the workload's --work.
# Without perf, part 1 shows amber alone.
B=${1:-build}
cd "$(dirname "$0")/../.." || exit 2
case $B in /*) ;; *) B=$(pwd)/$B ;; esac
REC=$B/amber-rec
ANA=$B/amber-analyze
NOFP=$B/programs/workload-nofp
WORK=${BENCH_WORK:-60}
SPEED_WORK=${BENCH_UNWIND_WORK:-300}
SPEED_SIZE=${BENCH_UNWIND_SIZE:-8192}
REPEAT=${BENCH_REPEAT:-3}

die() {
	echo "bench unwind: error: $*" >&2
	exit 1
}

for f in "$REC" "$ANA" "$NOFP"; do
	[ -x "$f" ] || die "$f is not built (run 'make all programs')"
done
case $WORK in '' | *[!0-9]*) die "BENCH_WORK must be a non-negative integer" ;; esac
case $SPEED_WORK in '' | *[!0-9]*) die "BENCH_UNWIND_WORK must be a non-negative integer" ;; esac
case $SPEED_SIZE in '' | *[!0-9]*) die "BENCH_UNWIND_SIZE must be a positive integer" ;; esac
case $REPEAT in '' | *[!0-9]* | 0) die "BENCH_REPEAT must be a positive integer" ;; esac
TMP=$(mktemp -d "${TMPDIR:-/tmp}/amber-bench.XXXXXX") || die "cannot create a temporary directory"
trap 'rm -rf "$TMP"' EXIT
trap 'exit 130' INT

now() {
	date +%s.%N
}

# elapsed CMD...: run CMD (output discarded) REPEAT times, print the best
# wall time in seconds.
elapsed() {
	_best=
	_r=0
	while [ $_r -lt "$REPEAT" ]; do
		_t0=$(now)
		"$@" >/dev/null 2>&1 || return 1
		_t1=$(now)
		_best=$(awk -v a="$_t0" -v b="$_t1" -v best="$_best" 'BEGIN {
			t = b - a; if (best != "" && best + 0 < t) t = best; printf "%.3f\n", t }')
		_r=$((_r + 1))
	done
	echo "$_best"
}

# Samples in script output (a line that does not start with a tab or is empty).
count_samples() {
	grep -c '^[^	]' "$1"
}

rate() {
	awk -v n="$1" -v t="$2" 'BEGIN { if (t > 0) printf "%.0f", n / t; else print "-" }'
}

# --- 1. speed -----------------------------------------------------------------
"$REC" -e cpu-clock -F 999 --call-graph "dwarf,$SPEED_SIZE" -o "$TMP/a.amber" -- "$NOFP" \
	--work "$SPEED_WORK" \
	>/dev/null 2>"$TMP/rec.log" || die "amber-rec failed: $(tail -n 1 "$TMP/rec.log")"
"$ANA" script "$TMP/a.amber" >"$TMP/a.txt" 2>/dev/null || die "amber-analyze script failed"
na=$(count_samples "$TMP/a.txt")
ta_rep=$(elapsed "$ANA" report --children "$TMP/a.amber") || die "amber-analyze report failed"
ta_scr=$(elapsed "$ANA" script "$TMP/a.amber") || die "amber-analyze script failed"

have_perf=0
if command -v perf >/dev/null 2>&1 &&
	perf record -q -e cpu-clock -F 999 --call-graph "dwarf,$SPEED_SIZE" -o "$TMP/p.data" -- "$NOFP" \
		--work "$SPEED_WORK" >/dev/null 2>&1; then
	have_perf=1
	perf script -i "$TMP/p.data" >"$TMP/p.txt" 2>/dev/null
	np=$(count_samples "$TMP/p.txt")
	tp_rep=$(elapsed perf report -i "$TMP/p.data" --stdio --children)
	tp_scr=$(elapsed perf script -i "$TMP/p.data")
fi

echo "unwinding throughput, workload-nofp --work $SPEED_WORK," \
	"-F 999 --call-graph dwarf,$SPEED_SIZE, best of $REPEAT"
printf '%-34s %8s %9s %12s\n' command samples seconds samples/s
printf '%-34s %8s %9s %12s\n' "amber-analyze report --children" "$na" "$ta_rep" "$(rate "$na" "$ta_rep")"
if [ $have_perf = 1 ]; then
	printf '%-34s %8s %9s %12s\n' "perf report --stdio --children" "$np" "$tp_rep" "$(rate "$np" "$tp_rep")"
fi
printf '%-34s %8s %9s %12s\n' "amber-analyze script" "$na" "$ta_scr" "$(rate "$na" "$ta_scr")"
if [ $have_perf = 1 ]; then
	printf '%-34s %8s %9s %12s\n' "perf script" "$np" "$tp_scr" "$(rate "$np" "$tp_scr")"
	awk -v a="$(rate "$na" "$ta_rep")" -v p="$(rate "$np" "$tp_rep")" \
		-v as="$(rate "$na" "$ta_scr")" -v ps="$(rate "$np" "$tp_scr")" 'BEGIN {
		printf "amber/perf samples/s: report --children %.1fx, script %.1fx (target >= 2x)\n",
			a / p, as / ps }'
else
	echo "perf: not available, no comparison"
fi
echo

# --- 2. stack copy size -------------------------------------------------------
echo "stack copy size: bytes per sample and complete stacks (reaching main or start_thread)"
printf '%-8s %8s %12s %12s %10s\n' size samples "file B/smp" "raw B/smp" complete
for size in 8192 16384 32768 65528; do
	"$REC" -e cpu-clock -F 999 --call-graph "dwarf,$size" -o "$TMP/s$size.amber" -- "$NOFP" \
		--work "$WORK" >/dev/null 2>"$TMP/rec$size.log" ||
		die "amber-rec --call-graph dwarf,$size failed: $(tail -n 1 "$TMP/rec$size.log")"
	"$ANA" script "$TMP/s$size.amber" >"$TMP/s$size.txt" 2>/dev/null ||
		die "amber-analyze script failed on dwarf,$size"
	bytes=$(wc -c <"$TMP/s$size.amber")
	# "raw 44.91 MB" from amber-rec's summary line.
	raw=$(sed -n 's/.*raw \([0-9.]*\) MB.*/\1/p' "$TMP/rec$size.log" | tail -n 1)
	awk -v bytes="$bytes" -v raw="${raw:-0}" -v size="$size" '
		BEGIN { RS = "" }
		{ n++; if ($0 ~ /[ \t](main|start_thread)\+0x/) c++ }
		END {
			printf "%-8s %8d %12.0f %12s %9.1f%%\n", size, n, bytes / n,
				(raw > 0 ? sprintf("%.0f", raw * 1e6 / n) : "-"), 100 * c / n
		}' "$TMP/s$size.txt"
done
