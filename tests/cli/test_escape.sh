#!/bin/sh
# tests/cli/test_escape.sh - text from a recording never reaches a terminal
# or a report raw (issue 19, item 8).
#
# testdata/hostile/escapes.amber (build/tools/mksynth --hostile, which
# must still write it byte for byte) puts terminal escape sequences, C1
# controls, newlines, the report's key separator and bytes that are not
# UTF-8 in every recorded string: commands, paths, host, command line,
# event names, a META key, a build-id path.  Every command's output, text
# and JSON, and its stderr must then be well-formed UTF-8 without a
# control character other than newline and tab, and show the escapes as
# "\xNN".  A real recording of a program whose name holds an escape
# sequence (what prctl(PR_SET_NAME) or a file name gives any process)
# checks the same through the recorder.
. "$(dirname "$0")/lib.sh"

FIX=$ROOT/testdata/hostile/escapes.amber

# clean FILE: no C0 control but \n and \t, no DEL, no C1 (raw or as
# UTF-8), and well-formed UTF-8.
clean() {
	LC_ALL=C grep -qaP '[\x00-\x08\x0b-\x1f\x7f]|\xc2[\x80-\x9f]' "$1" && return 1
	iconv -f UTF-8 -t UTF-8 "$1" >/dev/null 2>&1
}

# run NAME ARGS...: one analyzer run on the fixture; stdout in $T/NAME.out,
# stderr in $T/NAME.err; both must be clean.
run() {
	_n=$1
	shift
	run_timeout 60 "$ANA" "$@" >"$T/$_n.out" 2>"$T/$_n.err"
	_rc=$?
	if [ $_rc -gt 2 ]; then
		fail "escape_$_n" "exit status $_rc: $(tail -n 2 "$T/$_n.err")"
	elif ! clean "$T/$_n.out"; then
		fail "escape_$_n" "raw control characters in the output: $(LC_ALL=C grep -naP '[\x00-\x08\x0b-\x1f\x7f]|\xc2[\x80-\x9f]' "$T/$_n.out" | head -n 1 | od -c | head -n 2 | tr '\n' ' ')"
	elif ! clean "$T/$_n.err"; then
		fail "escape_$_n" "raw control characters on stderr"
	else
		ok "escape_$_n"
	fi
}

t_fixture() {
	need_ana escape_fixture || return
	need_file escape_fixture "$B/tools/mksynth" || return
	"$B/tools/mksynth" --hostile "$T/gen.amber" || { fail escape_fixture "mksynth --hostile failed"; return; }
	if cmp -s "$T/gen.amber" "$FIX"; then
		ok escape_fixture
	else
		fail escape_fixture "$FIX differs from what mksynth --hostile writes (regenerate it)"
	fi
}

t_commands() {
	need_ana escape_commands || return
	run info info "$FIX"
	run info_records info --records "$FIX"
	run verify verify "$FIX"
	run dump dump "$FIX"
	run dump_json dump --json "$FIX"
	run report report "$FIX"
	run report_keys report --sort pid,tid,dso,sym,event "$FIX"
	run report_graph report -g caller "$FIX"
	run report_json report --json "$FIX"
	run script script "$FIX"
	run script_json script --json "$FIX"
	run flame flame "$FIX"
	run flame_folded flame --folded "$FIX"
	run diff diff --all "$FIX" "$FIX"
	run diff_json diff --all --json "$FIX" "$FIX"
	run buildids buildids --no-debuginfod "$FIX"
	# The escapes are shown, not dropped.
	_shown=1
	for f in info dump report script buildids flame_folded; do
		grep -qF '\x1b' "$T/$f.out" || { fail "escape_shown_$f" "no \\x1b in the output"; _shown=; }
	done
	grep -qF 'mksynth\x0asecond line' "$T/info.out" || { fail escape_shown_newline "the command line's newline is not \\x0a"; _shown=; }
	grep -qF 'w\x0aforged 1\x1f2\x0d\x08' "$T/report.out" || { fail escape_shown_keysep "the key separator in a command split the report's columns"; _shown=; }
	grep -qF 'h\x1b[2J\xc2\x9b31m\xff' "$T/report.out" || { fail escape_shown_c1 "the host's C1 control or stray byte is not escaped"; _shown=; }
	grep -q '"host":"h\\u001b\[2J\\u009b31m' "$T/report_json.out" || { fail escape_json "JSON does not escape by its own rules"; _shown=; }
	[ -n "$_shown" ] && ok escape_shown
}

# A process named with an escape sequence, recorded for real.
t_recorded() {
	need_rec escape_recorded || return
	need_file escape_recorded "$PROG/workload" || return
	evil=$(printf 'wl\033[31mred')
	cp "$PROG/workload" "$T/$evil" || { fail escape_recorded "cannot copy the workload"; return; }
	if ! run_timeout 60 "$REC" -e cpu-clock -F 999 -o "$T/r.amber" -- "$T/$evil" --work 5 \
		>/dev/null 2>"$T/rec.err"; then
		fail escape_recorded_record "amber-rec failed: $(tail -n 1 "$T/rec.err")"
		return
	fi
	if ! clean "$T/rec.err"; then
		fail escape_recorded "amber-rec's own messages carry raw control characters"
		return
	fi
	for c in report script dump; do
		run_timeout 60 "$ANA" $c "$T/r.amber" >"$T/r-$c.out" 2>"$T/r-$c.err"
		if ! clean "$T/r-$c.out" || ! clean "$T/r-$c.err"; then
			fail escape_recorded "$c prints raw control characters"
			return
		fi
	done
	if grep -qF 'wl\x1b[31mred' "$T/r-report.out"; then
		ok escape_recorded
	else
		fail escape_recorded "the command's escaped name is not in the report: $(grep -m1 '%' "$T/r-report.out")"
	fi
}

t_fixture
t_commands
t_recorded
finish
