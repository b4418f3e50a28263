#!/bin/sh
# CLI tests of `amber-analyze info` and `amber-analyze verify [--salvage]`:
# on a synthetic recording (build/tools/mksynth) in both byte orders, on
# copies of it torn and corrupted here, and on every file of testdata/valid
# and testdata/invalid (each invalid NAME.amber with the error NAME.err that
# verify must print).  Prints "ok NAME", "FAIL NAME" or "skip NAME: reason".
cd "$(dirname "$0")/../.." || exit 2
B=${AMB_BUILD:-build}
case $B in /*) ;; *) B=$(pwd)/$B ;; esac
ANA=$B/amber-analyze
MKSYNTH=$B/tools/mksynth
T=$(mktemp -d) || exit 2
trap 'rm -rf "$T"' EXIT

ok() { echo "ok $1"; }
fail() { echo "FAIL $1${2:+: $2}"; }
# check NAME CONDITION-COMMAND...: ok if the command succeeds.
check() { n=$1; shift; if "$@"; then ok "$n"; else fail "$n"; fi; }
has() { grep -q -- "$2" "$1"; }
# A crash (signal, sanitizer) shows as an exit status above 2.
sane_rc() { [ "$1" -le 2 ]; }

if [ ! -x "$ANA" ]; then
	echo "skip info_verify: $ANA not built"
	exit 0
fi

if [ -x "$MKSYNTH" ]; then
	"$MKSYNTH" "$T/s.amber" && "$MKSYNTH" --swap "$T/sw.amber" || { fail mksynth; exit 1; }

	"$ANA" info "$T/s.amber" >"$T/info" 2>"$T/err"; rc=$?
	check info_synth_rc [ $rc = 0 ]
	check info_synth_header has "$T/info" "created:    2026-01-01 00:00:00.000000000 UTC"
	check info_synth_uuid has "$T/info" "uuid:       a38b5e10-224c-4d0e-917f-001122334455"
	check info_synth_meta has "$T/info" 'cmdline  *mksynth\\x0asecond line'
	check info_synth_events has "$T/info" "sample_type IDENTIFIER|IP|TID|TIME|CPU|PERIOD|CALLCHAIN, 2 ids, fallback"
	check info_synth_streams sh -c "grep -q '^  cpu 0 *1 *19 ' '$T/info' && grep -q '^  cpu 1 *1 *19 ' '$T/info'"
	check info_synth_ring grep -q '^  ring *2 *38 ' "$T/info"
	check info_synth_time has "$T/info" "time:       1000.000000000 .. 1000.006004700 (0.006005 s)"
	check info_synth_clean sh -c "grep -q '^problems:   0' '$T/info' && grep -q 'closed:     yes' '$T/info' && [ ! -s '$T/err' ]"

	"$ANA" info --records "$T/sw.amber" >"$T/info_sw"; rc=$?
	check info_swapped_rc [ $rc = 0 ]
	check info_swapped_order has "$T/info_sw" "producer:   $( [ "$(printf '\001\000' | od -An -tu2 | tr -d ' ')" = 1 ] && echo big || echo little)-endian"
	check info_swapped_records has "$T/info_sw" "records:    42 (24 samples, 0 undecodable)"
	check info_swapped_lost has "$T/info_sw" "lost:       7 records (LOST), 14 samples (LOST_SAMPLES)"
	check info_swapped_events has "$T/info_sw" "\[1\] sched:sched_switch: type 2 config 0x13c"

	"$ANA" verify "$T/s.amber" >"$T/v" 2>&1; rc=$?
	check verify_synth_clean sh -c "[ $rc = 0 ] && grep -q '7 blocks ok, 0 bad, 0 problems; closed' '$T/v'"

	# Torn tail: the trailer is cut.  Everything before it stays readable.
	size=$(wc -c <"$T/s.amber")
	head -c $((size - 50)) "$T/s.amber" >"$T/torn.amber"
	"$ANA" verify "$T/torn.amber" >"$T/v" 2>&1; rc=$?
	check verify_torn_rc [ $rc = 1 ]
	check verify_torn_msg grep -q "^$T/torn.amber: .*offset" "$T/v"
	"$ANA" info "$T/torn.amber" >"$T/info" 2>&1; rc=$?
	check info_torn sh -c "[ $rc = 0 ] && grep -q 'closed:     no' '$T/info' && grep -q '^  warning: ' '$T/info' && ! grep -q '^problems:   0' '$T/info'"
	"$ANA" verify --salvage "$T/torn_fixed.amber" "$T/torn.amber" >"$T/v" 2>&1; rc=$?
	# The five data blocks; the old INDEX is dropped, a new one written.
	check salvage_torn_rc sh -c "[ $rc = 1 ] && grep -q 'salvaged 5 blocks into' '$T/v'"
	"$ANA" verify "$T/torn_fixed.amber" >"$T/v" 2>&1; rc=$?
	check salvage_torn_clean [ $rc = 0 ]
	"$ANA" dump "$T/s.amber" >"$T/d1" && "$ANA" dump "$T/torn_fixed.amber" >"$T/d2"
	check salvage_torn_records cmp -s "$T/d1" "$T/d2"

	# One byte flipped in the middle of the file: reported, salvage is clean.
	cp "$T/s.amber" "$T/bad.amber"
	printf '\377' | dd of="$T/bad.amber" bs=1 seek=$((size / 2)) conv=notrunc 2>/dev/null
	"$ANA" verify "$T/bad.amber" >"$T/v" 2>&1; rc=$?
	check verify_corrupt_rc sh -c "[ $rc = 1 ] && grep -q 'block [0-9]* at offset [0-9]*' '$T/v'"
	"$ANA" verify -q --salvage "$T/bad_fixed.amber" "$T/bad.amber" >"$T/v" 2>&1; rc=$?
	check salvage_corrupt_rc sh -c "[ $rc = 1 ] && grep -q 'salvaged [0-9]* blocks' '$T/v'"
	"$ANA" verify "$T/bad_fixed.amber" >/dev/null 2>&1
	check salvage_corrupt_clean [ $? = 0 ]
else
	echo "skip info_verify_synth: $MKSYNTH not built (make tools)"
fi

# Usage and unreadable files: exit 2 with "amber-analyze: error: COMMAND: FILE: ...".
(cd "$T" && "$ANA" verify >/dev/null 2>&1)   # no FILE and no trace.amber there
check verify_usage [ $? = 2 ]
"$ANA" info "$T/missing.amber" >/dev/null 2>"$T/err"; rc=$?
check info_missing sh -c "[ $rc = 2 ] && grep -q '^amber-analyze: error: info: $T/missing.amber: ' '$T/err'"
"$ANA" verify "$T/missing.amber" >/dev/null 2>"$T/err"; rc=$?
check verify_missing sh -c "[ $rc = 2 ] && grep -q '^amber-analyze: error: verify: $T/missing.amber: ' '$T/err'"
"$ANA" verify --help | grep -q '^exit status'
check verify_help [ $? = 0 ]

set -- testdata/valid/*.amber
if [ -e "$1" ]; then
	for f in "$@"; do
		name=$(basename "$f" .amber)
		# Valid includes unclosed files: then the missing trailer is the
		# one problem verify may report.
		"$ANA" verify -q "$f" >"$T/v" 2>&1; rc=$?
		check "verify_valid_$name" sh -c "[ $rc = 0 ] || { [ $rc = 1 ] && ! grep -v 'without a trailer' '$T/v'; }"
		"$ANA" info "$f" >"$T/info" 2>&1; rc=$?
		check "info_valid_$name" sh -c "[ $rc = 0 ] && { grep -q '^problems:   0' '$T/info' || grep -q 'closed:     no' '$T/info'; }"
	done
else
	echo "skip verify_valid: no testdata/valid/*.amber"
fi

set -- testdata/invalid/*.amber
if [ -e "$1" ]; then
	for f in "$@"; do
		name=$(basename "$f" .amber)
		err=${f%.amber}.err
		"$ANA" verify "$f" >"$T/v" 2>&1; rc=$?
		if [ ! -f "$err" ]; then
			fail "verify_invalid_$name" "no $err"
		elif [ $rc = 1 ] && grep -qF -- "$(cat "$err")" "$T/v"; then
			ok "verify_invalid_$name"
		else
			fail "verify_invalid_$name" "exit $rc, expected 1 and '$(cat "$err")' in: $(head -3 "$T/v")"
		fi
		"$ANA" info "$f" >/dev/null 2>&1; rc=$?
		check "info_invalid_$name" sane_rc $rc
		rm -f "$T/fixed.amber"
		"$ANA" verify -q --salvage "$T/fixed.amber" "$f" >/dev/null 2>&1
		if [ -f "$T/fixed.amber" ]; then
			"$ANA" verify "$T/fixed.amber" >/dev/null 2>&1
			check "salvage_invalid_$name" [ $? = 0 ]
		fi
	done
else
	echo "skip verify_invalid: no testdata/invalid/*.amber"
fi
exit 0
