#!/bin/sh
# tests/cli/test_diff.sh - amber-analyze diff on recordings of the bundled
# workload (recorded side by side): hot_a given twice the work (--mix
# 10,3,2 against 5,3,2, same --work) comes first and significant, and in
# --absolute mode the functions whose work did not change are not
# reported; the same file twice and two runs of one configuration show no
# significant difference; a rebuilt binary (another build-id) matches by
# name; --json, --sort; the differential flame graph is well-formed,
# coloured, and works in Chromium.
. "$(dirname "$0")/lib.sh"

W=$PROG/workload
CHECK=$ROOT/tests/browser/check_flame.sh
# What --absolute must not report between base and more: the functions
# whose work did not change and whose cost per unit of work is the
# machine's to keep.  hot_b and hot_c are chains of dependent multiplies,
# as hot_a is; the sort's two (libc's msort_with_tmp and the workload's
# cmp_items) branch on random keys and move data, and on a shared virtual
# machine their cost follows what runs on the sibling hyperthread: three
# rounds of these side-by-side recordings beside one busy loop gave msort
# 136 to 188 samples where hot_b stayed at 352 to 388, and a CI run 136
# against 197 for the same --mix (45%, 3.5 sigma of sampling noise), a
# real difference in CPU time that diff reported as it should.
UNCHANGED="hot_b hot_c"
SORT_ROWS=' (msort_with_tmp[.a-z0-9]*|cmp_items)$'

# rows FILE: the table rows of diff's text output (no '#' lines).
rows() {
	grep -v '^#' "$1"
}

# significant FILE SYM: true when SYM is a significant row (not '~').
significant() {
	rows "$1" | awk -v s="$2" '$1 != "~" && $NF == s { f = 1 } END { exit !f }'
}

# record FILE PROGRAM MIX: amber-rec of PROGRAM --work 60 --mix MIX, its
# output in FILE.log.
record() {
	run_timeout 120 "$REC" -e cpu-clock -F 999 -g -o "$1" -- "$2" --work 60 --mix "$3" \
		>"$1.log" 2>&1
}

setup() {
	need_root diff || return 1
	need_rec diff || return 1
	need_ana diff || return 1
	need_file diff "$W" || return 1
	# The three runs side by side: --absolute compares sample counts, the
	# CPU time a fixed work took, which moves with what the machine does
	# (the host's steal time and frequency, someone else's benchmark
	# starting); recorded one after the other, base, more and again could
	# each meet another machine, and the counts of unchanged functions
	# differ by more than sampling noise.  Side by side, on the same two
	# CPUs, they meet the same one.
	record "$T/base.amber" "$W" 5,3,2 &
	_pb=$!
	record "$T/more.amber" "$W" 10,3,2 &
	_pm=$!
	record "$T/again.amber" "$W" 5,3,2 &
	_pa=$!
	wait "$_pb"
	_rb=$?
	wait "$_pm"
	_rm=$?
	wait "$_pa"
	_ra=$?
	if [ $_rb != 0 ]; then
		fail diff_record "amber-rec failed: $(tail -n 1 "$T/base.amber.log")"
		return 1
	fi
	if [ $_rm != 0 ] || [ $_ra != 0 ]; then
		fail diff_setup "recording failed: $(tail -n 1 "$T/more.amber.log" "$T/again.amber.log")"
		return 1
	fi
	"$ANA" diff --absolute "$T/base.amber" "$T/more.amber" >"$T/abs.txt" 2>"$T/abs.err" ||
		{ fail diff_runs "$(cat "$T/abs.err")"; return 1; }
	ok diff_runs
}

t_absolute() {
	first=$(rows "$T/abs.txt" | head -n 1)
	ratio=$(echo "$first" | awk '{ sub("x", "", $4); print $4 }')
	if [ "$(echo "$first" | awk '{ print $NF }')" != hot_a ] || ! significant "$T/abs.txt" hot_a; then
		fail diff_absolute_first "first row is not a significant hot_a: '$first'"
	elif ! echo "$first" | awk -v r="$ratio" '{ b = $5; n = $6
		# Twice the work: a ratio of 2, within 5 sigma of the Poisson
		# noise of the two counts (sigma = 2 sqrt(1/b + 1/n)) and 10% for
		# the calibration of the parts between two runs (programs/README.md).
		d = 5 * 2 * sqrt(1 / b + 1 / n) + 0.2
		exit !(b > 0 && n > 0 && r >= 2 - d && r <= 2 + d) }'; then
		fail diff_absolute_first "hot_a ratio $ratio ($first), expected about 2"
	else
		ok diff_absolute_first
	fi
	bad=""
	for s in $UNCHANGED; do
		significant "$T/abs.txt" "$s" && bad="$bad $s"
	done
	if [ -n "$bad" ]; then
		fail diff_absolute_unchanged "reported as changed:$bad"
	else
		ok diff_absolute_unchanged
	fi
}

