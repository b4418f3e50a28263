#!/bin/sh
# CLI tests of `amber-analyze dump`: the synthetic recording of
# build/tools/mksynth in both byte orders (text and --json), damaged and
# golden files of testdata/, and, when build/amber-rec exists and we are
# root, a real recording.  Prints "ok NAME", "FAIL NAME" or "skip NAME: reason".
cd "$(dirname "$0")/../.." || exit 2
B=${AMB_BUILD:-build}
ANA=$B/amber-analyze
REC=$B/amber-rec
MKSYNTH=$B/tools/mksynth
T=$(mktemp -d) || exit 2
trap 'rm -rf "$T"' EXIT

ok() { echo "ok $1"; }
fail() { echo "FAIL $1${2:+: $2}"; }
check() { n=$1; shift; if "$@"; then ok "$n"; else fail "$n"; fi; }
has() { grep -q -- "$2" "$1"; }
# Absolute times (column 2) of the non-synthesized record lines never go back.
sorted() { grep -v '^	' "$1" | grep -v '(synth)' | awk '$2 != "-" { print $2 }' | sort -c -g; }

if [ ! -x "$ANA" ]; then
	echo "skip dump: $ANA not built"
	exit 0
fi

if [ -x "$MKSYNTH" ]; then
	"$MKSYNTH" "$T/s.amber" && "$MKSYNTH" --swap "$T/sw.amber" || { fail mksynth; exit 1; }
	"$ANA" dump "$T/s.amber" >"$T/d" 2>"$T/err"; rc=$?
	check dump_synth_rc sh -c "[ $rc = 0 ] && [ ! -s '$T/err' ]"
	check dump_synth_count [ "$(grep -vc '^	' "$T/d")" = 42 ]
	check dump_synth_first sh -c "head -1 '$T/d' | grep -q '^ 0.000000000 1000.000000000 \[000\]       1/1       COMM(synth) init$'"
	check dump_synth_fork has "$T/d" "FORK(synth) pid 100 ppid 1 tid 100 ptid 1$"
	check dump_synth_mmap_bid has "$T/d" "MMAP2(synth) \[0x400000(0x3000) @ 0x0 r-x flags 0x2 build-id deadbeef000102030405060708090a0b0c0d0e0f\] /usr/bin/synth$"
	check dump_synth_mmap_ino has "$T/d" "\[0x7f0000000000(0x200000) @ 0x1000 r-x flags 0x2 08:01 ino 123456 gen 7\] /usr/lib/libsynth.so$"
	check dump_synth_exec has "$T/d" "\[001\]     101/101     COMM worker (exec)$"
	check dump_synth_sample has "$T/d" "^ 0.002001500 1000.002001500 \[000\]     100/100     SAMPLE cpu-clock ip 0xffffffff81001001 period 250000 kernel$"
	check dump_synth_callchain sh -c "grep -A3 'SAMPLE cpu-clock ip 0xffffffff81001001' '$T/d' | head -4 | tail -3 | tr -s ' \t' ' ' | tr '\n' '|' | grep -q '^ ffffffff81001001 \[kernel\]| 401001 \[user\]| 402000 \[user\]|$'"
	check dump_synth_raw has "$T/d" "SAMPLE sched:sched_switch ip 0xffffffff81002000 period 1 kernel raw 20 bytes$"
	check dump_synth_switch has "$T/d" "\[001\]     101/101     SWITCH_CPU_WIDE out (preempt) next 0/0$"
	check dump_synth_throttle has "$T/d" "\[000\]      -1/-1      THROTTLE id 0xb stream_id 0xb$"
	check dump_synth_lost has "$T/d" "\[001\]      -1/-1      LOST id 0xc lost 4$"
	check dump_synth_lost_samples has "$T/d" "LOST_SAMPLES lost 7$"
	check dump_synth_exit has "$T/d" "^ 0.006004700 1000.006004700 \[001\]     101/101     EXIT pid 101 ppid 1 tid 101 ptid 1$"
	check dump_synth_sorted sorted "$T/d"

	"$ANA" dump "$T/sw.amber" >"$T/dsw" 2>&1
	check dump_swapped_identical cmp -s "$T/d" "$T/dsw"

	"$ANA" dump --json "$T/s.amber" >"$T/j" 2>&1; rc=$?
	"$ANA" dump --json "$T/sw.amber" >"$T/jsw" 2>&1
	check dump_json_rc [ $rc = 0 ]
	check dump_json_count [ "$(wc -l <"$T/j")" = 42 ]
	check dump_json_swapped_identical cmp -s "$T/j" "$T/jsw"
	check dump_json_mmap has "$T/j" '"type":"MMAP2","time":1000000000000,"cpu":0,"pid":100,"tid":100,"synth":true,"size":[0-9]*,"addr":"0x400000","len":"0x3000","pgoff":"0x0","prot":5,"flags":2,"build_id":"deadbeef000102030405060708090a0b0c0d0e0f","filename":"/usr/bin/synth"}'
	check dump_json_sample has "$T/j" '"type":"SAMPLE","time":1000002001500,"cpu":0,"pid":100,"tid":100,"synth":false,"size":[0-9]*,"event":"cpu-clock","id":"0xb","ip":"0xffffffff81001001","period":250000,"cpumode":"kernel","callchain":\[{"ctx":"kernel","addr":"0xffffffff81001001"},{"ctx":"user","addr":"0x401001"},{"ctx":"user","addr":"0x402000"}\]}'
	check dump_json_raw has "$T/j" '"event":"sched:sched_switch",.*"raw_size":20}'
	check dump_json_comm has "$T/j" '"comm":"worker","exec":true}'
	if command -v python3 >/dev/null 2>&1; then
		check dump_json_parses python3 -c '
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
assert all({"type", "time", "cpu", "pid", "tid", "synth", "size"} <= r.keys() for r in recs)
assert sum(r["type"] == "SAMPLE" for r in recs) == 24
' "$T/j"
	else
		echo "skip dump_json_parses: no python3"
	fi

	# A torn copy still dumps every record before the tear.
	size=$(wc -c <"$T/s.amber")
	head -c $((size - 50)) "$T/s.amber" >"$T/torn.amber"
	"$ANA" dump "$T/torn.amber" >"$T/dt" 2>"$T/err"; rc=$?
	check dump_torn sh -c "[ $rc = 0 ] && cmp -s '$T/d' '$T/dt' && grep -q 'warning: .*offset' '$T/err'"
