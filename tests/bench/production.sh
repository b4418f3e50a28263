#!/bin/sh
# tests/bench/production.sh BUILD - system-wide recording at production
# settings on a busy machine: amber-rec beside perf record and perf
# record -z, side by side in one run (issue 12).
#
# A load runs for the whole benchmark: workload on every CPU (named
# threads, call chains through libc) and a shell starting a short-lived
# process about every 10 ms (COMM, FORK, MMAP2 and EXIT records, new
# executables to name) - at F99 these records are most of a file.  On it each recorder records system-wide for
# BENCH_PROD_SECONDS (default 20) in two configurations:
#
#   F99   -a -F 99 -g      (perf's own -F default for -a is 4000; 99 is what
#   F999  -a -F 999 -g      long-running production profiling uses)
#
# amber-rec stops itself (--duration), perf records `sleep SECONDS`, with
# -N: no copies of binaries into ~/.debug (perf still reads its file back
# for build-ids at the end).  The
# three recorders take turns, in a rotating order, BENCH_PROD_REPEAT times
# (default 3); the median of each column is shown:
#
#   cpu s    user+sys CPU seconds of the recorder process alone
#            (/usr/bin/time), its end work included (perf's build-id
#            pass, amber-rec's kernel symbol trim)
#   rss MB   its maximum resident set
#   B/s      bytes of the output file per second recorded (perf: without
#            its ~/.debug cache, HOME is an empty directory)
#   samples  samples in the file; lost: samples the kernel could not
#            write (perf: LOST_SAMPLES of --stats; amber: its summary)
#   records  the samples and the COMM, FORK, EXIT, MMAP2 records (those
#            made for what ran before included); B/rec: bytes per record
#            - the load starts processes at a rate the machine sets, which
#            moves B/s from run to run, B/rec much less
#
# and the ratios amber/perf (CPU, RSS) and amber/perf -z (bytes): the
# goal is CPU at most perf's and bytes at most perf -z's.  Without perf
# the amber rows still print.
B=${1:-build}
cd "$(dirname "$0")/../.." || exit 2
case $B in /*) ;; *) B=$(pwd)/$B ;; esac
REC=$B/amber-rec
ANA=$B/amber-analyze
WL=$B/programs/workload
SECS=${BENCH_PROD_SECONDS:-20}
REPEAT=${BENCH_PROD_REPEAT:-3}

die() {
	echo "bench production: error: $*" >&2
	exit 1
}

[ -x "$REC" ] && [ -x "$ANA" ] || die "$REC or $ANA is not built"
[ -x "$WL" ] || die "$WL is not built (run 'make programs')"
[ -x /usr/bin/time ] || die "/usr/bin/time is missing (apt-get install time)"
[ "$(id -u)" = 0 ] || die "system-wide recording needs root"
case $SECS in '' | *[!0-9]* | 0) die "BENCH_PROD_SECONDS must be a positive integer" ;; esac
case $REPEAT in '' | *[!0-9]* | 0) die "BENCH_PROD_REPEAT must be a positive integer" ;; esac

TMP=$(mktemp -d "${TMPDIR:-/tmp}/amber-bench-prod.XXXXXX") || die "no temporary directory"
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

have_perf=no
if command -v perf >/dev/null 2>&1; then
	for try in 1 2 3; do
		if perf record -q -e cpu-clock -o "$TMP/probe.data" true >/dev/null 2>&1; then
			have_perf=yes
			break
		fi
	done
fi

# The load: workload on every CPU, restarted as it ends, and a shell that
# starts processes without pause.
start_load() {
	ncpu=$(nproc)
	setsid sh -c "while :; do '$WL' --threads $ncpu --work 2000 >/dev/null; done" &
	LOAD_PIDS="$LOAD_PIDS $!"
	setsid sh -c 'while :; do /bin/true; sleep 0.01; done' &
	LOAD_PIDS="$LOAD_PIDS $!"
}

# perf_counts FILE: "SAMPLES LOST RECORDS" of a perf.data file (perf report
# --stats: the SAMPLE and LOST_SAMPLES lines of each event's section, and
# the aggregated SAMPLE, COMM, FORK, EXIT, MMAP and MMAP2 lines).
perf_counts() {
	perf report --stats -i "$1" 2>/dev/null | awk '
		/^Aggregated/ { agg = 1; next }
		/ stats:$/ { agg = 0; per_event = 1; next }
		agg && $2 == "events:" && $1 ~ /^(SAMPLE|COMM|FORK|EXIT|MMAP|MMAP2)$/ { r += $3 }
		per_event && $1 == "SAMPLE" { s += $3; have = 1 }
		per_event && $1 == "LOST_SAMPLES" { l += $3 }
		END { if (have) print s, l + 0, r + 0; else print "? ? ?" }'
}

# amber_counts FILE STDERR: "SAMPLES LOST RECORDS": amber-rec's summary
# line, and the RING and SYNTH records info counts.
amber_counts() {
	sl=$(sed -n 's/.*captured \([0-9]*\) samples (\([0-9]*\) lost).*/\1 \2/p' "$2" | tail -n 1)
	r=$("$ANA" info "$1" 2>/dev/null | awk '$1 == "ring" || $1 == "synth" { n += $3 } END { print n + 0 }')
	echo "${sl:-? ?} ${r:-?}"
}

# run TOOL CONFIG FREQ: one recording; appends "cpu rss_kb bytes samples lost
# records" to $TMP/TOOL-CONFIG.  perf 6.1 aborts now and then in its
# build-id code at the end (util/build-id.c:1010) under load: such a run
# is made again, up to three times.
run() {
	for attempt in 1 2 3; do
		run_once "$@" && return
		grep -q 'assertion failed' "$TMP/err" || return
		echo "bench production: $1 $2: perf aborted, again" >&2
	done
}