t_share() {
	"$ANA" diff "$T/base.amber" "$T/more.amber" >"$T/share.txt" 2>/dev/null
	first=$(rows "$T/share.txt" | head -n 1)
	if [ "$(echo "$first" | awk '{ print $NF }')" = hot_a ] &&
	   echo "$first" | awk '{ exit !($3 + 0 > 5) }' && significant "$T/share.txt" hot_a &&
	   grep -q '^# test: shares, two-proportion z-test, Holm-Bonferroni' "$T/share.txt"; then
		ok diff_share_first
	else
		fail diff_share_first "first row: '$first'"
	fi
}

t_no_difference() {
	"$ANA" diff "$T/base.amber" "$T/base.amber" >"$T/same.txt" 2>/dev/null
	"$ANA" diff --all --json "$T/base.amber" "$T/base.amber" >"$T/same.json" 2>/dev/null
	if [ -n "$(rows "$T/same.txt")" ] || ! grep -q '^# no significant difference' "$T/same.txt"; then
		fail diff_same_file "rows for the same file twice: $(rows "$T/same.txt" | head -n 2)"
	elif grep -q '"significant":true' "$T/same.json" || ! grep -q '"p_holm":1,' "$T/same.json"; then
		fail diff_same_file "--all --json: a significant row, or no p_holm of 1"
	else
		ok diff_same_file
	fi
	# Two runs of one configuration.  Only user-space leaves are compared:
	# on a virtual machine the kernel's share (timer interrupts, the
	# paravirtual irq-enable path) follows the host's load, a real
	# difference between runs that says nothing about the program; so
	# does the sort's (UNCHANGED above).  The sort's rows are still in the
	# diff, and their CPU time still moves every other share.
	for mode in "" --absolute; do
		"$ANA" diff $mode --dso workload,libc.so.6 "$T/base.amber" "$T/again.amber" \
			>"$T/again.txt" 2>/dev/null
		if ! grep -q '^# ' "$T/again.txt"; then
			fail "diff_same_config${mode}" "no diff header: $(head -n 2 "$T/again.txt")"
		elif [ -n "$(rows "$T/again.txt" | grep -v -E "$SORT_ROWS")" ]; then
			fail "diff_same_config${mode}" "significant rows: $(rows "$T/again.txt" | head -n 3)"
		else
			ok "diff_same_config${mode}"
		fi
	done
}

t_json_and_sort() {
	"$ANA" diff --absolute --json "$T/base.amber" "$T/more.amber" >"$T/abs.json" 2>"$T/json.err"
	if command -v python3 >/dev/null 2>&1; then
		if python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
r = d["rows"][0]
assert d["mode"] == "absolute" and d["correction"] == "holm", d
assert r["sym"] == "hot_a" and r["dso"] == "workload" and r["significant"], r
assert r["new_samples"] > r["base_samples"] > 0 and r["p_holm"] < 0.05, r
assert all(x["significant"] for x in d["rows"]), "a noise row without --all"
' "$T/abs.json" 2>"$T/json.err"; then
			ok diff_json
		else
			fail diff_json "$(tail -n 1 "$T/json.err")"
		fi
	else
		skip diff_json "python3 not installed"
	fi
	"$ANA" diff --absolute --sort sym "$T/base.amber" "$T/more.amber" >"$T/sym.txt" 2>/dev/null
	"$ANA" diff --absolute --sort srcline "$T/base.amber" "$T/more.amber" >"$T/src.txt" 2>/dev/null
	if [ "$(rows "$T/sym.txt" | head -n 1 | awk '{ print $NF }')" = hot_a ] &&
	   grep -q 'Symbol$' "$T/sym.txt" && ! grep -q 'Shared Object' "$T/sym.txt"; then
		ok diff_sort_sym
	else
		fail diff_sort_sym "first row: $(rows "$T/sym.txt" | head -n 1)"
	fi
	if rows "$T/src.txt" | head -n 1 | grep -q 'workload\.c:[0-9]' &&
	   grep -q 'Source:Line$' "$T/src.txt"; then
		ok diff_sort_srcline
	else
		fail diff_sort_srcline "first row: $(rows "$T/src.txt" | head -n 1)"
	fi
	"$ANA" diff --sort comm "$T/base.amber" "$T/more.amber" >/dev/null 2>"$T/bad.err"
	if [ $? = 2 ] && grep -q "bad value 'comm' for --sort" "$T/bad.err"; then
		ok diff_bad_sort
	else
		fail diff_bad_sort "--sort comm accepted"
	fi
}

t_rebuilt() {
	# The same source rebuilt with another build-id, in another directory:
	# symbols match by DSO short name and symbol name.
	command -v cc >/dev/null 2>&1 || { skip diff_rebuilt "no C compiler"; return; }
	mkdir -p "$T/v2"
	if ! cc -std=gnu11 -O2 -g -D_GNU_SOURCE -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer \
		-pthread -Wl,--build-id=0x0123456789abcdef0123456789abcdef01234567 \
		-o "$T/v2/workload" "$ROOT/testdata/programs/workload.c" 2>"$T/cc.err"; then
		skip diff_rebuilt "cannot build workload: $(head -n 1 "$T/cc.err")"
		return
	fi
	record "$T/v2.amber" "$T/v2/workload" 5,3,2 ||
		{ fail diff_rebuilt "recording failed"; return; }
	"$ANA" diff --all --absolute "$T/base.amber" "$T/v2.amber" >"$T/v2.txt" 2>/dev/null
	n=$(rows "$T/v2.txt" | awk '$NF == "hot_a"' | wc -l)
	line=$(rows "$T/v2.txt" | awk '$NF == "hot_a"')
	if [ "$n" = 1 ] && echo "$line" | awk '{ exit !($6 > 0 && $7 > 0) }'; then
		ok diff_rebuilt
	else
		fail diff_rebuilt "hot_a rows: $n: '$line'"
	fi
}

