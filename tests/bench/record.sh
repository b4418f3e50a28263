#!/bin/sh
# tests/bench/record.sh BUILD - recorder overhead: amber-rec against perf
# record, side by side in one run.
#
# One fixed-work two-thread workload (build/programs/workload) is run bare,
# under `perf record`, under `perf record -z` (the file-size target) and under
# `amber-rec`, with the same settings for each of three configurations:
#
#   fp      -e cpu-clock -F 4000  -g
#   dwarf   -e cpu-clock -F 999   --call-graph dwarf,STACK
#   dwarf10 -e cpu-clock -F 10000 --call-graph dwarf,STACK
#
# STACK is BENCH_STACK (8192, perf's default stack copy), given to both
# recorders so that they copy the same bytes; amber-rec's own default
# (32 KiB, four times the kernel's work per sample) is measured on its own
# as amber-dwarf10-default.
#
# Each run is repeated BENCH_REPEAT times (3) and the median of each column
# is shown: wall and CPU (user+sys of recorder and workload together) time,
# each also as a ratio to the bare run, samples, lost samples, file bytes,
# the fixed bytes beside the samples and the sample bytes per sample, then
# the amber/perf ratios.  Fixed bytes: for amber the blocks other than RING
# (metadata, and the kernel symbols the samples use); for perf what the recording added
# to its build-id cache (~/.debug: kallsyms and the binaries, which perf
# needs to analyse elsewhere and amber does not), measured with HOME set
# to an empty directory; perf -z skips that cache (and the build-ids), so
# the last ratio adds the plain perf run's cache to the perf -z file.  Per
# sample: amber's RING bytes, perf's whole file.
# BENCH_WORK (100) sets the workload's --work (about 1 s of CPU per
# thread).  Without amber-rec the perf side still runs and amber's rows say
# "missing".
B=${1:-build}
cd "$(dirname "$0")/../.." || exit 2
case $B in /*) ;; *) B=$(pwd)/$B ;; esac
REC=$B/amber-rec
ANA=$B/amber-analyze
REPEAT=${BENCH_REPEAT:-3}
WORK=${BENCH_WORK:-100}
STACK=${BENCH_STACK:-8192}
WORKLOAD=$B/programs/workload

die() {
	echo "bench record: error: $*" >&2
	exit 1
}

[ -x "$WORKLOAD" ] || die "$WORKLOAD is not built (run 'make programs')"
[ -x /usr/bin/time ] || die "/usr/bin/time is missing (apt-get install time)"
case $REPEAT in '' | *[!0-9]* | 0) die "BENCH_REPEAT must be a positive integer" ;; esac
case $WORK in '' | *[!0-9]*) die "BENCH_WORK must be a non-negative integer" ;; esac
case $STACK in '' | *[!0-9]*) die "BENCH_STACK must be a positive multiple of 8" ;; esac

TMP=$(mktemp -d "${TMPDIR:-/tmp}/amber-bench.XXXXXX") || die "cannot create a temporary directory"
trap 'rm -rf "$TMP"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

have_perf=no
if command -v perf >/dev/null 2>&1 &&
   perf record -q -e cpu-clock -o "$TMP/probe.data" true >/dev/null 2>&1; then
	have_perf=yes
fi
have_amber=no
[ -x "$REC" ] && have_amber=yes

# --- counting samples and lost samples in a finished recording ----------------

# perf_counts FILE: "SAMPLES LOST" of a perf.data file.  `perf report
# --stats` ends with a section per event whose LOST_SAMPLES line is the
# number of samples lost (PERF_RECORD_LOST.lost summed), not a record count.
perf_counts() {
	perf report --stats -i "$1" 2>/dev/null | awk '
		/ stats:$/ && !/^Aggregated/ { per_event = 1; next }
		per_event && $1 == "SAMPLE" { s += $3; have = 1 }
		per_event && $1 == "LOST_SAMPLES" { l += $3 }
		END { if (have) print s, l + 0; else print "? ?" }'
}

# amber_counts FILE STDERR: "SAMPLES LOST" of an .amber file, from
# amber-rec's summary line ("... N samples ... M lost ...") or else from
# `amber-analyze info`.  "?" where neither says.
amber_counts() {
	s=$(tail -n 3 "$2" | sed -n 's/.*[^0-9]\([0-9][0-9]*\) samples.*/\1/p' | tail -n 1)
	l=$(tail -n 3 "$2" | sed -n 's/.*[^0-9]\([0-9][0-9]*\) lost.*/\1/p; s/.*lost[^0-9]*\([0-9][0-9]*\).*/\1/p' |
		tail -n 1)
	if { [ -z "$s" ] || [ -z "$l" ]; } && [ -x "$ANA" ]; then
		"$ANA" info "$1" >"$TMP/info.txt" 2>/dev/null
		[ -n "$s" ] || s=$(awk 'tolower($0) ~ /samples/ && !/lost/ {
			for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+$/) { print $i; exit } }' "$TMP/info.txt")
		[ -n "$l" ] || l=$(awk '/lost\.samples/ {
			for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+$/) { print $i; exit } }' "$TMP/info.txt")
	fi
	echo "${s:-?} ${l:-?}"
}

