#!/bin/sh
# tests/cli/test_outsider.sh - docs/FORMAT.md is enough to read amber's
# files: tests/outsider/amber_read.py, a reader in Python written from the
# document alone by someone who had not read the C code (its README lists
# what the document left open then, now answered there), must read every
# file the way amber does:
#
#  - every block of the bundled valid files and recordings decodes and
#    checks (payload checksums, codec 2's raw_checksum), and the reader
#    finds a problem between blocks (a file never closed) when verify does;
#  - on every damaged file of testdata/invalid it finds a problem exactly
#    when `amber-analyze verify` does;
#  - on fresh recordings (frame pointers, DWARF, a big-endian synthetic
#    file) the codec 2 blocks amber-rec and recodec write decode to the
#    very bytes of the same records stored as plain zstd (compare.py);
#  - sample layouts a VM cannot record (READ groups, branch stacks,
#    interrupt registers, ...; mkexotic.py), encoded by amber's codec 2
#    in both byte orders, decode to their raw_checksum.
. "$(dirname "$0")/lib.sh"

PY=/usr/bin/python3
OUT=$ROOT/tests/outsider
RECODEC=$B/tools/recodec

# have_python: Debian's python3 with the two modules the reader uses
# (make deps installs python3-zstandard and python3-xxhash).
have_python() {
	if ! "$PY" -c 'import zstandard, xxhash' 2>/dev/null; then
		skip "$1" "$PY with the zstandard and xxhash modules is missing (make deps)"
		return 1
	fi
	[ -x "$RECODEC" ] || { skip "$1" "$RECODEC is not built (make tools)"; return 1; }
}

# read_ok FILE: amber_read.py reads every block of FILE "ok" and exits as
# `amber-analyze verify` does (0, or not 0 for a file with a problem
# between blocks, such as a recording never closed); else prints why.
read_ok() {
	"$PY" "$OUT/amber_read.py" "$1" >"$T/read.out" 2>"$T/read.err"
	_r=$?
	"$ANA" verify "$1" >/dev/null 2>&1
	_v=$?
	if [ ! -s "$T/read.out" ] || grep -qv '	ok$' "$T/read.out" || grep -q Traceback "$T/read.err"; then
		echo "$(basename "$1"): $(grep -v '	ok$' "$T/read.out" | head -n 2) $(tail -n 2 "$T/read.err")"
		return 1
	fi
	if { [ "$_r" = 0 ] && [ "$_v" != 0 ]; } || { [ "$_r" != 0 ] && [ "$_v" = 0 ]; }; then
		echo "$(basename "$1"): outsider exit $_r, verify exit $_v: $(head -n 2 "$T/read.err")"
		return 1
	fi
}

test_testdata() {
	have_python outsider_testdata || return 0
	_n=0
	for _f in "$ROOT"/testdata/valid/*.amber "$ROOT"/testdata/recordings/*.amber; do
		if ! why=$(read_ok "$_f"); then
			fail outsider_testdata "$why"
			return
		fi
		_n=$((_n + 1))
	done
	[ "$_n" -ge 5 ] || { fail outsider_testdata "only $_n files"; return; }
	ok outsider_testdata
}

test_invalid() {
	have_python outsider_invalid || return 0
	for _f in "$ROOT"/testdata/invalid/*.amber; do
		"$PY" "$OUT/amber_read.py" "$_f" >"$T/inv.out" 2>"$T/inv.err"
		_o=$?
		"$ANA" verify "$_f" >/dev/null 2>&1
		_v=$?
		if [ "$_o" -gt 2 ] || grep -q Traceback "$T/inv.err"; then
			fail outsider_invalid "$(basename "$_f"): exit $_o: $(tail -n 2 "$T/inv.err")"
			return
		fi
		if { [ "$_o" = 0 ] && [ "$_v" != 0 ]; } || { [ "$_o" != 0 ] && [ "$_v" = 0 ]; }; then
			fail outsider_invalid "$(basename "$_f"): outsider exit $_o, verify exit $_v: $(grep -v '	ok$' "$T/inv.out" | head -n 1) $(head -n 1 "$T/inv.err")"
			return
		fi
	done
	ok outsider_invalid
}

test_recordings() {
	have_python outsider_recordings || return 0
	if ! "$REC" -e cpu-clock -F 2000 -g -o "$T/fp.amber" -- "$PROG/workload" --threads 2 \
		--work 40 >/dev/null 2>"$T/rec.err" ||
	   ! "$REC" -e cpu-clock -F 500 --call-graph dwarf,4096 -o "$T/dw.amber" -- \
		"$PROG/workload" --work 20 >/dev/null 2>>"$T/rec.err"; then
		fail outsider_recordings "amber-rec failed: $(tail -n 1 "$T/rec.err")"
		return
	fi
	"$B/tools/mksynth" --swap "$T/be.amber" || { fail outsider_recordings "mksynth failed"; return; }
	if ! "$PY" "$OUT/compare.py" --build "$B" --work "$T/cmp" "$T/fp.amber" "$T/dw.amber" \
		"$T/be.amber" >"$T/cmp.out" 2>&1; then
		fail outsider_recordings "$(grep -v '^  orig ==' "$T/cmp.out" | tail -n 4)"
		return
	fi
	# The codec 2 copy of each was decoded and compared, not skipped.
	if [ "$(grep -c 'orig == sample: all' "$T/cmp.out")" != 3 ]; then
		fail outsider_recordings "not every file compared: $(tail -n 4 "$T/cmp.out")"
		return
	fi
	ok outsider_recordings
}

test_exotic() {
	have_python outsider_exotic || return 0
	for _l in all read readnogroup branch regs weight_struct minimal notime; do
		for _o in "" --be; do
			rm -f "$T/x.amber" "$T/x2.amber"
			# shellcheck disable=SC2086 # $_o is one option or none
			if ! "$PY" "$OUT/mkexotic.py" $_o --layout "$_l" "$T/x.amber" >/dev/null 2>"$T/x.err" ||
			   ! "$RECODEC" -c sample "$T/x.amber" "$T/x2.amber" 2>>"$T/x.err"; then
				fail outsider_exotic "layout $_l $_o: $(tail -n 2 "$T/x.err")"
				return
			fi
			if ! why=$(read_ok "$T/x2.amber"); then
				fail outsider_exotic "layout $_l $_o: $why"
				return
			fi
			if ! awk -F '\t' '$2 == "RING" && $4 == "sample" { n++ } END { exit !n }' "$T/read.out"; then
				fail outsider_exotic "layout $_l $_o: no codec 2 RING block"
				return
			fi
		done
	done
	ok outsider_exotic
}

test_testdata
test_invalid
test_recordings
test_exotic
finish
