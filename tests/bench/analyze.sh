#!/bin/sh
# tests/bench/analyze.sh BUILD - analyzer speed and memory against perf,
# each amber command beside the perf command that does the same work
# (issue 4's targets: at least 3x faster, peak RSS below perf's, and memory
# flat in the length of the recording):
#
#   amber-analyze report --no-children -g none perf report --stdio --no-children -g none
#   amber-analyze report --children -g caller  perf report --stdio --children
#                                              (what perf shows by default on -g data)
#   amber-analyze script                       perf script
#
# The two-thread workload (build/programs/workload) is recorded once with
# `perf record -B -e cpu-clock -F 10000 -g` (-B: perf 6.1 now and then
# aborts in its build-id pass, util/build-id.c:1010; its report finds the
# files by path here) and once with amber-rec with the same settings;
# BENCH_ANALYZE_WORK (900, about 400K samples on a 2-core machine)
# sets its --work.  Each analyzer run is repeated BENCH_REPEAT times (3),
# stdout to /dev/null, and the best wall time (to the millisecond, from
# GNU date's nanoseconds: /usr/bin/time's %e has two decimals, a tenth of
# a fast report) and the peak RSS of that run (/usr/bin/time -f %M) are
# shown.  The two recorders do not capture
# the same number of samples, so the speedup is given twice: as perf's
# wall time over amber's, and as amber's samples per second over perf's
# (the fair one when the counts differ).
#
# The memory check: amber on a recording 10x shorter (--work / 10), whose
# peak RSS must be at least 1/1.5 of the full one's, both with -j 1.  With
# more jobs each decoding worker holds up to four blocks decoding or
# decoded (analyze/replay/session_pool.c), a fixed cost
# that a short recording with fewer blocks never reaches; the rows at the
# default -j show it, the check on one thread shows whether memory grows
# with the recording.
B=${1:-build}
cd "$(dirname "$0")/../.." || exit 2
case $B in /*) ;; *) B=$(pwd)/$B ;; esac
REC=$B/amber-rec
ANA=$B/amber-analyze
WORKLOAD=$B/programs/workload
REPEAT=${BENCH_REPEAT:-3}
WORK=${BENCH_ANALYZE_WORK:-900}

die() {
	echo "bench analyze: error: $*" >&2
	exit 1
}

[ -x "$WORKLOAD" ] || die "$WORKLOAD is not built (run 'make programs')"
[ -x "$REC" ] || die "$REC is not built"
[ -x "$ANA" ] || die "$ANA is not built"
[ -x /usr/bin/time ] || die "/usr/bin/time is missing (apt-get install time)"
case $REPEAT in '' | *[!0-9]* | 0) die "BENCH_REPEAT must be a positive integer" ;; esac
case $WORK in '' | *[!0-9]* | 0 | ? ) die "BENCH_ANALYZE_WORK must be an integer >= 10" ;; esac

TMP=$(mktemp -d "${TMPDIR:-/tmp}/amber-bench-analyze.XXXXXX") || die "cannot create a temporary directory"
trap 'rm -rf "$TMP"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

have_perf=no
if command -v perf >/dev/null 2>&1 &&
   perf record -q -B -e cpu-clock -o "$TMP/probe.data" true >/dev/null 2>&1; then
	have_perf=yes
fi
rm -f "$TMP/probe.data"

# --- recordings -------------------------------------------------------------------

SETTINGS="-e cpu-clock -F 10000 -g"

# record_amber OUT WORK: an amber recording of the workload; prints its
# sample count.
record_amber() {
	# shellcheck disable=SC2086
	"$REC" $SETTINGS -o "$1" -- "$WORKLOAD" --threads 2 --work "$2" \
		>/dev/null 2>"$TMP/rec.err" || die "amber-rec failed: $(tail -n 2 "$TMP/rec.err")"
	sed -n 's/.*captured \([0-9][0-9]*\) samples.*/\1/p' "$TMP/rec.err" | tail -n 1
}

echo "bench analyze: recording workload --threads 2 --work $WORK ($SETTINGS)" >&2
AMBER_SAMPLES=$(record_amber "$TMP/full.amber" "$WORK")
SHORT_WORK=$((WORK / 10))
SHORT_SAMPLES=$(record_amber "$TMP/short.amber" "$SHORT_WORK")
PERF_SAMPLES=-
if [ $have_perf = yes ]; then
	# shellcheck disable=SC2086
	perf record -q -B $SETTINGS -o "$TMP/perf.data" -- "$WORKLOAD" --threads 2 --work "$WORK" \
		>/dev/null 2>"$TMP/perf.err" || die "perf record failed: $(tail -n 2 "$TMP/perf.err")"
	PERF_SAMPLES=$(perf report --stats -i "$TMP/perf.data" 2>/dev/null |
		awk '/^ *SAMPLE events:/ { print $3; exit }')
fi

# --- measuring ------------------------------------------------------------------------

