#!/bin/sh
# tests/cli/test_flame.sh - amber-analyze flame on a recording of the bundled
# workload (testdata/programs/README.md): folded stacks add up to the
# recording's samples (as report counts them), root first or reversed,
# with inlined frames and report's filters; the SVG is well-formed XML,
# self-contained, and its script works in headless Chromium (search
# highlights the expected frames and share, a click zooms).
. "$(dirname "$0")/lib.sh"

W=$PROG/workload
CHECK=$ROOT/tests/browser/check_flame.sh

# json_num FILE KEY: the first number after "KEY": in FILE.
json_num() {
	sed -n "s/.*\"$2\":\([0-9][0-9]*\).*/\1/p" "$1" | head -n 1
}

# folded_sum FILE: the sum of the counts of folded stacks.
folded_sum() {
	awk '{ t += $NF } END { printf "%d\n", t }' "$1"
}

setup() {
	need_root flame || return 1
	need_rec flame || return 1
	need_ana flame || return 1
	need_file flame "$W" || return 1
	if ! run_timeout 120 "$REC" -e cpu-clock -F 999 -g -o "$T/w.amber" -- \
		"$W" --work 60 >"$T/rec.log" 2>&1; then
		skip flame "amber-rec cannot record here: $(tail -n 1 "$T/rec.log")"
		return 1
	fi
	"$ANA" report --json "$T/w.amber" >"$T/report.json" 2>"$T/report.err" ||
		{ fail flame_setup "report: $(cat "$T/report.err")"; return 1; }
	"$ANA" flame --folded "$T/w.amber" >"$T/folded" 2>"$T/flame.err" ||
		{ fail flame_folded_runs "$(cat "$T/flame.err")"; return 1; }
	ok flame_folded_runs
}

t_folded_sum() {
	# The events' "samples" (after the header's) count what report kept.
	want=$(sed 's/.*"events":\[//' "$T/report.json" | sed -n 's/^[^0-9]*"samples":\([0-9]*\).*/\1/p')
	got=$(folded_sum "$T/folded")
	if [ -z "$want" ] || [ "$want" = 0 ]; then
		fail flame_folded_sum "no sample count in report --json"
	elif [ "$got" != "$want" ]; then
		fail flame_folded_sum "folded stacks add up to $got, report counts $want samples"
	else
		ok flame_folded_sum
	fi
	period=$(sed 's/.*"events":\[//' "$T/report.json" | sed -n 's/^[^0-9]*"samples":[0-9]*,"period":\([0-9]*\).*/\1/p')
	"$ANA" flame --folded --weight period "$T/w.amber" >"$T/folded.period" 2>/dev/null
	got=$(folded_sum "$T/folded.period")
	if [ "$got" = "$period" ]; then
		ok flame_weight_period
	else
		fail flame_weight_period "folded periods add up to $got, report says $period"
	fi
}

t_folded_shape() {
	# Root first: the command, then start_thread down to the leaf.
	if grep -q '^worker-[01];start_thread;worker_main;run_mix;hot_a [0-9]*$' "$T/folded" &&
	   grep -q ';run_mix;hot_b;mix_inline [0-9]*$' "$T/folded"; then
		ok flame_folded_order
	else
		fail flame_folded_order "no 'worker-N;start_thread;worker_main;run_mix;hot_a' stack, or no inlined mix_inline"
	fi
	"$ANA" flame --folded --reverse "$T/w.amber" >"$T/folded.rev" 2>/dev/null
	"$ANA" flame --folded --no-comm --no-inline "$T/w.amber" >"$T/folded.plain" 2>/dev/null
	if grep -q '^hot_a;run_mix;worker_main;start_thread;worker-[01] [0-9]*$' "$T/folded.rev" &&
	   grep -q '^mix_inline;hot_b;run_mix' "$T/folded.rev" &&
	   [ "$(folded_sum "$T/folded.rev")" = "$(folded_sum "$T/folded")" ]; then
		ok flame_reverse
	else
		fail flame_reverse "reversed stacks do not start at the leaf, or lose samples"
	fi
	if grep -q '^start_thread;worker_main;run_mix;hot_b [0-9]*$' "$T/folded.plain" &&
	   ! grep -q 'mix_inline\|^worker-' "$T/folded.plain"; then
		ok flame_no_comm_no_inline
	else
		fail flame_no_comm_no_inline "--no-comm --no-inline still show commands or inlined frames"
	fi
}

