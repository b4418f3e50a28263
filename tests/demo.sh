#!/bin/sh
# tests/demo.sh BUILD - the README's main job (`make demo`): record the
# bundled workload with call graphs and print the report.
#
#   amber-rec -g -o BUILD/demo.amber -- BUILD/programs/workload
#   amber-analyze report BUILD/demo.amber
#
# The recording is left in BUILD/demo.amber to explore further.  If this
# build's amber-analyze has no `report` command yet, `info` is shown instead.
B=${1:-build}
cd "$(dirname "$0")/.." || exit 2
case $B in /*) ;; *) B=$(pwd)/$B ;; esac
REC=$B/amber-rec
ANA=$B/amber-analyze
WORKLOAD=$B/programs/workload
OUT=$B/demo.amber

die() {
	echo "demo: error: $*" >&2
	exit 1
}

for f in "$REC" "$ANA" "$WORKLOAD"; do
	[ -x "$f" ] || die "$f is not built (run 'make all programs')"
done

# Not needed for -g on cpu-clock, but amber-rec records tracepoint formats
# and sched events when tracefs is there; mount it if we may.
if [ ! -e /sys/kernel/tracing/events ] && [ "$(id -u)" = 0 ]; then
	mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null ||
		echo "demo: note: could not mount tracefs; continuing without it" >&2
fi

echo "==> $REC -g -o $OUT -- $WORKLOAD"
"$REC" -g -o "$OUT" -- "$WORKLOAD" || die "amber-rec failed (exit $?)"
echo

if "$ANA" --help 2>/dev/null | grep -q '^ *report '; then
	echo "==> $ANA report $OUT"
	"$ANA" report "$OUT" || die "amber-analyze report $OUT failed (exit $?)"
else
	echo "==> $ANA info $OUT   (this build has no 'report' command yet)"
	"$ANA" info "$OUT" || die "amber-analyze info $OUT failed (exit $?)"
fi
echo
echo "demo: the recording is $OUT; try '$ANA report --help'."
