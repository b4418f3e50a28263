#!/bin/sh
# tests/cli/test_corruption.sh - the corruption campaign (issue 19, "Keep
# measuring"): damaged copies of real and synthetic recordings, every
# analyzer command on each, under AddressSanitizer and UBSan
# (build/san/amber-analyze when built, else the release binary).
#
# Damage (tests/tools/corrupt.c): truncation at every block boundary and
# inside the first block headers of fp.amber, then, drawn from a seeded
# generator, bit flips, zeroed ranges, duplicated, swapped, dropped and
# spliced blocks (one of another recording), concatenation with another
# recording or with itself, and file header damage (a byte, or all 64).
#
# Commands: info, verify, verify --salvage, dump, report, script, flame
# --folded, diff against the intact file, buildids, archive, mem,
# topology.  Each must end in time with exit status 0, 1 or 2, print no
# sanitizer report, leave TMPDIR empty; a file that salvage or archive
# writes must verify clean.
#
#   AMB_CORRUPT_RUNS  damaged files drawn at random, besides the 45 cut
#                     short; the kinds of damage take turns, in the
#                     proportions of their list below (default 39: each
#                     list three times, 1008 runs, two at a time, in
#                     about a minute and a half; make corrupt: 2000)
#   AMB_CORRUPT_SEED  the generator's seed (default 19; "random": a new
#                     one, printed)
#   AMB_CORRUPT_KEEP  a directory to copy each failing damaged file into
. "$(dirname "$0")/lib.sh"

C=$B/tools/corrupt
A=$B/san/amber-analyze
[ -x "$A" ] || A=$ANA
RUNS=${AMB_CORRUPT_RUNS:-39}
SEED=${AMB_CORRUPT_SEED:-19}
[ "$SEED" = random ] && SEED=$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')
unset DEBUGINFOD_URLS
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}:allocator_may_return_null=1
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
mkdir -p "$T/tmp" "$T/m"
export TMPDIR=$T/tmp

need_ana corruption || finish
need_file corruption "$C" || finish
INPUTS="$ROOT/testdata/recordings/fp.amber $ROOT/testdata/recordings/tp.amber
	$ROOT/testdata/recordings/dwarf.amber $ROOT/testdata/valid/all_types.amber
	$ROOT/testdata/hostile/escapes.amber"
# Memory samples on four NUMA nodes, with their topology (issue 15).
need_file corruption "$B/tools/mkmemsynth" || finish
"$B/tools/mkmemsynth" --nodes 4 "$T/mem4.amber" || {
	fail corruption "mkmemsynth could not write $T/mem4.amber"
	finish
}
INPUTS="$INPUTS $T/mem4.amber"

nfail=0 files=0 runs=0
# Counts per command, for one "ok" line each.
CMDS="info verify salvage dump report script flame diff buildids archive mem topology"
for c in $CMDS; do
	eval "bad_$c=0"
done

# bad CMD WHAT: one failure (the first 20 are printed in full).
bad() {
	nfail=$((nfail + 1))
	eval "bad_$1=\$((bad_$1 + 1))"
	if [ $nfail -le 20 ]; then
		echo "FAIL corruption_$1: $WHAT: $2"
	fi
	if [ -n "$AMB_CORRUPT_KEEP" ]; then
		mkdir -p "$AMB_CORRUPT_KEEP"
		cp "$M" "$AMB_CORRUPT_KEEP/$(echo "$WHAT" | tr -c 'A-Za-z0-9_.-' '_').amber" 2>/dev/null
	fi
}

