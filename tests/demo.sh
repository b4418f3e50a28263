#!/bin/sh
# tests/demo.sh BUILD - the README's main job (`make demo`): record the
# bundled workload with call graphs and print the report.
#
#   amber-rec -g -o BUILD/demo.amber -- BUILD/programs/workload
#   amber-analyze report BUILD/demo.amber
#
# The recording is left in BUILD/demo.amber to explore further.
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

echo "==> $REC -g -o $OUT -- $WORKLOAD"
"$REC" -g -o "$OUT" -- "$WORKLOAD" || die "amber-rec failed (exit $?)"
echo

echo "==> $ANA report --percent-limit 0.5 $OUT"
"$ANA" report --percent-limit 0.5 "$OUT" || die "amber-analyze report $OUT failed (exit $?)"
echo
echo "demo: the recording is $OUT; try '$ANA report --children $OUT',"
echo "demo: '$ANA flame $OUT -o flame.svg' or '$ANA report --help'."