# measure LABEL COMMAND...: run COMMAND REPEAT times, stdout to /dev/null, and
# append "LABEL SECONDS KB" of the fastest run to $TMP/rows ("? ?" when it
# fails).
measure() {
	label=$1
	shift
	: >"$TMP/runs"
	r=0
	while [ $r -lt "$REPEAT" ]; do
		t0=$(date +%s%N)
		if /usr/bin/time -f '%M' -o "$TMP/time" "$@" >/dev/null 2>"$TMP/err"; then
			t1=$(date +%s%N)
			awk -v a="$t0" -v b="$t1" -v kb="$(tail -n 1 "$TMP/time")" \
				'BEGIN { printf "%.3f %s\n", (b - a) / 1e9, kb }' >>"$TMP/runs"
		else
			echo "bench analyze: $label failed: $(tail -n 2 "$TMP/err")" >&2
		fi
		r=$((r + 1))
	done
	best=$(sort -g "$TMP/runs" | head -n 1)
	echo "$label ${best:-? ?}" >>"$TMP/rows"
}

: >"$TMP/rows"
measure amber-report "$ANA" report --no-children -g none "$TMP/full.amber"
measure amber-report-cg "$ANA" report --children -g caller "$TMP/full.amber"
measure amber-script "$ANA" script "$TMP/full.amber"
measure amber-report-j1 "$ANA" report -j 1 --no-children -g none "$TMP/full.amber"
measure amber-script-j1 "$ANA" script -j 1 "$TMP/full.amber"
measure amber-report-short "$ANA" report -j 1 --no-children -g none "$TMP/short.amber"
measure amber-script-short "$ANA" script -j 1 "$TMP/short.amber"
if [ $have_perf = yes ]; then
	measure perf-report perf report --stdio --no-children -g none -i "$TMP/perf.data"
	measure perf-report-cg perf report --stdio --children -i "$TMP/perf.data"
	measure perf-script perf script -i "$TMP/perf.data"
fi

# --- the table ------------------------------------------------------------------------

echo "bench analyze: workload --threads 2 --work $WORK, $SETTINGS, best of $REPEAT runs, $(nproc) CPUs"
echo "bench analyze: samples: amber $AMBER_SAMPLES, perf $PERF_SAMPLES; short recording (--work $SHORT_WORK): $SHORT_SAMPLES"
[ $have_perf = yes ] || echo "bench analyze: perf is not installed or cannot record: perf rows skipped"
echo
awk -v na="$AMBER_SAMPLES" -v np="$PERF_SAMPLES" \
	-v short_work="$SHORT_WORK" -v ns="$SHORT_SAMPLES" '
function num(x) { return x ~ /^[0-9.]+$/ }
function ratio(a, b) { return (num(a) && num(b) && b + 0 > 0) ? sprintf("%.2f", a / b) : "-" }
function rate(n, s) { return (num(n) && num(s) && s + 0 > 0) ? sprintf("%.0f", n / s) : "-" }
function mb(kb) { return kb ~ /^[0-9]+$/ ? sprintf("%.1f", kb / 1024) : "?" }
{ n++; label[n] = $1; sec[$1] = $2; kb[$1] = $3 }
END {
	cmd["amber-report"] = "amber-analyze report --no-children -g none"
	cmd["amber-report-cg"] = "amber-analyze report --children -g caller"
	cmd["amber-script"] = "amber-analyze script"
	cmd["amber-report-j1"] = "amber-analyze report, self, -j 1"
	cmd["amber-script-j1"] = "amber-analyze script -j 1"
	cmd["amber-report-short"] = "amber-analyze report, self, -j 1 (--work " short_work ")"
	cmd["amber-script-short"] = "amber-analyze script -j 1 (--work " short_work ")"
	cmd["perf-report"] = "perf report --stdio --no-children -g none"
	cmd["perf-report-cg"] = "perf report --stdio --children"
	cmd["perf-script"] = "perf script"
	fmt = "%-46s %8s %8s %12s %8s\n"
	printf fmt, "command", "samples", "wall s", "samples/s", "peak MB"
	for (i = 1; i <= n; i++) {
		l = label[i]
		smp = l ~ /short/ ? ns : l ~ /^perf/ ? np : na
		printf fmt, cmd[l], smp, sec[l], rate(smp, sec[l]), mb(kb[l])
	}
	printf "\n%-34s %9s %9s %7s   %s\n", "amber vs perf", "speedup", "rate x", "RSS x", "target"
	row("report (self only)", "amber-report", "perf-report", "speedup >= 3, RSS x < 1")
	row("report --children, call graphs", "amber-report-cg", "perf-report-cg", "speedup >= 3, RSS x < 1")
	row("script", "amber-script", "perf-script", "speedup >= 3, RSS x < 1")
	printf "(speedup: perf wall time / amber wall time; rate x: amber samples/s / perf samples/s)\n"
	printf "\n%-34s %9s %9s\n", "memory, full vs 10x shorter, -j 1", "RSS x", "target"
	printf "%-34s %9s %9s\n", "report", ratio(kb["amber-report-j1"], kb["amber-report-short"]), "< 1.5"
	printf "%-34s %9s %9s\n", "script", ratio(kb["amber-script-j1"], kb["amber-script-short"]), "< 1.5"
	printf "decoding workers (default -j) add: report %s MB, script %s MB\n",
		mb(kb["amber-report"] - kb["amber-report-j1"]), mb(kb["amber-script"] - kb["amber-script-j1"])
}
function row(name, a, p, target) {
	if (!(p in sec)) return
	printf "%-34s %9s %9s %7s   %s\n", name, ratio(sec[p], sec[a]),
		ratio(rate(na, sec[a]), rate(np, sec[p])), ratio(kb[a], kb[p]), target
}' "$TMP/rows"