run_once() {
	tool=$1 cfg=$2 freq=$3
	out=$TMP/out.$tool
	rm -rf "$out" "$out.old" "$TMP/home"
	mkdir "$TMP/home"
	case $tool in
	amber)  /usr/bin/time -f '%U %S %M' -o "$TMP/time" "$REC" -a -F "$freq" -g \
			--duration "$SECS" -o "$out" >/dev/null 2>"$TMP/err" ;;
	perf)   HOME=$TMP/home /usr/bin/time -f '%U %S %M' -o "$TMP/time" perf record -q -N -a \
			-F "$freq" -g -o "$out" -- sleep "$SECS" >/dev/null 2>"$TMP/err" ;;
	perf-z) HOME=$TMP/home /usr/bin/time -f '%U %S %M' -o "$TMP/time" perf record -q -N -z -a \
			-F "$freq" -g -o "$out" -- sleep "$SECS" >/dev/null 2>"$TMP/err" ;;
	esac
	rc=$?
	if [ $rc != 0 ]; then
		echo "bench production: $tool $cfg: exit status $rc: $(tail -n 2 "$TMP/err")" >&2
		grep -q 'assertion failed' "$TMP/err" && [ "$attempt" -lt 3 ] && return 1
		echo "? ? ? ? ? ?" >>"$TMP/$tool-$cfg"
		return 0
	fi
	t=$(tail -n 1 "$TMP/time" | awk '{ printf "%.2f %d", $1 + $2, $3 }')
	bytes=$(wc -c <"$out")
	case $tool in
	amber) c=$(amber_counts "$out" "$TMP/err") ;;
	*)     c=$(perf_counts "$out") ;;
	esac
	echo "$t $bytes $c" >>"$TMP/$tool-$cfg"
	rm -rf "$out" "$out.old"
	return 0
}

# median: of the numbers on stdin; a failed run ("?") is left out.
median() {
	grep -E '^[0-9.]+$' | sort -g | awk '{ v[NR] = $1 }
		END { if (NR == 0) print "?"; else print v[int((NR + 1) / 2)] }'
}

# row TOOL CONFIG: "cpu rss bytes samples lost records bytes/record" medians.
row() {
	f=$TMP/$1-$2
	[ -s "$f" ] || { echo "- - - - - - -"; return; }
	r=""
	for col in 1 2 3 4 5 6; do
		r="$r $(awk -v c=$col '{ print $c }' "$f" | median)"
	done
	r="$r $(awk '$3 ~ /^[0-9]+$/ && $6 ~ /^[0-9]+$/ && $6 > 0 { print $3 / $6 }' "$f" | median)"
	echo "$r"
}

tools="amber"
[ $have_perf = yes ] && tools="perf perf-z amber"
echo "bench production: -a for ${SECS}s on a loaded machine ($(nproc) CPUs), median of $REPEAT, $tools"
[ $have_perf = yes ] || echo "bench production: perf is missing or cannot record: its rows are empty"
start_load
# Let the load settle.
sleep 2
i=0
while [ $i -lt "$REPEAT" ]; do
	for cfg in F99 F999; do
		freq=${cfg#F}
		# A rotating order: each tool takes each place in turn.
		set -- $tools
		k=0
		while [ $k -lt $((i % $#)) ]; do
			first=$1
			shift
			set -- "$@" "$first"
			k=$((k + 1))
		done
		for tool in "$@"; do
			echo "bench production: run $((i + 1))/$REPEAT $cfg $tool" >&2
			run "$tool" "$cfg" "$freq"
		done
	done
	i=$((i + 1))
done
stop_load

fmt="%-14s %8s %8s %10s %9s %6s %9s %7s\n"
printf "\n$fmt" run "cpu s" "rss MB" "B/s" samples lost records "B/rec"
for cfg in F99 F999; do
	for tool in perf perf-z amber; do
		set -- $(row "$tool" "$cfg")
		[ "$1" = - ] && continue
		printf "$fmt" "$tool-$cfg" "$1" "$(awk -v k="$2" 'BEGIN { printf "%.1f", k / 1024 }')" \
			"$(awk -v b="$3" -v s="$SECS" 'BEGIN { printf "%.0f", b / s }')" "$4" "$5" "$6" \
			"$(awk -v b="$7" 'BEGIN { printf "%.1f", b }')"
	done
done
if [ $have_perf = yes ]; then
	fmt="%-10s %9s %9s %9s %9s %13s %13s\n"
	printf "\n$fmt" amber/perf "cpu" "cpu/-z" "rss" "B/s" "B/s / perf-z" "B/rec/perf-z"
	for cfg in F99 F999; do
		a=$(row amber "$cfg")
		p=$(row perf "$cfg")
		z=$(row perf-z "$cfg")
		# fields: cfg, amber 2-8, perf 9-15, perf-z 16-22
		echo "$cfg $a $p $z" | awk -v fmt="$fmt" '
			function r(x, y) { return (x ~ /^[0-9.]+$/ && y ~ /^[0-9.]+$/ && y > 0) ? sprintf("%.2f", x / y) : "-" }
			{ printf fmt, $1, r($2, $9), r($2, $16), r($3, $10), r($4, $11), r($4, $18), r($8, $22) }'
	done
	echo
	echo "goal: cpu <= 1.00 (amber-rec's CPU at most perf record's), B/s / perf-z <= 1.00"
fi
