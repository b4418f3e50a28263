#!/bin/sh
# tests/cli/test_damage.sh - damage that loses nothing (issue 19, items 6,
# 7 and 13), on a real recording, testdata/recordings/fp.amber:
#  - a duplicated, a swapped RING block, the file concatenated with itself
#    or with another recording: report and script print exactly what they
#    print for the intact file (a copy counts once, another recording's
#    blocks not at all), and verify says what it saw;
#  - one changed byte of the file header, or the whole header zeroed: the
#    commands refuse, pointing to salvage, and the salvaged copy reports
#    exactly as the intact file;
#  - testdata/invalid/meta_bomb.amber (eight 8 KB META blocks of 256 MiB
#    each): info, dump and report stay under 256 MB of memory.
. "$(dirname "$0")/lib.sh"

F=$ROOT/testdata/recordings/fp.amber
F2=$ROOT/testdata/recordings/fp2.amber
C=$B/tools/corrupt

# same NAME FILE: report and script of FILE are those of $F.
same() {
	"$ANA" report "$2" >"$T/$1.report" 2>"$T/$1.err" &&
		"$ANA" script "$2" >"$T/$1.script" 2>>"$T/$1.err" || {
		fail "damage_$1" "exit $?: $(head -n 2 "$T/$1.err" | tr '\n' '|')"
		return 1
	}
	if ! cmp -s "$T/base.report" "$T/$1.report"; then
		fail "damage_$1" "report differs: $(diff "$T/base.report" "$T/$1.report" | head -n 4 | tr '\n' '|')"
		return 1
	fi
	if ! cmp -s "$T/base.script" "$T/$1.script"; then
		fail "damage_$1" "script differs"
		return 1
	fi
	return 0
}

# says NAME WHAT FILE...: FILE (stderr or verify output) says WHAT.
says() {
	_n=$1 _w=$2
	shift 2
	if grep -q -- "$_w" "$@"; then
		ok "damage_$_n"
	else
		fail "damage_$_n" "no '$_w' in: $(cat "$@" | head -n 3 | tr '\n' '|')"
	fi
}

need_ana damage || finish
need_file damage "$C" || finish
"$ANA" report "$F" >"$T/base.report" 2>/dev/null
"$ANA" script "$F" >"$T/base.script" 2>/dev/null
ring=$("$C" blocks "$F" | awk '$4 == 3 { print $1; exit }')

"$C" "$F" "$T/dup.amber" dup "$ring" &&
	same dup "$T/dup.amber" && says dup "a copy of block $ring" "$T/dup.err"
"$ANA" verify "$T/dup.amber" >"$T/dup.verify" 2>&1
if grep -q 'lost' "$T/dup.verify"; then
	fail damage_dup_verify "verify calls a copy a loss: $(grep lost "$T/dup.verify")"
else
	says dup_verify "a copy of block $ring" "$T/dup.verify"
fi

"$C" "$F" "$T/swap.amber" swap "$ring" && same swap "$T/swap.amber" && ok damage_swap
"$ANA" verify "$T/swap.amber" >"$T/swap.verify" 2>&1
says swap_verify "blocks out of order" "$T/swap.verify"

"$C" "$F" "$T/self.amber" cat "$F" && same self "$T/self.amber" &&
	says self "this recording's file header again" "$T/self.err"
"$C" "$F" "$T/cat.amber" cat "$F2" && same cat "$T/cat.amber" &&
	says cat "file header of another recording" "$T/cat.err"
"$ANA" verify "$T/cat.amber" >"$T/cat.verify" 2>&1
says cat_verify "blocks of another recording left out" "$T/cat.verify"

# The file header: one byte of the uuid, then all of it.
for h in flip zero; do
	if [ $h = flip ]; then "$C" "$F" "$T/h$h.amber" flip 30 0; else "$C" "$F" "$T/h$h.amber" zerohdr; fi
	"$ANA" report "$T/h$h.amber" >/dev/null 2>"$T/h$h.refused"
	if ! grep -q 'verify --salvage' "$T/h$h.refused"; then
		fail "damage_header_$h" "the refusal does not point to salvage: $(head -n 2 "$T/h$h.refused" | tr '\n' '|')"
		continue
	fi
	"$ANA" verify --salvage "$T/h$h-saved.amber" "$T/h$h.amber" >"$T/h$h.verify" 2>&1
	if ! "$ANA" verify "$T/h$h-saved.amber" >/dev/null 2>&1; then
		fail "damage_header_$h" "the salvaged copy does not verify: $(tail -n 2 "$T/h$h.verify" | tr '\n' '|')"
	elif same "header_$h" "$T/h$h-saved.amber"; then
		ok "damage_header_$h"
	fi
done

# Memory: the bomb's eight META blocks took 800 MB and more; what a
# reader keeps is bounded (FORMAT.md §7 "Budgets"): under 256 MB here.
for c in info dump report; do
	if [ ! -x /usr/bin/time ]; then
		skip "damage_bomb_$c" "/usr/bin/time is not installed"
		continue
	fi
	run_timeout 60 /usr/bin/time -f 'maxrss %M' -o "$T/bomb.rss" \
		"$ANA" $c "$ROOT/testdata/invalid/meta_bomb.amber" >"$T/bomb.out" 2>"$T/bomb.err"
	rc=$?
	kb=$(awk '/^maxrss/ { print $2 }' "$T/bomb.rss")
	if [ $rc -gt 2 ]; then
		fail "damage_bomb_$c" "exit $rc: $(tail -n 2 "$T/bomb.err" | tr '\n' '|')"
	elif [ -z "$kb" ] || [ "$kb" -gt 262144 ]; then
		fail "damage_bomb_$c" "max RSS ${kb:-?} KB"
	elif ! grep -q 'over the 256:1 a reader decodes' "$T/bomb.out" "$T/bomb.err"; then
		fail "damage_bomb_$c" "the bomb is not named"
	else
		ok "damage_bomb_$c"
	fi
done
finish
