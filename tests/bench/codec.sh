#!/bin/sh
# tests/bench/codec.sh BUILD - the sample codec (FORMAT.md §4.1) and parallel
# decoding, side by side with perf in one run (issue 17's targets).
#
# 1. Bytes.  The bundled workload (2 threads), sqlite3 (inserts, an index,
#    queries) and python3 (a sieve, dicts, recursion) are each recorded with
#    -e cpu-clock -F $FREQ -g by amber-rec, by `perf record -z` and by plain
#    `perf record`; the perf.data is also compressed whole with `zstd -19`
#    (the ceiling of generic compression).  For amber the table also shows
#    the same records in today's encoding (RING blocks in plain zstd, made
#    with tests/tools/recodec) and after `archive --compact --no-files`.
#    The recorders catch different numbers of samples: file bytes and bytes
#    per sample are both shown, and the ratios to perf -z of both (target
#    0.3x).
# 2. DWARF: the workload with --call-graph dwarf,8192 -F 999, amber's file
#    against the same records in today's encoding and compacted.
# 3. Decoding: a recording of about 4 million samples (-F 50000 -g,
#    BENCH_CODEC_WORK rounds, 830 by default); verify, report, script and
#    flame with -j 1 and -j 2, on it and on its copy in today's encoding
#    (the baseline: -j 1 on today's encoding is the old single-threaded
#    path), and with the amber-analyze of the revision the issue was
#    filed against (BENCH_CODEC_BASELINE, 45fe9bc by default, built from
#    git into the temporary directory; "none" or no git history leaves it
#    out), whose figures the issue's targets were set on, on today's
#    encoding; best of BENCH_REPEAT (3) rounds, each of which runs every
#    configuration once (a slow stretch of the host falls on all of
#    them alike), output to /dev/null.  "report"
#    is self overhead (--no-children -g none), the report the targets were
#    set on; "report -g" is report's default on a -g recording, with
#    children and call graphs, as perf's.  Targets: report -j 2 at least
#    1.6x faster than today (shown against both baselines: the filing
#    revision, and today's code on today's encoding, which has every
#    speed-up but the codec's and the threads'); report -j 1 within 1.5x
#    of verify on the same file.  Beside them, `archive --compact
#    --no-files` of the codec file with -j 1 and -j 2 writer threads.
# 4. Recorder CPU at -F 4000 -g for amber-rec and perf record, median of
#    BENCH_REPEAT rounds in which the bare workload and the recorders take
#    turns: recorder and workload together (target: at most
#    perf's; it includes what recording costs the workload, such as the
#    cache a compressing writer takes from it), and the recorder's own
#    processes alone (the total less the workload's own CPU time, measured
#    by an inner /usr/bin/time).
#
# Without perf the amber rows are still shown; a program that is not
# installed (sqlite3, python3: tests/deps.sh) is left out with a note.
B=${1:-build}
cd "$(dirname "$0")/../.." || exit 2
case $B in /*) ;; *) B=$(pwd)/$B ;; esac
REC=$B/amber-rec
ANA=$B/amber-analyze
RECODEC=$B/tools/recodec
WORKLOAD=$B/programs/workload
REPEAT=${BENCH_REPEAT:-3}
FREQ=${BENCH_CODEC_FREQ:-4000}
BIGWORK=${BENCH_CODEC_WORK:-830}

die() {
	echo "bench codec: error: $*" >&2
	exit 1
}

for x in "$REC" "$ANA" "$RECODEC" "$WORKLOAD"; do
	[ -x "$x" ] || die "$x is not built (make all tools programs)"
done
[ -x /usr/bin/time ] || die "/usr/bin/time is missing (apt-get install time)"
command -v zstd >/dev/null 2>&1 || die "zstd is missing"
case $REPEAT in '' | *[!0-9]* | 0) die "BENCH_REPEAT must be a positive integer" ;; esac

TMP=$(mktemp -d "${TMPDIR:-/tmp}/amber-bench-codec.XXXXXX") || die "cannot create a temporary directory"
trap 'rm -rf "$TMP"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

have_perf=no
if command -v perf >/dev/null 2>&1 &&
   perf record -q -B -e cpu-clock -o "$TMP/probe.data" true >/dev/null 2>&1; then
	have_perf=yes
fi

# --- the programs ---------------------------------------------------------------

cat >"$TMP/sql.sql" <<'EOF'
CREATE TABLE t(a INTEGER PRIMARY KEY, b TEXT, c REAL);
WITH RECURSIVE s(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM s WHERE x<1000000)
INSERT INTO t SELECT x, hex(randomblob(16)), x*0.5 FROM s;
CREATE INDEX tb ON t(b);
SELECT count(*), sum(length(b)), avg(c) FROM t WHERE b LIKE '%A%';
SELECT b, count(*) FROM t GROUP BY substr(b,1,3) ORDER BY 2 DESC LIMIT 3;
WITH RECURSIVE s(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM s WHERE x<6000000)
SELECT sum(x*x % 7), count(*) FROM s;
EOF
cat >"$TMP/py.py" <<'EOF'
import re, json
def sieve(n):
    s = bytearray([1]) * (n + 1); s[0] = s[1] = 0
    for i in range(2, int(n ** 0.5) + 1):
        if s[i]: s[i*i::i] = bytearray(len(s[i*i::i]))
    return [i for i in range(n + 1) if s[i]]
d = {}
for i in range(3000000):
    k = "k%d" % (i % 5000)
    d[k] = d.get(k, 0) + i
p = sieve(5000000)
txt = json.dumps({"p": p[:20000], "d": d})
n = sum(len(m.group(0)) for m in re.finditer(r"\d+", txt))
def fib(n): return n if n < 2 else fib(n - 1) + fib(n - 2)
print(len(p), n, fib(36))
EOF
SQLITE=$(command -v sqlite3)
PYTHON=/usr/bin/python3

# program_cmd NAME: the command line of program NAME.
program_cmd() {
	case $1 in
	workload) echo "$WORKLOAD --threads 2 --work 300" ;;
	sqlite3)  echo "sh -c '$SQLITE :memory: < $TMP/sql.sql'" ;;
	python3)  echo "$PYTHON $TMP/py.py" ;;
	esac
}

size() { wc -c <"$1" | tr -d ' '; }

# amber_samples FILE: samples in an .amber file.
amber_samples() {
	"$ANA" info "$1" 2>/dev/null | awk '/^  samples/ { print $2; exit }
		$1 == "ring" { r = $3 } END { if (r) print r }' | head -n 1
}

# perf_samples FILE: SAMPLE records of a perf.data file.
perf_samples() {
	perf report --stats -i "$1" 2>/dev/null | awk '/^ *SAMPLE events:/ { print $3; exit }'
}

# perf_try COMMAND: eval COMMAND, output to /dev/null, up to three times:
# perf 6.1 here now and then aborts in its build-id pass (util/build-id.c).
perf_try() {
	for _ in 1 2 3; do
		eval "$1" >/dev/null 2>&1 && return 0
	done
	return 1
}

# --- 1. bytes --------------------------------------------------------------------

echo "bench codec: 1. bytes: -e cpu-clock -F $FREQ -g; $(nproc) CPUs"
[ $have_perf = yes ] || echo "bench codec: perf is not installed or cannot record: perf columns empty"
: >"$TMP/bytes"
for prog in workload sqlite3 python3; do
	case $prog in
	sqlite3) [ -n "$SQLITE" ] || { echo "bench codec: sqlite3 is not installed (tests/deps.sh)"; continue; } ;;
	python3) [ -x "$PYTHON" ] || { echo "bench codec: $PYTHON is not installed"; continue; } ;;
	esac
	cmd=$(program_cmd $prog)
	echo "bench codec: recording $prog" >&2
	# shellcheck disable=SC2086
	eval "\"$REC\" -e cpu-clock -F $FREQ -g -o \"$TMP/$prog.amber\" -- $cmd" >/dev/null 2>"$TMP/rec.err" ||
		die "amber-rec $prog: $(tail -n 2 "$TMP/rec.err")"
	"$RECODEC" -c zstd "$TMP/$prog.amber" "$TMP/$prog-today.amber" || die "recodec $prog"
	"$ANA" archive --compact --no-files "$TMP/$prog.amber" -o "$TMP/$prog-compact.amber" \
		2>"$TMP/arch.err" || die "archive --compact $prog: $(tail -n 1 "$TMP/arch.err")"
	a_s=$(amber_samples "$TMP/$prog.amber")
	pz=- p=- pzs=- p19=- ps=-
	if [ $have_perf = yes ]; then
		perf_try "perf record -q -z -e cpu-clock -F $FREQ -g -o \"$TMP/$prog.perfz\" -- $cmd" ||
			die "perf record -z $prog"
		perf_try "perf record -q -e cpu-clock -F $FREQ -g -o \"$TMP/$prog.perf\" -- $cmd" ||
			die "perf record $prog"
		zstd -q -19 -f "$TMP/$prog.perf" -o "$TMP/$prog.perf.zst" || die "zstd -19"
		pz=$(size "$TMP/$prog.perfz")
		p=$(size "$TMP/$prog.perf")
		p19=$(size "$TMP/$prog.perf.zst")
		pzs=$(perf_samples "$TMP/$prog.perfz")
		ps=$(perf_samples "$TMP/$prog.perf")
	fi
	echo "$prog $a_s $(size "$TMP/$prog.amber") $(size "$TMP/$prog-today.amber")" \
	     "$(size "$TMP/$prog-compact.amber") ${pzs:--} $pz ${ps:--} $p $p19" >>"$TMP/bytes"
done
awk '
function num(x) { return x ~ /^[0-9.]+$/ }
function r(a, b) { return (num(a) && num(b) && b > 0) ? sprintf("%.2f", a / b) : "-" }
function ps(b, s) { return (num(b) && num(s) && s > 0) ? sprintf("%.2f", b / s) : "-" }
{
	prog = $1; as = $2; a = $3; at = $4; ac = $5; pzs = $6; pz = $7; pss = $8; p = $9; p19 = $10
	printf "\n%s: amber %s samples, perf -z %s, perf %s\n", prog, as, pzs, pss
	fmt = "  %-34s %10s %10s %8s %8s\n"
	printf fmt, "file", "bytes", "B/sample", "x perf-z", "(per smp)"
	printf fmt, "amber-rec (sample codec)", a, ps(a, as), r(a, pz), r(ps(a, as), ps(pz, pzs))
	printf fmt, "amber archive --compact", ac, ps(ac, as), r(ac, pz), r(ps(ac, as), ps(pz, pzs))
	printf fmt, "amber, same records as today (zstd)", at, ps(at, as), r(at, pz), r(ps(at, as), ps(pz, pzs))
	printf fmt, "perf record -z", pz, ps(pz, pzs), "1.00", "1.00"
	printf fmt, "perf record", p, ps(p, pss), r(p, pz), r(ps(p, pss), ps(pz, pzs))
	printf fmt, "perf.data | zstd -19", p19, ps(p19, pss), r(p19, pz), r(ps(p19, pss), ps(pz, pzs))
	printf "  amber-rec / today %s, compact / today %s, amber-rec / zstd -19 %s (per sample %s), compact / zstd -19 %s (per sample %s)\n",
		r(a, at), r(ac, at), r(a, p19), r(ps(a, as), ps(p19, pss)), r(ac, p19), r(ps(ac, as), ps(p19, pss))
}' "$TMP/bytes"
echo "  (target: amber at most 0.3x perf -z; B/sample: file bytes over the file's samples)"

# --- 2. DWARF ---------------------------------------------------------------------

echo
echo "bench codec: 2. DWARF: -e cpu-clock -F 999 --call-graph dwarf,8192, workload --work 300"
"$REC" -e cpu-clock -F 999 --call-graph dwarf,8192 -o "$TMP/dwarf.amber" -- "$WORKLOAD" --threads 2 \
	--work 300 >/dev/null 2>"$TMP/rec.err" || die "amber-rec dwarf: $(tail -n 2 "$TMP/rec.err")"
"$RECODEC" -c zstd "$TMP/dwarf.amber" "$TMP/dwarf-today.amber" || die "recodec dwarf"
"$ANA" archive --compact --no-files "$TMP/dwarf.amber" -o "$TMP/dwarf-compact.amber" 2>/dev/null ||
	die "archive --compact dwarf"
dz=-
if [ $have_perf = yes ]; then
	perf record -q -z -e cpu-clock -F 999 --call-graph dwarf,8192 -o "$TMP/dwarf.perfz" -- \
		"$WORKLOAD" --threads 2 --work 300 >/dev/null 2>&1 && dz=$(size "$TMP/dwarf.perfz")
fi
awk -v a="$(size "$TMP/dwarf.amber")" -v t="$(size "$TMP/dwarf-today.amber")" \
    -v c="$(size "$TMP/dwarf-compact.amber")" -v z="$dz" -v s="$(amber_samples "$TMP/dwarf.amber")" '
function r(x, y) { return (x ~ /^[0-9]+$/ && y ~ /^[0-9]+$/ && y > 0) ? sprintf("%.2f", x / y) : "-" }
BEGIN {
	printf "  %-36s %10s %10s %8s\n", "file", "bytes", "B/sample", "x today"
	printf "  %-36s %10s %10.1f %8s\n", "amber, same records as today (zstd)", t, t / s, "1.00"
	printf "  %-36s %10s %10.1f %8s\n", "amber-rec (sample codec)", a, a / s, r(a, t)
	printf "  %-36s %10s %10.1f %8s\n", "amber archive --compact", c, c / s, r(c, t)
	printf "  %-36s %10s %10s %8s\n", "perf record -z (its own run)", z, "", r(z, t)
}'

# --- 3. decoding --------------------------------------------------------------------

echo
echo "bench codec: 3. decoding: -F 50000 -g, workload --work $BIGWORK; best of $REPEAT rounds"
"$REC" -e cpu-clock -F 50000 -g -o "$TMP/big.amber" -- "$WORKLOAD" --threads 2 --work "$BIGWORK" \
	>/dev/null 2>"$TMP/rec.err" || die "amber-rec big: $(tail -n 2 "$TMP/rec.err")"
"$RECODEC" -c zstd "$TMP/big.amber" "$TMP/big-today.amber" || die "recodec big"
echo "  $(amber_samples "$TMP/big.amber") samples; $(size "$TMP/big.amber") bytes (today's encoding $(size "$TMP/big-today.amber"))"

# The filing revision's amber-analyze, when git has it and it builds.
BASE_REV=${BENCH_CODEC_BASELINE:-45fe9bc}
FILING=
if [ "$BASE_REV" = none ]; then
	:
elif ! command -v git >/dev/null 2>&1 ||
     ! git rev-parse -q --verify "$BASE_REV^{commit}" >/dev/null 2>&1; then
	echo "  (no git history with $BASE_REV here: the filing revision's column is left out)"
elif mkdir "$TMP/filing" && git archive "$BASE_REV" | tar -x -C "$TMP/filing" &&
     make -C "$TMP/filing" -j "$(nproc)" build/amber-analyze >"$TMP/filing.log" 2>&1; then
	FILING=$TMP/filing/build/amber-analyze
	echo "  filing revision: $(git log -1 --format='%h %cs %s' "$BASE_REV" | cut -c 1-60)"
else
	echo "  ($BASE_REV did not build: the filing revision's column is left out; $TMP/filing.log)"
fi

# once KEY CMD...: one run of CMD, output to /dev/null; its wall time in
# seconds, to the millisecond (GNU date's nanoseconds), appended to
# $TMP/dec as "KEY SECONDS".  A run that fails is left out.
once() {
	k=$1
	shift
	t0=$(date +%s%N)
	"$@" >/dev/null 2>"$TMP/err" &&
		awk -v k="$k" -v a="$t0" -v b="$(date +%s%N)" \
			'BEGIN { printf "%s %.3f\n", k, (b - a) / 1e9 }' >>"$TMP/dec"
}

# Every configuration once per round, REPEAT rounds, the best of each
# kept: a slow stretch of a shared host then falls on all of them alike,
# not on the few that ran in it.
: >"$TMP/dec"
r=0
while [ $r -lt "$REPEAT" ]; do
	if [ -n "$FILING" ]; then
		# It has no -j: one thread.  Its report showed self overhead
		# alone by default, and call graphs callee first.
		once "filing verify -" "$FILING" verify "$TMP/big-today.amber"
		for c in report report-g script flame; do
			case $c in
			report)   cmd="report --no-children -g none" ;;
			report-g) cmd="report --children -g caller" ;;
			*)        cmd=$c ;;
			esac
			# shellcheck disable=SC2086
			once "filing $c 1" "$FILING" $cmd "$TMP/big-today.amber"
		done
	fi
	for f in big-today big; do
		once "$f verify -" "$ANA" verify "$TMP/$f.amber"
		for c in report report-g script flame; do
			case $c in
			report)   cmd="report --no-children -g none" ;;
			report-g) cmd=report ;;
			*)        cmd=$c ;;
			esac
			for j in 1 2; do
				# shellcheck disable=SC2086
				once "$f $c $j" "$ANA" $cmd -j $j "$TMP/$f.amber"
			done
		done
	done
	for j in 1 2; do
		rm -f "$TMP/big-c.amber"
		once "big compact $j" "$ANA" archive --compact --no-files -j $j "$TMP/big.amber" \
			-o "$TMP/big-c.amber"
	done
	r=$((r + 1))
done
awk '
function r(a, b) { return (a > 0 && b > 0) ? sprintf("%.2f", a / b) : "-" }
function v(x) { return x == "" ? "-" : x }
{ k = $1 " " $2 " " $3; if (!(k in t) || $4 < t[k]) t[k] = $4 }
END {
	printf "  %-8s %10s %10s %10s %10s %10s | %8s %8s %8s %8s\n", "", "filing s", "today -j1",
		"today -j2", "codec -j1", "codec -j2", "x filing", "x today", "-j1/ver", "filing/v"
	printf "  %-8s %10s %10s %10s %10s %10s |\n", "verify", v(t["filing verify -"]),
		v(t["big-today verify -"]), "", v(t["big verify -"]), ""
	for (i = 1; i <= 5; i++) {
		c = i == 1 ? "report" : i == 2 ? "report-g" : i == 3 ? "script" : i == 4 ? "flame" : "compact"
		printf "  %-8s %10s %10s %10s %10s %10s | %8s %8s %8s %8s\n", c, v(t["filing " c " 1"]),
			v(t["big-today " c " 1"]), v(t["big-today " c " 2"]), v(t["big " c " 1"]),
			v(t["big " c " 2"]), r(t["filing " c " 1"], t["big " c " 2"]),
			r(t["big-today " c " 1"], t["big " c " 2"]),
			i == 5 ? "-" : r(t["big " c " 1"], t["big verify -"]),
			r(t["filing " c " 1"], t["filing verify -"])
	}
	printf "  x filing, x today: the codec file at -j2 against the filing revision and against\n"
	printf "  today -j1 (target: report >= 1.6); -j1/ver: the codec file, one thread, over its\n"
	printf "  verify (target: report <= 1.5); filing/v: the same at the filing revision;\n"
	printf "  compact: archive --compact --no-files of the codec file, -j 1 and -j 2 writer threads\n"
}' "$TMP/dec"

# --- 4. recorder CPU ------------------------------------------------------------------

echo
echo "bench codec: 4. recorder CPU at -e cpu-clock -F 4000 -g, workload --threads 2 --work 300, median of $REPEAT"
# once_cpu RECORDER: one run of the workload under RECORDER (bare: none),
# appending to $TMP/RECORDER.total the user+sys seconds of the recorder
# with its workload and to $TMP/RECORDER.own those of the recorder alone.
# The workload runs under an inner /usr/bin/time, whose figure (the
# workload's CPU, the kernel's sampling interrupts included, the same for
# both recorders at one frequency, and whatever the recorder's work costs
# the workload) is taken from the total: what is left is the recorder's
# own processes, its drain, writer and compression.
once_cpu() {
	who=$1
	set -- /usr/bin/time -f '%U %S' -o "$TMP/inner" "$WORKLOAD" --threads 2 --work 300
	rm -f "$TMP/cpu.out" "$TMP/cpu.out.old" "$TMP/inner"
	case $who in
	perf)  /usr/bin/time -f '%U %S' -o "$TMP/time" perf record -q -e cpu-clock -F 4000 -g \
			-o "$TMP/cpu.out" -- "$@" >/dev/null 2>&1 ;;
	amber) /usr/bin/time -f '%U %S' -o "$TMP/time" "$REC" -e cpu-clock -F 4000 -g \
			-o "$TMP/cpu.out" -- "$@" >/dev/null 2>&1 ;;
	bare)  /usr/bin/time -f '%U %S' -o "$TMP/time" "$@" >/dev/null 2>&1 ;;
	esac
	total=$(tail -n 1 "$TMP/time" | awk '{ print $1 + $2 }')
	inner=$(tail -n 1 "$TMP/inner" 2>/dev/null | awk '{ print $1 + $2 }')
	[ -n "$inner" ] || die "the workload's CPU time was not measured ($who)"
	echo "$total" >>"$TMP/$who.total"
	awk -v t="$total" -v i="$inner" 'BEGIN { print t - i }' >>"$TMP/$who.own"
}

# median FILE: the median of the numbers in FILE, one a line.
median() {
	sort -g "$1" | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
}

# The recorders take turns, one run each a round, so that a slow stretch
# of the host falls on both alike.
who_all="bare amber"
[ $have_perf = yes ] && who_all="$who_all perf"
for who in $who_all; do
	: >"$TMP/$who.total"
	: >"$TMP/$who.own"
done
r=0
while [ $r -lt "$REPEAT" ]; do
	for who in $who_all; do
		once_cpu "$who"
	done
	r=$((r + 1))
done
bare="$(median "$TMP/bare.total") -"
amber="$(median "$TMP/amber.total") $(median "$TMP/amber.own")"
perfc="- -"
[ $have_perf = yes ] && perfc="$(median "$TMP/perf.total") $(median "$TMP/perf.own")"
echo "$bare $amber $perfc" | awk '{
	b = $1; a = $3; ao = $4; p = $5; po = $6
	printf "  %-14s %8s %10s %14s\n", "", "cpu s", "over bare", "recorder only"
	printf "  %-14s %8.2f %10s %14s\n", "workload", b, "-", "-"
	printf "  %-14s %8.2f %10.2f %14.3f\n", "amber-rec", a, a - b, ao
	if (p ~ /^[0-9.]+$/) {
		printf "  %-14s %8.2f %10.2f %14.3f\n", "perf record", p, p - b, po
		printf "  amber/perf cpu %.3f, recorder and workload (target: at most 1); recorder only %.3f\n",
			a / p, (po > 0 ? ao / po : 0)
	}
}'