t_filters() {
	"$ANA" flame --folded --comm worker-0 "$T/w.amber" >"$T/folded.w0" 2>/dev/null
	"$ANA" report --json --comm worker-0 "$T/w.amber" >"$T/report.w0" 2>/dev/null
	want=$(sed 's/.*"events":\[//' "$T/report.w0" | sed -n 's/^[^0-9]*"samples":\([0-9]*\).*/\1/p')
	got=$(folded_sum "$T/folded.w0")
	if grep -qv '^worker-0;' "$T/folded.w0"; then
		fail flame_filter_comm "--comm worker-0 kept other commands"
	elif [ "$got" != "$want" ] || [ "$got" = 0 ]; then
		fail flame_filter_comm "--comm worker-0: $got samples, report says $want"
	else
		ok flame_filter_comm
	fi
	"$ANA" flame --folded --time +0,+0.2 "$T/w.amber" >"$T/folded.t" 2>/dev/null
	got=$(folded_sum "$T/folded.t")
	all=$(folded_sum "$T/folded")
	if [ "$got" -gt 0 ] && [ "$got" -lt "$all" ]; then
		ok flame_filter_time
	else
		fail flame_filter_time "--time +0,+0.2 kept $got of $all samples"
	fi
}

t_svg() {
	if ! "$ANA" flame "$T/w.amber" -o "$T/w.svg" 2>"$T/svg.err"; then
		fail flame_svg "$(cat "$T/svg.err")"
		return
	fi
	if ! command -v xmllint >/dev/null 2>&1; then
		skip flame_svg_xml "xmllint not installed (libxml2-utils)"
	elif xmllint --noout "$T/w.svg" 2>"$T/xml.err"; then
		ok flame_svg_xml
	else
		fail flame_svg_xml "$(head -n 3 "$T/xml.err")"
	fi
	# Self-contained: no external script, image or style sheet.
	if grep -q -E '(href|src)=' "$T/w.svg" || ! grep -q '<script type="text/ecmascript"><!\[CDATA\[' "$T/w.svg"; then
		fail flame_svg_self_contained "external reference, or no inline script"
	else
		ok flame_svg_self_contained
	fi
	# --reverse and --weight period also give well-formed documents.
	"$ANA" flame --reverse --weight period --title 'a <b> & "c"' "$T/w.amber" -o "$T/r.svg" 2>/dev/null
	if ! command -v xmllint >/dev/null 2>&1; then
		skip flame_svg_reverse_xml "xmllint not installed (libxml2-utils)"
	elif xmllint --noout "$T/r.svg" 2>/dev/null && grep -q 'a &lt;b&gt; &amp; &quot;c&quot;' "$T/r.svg"; then
		ok flame_svg_reverse_xml
	else
		fail flame_svg_reverse_xml "reversed SVG not well-formed, or title not escaped"
	fi
}

# have_chromium NAME: install chromium when missing (root, apt-get), or skip.
have_chromium() {
	command -v chromium >/dev/null 2>&1 && return 0
	if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
		DEBIAN_FRONTEND=noninteractive run_timeout 900 apt-get install -y -qq \
			--no-install-recommends chromium chromium-driver >"$T/apt.log" 2>&1
	fi
	command -v chromium >/dev/null 2>&1 && return 0
	skip "$1" "chromium is not installed and cannot be installed: $(tail -n 1 "$T/apt.log" 2>/dev/null)"
	return 1
}

