#!/bin/sh
# tests/bench/rotation.sh BUILD - a long rotating recording (issue 12):
# amber-rec -a -F 99 -g --switch-output=BENCH_ROTATION_SWITCH (default 1m)
# for BENCH_ROTATION_SECONDS (default 600) on a loaded machine (the load of
# production.sh).  Prints the files written and their bytes, the
# recorder's CPU seconds and maximum RSS, the samples against what 99 Hz
# on every CPU gives, the samples lost, and the gaps: on each CPU the
# time from a file's last sample to the next file's first, beside the
# largest gap between two samples anywhere (both should be about one
# sampling period, 1/99 s).  Every file must verify and analyze alone
# (its samples named): otherwise, or with a gap over 5 periods at a
# switch, the script exits 1.  `make bench` runs it; `make
# bench-rotation` runs it alone.
B=${1:-build}
cd "$(dirname "$0")/../.." || exit 2
case $B in /*) ;; *) B=$(pwd)/$B ;; esac
REC=$B/amber-rec
ANA=$B/amber-analyze
WL=$B/programs/workload
SECS=${BENCH_ROTATION_SECONDS:-600}
SWITCH=${BENCH_ROTATION_SWITCH:-1m}
FREQ=99

die() {
	echo "bench rotation: error: $*" >&2
	exit 1
}

[ -x "$REC" ] && [ -x "$ANA" ] || die "$REC or $ANA is not built"
[ -x "$WL" ] || die "$WL is not built (run 'make programs')"
[ -x /usr/bin/time ] || die "/usr/bin/time is missing (apt-get install time)"
[ "$(id -u)" = 0 ] || die "system-wide recording needs root"
case $SECS in '' | *[!0-9]* | 0) die "BENCH_ROTATION_SECONDS must be a positive integer" ;; esac

TMP=$(mktemp -d "${TMPDIR:-/tmp}/amber-bench-rot.XXXXXX") || die "no temporary directory"
LOAD_PIDS=""
# Each part of the load is a process group of its own (setsid): killing
# the group ends the loop and what it started.
stop_load() {
	for p in $LOAD_PIDS; do
		kill -- "-$p" 2>/dev/null
	done
	for p in $LOAD_PIDS; do
		wait "$p" 2>/dev/null
	done
	LOAD_PIDS=""
}
trap 'stop_load; rm -rf "$TMP"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

ncpu=$(nproc)
setsid sh -c "while :; do '$WL' --threads $ncpu --work 2000 >/dev/null; done" &
LOAD_PIDS="$LOAD_PIDS $!"
setsid sh -c 'while :; do /bin/true; sleep 0.01; done' &
LOAD_PIDS="$LOAD_PIDS $!"
sleep 2

echo "bench rotation: amber-rec -a -F $FREQ -g --switch-output=$SWITCH for ${SECS}s, $ncpu CPUs, loaded"
mkdir "$TMP/out"
/usr/bin/time -f '%U %S %M' -o "$TMP/time" "$REC" -a -F $FREQ -g --switch-output="$SWITCH" \
	--duration "$SECS" -o "$TMP/out/rot.amber" >/dev/null 2>"$TMP/err"
rc=$?
stop_load
[ $rc = 0 ] || die "amber-rec exited $rc: $(tail -n 3 "$TMP/err")"

bad=""
files=0
bytes=0
lost=0
: >"$TMP/samples"
printf "\n%-40s %10s %9s %6s %s\n" file bytes samples lost reason
for f in "$TMP"/out/*.amber; do
	files=$((files + 1))
	b=$(wc -c <"$f")
	bytes=$((bytes + b))
	"$ANA" verify "$f" >/dev/null 2>&1 || bad="$bad; $(basename "$f") does not verify"
	"$ANA" info "$f" >"$TMP/info" 2>&1
	l=$(awk '$1 == "lost.records" || $1 == "lost.samples" { n += $2 } END { print n + 0 }' "$TMP/info")
	lost=$((lost + l))
	reason=$(awk '$1 == "rotate.reason" { print $2 }' "$TMP/info")
	# CPU, time, name: every sample of this file named from it alone.
	"$ANA" script --fields cpu,time,comm "$f" 2>/dev/null |
		awk -v k=$files '{ c = $(NF - 1); t = $NF; sub(":", "", t); sub(/\[/, "", $1); sub(/\]/, "", $1)
			print k, $1, t, $2 }' >"$TMP/s"
	n=$(wc -l <"$TMP/s")
	unnamed=$(awk '$4 ~ /^:[0-9]+$/' "$TMP/s" | wc -l)
	[ "$unnamed" = 0 ] || bad="$bad; $(basename "$f"): $unnamed samples without a name"
	cat "$TMP/s" >>"$TMP/samples"
	printf "%-40s %10d %9d %6d %s\n" "$(basename "$f")" "$b" "$n" "$l" "$reason"
done
set -- $(tail -n 1 "$TMP/time")
cpu=$(awk -v u="$1" -v s="$2" 'BEGIN { printf "%.2f", u + s }')
rss=$(awk -v k="$3" 'BEGIN { printf "%.1f", k / 1024 }')
total=$(wc -l <"$TMP/samples")
expect=$((FREQ * ncpu * SECS))
# Per CPU, in time order: the gap at each switch (a sample of file k, then
# one of file k+1) and the largest gap anywhere, in ms.
gaps=$(sort -k2,2n -k3,3g "$TMP/samples" | awk '
	{ if ($2 == cpu) { g = ($3 - t) * 1000; if (g > any) any = g
	                   if ($1 != file && g > sw) sw = g }
	  cpu = $2; t = $3; file = $1 }
	END { printf "%.1f %.1f", sw, any }')
set -- $gaps
printf "\nfiles %d, %.2f MB in all (%.0f B/s); recorder %s CPU s, %s MB RSS\n" "$files" \
	"$(awk -v b="$bytes" 'BEGIN { print b / 1e6 }')" "$(awk -v b="$bytes" -v s="$SECS" 'BEGIN { print b / s }')" \
	"$cpu" "$rss"
printf "samples %d (%d CPUs x %d Hz x %d s = %d), lost %d\n" "$total" "$ncpu" $FREQ "$SECS" "$expect" "$lost"
printf "largest gap at a switch %s ms, anywhere %s ms (one period: %.1f ms)\n" "$1" "$2" \
	"$(awk -v f=$FREQ 'BEGIN { print 1000 / f }')"
awk -v g="$1" -v f=$FREQ 'BEGIN { exit !(g > 5 * 1000 / f) }' && bad="$bad; a gap of $1 ms at a switch"
[ "$files" -ge 2 ] || bad="$bad; only $files file"
if [ -n "$bad" ]; then
	echo "bench rotation: FAILED$bad" >&2
	exit 1
fi
echo "no gaps: every switch within 5 sampling periods"