# --- running -------------------------------------------------------------------

# median: the middle of the numbers on stdin ("?" if any is not a number).
median() {
	sort -g | awk '{ v[NR] = $1; if ($1 !~ /^[0-9.]+$/) bad = 1 }
		END { if (bad || NR == 0) print "?"; else print v[int((NR + 1) / 2)] }'
}

# amber_ring_bytes FILE: stored bytes of the RING blocks of an .amber file.
amber_ring_bytes() {
	"$ANA" info "$1" 2>/dev/null | awk '$1 == "ring" && $5 ~ /^[0-9]+$/ { print $5; f = 1 }
		END { if (!f) print "?" }'
}

# measure LABEL TOOL ARGS...: run the workload REPEAT times (TOOL: bare,
# perf or amber; ARGS: the recorder's options) and append one row
# "LABEL WALL CPU SAMPLES LOST BYTES DATA FIXED" of medians to $TMP/rows
# (DATA: the bytes of samples; FIXED: the bytes beside them, see above).
measure() {
	label=$1 tool=$2
	shift 2
	: >"$TMP/runs"
	r=0
	while [ $r -lt "$REPEAT" ]; do
		out=$TMP/out.data
		rm -f "$out" "$out.old"
		case $tool in
		bare)  /usr/bin/time -f '%e %U %S' -o "$TMP/time" "$WORKLOAD" --threads 2 \
				--work "$WORK" >/dev/null 2>"$TMP/err" ;;
		perf)  rm -rf "$TMP/home" && mkdir "$TMP/home" &&
		       HOME=$TMP/home /usr/bin/time -f '%e %U %S' -o "$TMP/time" perf record -q "$@" \
				-o "$out" -- "$WORKLOAD" --threads 2 --work "$WORK" >/dev/null 2>"$TMP/err" ;;
		amber) /usr/bin/time -f '%e %U %S' -o "$TMP/time" "$REC" "$@" -o "$out" \
				-- "$WORKLOAD" --threads 2 --work "$WORK" >/dev/null 2>"$TMP/err" ;;
		esac
		rc=$?
		if [ $rc != 0 ]; then
			echo "bench record: $label: exit status $rc: $(tail -n 2 "$TMP/err")" >&2
			echo "? ? ? ? ? ? ?" >>"$TMP/runs"
			r=$((r + 1))
			continue
		fi
		t=$(tail -n 1 "$TMP/time" | awk '{ printf "%.2f %.2f", $1, $2 + $3 }')
		case $tool in
		bare)  c="- -"; bytes="- - -" ;;
		perf)  c=$(perf_counts "$out")
		       f=$(wc -c <"$out")
		       d=0
		       [ -d "$TMP/home/.debug" ] && d=$(du -sb "$TMP/home/.debug" | awk '{ print $1 }')
		       bytes="$f $f ${d:-?}" ;;
		amber) c=$(amber_counts "$out" "$TMP/err")
		       f=$(wc -c <"$out")
		       ring=$(amber_ring_bytes "$out")
		       bytes="$f $ring $(awk -v f="$f" -v r="$ring" 'BEGIN {
				print (r ~ /^[0-9]+$/) ? f - r : "?" }')" ;;
		esac
		echo "$t $c $bytes" >>"$TMP/runs"
		rm -f "$out" "$out.old"
		r=$((r + 1))
	done
	row=$label
	for col in 1 2 3 4 5 6 7; do
		if [ "$tool" = bare ] && [ $col -gt 2 ]; then
			row="$row -"
		else
			row="$row $(awk -v c=$col '{ print $c }' "$TMP/runs" | median)"
		fi
	done
	echo "$row" >>"$TMP/rows"
}

