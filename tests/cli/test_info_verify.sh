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
		# info and salvage: what testdata/invalid/READERS says of the file.
		line=$(grep "^$name|" testdata/invalid/READERS)
		if [ -z "$line" ]; then
			fail "info_invalid_$name" "not in testdata/invalid/READERS"
			continue
		fi
		want_rc=$(echo "$line" | cut -d'|' -f4)
		says=$(echo "$line" | cut -d'|' -f5)
		keeps=$(echo "$line" | cut -d'|' -f6)
		case $says in
		=err) says=$(cat "$err") ;;
		esac
		"$ANA" info "$f" >"$T/info" 2>&1; rc=$?
		if [ "$rc" != "$want_rc" ]; then
			fail "info_invalid_$name" "exit $rc, expected $want_rc: $(head -n 2 "$T/info")"
		elif [ "$says" = - ] && ! grep -q '^problems:   0$' "$T/info"; then
			fail "info_invalid_$name" "expected 'problems:   0': $(grep -A2 '^problems' "$T/info" | tr '\n' '|')"
		elif [ "$says" != - ] && ! grep -qF -- "$says" "$T/info"; then
			fail "info_invalid_$name" "'$says' not in: $(grep -A2 '^problems' "$T/info" | tr '\n' '|')$(head -c 300 "$T/info")"
		elif [ "$rc" = 2 ] && ! grep -q "^amber-analyze: error: info: $f: " "$T/info"; then
			fail "info_invalid_$name" "no 'error: info: FILE:' line: $(head -n 2 "$T/info")"
		else
			ok "info_invalid_$name"
		fi
		rm -f "$T/fixed.amber"
		"$ANA" verify -q --salvage "$T/fixed.amber" "$f" >"$T/sv" 2>&1; rc=$?
		if [ "$keeps" = none ]; then
			if [ "$rc" = 2 ] && [ ! -e "$T/fixed.amber" ] &&
			   grep -q "^amber-analyze: error: verify: $f: salvage to $T/fixed.amber: " "$T/sv"; then
				ok "salvage_invalid_$name"
			else
				fail "salvage_invalid_$name" "expected exit 2 and no file: exit $rc, $(tail -n 1 "$T/sv")"
			fi
		elif [ "$rc" != 1 ] || ! grep -q "^$f: salvaged $keeps blocks into $T/fixed.amber\$" "$T/sv"; then
			fail "salvage_invalid_$name" "expected exit 1 and $keeps blocks kept: exit $rc, $(tail -n 1 "$T/sv")"
		elif ! "$ANA" verify "$T/fixed.amber" >"$T/v2" 2>&1; then
			fail "salvage_invalid_$name" "the salvaged copy does not verify: $(head -n 2 "$T/v2")"
		else
			ok "salvage_invalid_$name"
		fi
	done
else
	echo "skip verify_invalid: no testdata/invalid/*.amber"
fi
exit 0
