#!/bin/sh
# tests/bench/offcpu.sh BUILD - the cost of recording the scheduler:
# amber-rec beside perf, side by side in one run, on two switch-heavy
# workloads of build/programs/switcher (testdata/programs/README.md):
#
#   pingpong   two threads passing a byte through two pipes
#   mutex      8 threads passing a turn around a ring under one mutex
#
# each run for BENCH_SECONDS (3) as the recorder's command, recorded by
#
#   perf sched record            system-wide, no stacks (perf's own preset;
#                                it adds sched_stat_runtime, sched_process_fork)
#   amber-rec sched              system-wide, no stacks
#   perf record -g (targets)     sched_switch, sched_waking and --switch-events
#                                of the command's threads, frame-pointer stacks:
#                                what an off-CPU profile needs, perf's way
#                                without BPF
#   amber-rec --off-cpu -g       the same of amber-rec (-e sched:sched_switch, so
#                                no cpu-clock profile beside it)
#
# and bare.  Each is repeated BENCH_REPEAT (3) times; the table shows
# medians: the recorder's CPU time (user+sys of the recorder and its
# command, minus what the command says it used itself), the file size,
# the sched_switch events recorded, CPU nanoseconds and bytes per switch,
# and the workload's throughput as a share of the bare run's (on a
# shared machine the noisiest column).  Then the amber/perf ratios of
# each pair, per switch recorded: the workloads run for a fixed time and
# do more or less work under each recorder.  perf runs with -N -B (no build-id
# cache: perf 6.1 sometimes dies in it when other perf runs share it, and
# a sched recording needs no build-ids); its file is then everything it
# wrote.
B=${1:-build}
cd "$(dirname "$0")/../.." || exit 2
case $B in /*) ;; *) B=$(pwd)/$B ;; esac
REC=$B/amber-rec
ANA=$B/amber-analyze
SW=$B/programs/switcher
SECS=${BENCH_SECONDS:-3}
REPEAT=${BENCH_REPEAT:-3}

die() {
	echo "bench offcpu: error: $*" >&2
	exit 1
}

[ -x "$SW" ] || die "$SW is not built (run 'make programs')"
[ -x /usr/bin/time ] || die "/usr/bin/time is missing (apt-get install time)"
case $REPEAT in '' | *[!0-9]* | 0) die "BENCH_REPEAT must be a positive integer" ;; esac

TMP=$(mktemp -d "${TMPDIR:-/tmp}/amber-bench-offcpu.XXXXXX") || die "cannot create a temporary directory"
trap 'rm -rf "$TMP"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

if [ ! -e /sys/kernel/tracing/events ] && [ ! -e /sys/kernel/debug/tracing/events ]; then
	mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null ||
		die "tracefs is not mounted (mount -t tracefs nodev /sys/kernel/tracing)"
fi

have_perf=no
command -v perf >/dev/null 2>&1 &&
	perf record -q -N -B -e cpu-clock -o "$TMP/probe.data" true >/dev/null 2>&1 && have_perf=yes
[ $have_perf = yes ] || echo "bench offcpu: perf is missing or does not record: perf rows say so"

median() {
	sort -g | awk '{ v[NR] = $1; if ($1 !~ /^[0-9.]+$/) bad = 1 }
		END { if (bad || NR == 0) print "?"; else print v[int((NR + 1) / 2)] }'
}

# perf_switches FILE: the sched:sched_switch samples of a perf.data.
perf_switches() {
	perf report --stats -i "$1" 2>/dev/null | awk '
		/^sched:sched_switch stats:/ { f = 1; next }
		f && /SAMPLE events:/ { print $3; exit }'
}

# amber_switches FILE: the sched:sched_switch samples of an .amber file.
amber_switches() {
	"$ANA" report --sort event --json "$1" 2>/dev/null | python3 -c '
import json, sys
for e in json.load(sys.stdin)["events"]:
    if e["event"] == "sched:sched_switch":
        print(e["samples"])'
}

# run LABEL KIND WORKLOAD-ARGS: REPEAT runs of one configuration; appends
# "LABEL CPU BYTES SWITCHES THROUGHPUT" (medians) to $TMP/rows.
run() {
	label=$1 kind=$2
	shift 2
	: >"$TMP/runs"
	r=0
	while [ $r -lt "$REPEAT" ]; do
		out=$TMP/out.data
		rm -f "$out" "$out.old"
		case $kind in
		bare)
			/usr/bin/time -f '%U %S' -o "$TMP/time" "$SW" "$@" >"$TMP/sw.out" 2>"$TMP/err" ;;
		perf-sched)
			/usr/bin/time -f '%U %S' -o "$TMP/time" perf sched record -N -B -o "$out" -- \
				"$SW" "$@" >"$TMP/sw.out" 2>"$TMP/err" ;;
		amber-sched)
			/usr/bin/time -f '%U %S' -o "$TMP/time" "$REC" sched -o "$out" -- \
				"$SW" "$@" >"$TMP/sw.out" 2>"$TMP/err" ;;
		perf-g)
			/usr/bin/time -f '%U %S' -o "$TMP/time" perf record -q -N -B -m 1024 -c 1 \
				-e sched:sched_switch -e sched:sched_waking -g --switch-events \
				-o "$out" -- "$SW" "$@" >"$TMP/sw.out" 2>"$TMP/err" ;;
		amber-g)
			/usr/bin/time -f '%U %S' -o "$TMP/time" "$REC" --off-cpu -g \
				-e sched:sched_switch -o "$out" -- "$SW" "$@" >"$TMP/sw.out" 2>"$TMP/err" ;;
		esac
		rc=$?
		if [ $rc != 0 ]; then
			echo "bench offcpu: $label: exit status $rc: $(tail -n 1 "$TMP/err")" >&2
			echo "? ? ? ?" >>"$TMP/runs"
			r=$((r + 1))
			continue
		fi
		# The workload's own CPU comes out of the total: the rest is the recorder's.
		cpu=$(awk '{ print $1 + $2 }' "$TMP/time")
		sw_cpu=$(sed -n 's/.*, cpu \([0-9.]*\) s$/\1/p' "$TMP/sw.out")
		ops=$(awk '{ print $2 == "pingpong" ? $3 : $5 }' "$TMP/sw.out")
		case $kind in
		bare) echo "- - - $ops" >>"$TMP/runs" ;;
		perf-*) echo "$(awk -v a="$cpu" -v b="$sw_cpu" 'BEGIN { printf "%.3f", a - b }') \
			$(wc -c <"$out") $(perf_switches "$out") $ops" >>"$TMP/runs" ;;
		amber-*) echo "$(awk -v a="$cpu" -v b="$sw_cpu" 'BEGIN { printf "%.3f", a - b }') \
			$(wc -c <"$out") $(amber_switches "$out") $ops" >>"$TMP/runs" ;;
		esac
		rm -f "$out" "$out.old"
		r=$((r + 1))
	done
	row=$label
	for col in 1 2 3 4; do
		if [ "$kind" = bare ] && [ $col -lt 4 ]; then
			row="$row -"
		else
			row="$row $(awk -v c=$col '{ print $c }' "$TMP/runs" | median)"
		fi
	done
	echo "$row" >>"$TMP/rows"
}

for w in "pingpong" "mutex --threads 8"; do
	name=${w%% *}
	: >"$TMP/rows"
	# shellcheck disable=SC2086 # the workload's words
	run bare bare $w --seconds "$SECS"
	if [ $have_perf = yes ]; then
		# shellcheck disable=SC2086
		run "perf-sched-record" perf-sched $w --seconds "$SECS"
	else
		echo "perf-sched-record ? ? ? ?" >>"$TMP/rows"
	fi
	# shellcheck disable=SC2086
	run "amber-rec-sched" amber-sched $w --seconds "$SECS"
	if [ $have_perf = yes ]; then
		# shellcheck disable=SC2086
		run "perf-record-g" perf-g $w --seconds "$SECS"
	else
		echo "perf-record-g ? ? ? ?" >>"$TMP/rows"
	fi
	# shellcheck disable=SC2086
	run "amber-rec-off-cpu-g" amber-g $w --seconds "$SECS"
	echo "workload: switcher $w --seconds $SECS ($REPEAT runs, medians)"
	awk '
	function num(a) { return a ~ /^[0-9.]+$/ }
	function ratio(a, b) { return (num(a) && num(b) && b + 0 > 0) ? sprintf("%.2f", a / b) : "-" }
	function bps(k) { return (num(bytes[k]) && num(sw[k]) && sw[k] > 0) ? bytes[k] / sw[k] : "-" }
	function nps(k) { return (num(cpu[k]) && num(sw[k]) && sw[k] > 0) ? cpu[k] * 1e9 / sw[k] : "-" }
	{ n++; l[n] = $1; cpu[$1] = $2; bytes[$1] = $3; sw[$1] = $4; ops[$1] = $5 }
	END {
		fmt = "  %-22s %10s %12s %10s %9s %9s %12s %7s\n"
		printf fmt, "recorder", "rec CPU s", "file B", "switches", "CPU ns/sw", "B/switch",
			"work done", "x bare"
		for (i = 1; i <= n; i++) {
			k = l[i]
			b = bps(k)
			c = nps(k)
			printf fmt, k, cpu[k], bytes[k], sw[k], num(c) ? sprintf("%.0f", c) : c,
				num(b) ? sprintf("%.1f", b) : b, ops[k], ratio(ops[k], ops["bare"])
		}
		printf "  amber/perf per switch, system-wide without stacks: CPU %s, bytes %s (work %s)\n",
			ratio(nps("amber-rec-sched"), nps("perf-sched-record")),
			ratio(bps("amber-rec-sched"), bps("perf-sched-record")),
			ratio(ops["amber-rec-sched"], ops["perf-sched-record"])
		printf "  amber/perf per switch, the command with stacks:    CPU %s, bytes %s (work %s)\n",
			ratio(nps("amber-rec-off-cpu-g"), nps("perf-record-g")),
			ratio(bps("amber-rec-off-cpu-g"), bps("perf-record-g")),
			ratio(ops["amber-rec-off-cpu-g"], ops["perf-record-g"])
	}' "$TMP/rows"
	echo
done