# --- the table ---------------------------------------------------------------------

# print_table: the rows of $TMP/rows with ratios to the bare run, then the
# amber/perf and amber/perf-z ratios for each configuration.
print_table() {
	awk '
	function num(a) { return a ~ /^[0-9.]+$/ }
	function ratio(a, b) { return (num(a) && num(b) && b + 0 > 0) ? sprintf("%.2f", a / b) : "-" }
	function bps(bytes, s) { return (num(bytes) && num(s) && s > 0) ? sprintf("%.0f", bytes / s) : "-" }
	function add(a, b) { return (num(a) && num(b)) ? a + b : "-" }
	{
		n++; label[n] = $1; wall[$1] = $2; cpu[$1] = $3; smp[$1] = $4; lost[$1] = $5
		size[$1] = $6; data[$1] = $7; fixed[$1] = $8
	}
	END {
		fmt = "%-22s %7s %6s %7s %6s %8s %6s %10s %10s %9s\n"
		printf fmt, "run", "wall s", "xbare", "cpu s", "xbare", "samples", "lost", "file B",
			"fixed B", "B/sample"
		for (i = 1; i <= n; i++) {
			l = label[i]
			if (wall[l] == "missing") {
				printf "%-22s %s\n", l, "missing: amber-rec is not built"
				continue
			}
			printf fmt, l, wall[l], ratio(wall[l], wall["bare"]), cpu[l], ratio(cpu[l], cpu["bare"]),
				smp[l], lost[l], size[l], fixed[l], bps(data[l], smp[l])
		}
		print ""
		print "fixed B: amber: blocks other than RING (META, KSYMS, TOPOLOGY...); perf: growth of ~/.debug"
		print "         (perf -z stores no build-ids and fills no cache: +fixed/-z adds perf'"'"'s)"
		print "B/sample: amber: RING blocks; perf: the whole perf.data"
		printf "\n%-22s %6s %6s %7s %7s %9s %8s %9s %10s\n", "amber/perf", "wall", "cpu",
			"samples", "file", "B/sample", "file/-z", "B/smp/-z", "+fixed/-z"
		for (i = 1; i <= n; i++) {
			l = label[i]
			if (l !~ /^amber-/) continue
			c = substr(l, 7)
			p = "perf-" c; z = "perf-z-" c
			if (wall[l] == "missing" || !(p in wall)) continue
			printf "%-22s %6s %6s %7s %7s %9s %8s %9s %10s\n", c, ratio(wall[l], wall[p]),
				ratio(cpu[l], cpu[p]), ratio(smp[l], smp[p]), ratio(size[l], size[p]),
				ratio(bps(data[l], smp[l]), bps(data[p], smp[p])), ratio(size[l], size[z]),
				ratio(bps(data[l], smp[l]), bps(data[z], smp[z])),
				ratio(size[l], add(size[z], fixed[p]))
		}
	}' "$TMP/rows"
}

: >"$TMP/rows"
echo "bench record: workload --threads 2 --work $WORK, dwarf stack $STACK, median of $REPEAT runs, $(nproc) CPUs"
[ $have_perf = yes ] || echo "bench record: perf is not installed or cannot record: perf rows skipped"
[ $have_amber = yes ] || echo "bench record: amber-rec is missing ($REC): amber rows skipped"

measure bare bare
for cfg in fp dwarf dwarf10; do
	case $cfg in
	fp)      set -- -e cpu-clock -F 4000 -g ;;
	dwarf)   set -- -e cpu-clock -F 999 --call-graph "dwarf,$STACK" ;;
	dwarf10) set -- -e cpu-clock -F 10000 --call-graph "dwarf,$STACK" ;;
	esac
	echo "bench record: $cfg: $*" >&2
	if [ $have_perf = yes ]; then
		measure "perf-$cfg" perf "$@"
		measure "perf-z-$cfg" perf -z "$@"
	fi
	if [ $have_amber = yes ]; then
		measure "amber-$cfg" amber "$@"
	else
		echo "amber-$cfg missing" >>"$TMP/rows"
	fi
done
if [ $have_amber = yes ]; then
	echo "bench record: dwarf10 with amber-rec's default stack copy" >&2
	measure amber-dwarf10-default amber -e cpu-clock -F 10000 --call-graph dwarf
fi
echo
print_table
