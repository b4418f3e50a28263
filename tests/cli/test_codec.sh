#!/bin/sh
# tests/cli/test_codec.sh - the sample codec (FORMAT.md §4.1) and parallel
# decoding, end to end on real recordings:
#
#  - amber-rec writes RING blocks with the sample codec: report, script,
#    flame, export (pprof, speedscope) and dump print exactly what they
#    print on a copy whose blocks
#    are plain zstd (tests/tools/recodec), which needs under 0.6x its
#    RING bytes;
#  - -j 1, 2 and 4 print the same, byte for byte, and a bad -j is a usage
#    error;
#  - archive --compact --no-files makes a smaller file that analyzes the
#    same and verifies clean, the same file whatever -j;
#  - a damaged codec block (testdata/invalid/bad_sample_payload.amber) is
#    reported by verify and skipped, with a warning, by the commands;
#  - DWARF recordings in the codec unwind the same as in zstd.
. "$(dirname "$0")/lib.sh"

W=$PROG/workload
RECODEC=$B/tools/recodec

# outputs FILE DIR [OPTIONS...]: what the sample commands print for FILE.
outputs() {
	_f=$1
	_d=$2
	shift 2
	mkdir -p "$_d"
	"$ANA" report "$@" "$_f" >"$_d/report.txt" 2>"$_d/report.err"
	"$ANA" report --children -g caller "$@" "$_f" >"$_d/report-cg.txt" 2>/dev/null
	# Keys told apart by thread and CPU: report reuses what it made of a
	# chain the codec names only for the same thread, CPU and event.
	"$ANA" report -s tid,cpu,comm,dso,sym "$@" "$_f" >"$_d/report-keys.txt" 2>/dev/null
	"$ANA" script "$@" "$_f" >"$_d/script.txt" 2>"$_d/script.err"
	"$ANA" flame --folded "$@" "$_f" >"$_d/flame.txt" 2>"$_d/flame.err"
	# The exports name the recording they were made of: one name for all.
	case $_f in /*) ;; *) _f=$(pwd)/$_f ;; esac
	ln -sf "$_f" "$_d/rec.amber"
	(cd "$_d" && "$ANA" export -f pprof -o export.pb "$@" rec.amber 2>/dev/null &&
		"$ANA" export -f speedscope -o export.json "$@" rec.amber 2>/dev/null)
}

# same DIR1 DIR2: every output of DIR1 equals DIR2's.
same() {
	for _o in report.txt report-cg.txt report-keys.txt script.txt flame.txt export.pb \
		export.json; do
		cmp -s "$1/$_o" "$2/$_o" || { echo "$_o differs"; return 1; }
	done
	[ -s "$1/report.txt" ] || { echo "no report"; return 1; }
}

# ring_bytes FILE: stored bytes of the RING blocks (amber-analyze info).
ring_bytes() {
	"$ANA" info "$1" 2>/dev/null | awk '$1 == "ring" && $5 ~ /^[0-9]+$/ { print $5 }'
}

test_record() {
	if [ ! -x "$RECODEC" ]; then
		skip codec_record "$RECODEC is not built (make tools)"
		return
	fi
	if ! "$REC" -e cpu-clock -F 2000 -g -o "$T/fp.amber" -- "$W" --work 60 >/dev/null 2>"$T/rec.err"; then
		fail codec_record "amber-rec failed: $(tail -n 1 "$T/rec.err")"
		return
	fi
	"$RECODEC" -c zstd "$T/fp.amber" "$T/fp-zstd.amber" || { fail codec_record "recodec failed"; return; }
	outputs "$T/fp.amber" "$T/a"
	outputs "$T/fp-zstd.amber" "$T/z"
	if ! why=$(same "$T/a" "$T/z"); then
		fail codec_record "codec and zstd copies analyze differently: $why"
		return
	fi
	"$ANA" dump "$T/fp.amber" >"$T/a/dump.txt" 2>&1
	"$ANA" dump "$T/fp-zstd.amber" >"$T/z/dump.txt" 2>&1
	if ! cmp -s "$T/a/dump.txt" "$T/z/dump.txt"; then
		fail codec_record "dump differs between the codec and zstd copies"
		return
	fi
	a=$(ring_bytes "$T/fp.amber")
	z=$(ring_bytes "$T/fp-zstd.amber")
	if [ -z "$a" ] || [ -z "$z" ] || [ $((a * 10)) -ge $((z * 6)) ]; then
		fail codec_record "RING bytes: codec $a, zstd $z (want under 0.6x)"
		return
	fi
	ok codec_record
}

# Two threads running the same code on one CPU: their samples share chains
# in the same blocks, so the commands' chain caches (keyed by the codec's
# chain index) must still tell the threads apart; the zstd copy takes the
# path without them.
test_threads() {
	[ -x "$RECODEC" ] || { skip codec_threads "$RECODEC is not built (make tools)"; return; }
	if ! taskset -c 0 "$REC" -e cpu-clock -F 2000 -g -o "$T/pin.amber" -- "$W" --threads 2 \
		--work 30 >/dev/null 2>"$T/pin.err"; then
		fail codec_threads "amber-rec on one CPU failed: $(tail -n 1 "$T/pin.err")"
		return
	fi
	"$RECODEC" -c zstd "$T/pin.amber" "$T/pin-zstd.amber" || { fail codec_threads "recodec failed"; return; }
	for _f in pin pin-zstd; do
		mkdir -p "$T/$_f"
		"$ANA" report -s tid,comm,dso,sym "$T/$_f.amber" >"$T/$_f/report-keys.txt" 2>/dev/null
		"$ANA" script -F comm,tid,ip,sym,dso "$T/$_f.amber" >"$T/$_f/script.txt" 2>/dev/null
	done
	for _o in report-keys.txt script.txt; do
		if ! cmp -s "$T/pin/$_o" "$T/pin-zstd/$_o"; then
			fail codec_threads "$_o differs between the codec and zstd copies"
			return
		fi
	done
	if [ "$(grep -oE '[0-9]+:worker-[0-9]+' "$T/pin/report-keys.txt" | sort -u | wc -l)" -lt 2 ]; then
		fail codec_threads "fewer than two threads in the report: $(head -n 20 "$T/pin/report-keys.txt")"
		return
	fi
	ok codec_threads
}

test_jobs() {
	[ -s "$T/fp.amber" ] || { skip codec_jobs "no recording"; return; }
	outputs "$T/fp.amber" "$T/j1" -j 1
	for j in 2 4; do
		outputs "$T/fp.amber" "$T/j$j" --jobs "$j"
		if ! why=$(same "$T/j1" "$T/j$j"); then
			fail codec_jobs "-j 1 and -j $j differ: $why"
			return
		fi
	done
	if ! why=$(same "$T/j1" "$T/a"); then
		fail codec_jobs "-j 1 and the default differ: $why"
		return
	fi
	"$ANA" report -j 0 "$T/fp.amber" >/dev/null 2>"$T/j.err"
	rc=$?
	if [ $rc != 2 ] || ! grep -q "bad value '0' for --jobs" "$T/j.err"; then
		fail codec_jobs "-j 0: exit $rc, $(cat "$T/j.err")"
		return
	fi
	ok codec_jobs
}

test_compact() {
	[ -s "$T/fp.amber" ] || { skip codec_compact "no recording"; return; }
	if ! "$ANA" archive --compact --no-files "$T/fp.amber" -o "$T/fp-c.amber" 2>"$T/c.err"; then
		fail codec_compact "archive --compact failed: $(tail -n 1 "$T/c.err")"
		return
	fi
	if ! "$ANA" verify -q "$T/fp-c.amber" >"$T/c.out"; then
		fail codec_compact "verify: $(cat "$T/c.out")"
		return
	fi
	outputs "$T/fp-c.amber" "$T/c"
	if ! why=$(same "$T/a" "$T/c"); then
		fail codec_compact "the compacted file analyzes differently: $why"
		return
	fi
	a=$(wc -c <"$T/fp.amber")
	c=$(wc -c <"$T/fp-c.amber")
	if [ "$c" -ge "$a" ]; then
		fail codec_compact "compacted file of $c bytes, not smaller than $a"
		return
	fi
	# The writer's threads encode blocks in parallel: the same file
	# (the archive keeps IN's UUID and time) whatever their number.
	for j in 1 3; do
		if ! "$ANA" archive --compact --no-files -j $j "$T/fp.amber" -o "$T/fp-c$j.amber" \
			2>"$T/c.err"; then
			fail codec_compact "archive --compact -j $j failed: $(tail -n 1 "$T/c.err")"
			return
		fi
	done
	if ! cmp -s "$T/fp-c1.amber" "$T/fp-c3.amber" || ! cmp -s "$T/fp-c.amber" "$T/fp-c1.amber"; then
		fail codec_compact "archive --compact: -j 1, -j 3 and the default make different files"
		return
	fi
	"$ANA" archive --compact -j 0 "$T/fp.amber" -o "$T/fp-c0.amber" 2>"$T/c.err"
	rc=$?
	if [ $rc != 2 ] || ! grep -q "bad value '0' for --jobs" "$T/c.err" || [ -e "$T/fp-c0.amber" ]; then
		fail codec_compact "archive -j 0: exit $rc, $(cat "$T/c.err")"
		return
	fi
	ok codec_compact
}

test_damaged() {
	f=$ROOT/testdata/invalid/bad_sample_payload.amber
	"$ANA" verify "$f" >"$T/v.out" 2>&1
	rc=$?
	if [ $rc != 1 ] || ! grep -q "block 2 at offset [0-9]*: sample payload header" "$T/v.out"; then
		fail codec_damaged "verify: exit $rc: $(head -n 2 "$T/v.out")"
		return
	fi
	if ! "$ANA" dump "$f" >"$T/d.out" 2>"$T/d.err" ||
	   ! grep -q "block 2 at offset [0-9]*: sample payload header.*block skipped" "$T/d.err" ||
	   ! grep -q "SAMPLE" "$T/d.out"; then
		fail codec_damaged "dump: $(head -n 2 "$T/d.err")"
		return
	fi
	for j in 1 2; do
		"$ANA" script -j "$j" "$f" >"$T/s$j.out" 2>"$T/s$j.err"
	done
	if ! cmp -s "$T/s1.out" "$T/s2.out" || ! cmp -s "$T/s1.err" "$T/s2.err"; then
		fail codec_damaged "script -j 1 and -j 2 differ on a damaged file"
		return
	fi
	ok codec_damaged
}

test_dwarf() {
	if [ ! -x "$RECODEC" ]; then
		skip codec_dwarf "$RECODEC is not built (make tools)"
		return
	fi
	if ! "$REC" -e cpu-clock -F 500 --call-graph dwarf,8192 -o "$T/dw.amber" -- "$W" --work 40 \
		>/dev/null 2>"$T/dw.err"; then
		fail codec_dwarf "amber-rec failed: $(tail -n 1 "$T/dw.err")"
		return
	fi
	"$RECODEC" -c zstd "$T/dw.amber" "$T/dw-zstd.amber" || { fail codec_dwarf "recodec failed"; return; }
	outputs "$T/dw.amber" "$T/dw"
	outputs "$T/dw-zstd.amber" "$T/dwz"
	if ! why=$(same "$T/dw" "$T/dwz"); then
		fail codec_dwarf "codec and zstd copies unwind differently: $why"
		return
	fi
	ok codec_dwarf
}

test_record
test_threads
test_jobs
test_compact
test_damaged
test_dwarf
finish
