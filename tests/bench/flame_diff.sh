#!/bin/sh
# tests/bench/flame_diff.sh BUILD - `flame --folded` and `diff` against the
# perf tools that do the same job, on large recordings, in one run.
#
# The two-thread workload is recorded twice, with --mix 5,3,2 (BASE) and
# --mix 10,3,2 (NEW), by amber-rec and by perf record with the same
# settings (-e cpu-clock -F 10000 -g).  BENCH_FLAME_WORK (default 2000, about
# 20 s of CPU per thread for BASE: ~400K samples) sets --work.  Then, each
# timed (wall seconds, best of BENCH_REPEAT runs, default 3):
#   amber-analyze flame --folded BASE    vs  perf script -i BASE
#     (perf script is a lower bound for any perf-based flame graph: the
#      stackcollapse step comes on top of it)
#   amber-analyze diff BASE NEW          vs  perf diff BASE NEW
# and prints the sample counts and the amber/perf time ratios.
B=${1:-build}
cd "$(dirname "$0")/../.." || exit 2
case $B in /*) ;; *) B=$(pwd)/$B ;; esac
REC=$B/amber-rec
ANA=$B/amber-analyze
WORKLOAD=$B/programs/workload
WORK=${BENCH_FLAME_WORK:-2000}
REPEAT=${BENCH_REPEAT:-3}

die() {
	echo "bench flame_diff: error: $*" >&2
	exit 1
}

[ -x "$REC" ] && [ -x "$ANA" ] || die "amber-rec/amber-analyze are not built (run 'make')"
[ -x "$WORKLOAD" ] || die "$WORKLOAD is not built (run 'make programs')"
command -v perf >/dev/null 2>&1 || die "perf is not installed (apt-get install linux-perf)"
case $WORK in '' | *[!0-9]* | 0) die "BENCH_FLAME_WORK must be a positive integer" ;; esac
case $REPEAT in '' | *[!0-9]* | 0) die "BENCH_REPEAT must be a positive integer" ;; esac

TMP=$(mktemp -d "${TMPDIR:-/tmp}/amber-bench.XXXXXX") || die "cannot create a temporary directory"
trap 'rm -rf "$TMP"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

now() {
	date +%s.%N
}

# best_time OUT CMD...: run CMD REPEAT times (stdout to OUT); print the
# best wall time in seconds.  Fails when CMD does.
best_time() {
	_out=$1
	shift
	_best=""
	_i=0
	while [ $_i -lt "$REPEAT" ]; do
		_t0=$(now)
		"$@" >"$_out" 2>"$TMP/err" || { cat "$TMP/err" >&2; return 1; }
		_t1=$(now)
		_best=$(awk -v a="$_t0" -v b="$_t1" -v m="$_best" \
			'BEGIN { d = b - a; if (m == "" || d < m) m = d; printf "%.3f\n", m }')
		_i=$((_i + 1))
	done
	echo "$_best"
}

ratio() {
	awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f\n", a / b; else print "n/a" }'
}

echo "recording: workload --work $WORK, --mix 5,3,2 and 10,3,2, -e cpu-clock -F 10000 -g"
for run in base:5,3,2 new:10,3,2; do
	name=${run%%:*}
	mix=${run#*:}
	"$REC" -e cpu-clock -F 10000 -g -o "$TMP/$name.amber" -- \
		"$WORKLOAD" --work "$WORK" --mix "$mix" >"$TMP/rec.log" 2>&1 ||
		die "amber-rec failed: $(tail -n 1 "$TMP/rec.log")"
	perf record -q -e cpu-clock -F 10000 -g -o "$TMP/$name.perf" -- \
		"$WORKLOAD" --work "$WORK" --mix "$mix" >"$TMP/rec.log" 2>&1 ||
		die "perf record failed: $(tail -n 1 "$TMP/rec.log")"
done

a_fold=$(best_time "$TMP/folded" "$ANA" flame --folded "$TMP/base.amber") || die "flame --folded failed"
a_samples=$(awk '{ t += $NF } END { printf "%d\n", t }' "$TMP/folded")
p_script=$(best_time "$TMP/script" perf script -i "$TMP/base.perf") || die "perf script failed"
# perf prints the count rounded ("55K").
p_samples=$(perf report -i "$TMP/base.perf" --stdio -g none 2>/dev/null |
	sed -n 's/^# Samples: \([0-9.]*\)\([KM]*\).*/\1 \2/p' | head -n 1 |
	awk '{ m = $2 == "K" ? 1e3 : $2 == "M" ? 1e6 : 1; printf "%d\n", $1 * m }')
a_diff=$(best_time "$TMP/diff" "$ANA" diff "$TMP/base.amber" "$TMP/new.amber") || die "diff failed"
p_diff=$(best_time "$TMP/pdiff" perf diff "$TMP/base.perf" "$TMP/new.perf") || die "perf diff failed"
a_new=$(sed -n 's/^# new:  .* (\([0-9]*\) samples[^)]*)$/\1/p' "$TMP/diff")

printf '\n%-34s %10s %12s\n' "task" "seconds" "samples"
printf '%-34s %10s %12s\n' "amber-analyze flame --folded" "$a_fold" "$a_samples"
printf '%-34s %10s %12s\n' "perf script (lower bound)" "$p_script" "~${p_samples:-?}"
printf '%-34s %10s %12s\n' "amber-analyze diff" "$a_diff" "$a_samples+$a_new"
printf '%-34s %10s %12s\n' "perf diff" "$p_diff" ""
printf '\nratio flame --folded / perf script: %s\n' "$(ratio "$a_fold" "$p_script")"
printf 'ratio diff / perf diff:              %s\n' "$(ratio "$a_diff" "$p_diff")"
echo "(below 1: amber is faster; best of $REPEAT runs each)"
echo
echo "amber diff, first rows:"
grep -v '^#' "$TMP/diff" | head -n 3