else
	echo "skip dump_synth: $MKSYNTH not built (make tools)"
fi

"$ANA" dump "$T/missing.amber" >/dev/null 2>"$T/err"; rc=$?
check dump_missing sh -c "[ $rc = 2 ] && grep -q '^amber-analyze: error: dump: $T/missing.amber: ' '$T/err'"
"$ANA" dump --help | grep -q '"0x..."'
check dump_help [ $? = 0 ]

for f in testdata/valid/*.amber; do
	[ -e "$f" ] || continue
	name=$(basename "$f" .amber)
	"$ANA" dump "$f" >/dev/null 2>&1; rc=$?
	check "dump_valid_$name" [ $rc = 0 ]
done

# Each damaged file: the exit status and the message testdata/invalid/READERS
# states for dump (the NAME.err line, another warning, or none at all).
for f in testdata/invalid/*.amber; do
	[ -e "$f" ] || continue
	name=$(basename "$f" .amber)
	line=$(grep "^$name|" testdata/invalid/READERS)
	if [ -z "$line" ]; then
		fail "dump_invalid_$name" "not in testdata/invalid/READERS"
		continue
	fi
	want_rc=$(echo "$line" | cut -d'|' -f2)
	says=$(echo "$line" | cut -d'|' -f3)
	"$ANA" dump "$f" >/dev/null 2>"$T/err"; rc=$?
	case $says in
	=err) says=$(cat "${f%.amber}.err") ;;
	esac
	if [ "$rc" != "$want_rc" ]; then
		fail "dump_invalid_$name" "exit $rc, expected $want_rc: $(head -n 2 "$T/err")"
	elif [ "$says" = - ] && [ -s "$T/err" ]; then
		fail "dump_invalid_$name" "expected no message, got: $(head -n 2 "$T/err")"
	elif [ "$says" != - ] && ! grep -qF -- "$says" "$T/err"; then
		fail "dump_invalid_$name" "'$says' not in: $(head -n 2 "$T/err")"
	elif [ "$rc" = 2 ] && ! grep -q "^amber-analyze: error: dump: $f: " "$T/err"; then
		fail "dump_invalid_$name" "no 'error: dump: FILE:' line: $(head -n 2 "$T/err")"
	else
		ok "dump_invalid_$name"
	fi
done

if [ ! -x "$REC" ]; then
	echo "skip dump_real: $REC not built"
elif [ "$(id -u)" != 0 ]; then
	echo "skip dump_real: not root"
else
	# A shell loop (user time), then dd reading /dev/zero (kernel time).
	# Where cpu-clock's ticks land is luck; the shell's wait for dd is a
	# context switch, whose sample's call chain starts in the kernel in
	# every run.
	"$REC" -e cpu-clock -F 2000 -e context-switches/period=1/ -g -o "$T/real.amber" -- \
		sh -c 'i=0; while [ $i -lt 200000 ]; do i=$((i+1)); done
		       dd if=/dev/zero of=/dev/null bs=64k count=20000 2>/dev/null' >/dev/null 2>"$T/rec.err"
	rc=$?
	if [ $rc != 0 ] || [ ! -s "$T/real.amber" ]; then
		fail dump_real_record "amber-rec failed: exit $rc, $(tail -n 1 "$T/rec.err")"
	else
		"$ANA" dump "$T/real.amber" >"$T/dr" 2>"$T/err"; rc=$?
		check dump_real_rc sh -c "[ $rc = 0 ] && [ ! -s '$T/err' ]"
		check dump_real_samples grep -q ' SAMPLE cpu-clock ip 0x[0-9a-f]* period [0-9]* \(user\|kernel\)$' "$T/dr"
		check dump_real_comm grep -q ' COMM sh (exec)$' "$T/dr"
		check dump_real_mmap grep -q ' MMAP2 \[0x[0-9a-f]*(0x[0-9a-f]*) @ 0x[0-9a-f]* r-x .*\] /.*/[^/]*$' "$T/dr"
		check dump_real_callchain sh -c "grep -A1 ' SAMPLE context-switches' '$T/dr' | grep -q '^	 *[0-9a-f]* \[kernel\]$'"
		check dump_real_sorted sorted "$T/dr"
		"$ANA" info --records "$T/real.amber" >"$T/ir" 2>&1
		n=$(grep -c ' SAMPLE ' "$T/dr")
		check dump_real_matches_info grep -q "^records:    [0-9]* ($n samples, 0 undecodable)" "$T/ir"
	fi
fi
exit 0