# browser_check NAME SVG TERM FOLDED: drive SVG in Chromium; the search for
# TERM must paint as many frames as have that exact name, and report the
# share of FOLDED's stacks that contain it.
browser_check() {
	sh "$CHECK" "$2" "$3" >"$T/$1.out" 2>"$T/$1.err"
	rc=$?
	if [ $rc = 2 ]; then
		skip "$1" "chromium not installed"
		return
	elif [ $rc != 0 ]; then
		fail "$1" "$(cat "$T/$1.err")"
		return
	fi
	v() { sed -n "s/^$1 //p" "$T/$2.out"; }
	frames=$(grep -c "<title>$3\$" "$2")
	share=$(awk -v s="$3" '{ n = split($1, f, ";"); for (i = 1; i <= n; i++) if (f[i] == s) { m += $NF; break }
		t += $NF } END { printf "%.2f\n", t ? 100 * m / t : 0 }' "$4")
	if [ "$(v errors "$1")" != 0 ] || [ "$(v standalone-errors "$1")" != 0 ]; then
		fail "$1" "script errors: $(v errors "$1"); standalone: $(v standalone-errors "$1")"
	elif [ "$(v search-frames "$1")" != "$frames" ] || [ "$(v highlighted "$1")" != "$frames" ] ||
	     [ "$frames" = 0 ]; then
		fail "$1" "search '$3' matched $(v search-frames "$1"), painted $(v highlighted "$1"), the SVG has $frames"
	elif ! in_range "$(v search-percent "$1")" "$(echo "$share" | awk '{ print $1 - 0.02 }')" \
		"$(echo "$share" | awk '{ print $1 + 0.02 }')"; then
		fail "$1" "search '$3' reports $(v search-percent "$1")%, the folded stacks give $share%"
	elif [ "$(v zoom-width "$1")" != "1180.0" ] || [ "$(v zoom-hidden "$1")" = 0 ] ||
	     [ "$(v unzoom-visible "$1")" != true ]; then
		fail "$1" "click did not zoom: width $(v zoom-width "$1"), hidden $(v zoom-hidden "$1")"
	else
		ok "$1"
	fi
}

t_browser() {
	[ -s "$T/w.svg" ] || { skip flame_browser "no SVG"; return; }
	have_chromium flame_browser || return
	browser_check flame_browser "$T/w.svg" hot_a "$T/folded"
	browser_check flame_browser_inline "$T/w.svg" mix_inline "$T/folded"
}

t_errors() {
	"$ANA" flame "$T/missing.amber" >/dev/null 2>"$T/e1"
	rc1=$?
	"$ANA" flame --weight bogus "$T/w.amber" >/dev/null 2>"$T/e2"
	rc2=$?
	if [ $rc1 = 1 ] && grep -q "^amber-analyze: error: flame: $T/missing.amber: " "$T/e1" &&
	   [ $rc2 = 2 ] && grep -q "bad value 'bogus' for --weight" "$T/e2"; then
		ok flame_errors
	else
		fail flame_errors "missing file: exit $rc1 '$(cat "$T/e1")'; bad --weight: exit $rc2"
	fi
}

# A full disk is an error naming the file, not a silent cut SVG: a tmpfs
# sized from this run's own SVG (half of it, in whole pages) holds only its
# start, and nothing is left for the folded stacks written after it.
t_full_disk() {
	svg=$(wc -c <"$T/w.svg")
	size=$((svg / 2 / 4096 * 4096))
	[ "$size" -ge 4096 ] || size=4096
	if [ "$svg" -le "$size" ]; then
		fail flame_full_disk "the SVG ($svg bytes) is smaller than one tmpfs page"
		return
	fi
	mkdir "$T/full" || { fail flame_full_disk "cannot create $T/full"; return; }
	if ! mount -t tmpfs -o size=$size tmpfs "$T/full" 2>"$T/mount.err"; then
		skip flame_full_disk "cannot mount a tmpfs: $(cat "$T/mount.err")"
		return
	fi
	"$ANA" flame -o "$T/full/w.svg" "$T/w.amber" >/dev/null 2>"$T/full.err"
	rc1=$?
	"$ANA" flame --folded -o "$T/full/w.folded" "$T/w.amber" >/dev/null 2>"$T/full2.err"
	rc2=$?
	sz=$(wc -c <"$T/full/w.svg")
	umount "$T/full"
	want="amber-analyze: error: flame: writing $T/full"
	# The one error; a warning about the recording (a broken frame-pointer
	# chain in libc, issue 18's item 13) may come before it.
	if [ $rc1 = 1 ] && [ "$(grep -v '^amber-analyze: warning: ' "$T/full.err")" = "$want/w.svg: No space left on device" ] &&
	   [ $rc2 = 1 ] && grep -q "^$want/w.folded: " "$T/full2.err"; then
		ok flame_full_disk
	else
		fail flame_full_disk "SVG: exit $rc1 after $sz of $svg bytes (tmpfs $size), '$(cat "$T/full.err")'; folded: exit $rc2 '$(cat "$T/full2.err")'"
	fi
}

if setup; then
	t_folded_sum
	t_folded_shape
	t_filters
	t_svg
	t_browser
	t_errors
	t_full_disk
fi
finish