t_flame() {
	"$ANA" diff --flame "$T/base.amber" "$T/more.amber" -o "$T/d.svg" 2>"$T/d.err" &&
	"$ANA" diff --flame --negate "$T/base.amber" "$T/more.amber" -o "$T/n.svg" 2>>"$T/d.err" ||
		{ fail diff_flame "$(cat "$T/d.err")"; return; }
	if command -v xmllint >/dev/null 2>&1; then
		if xmllint --noout "$T/d.svg" "$T/n.svg" 2>"$T/xml.err"; then
			ok diff_flame_xml
		else
			fail diff_flame_xml "$(head -n 3 "$T/xml.err")"
		fi
	else
		skip diff_flame_xml "xmllint not installed (libxml2-utils)"
	fi
	# Widths: the root's weight is NEW's sample count, or BASE's with
	# --negate.  Colours follow significance (issue 18, item 4): hot_a,
	# twice the work, grew significantly (red); hot_b's share shrank (blue
	# when its test says significant, neutral grey when not: one worker's
	# frame holds half the samples and is tested among every frame).
	root() { sed -n 's/.*data-s="0" data-w="\([0-9]*\)" data-d="0".*/\1/p' "$1"; }
	nb=$(sed -n 's/^# base: .* (\([0-9]*\) samples[^)]*)$/\1/p' "$T/abs.txt")
	nn=$(sed -n 's/^# new:  .* (\([0-9]*\) samples[^)]*)$/\1/p' "$T/abs.txt")
	# frame SVG NAME: "R G B significant|not" of the widest frame NAME (its
	# <title> ends the first line of the frame; the test and the <rect>
	# follow on the next).
	frame() {
		awk -v t="<title>$2" 'length($0) >= length(t) && substr($0, length($0) - length(t) + 1) == t {
			w = $0; sub(/.*data-w="/, "", w); sub(/".*/, "", w); getline
			if (w + 0 > best) { best = w + 0; line = $0 } }
			END { sig = line ~ /not significant/ ? "not" : "significant"
			      sub(/.*fill="rgb\(/, "", line); sub(/\)".*/, "", line); gsub(",", " ", line)
			      print line, sig }' "$1"
	}
	a=$(frame "$T/d.svg" hot_a)
	b=$(frame "$T/d.svg" hot_b)
	# Both sides must have been found: two empty strings are equal too.
	if [ -z "$nn" ] || [ -z "$nb" ] || [ "$(root "$T/d.svg")" != "$nn" ] || [ "$(root "$T/n.svg")" != "$nb" ]; then
		fail diff_flame_widths "root widths '$(root "$T/d.svg")'/'$(root "$T/n.svg")', samples new '$nn' base '$nb'"
	else
		ok diff_flame_widths
	fi
	if [ -z "$a" ] || [ -z "$b" ] || ! echo "$a" | awk '{ exit !($1 == 255 && $2 < 200 && $4 == "significant") }' ||
	     ! echo "$b" | awk '{ exit !($4 == "significant" ? $3 == 255 && $1 < 255 : $1 == 224 && $2 == 224 && $3 == 218) }'; then
		fail diff_flame_colours "hot_a '$a' (want red, significant), hot_b '$b' (want blue if significant, else grey)"
	else
		ok diff_flame_colours
	fi
	if ! command -v chromium >/dev/null 2>&1; then
		skip diff_flame_browser "chromium not installed (tests/deps.sh installs it)"
		return
	fi
	sh "$CHECK" "$T/d.svg" '^hot_[ab]$' >"$T/br.out" 2>"$T/br.err" ||
		{ fail diff_flame_browser "$(cat "$T/br.err")"; return; }
	want=$(grep -c -E '<title>hot_[ab]$' "$T/d.svg")
	if grep -q '^errors 0$' "$T/br.out" && grep -q '^standalone-errors 0$' "$T/br.out" &&
	   grep -q "^search-frames $want\$" "$T/br.out" && grep -q "^highlighted $want\$" "$T/br.out" &&
	   grep -q '^zoom-width 1180.0$' "$T/br.out"; then
		ok diff_flame_browser
	else
		fail diff_flame_browser "$(tr '\n' ' ' <"$T/br.out") (want $want frames)"
	fi
}

if setup; then
	t_absolute
	t_share
	t_no_difference
	t_json_and_sort
	t_rebuilt
	t_flame
fi
finish