# check CMD ARGS...: run one analyzer command on the damaged file.
check() {
	_c=$1
	shift
	runs=$((runs + 1))
	run_timeout 60 "$A" "$@" >"$W/out" 2>"$W/err"
	_rc=$?
	if [ $_rc = 124 ] || [ $_rc = 137 ]; then
		bad "$_c" "$* hangs (killed after 60 s)"
	elif [ $_rc -gt 2 ]; then
		bad "$_c" "$* exits $_rc: $(grep -m1 -E 'ERROR|runtime error|SUMMARY' "$W/err" || tail -n 1 "$W/err")"
	elif grep -qE 'Sanitizer|runtime error:' "$W/err"; then
		bad "$_c" "$*: $(grep -m1 -E 'ERROR|runtime error|SUMMARY' "$W/err")"
	elif [ -n "$(ls -A "$W/tmp")" ]; then
		bad "$_c" "$* left $(ls -A "$W/tmp" | head -n 1) in TMPDIR"
		rm -rf "$W/tmp"/* "$W/tmp"/.[!.]* 2>/dev/null
	fi
	return $_rc
}

# campaign ORIG WHAT: every command on $M, a damaged copy of ORIG, in the
# lane's work directory $W.
campaign() {
	_orig=$1
	WHAT=$2
	check info info "$M"
	check verify verify "$M"
	rm -f "$W/saved.amber"
	if check salvage verify --salvage "$W/saved.amber" "$M" && [ -e "$W/saved.amber" ]; then
		:
	fi
	if [ -s "$W/saved.amber" ] && ! "$A" verify "$W/saved.amber" >/dev/null 2>"$W/err2"; then
		bad salvage "the salvaged copy does not verify: $("$A" verify "$W/saved.amber" 2>&1 | head -n 1)"
	fi
	check dump dump "$M"
	check report report --no-debuginfod "$M"
	check script script --no-debuginfod "$M"
	check flame flame --folded --no-debuginfod "$M"
	check diff diff --no-debuginfod "$_orig" "$M"
	check buildids buildids --no-debuginfod "$M"
	check mem mem --no-debuginfod "$M"
	check topology topology --json "$M"
	rm -f "$W/arch.amber"
	if check archive archive --no-debuginfod "$M" -o "$W/arch.amber" &&
		! "$A" verify "$W/arch.amber" >/dev/null 2>&1; then
		bad archive "the archive does not verify"
	fi
}

# The damaged files to make, one a line: "KIND|ORIG|WHAT|OP ARGS" for
# `corrupt ORIG OUT OP ARGS`.  First truncation at every block boundary
# of fp.amber, and inside a block header and payload.
F=$ROOT/testdata/recordings/fp.amber
"$C" blocks "$F" >"$T/blocks"
while read -r k off len type; do
	for cut in $off $((off + 40)) $((off + len - 1)); do
		echo "cut|$F|fp.amber cut at $cut (block $k)|trunc $cut"
	done
done <"$T/blocks" >"$T/jobs"

# The drawn damage: one line per file, "INPUT OP ARGS", from the seed.
set -- $INPUTS
n_in=$#
i=0
for f in $INPUTS; do
	i=$((i + 1))
	echo "$i $f $(stat -c %s "$f") $("$C" blocks "$f" | wc -l)"
done >"$T/inputs"
awk -v seed="$SEED" -v runs="$RUNS" -v n="$n_in" '
	{ path[$1] = $2; size[$1] = $3; nb[$1] = $4 }
	END {
		srand(seed)
		ops = "flip flip flip zero zero dup swap drop splice cat self hdr zerohdr"
		nops = split(ops, op, " ")
		for (r = 0; r < runs; r++) {
			k = 1 + int(rand() * n)
			o = op[1 + r % nops]
			b = int(rand() * nb[k])
			if (o == "flip")
				printf "%s flip %d %d\n", path[k], int(rand() * size[k]), int(rand() * 8)
			else if (o == "zero")
				printf "%s zero %d %d\n", path[k], int(rand() * size[k]), 1 + int(rand() * 4096)
			else if (o == "dup" || o == "drop")
				printf "%s %s %d\n", path[k], o, b
			else if (o == "swap")
				printf "%s swap %d\n", path[k], (nb[k] > 1 ? int(rand() * (nb[k] - 1)) : 0)
			else if (o == "splice") {
				j = 1 + int(rand() * n)
				printf "%s splice %d %s %d\n", path[k], b, path[j], int(rand() * nb[j])
			} else if (o == "cat") {
				j = 1 + (k % n)
				printf "%s cat %s\n", path[k], path[j]
			} else if (o == "self")
				printf "%s cat %s\n", path[k], path[k]
			else if (o == "hdr")
				printf "%s flip %d %d\n", path[k], int(rand() * 64), int(rand() * 8)
			else
				printf "%s zerohdr\n", path[k]
		}
	}' "$T/inputs" >"$T/plan"
while read -r f op args; do
	echo "drawn|$f|$(basename "$f") $op $args (seed $SEED)|$op $args"
done <"$T/plan" >>"$T/jobs"
echo "corruption: seed $SEED, $RUNS damaged files drawn, analyzer $A"

# lane L: the jobs of every other line from line L + 1, two lanes side by
# side (the campaign is a third of `make test`), each in a work directory
# and TMPDIR of its own, in a subshell: its counts go to $W/counts.
lane() {
	W=$T/lane$1
	mkdir -p "$W/tmp" "$W/m"
	export TMPDIR=$W/tmp
	awk -v l="$1" 'NR % 2 == l' "$T/jobs" >"$W/jobs"
	cut=0 drawn=0
	while IFS='|' read -r kind orig WHAT opargs; do
		M=$W/m/d.amber
		# shellcheck disable=SC2086 # the arguments are words
		"$C" "$orig" "$M" $opargs 2>/dev/null || continue   # no such block
		eval "$kind=\$(($kind + 1))"
		campaign "$orig" "$WHAT"
	done <"$W/jobs"
	for v in cut drawn runs nfail $(for c in $CMDS; do echo "bad_$c"; done); do
		eval "echo $v \$$v"
	done >"$W/counts"
}
(lane 0) >"$T/lane0.log" 2>&1 &
lane0=$!
(lane 1) >"$T/lane1.log" 2>&1
wait $lane0
cat "$T/lane0.log" "$T/lane1.log" | grep '^FAIL ' | head -n 20
cut=0 drawn=0
for l in 0 1; do
	[ -s "$T/lane$l/counts" ] || { fail corruption "lane $l ended without its counts"; finish; }
	while read -r v n; do
		eval "$v=\$(($v + n))"
	done <"$T/lane$l/counts"
done
files=$((cut + drawn))
echo "corruption: $cut files cut short, $drawn of the $RUNS drawn made"

[ $nfail -gt 20 ] && echo "FAIL corruption: $nfail failures in all, the first 20 above"
for c in $CMDS; do
	eval "_n=\$bad_$c"
	[ "$_n" = 0 ] && ok "corruption_$c ($files damaged files)"
done
echo "corruption: $files damaged files, $runs runs, $nfail failures"
finish
