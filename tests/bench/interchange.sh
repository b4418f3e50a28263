#!/bin/sh
# tests/bench/interchange.sh BUILD - import and export speed beside perf
# script on the same data (issue 16):
#
#   perf script -i perf.data                    the reference
#   amber-analyze import perf.data -o x.amber   perf.data -> .amber
#   amber-analyze export -f perf-script x.amber the same text as perf script
#   amber-analyze export -f pprof|speedscope|chrome x.amber
#
# The two-thread workload is recorded once with `perf record -e cpu-clock
# -F 10000 -g` (BENCH_INTERCHANGE_WORK, default 2100: about 400K samples on a
# 2-core machine) and imported; every command runs BENCH_REPEAT times (3),
# output to /dev/null (or a file in /tmp for import and pprof), and the best
# wall time is shown with perf script's time over it: above 1 is faster
# than perf script.  Peak RSS is that of the best run.
B=${1:-build}
cd "$(dirname "$0")/../.." || exit 2
case $B in /*) ;; *) B=$(pwd)/$B ;; esac
ANA=$B/amber-analyze
WORKLOAD=$B/programs/workload
REPEAT=${BENCH_REPEAT:-3}
WORK=${BENCH_INTERCHANGE_WORK:-2100}

die() {
	echo "bench interchange: error: $*" >&2
	exit 1
}

[ -x "$WORKLOAD" ] || die "$WORKLOAD is not built (run 'make programs')"
[ -x "$ANA" ] || die "$ANA is not built"
[ -x /usr/bin/time ] || die "/usr/bin/time is missing (apt-get install time)"
if ! command -v perf >/dev/null 2>&1; then
	echo "bench interchange: perf is not installed: nothing to compare with; skipped"
	exit 0
fi

TMP=$(mktemp -d "${TMPDIR:-/tmp}/amber-bench-interchange.XXXXXX") || die "cannot create a temporary directory"
trap 'rm -rf "$TMP"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

perf record -q -N -e cpu-clock -F 10000 -g -o "$TMP/perf.data" -- "$WORKLOAD" --work "$WORK" \
	>/dev/null 2>"$TMP/rec.log" || die "perf record failed: $(tail -n 2 "$TMP/rec.log")"
"$ANA" import "$TMP/perf.data" -o "$TMP/ref.amber" 2>"$TMP/imp.log" || die "import failed: $(cat "$TMP/imp.log")"
samples=$(sed -n 's/.*(\([0-9]*\) samples.*/\1/p' "$TMP/imp.log")

# best NAME CMD...: run CMD $REPEAT times; prints "seconds rss_kb" of the fastest.
best() {
	_best=""
	_i=0
	while [ $_i -lt "$REPEAT" ]; do
		rm -f "$TMP/out.amber"
		/usr/bin/time -f '%e %M' -o "$TMP/time" "$@" >/dev/null 2>"$TMP/cmd.err" ||
			die "$*: $(tail -n 2 "$TMP/cmd.err")"
		_t=$(cat "$TMP/time")
		if [ -z "$_best" ] || awk -v a="${_t% *}" -v b="${_best% *}" 'BEGIN { exit !(a < b) }'; then
			_best=$_t
		fi
		_i=$((_i + 1))
	done
	echo "$_best"
}

ref=$(best perf script -i "$TMP/perf.data")
ref_s=${ref% *}
printf 'perf.data: %s samples (%s bytes); best of %s runs\n\n' "$samples" \
	"$(wc -c <"$TMP/perf.data" | tr -d ' ')" "$REPEAT"
printf '%-44s %9s %10s %16s\n' command seconds "RSS (MB)" "perf script / it"
row() {
	_name=$1
	shift
	_r=$(best "$@")
	_s=${_r% *}
	_m=${_r#* }
	awk -v n="$_name" -v s="$_s" -v m="$_m" -v ref="$ref_s" \
		'BEGIN { printf "%-44s %9.2f %10.1f %15.2fx\n", n, s, m / 1024, (s > 0 ? ref / s : 0) }'
}
row "perf script" perf script -i "$TMP/perf.data"
row "amber-analyze import" "$ANA" import "$TMP/perf.data" -o "$TMP/out.amber"
row "amber-analyze export -f perf-script" "$ANA" export -f perf-script "$TMP/ref.amber"
row "amber-analyze export -f pprof" "$ANA" export -f pprof -o "$TMP/out.pb.gz" "$TMP/ref.amber"
row "amber-analyze export -f speedscope" "$ANA" export -f speedscope "$TMP/ref.amber"
row "amber-analyze export -f chrome" "$ANA" export -f chrome "$TMP/ref.amber"
"$ANA" export -f perf-script "$TMP/ref.amber" >"$TMP/ref.txt" 2>/dev/null
perf script -i "$TMP/perf.data" >"$TMP/perf.txt" 2>/dev/null
printf '\nperf-script export: %s of %s lines as perf script prints them\n' \
	"$(diff "$TMP/perf.txt" "$TMP/ref.txt" | grep -c '^>' | awk -v n="$(wc -l <"$TMP/perf.txt")" '{ print n - $1 }')" \
	"$(wc -l <"$TMP/perf.txt" | tr -d ' ')"
