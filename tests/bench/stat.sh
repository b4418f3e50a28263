#!/bin/sh
# tests/bench/stat.sh BUILD - what counting costs: amber-rec stat beside
# perf stat on the same commands, side by side in one run.
#
# Each command runs bare, under `amber-rec stat` and under `perf stat`,
# both counting perf stat's default set (on a machine without a PMU its
# hardware events are refused alike).  The three are interleaved, in a
# rotating order, BENCH_RUNS times (default 40) after 3 warm-ups, so that
# the drift of a shared machine falls on all three alike; medians, since
# one stalled run on a busy VM would move a mean.  Printed per command:
#
#   wall       the whole invocation, as a shell sees it (the tool starting,
#              opening the events, exec, reading, printing), ms
#   +ms        what each tool adds to the bare command's wall time
#   amber/perf the two tools' wall times
#   elapsed    what each tool reports as the command's own "seconds time
#              elapsed" (with -I: the last interval's end), ms: the
#              command's run as counted, without the tool's start and
#              printing - the time counting adds to the command itself
#              shows here
#   task-clock the command's CPU time as each counted it, ms
#
# Without perf the perf columns say "-".
B=${1:-build}
cd "$(dirname "$0")/../.." || exit 2
case $B in /*) ;; *) B=$(pwd)/$B ;; esac
REC=$B/amber-rec
WL=$B/programs/workload
RUNS=${BENCH_RUNS:-40}

die() {
	echo "bench stat: error: $*" >&2
	exit 1
}

[ -x "$REC" ] || die "$REC is not built"
[ -x "$WL" ] || die "$WL is not built (run 'make programs')"
case $RUNS in '' | *[!0-9]* | 0) die "BENCH_RUNS must be a positive integer" ;; esac
TMP=$(mktemp -d "${TMPDIR:-/tmp}/amber-bench-stat.XXXXXX") || die "no temporary directory"
trap 'rm -rf "$TMP"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

have_perf=no
command -v perf >/dev/null 2>&1 && perf stat -e task-clock true >/dev/null 2>&1 && have_perf=yes

# run VARIANT OPTS CMD...: one timed run; appends "wall_us elapsed_us
# task_us" to $TMP/VARIANT (0 where a variant reports nothing).
run() {
	v=$1
	opts=$2
	shift 2
	t0=$(date +%s%N)
	case $v in
	bare) "$@" >/dev/null 2>&1 ;;
	# shellcheck disable=SC2086 # opts are words
	amber) "$REC" stat $opts -- "$@" >/dev/null 2>"$TMP/out" ;;
	# shellcheck disable=SC2086
	perf) perf stat $opts -- "$@" >/dev/null 2>"$TMP/out" ;;
	esac
	t1=$(date +%s%N)
	if [ "$v" = bare ]; then
		echo "$(((t1 - t0) / 1000)) 0 0" >>"$TMP/$v"
	else
		awk -v w=$(((t1 - t0) / 1000)) '
			/seconds time elapsed/ { e = $1 * 1e6 }
			# -I: the intervals add up; the last one ends the run.
			/msec task-clock/ && $3 == "msec" { t += $2 * 1e3; e = $1 * 1e6 }
			/msec task-clock/ && $2 == "msec" { t = $1 * 1e3 }
			END { printf "%d %d %d\n", w, e, t }' "$TMP/out" >>"$TMP/$v"
	fi
}

# median FILE COLUMN: in ms.
median() {
	awk -v c="$2" '{ print $c }' "$1" | sort -n |
		awk '{ v[NR] = $1 } END { m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2;
			printf "%.3f\n", m / 1000 }'
}

# bench NAME OPTS CMD...
bench() {
	name=$1
	opts=$2
	shift 2
	variants="bare amber"
	[ $have_perf = yes ] && variants="bare amber perf"
	rm -f "$TMP/bare" "$TMP/amber" "$TMP/perf"
	i=0
	while [ $i -lt 3 ]; do
		for v in $variants; do run "$v" "$opts" "$@"; done
		i=$((i + 1))
	done
	rm -f "$TMP/bare" "$TMP/amber" "$TMP/perf"
	i=0
	while [ $i -lt "$RUNS" ]; do
		# Rotate the order: none always runs first after the others.
		case $((i % 3)) in
		0) order="bare amber perf" ;;
		1) order="amber perf bare" ;;
		2) order="perf bare amber" ;;
		esac
		for v in $order; do
			case " $variants " in *" $v "*) run "$v" "$opts" "$@" ;; esac
		done
		i=$((i + 1))
	done
	bw=$(median "$TMP/bare" 1)
	aw=$(median "$TMP/amber" 1)
	ae=$(median "$TMP/amber" 2)
	at=$(median "$TMP/amber" 3)
	if [ $have_perf = yes ]; then
		pw=$(median "$TMP/perf" 1)
		pe=$(median "$TMP/perf" 2)
		pt=$(median "$TMP/perf" 3)
	fi
	awk -v n="$name" -v bw="$bw" -v aw="$aw" -v ae="$ae" -v at="$at" -v pw="${pw:--}" \
	    -v pe="${pe:--}" -v pt="${pt:--}" 'BEGIN {
		printf "%-26s %8.2f %8.2f %8s %7.2f %7s %6s | %8.2f %8s %6s | %8.2f %8s %6s\n", n,
		       bw, aw, pw, aw - bw, pw == "-" ? "-" : sprintf("%.2f", pw - bw),
		       pw == "-" ? "-" : sprintf("%.3f", aw / pw),
		       ae, pe, pe == "-" || pe == 0 ? "-" : sprintf("%.3f", ae / pe),
		       at, pt, pt == "-" || pt == 0 ? "-" : sprintf("%.3f", at / pt) }'
}

echo "amber-rec stat beside perf stat: medians of $RUNS interleaved runs, ms"
printf "%-26s %8s %8s %8s %7s %7s %6s | %8s %8s %6s | %8s %8s %6s\n" "" "wall:" "" "" "" "" "" \
	"elapsed:" "" "" "task-clock:" "" ""
printf "%-26s %8s %8s %8s %7s %7s %6s | %8s %8s %6s | %8s %8s %6s\n" command bare amber perf \
	+amber +perf ratio amber perf ratio amber perf ratio
bench "true" "" true
bench "workload --work 10" "" "$WL" --threads 2 --work 10
bench "workload --work 20 -I 100" "-I 100" "$WL" --threads 2 --work 20
echo "ratio = amber/perf; +ms = added to the bare command's wall time"
