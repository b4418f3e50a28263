#!/bin/sh
# tests/cli/test_details.sh - the details a perf user trips over (issue 18):
# perf's option names and forms, errors that name the bad value and the
# valid ones, one event per flame graph and diff, and the like.  Most tests
# run on the fixed recordings of testdata/recordings/ (their samples never
# change); a few record the bundled workload.
. "$(dirname "$0")/lib.sh"

R=$ROOT/testdata/recordings
W=$PROG/workload

need_ana details || finish
mkdir -p "$T/symfs"
ana() {
	"$ANA" "$@" 2>"$T/err"
}

# samples_in FILE: the "# Samples: N" count of report's first table.
samples_in() {
	awk '/^# Samples:/ { print $3; exit }' "$1"
}

# --- item 2: --time takes what script prints --------------------------------

t_time_absolute() {
	"$ANA" script --symfs "$T/symfs" -F time "$R/fp.amber" | sed 's/: *$//' >"$T/times" 2>/dev/null
	t1=$(sed -n 100p "$T/times")
	t2=$(sed -n 300p "$T/times")
	want=$(awk -v a="$t1" -v b="$t2" '$1 >= a && $1 <= b' "$T/times" | wc -l)
	ana report --symfs "$T/symfs" --no-children --time "$t1,$t2" --sort comm "$R/fp.amber" >"$T/r"
	got=$(samples_in "$T/r")
	if [ -z "$t1" ] || [ "$got" != "$want" ] || [ -s "$T/err" ]; then
		fail time_absolute "--time $t1,$t2 kept '$got' samples, script shows $want: $(cat "$T/err")"
	else
		ok time_absolute
	fi
	# Two ranges, separated by a space as in perf: the sum of both.
	t3=$(sed -n 400p "$T/times")
	t4=$(sed -n 420p "$T/times")
	want2=$(awk -v a="$t3" -v b="$t4" '$1 >= a && $1 <= b' "$T/times" | wc -l)
	ana report --symfs "$T/symfs" --no-children --time "$t1,$t2 $t3,$t4" --sort comm "$R/fp.amber" >"$T/r"
	got=$(samples_in "$T/r")
	[ "$got" = $((want + want2)) ] && ok time_ranges || fail time_ranges "kept $got, want $want + $want2"
}

t_time_forms() {
	n=$(wc -l <"$T/times")
	# Percent slices: the ten tenths add up to every sample.
	sum=0
	for i in 1 2 3 4 5 6 7 8 9 10; do
		ana report --symfs "$T/symfs" --no-children --time "10%/$i" --sort comm "$R/fp.amber" >"$T/r"
		s=$(samples_in "$T/r")
		sum=$((sum + ${s:-0}))
	done
	ana report --symfs "$T/symfs" --no-children --time '0%-10%,10%-100%' --sort comm "$R/fp.amber" >"$T/r"
	all=$(samples_in "$T/r")
	# Samples on a slice boundary count in both slices.
	if [ "$sum" -lt "$n" ] || [ "$sum" -gt $((n + 9)) ] || [ "$all" != "$n" ]; then
		fail time_percent "tenths add up to $sum, 0%-10%,10%-100% to $all, of $n samples"
	else
		ok time_percent
	fi
	# +SECONDS from the start; the old bare form is a timestamp now, and
	# a range before the recording says so and how to write it.
	ana report --symfs "$T/symfs" --no-children --time +0.05,+0.2 --sort comm "$R/fp.amber" >"$T/r"
	rel=$(samples_in "$T/r")
	ana report --symfs "$T/symfs" --no-children --time 0.05,0.2 --sort comm "$R/fp.amber" >"$T/r"
	if [ -z "$rel" ] || [ "$rel" -ge "$n" ] || [ "$rel" -lt 100 ]; then
		fail time_relative "+0.05,+0.2 kept '$rel' of $n samples"
	elif ! grep -q 'warning: --time: range 0.05,0.2 lies outside the recording (206\.[0-9]* .. 206\.[0-9]*); seconds from the start are written +SECONDS' "$T/err" ||
	     ! grep -q 'all [0-9]* samples were filtered out' "$T/r"; then
		fail time_relative "a range before the recording: $(cat "$T/err")"
	else
		ok time_relative
	fi
	# A bad range names itself and the forms.
	ana report --symfs "$T/symfs" --time '206.7,206.8 1,x' "$R/fp.amber" >"$T/r"
	rc=$?
	if [ $rc != 2 ] || ! grep -q "bad value '206.7,206.8 1,x' for --time: '1,x' is not START,END" "$T/err"; then
		fail time_bad "exit $rc: $(cat "$T/err")"
	else
		ok time_bad
	fi
}

# --- item 5: no FILE reads amber-rec's default output --------------------------

t_default_file() {
	mkdir -p "$T/cwd"
	(cd "$T/cwd" && "$ANA" report >"$T/r" 2>"$T/err")
	rc=$?
	if [ $rc != 2 ] || ! grep -q "error: report: no file given, and no trace.amber here (what amber-rec writes without -o" "$T/err"; then
		fail default_file_missing "exit $rc: $(cat "$T/err")"
	else
		ok default_file_missing
	fi
	cp "$R/fp.amber" "$T/cwd/trace.amber"
	cp "$R/fp2.amber" "$T/cwd/trace.amber.old"
	(cd "$T/cwd" && "$ANA" report --symfs "$T/symfs" --no-children >"$T/r" 2>"$T/err")
	rc=$?
	"$ANA" report --symfs "$T/symfs" --no-children "$R/fp.amber" >"$T/r2" 2>/dev/null
	if [ $rc != 0 ] || ! cmp -s "$T/r" "$T/r2" ||
	   [ "$(cat "$T/err")" != "amber-analyze: report: reading trace.amber (no file given)" ]; then
		fail default_file "exit $rc: $(cat "$T/err")"
	else
		ok default_file
	fi
	# diff compares the recording before (trace.amber.old) with it, as perf diff.
	(cd "$T/cwd" && "$ANA" diff --symfs "$T/symfs" >"$T/r" 2>"$T/err")
	rc=$?
	if [ $rc != 0 ] || ! grep -q '^# base: trace.amber.old' "$T/r" ||
	   ! grep -q 'comparing trace.amber.old (the recording before) with trace.amber' "$T/err"; then
		fail default_file_diff "exit $rc: $(cat "$T/err")"
	else
		ok default_file_diff
	fi
	"$ANA" script --help | grep -q 'Without FILE: trace.amber' && ok default_file_help ||
		fail default_file_help "script --help does not say what it reads without FILE"
}

# --- item 7: a bad value is named, with the valid ones -------------------------

# bad_arg NAME EXPECTED ARGS...: amber-analyze ARGS exits 2 and says EXPECTED.
bad_arg() {
	_name=$1
	_want=$2
	shift 2
	"$ANA" "$@" >/dev/null 2>"$T/err"
	_rc=$?
	if [ $_rc != 2 ] || ! grep -qF -- "$_want" "$T/err" || [ "$(wc -l <"$T/err")" != 1 ]; then
		fail "$_name" "exit $_rc, wanted '$_want': $(cat "$T/err")"
	else
		ok "$_name"
	fi
}

t_bad_values() {
	bad_arg badval_fields "script: bad value 'comm,bogus' for --fields: unknown field 'bogus' (fields: comm, tid, pid," \
		script -F comm,bogus "$R/fp.amber"
	bad_arg badval_plimit "bad value 'x' for --percent-limit: not a percentage from 0 to 100" \
		report --percent-limit x "$R/fp.amber"
	bad_arg badval_pid "bad value '12x' for --pid: not a list of decimal ids" report --pid 12x "$R/fp.amber"
	bad_arg badval_cpu "bad value '5000' for --cpu: not a CPU list (0-3,7) of CPUs below 4096" \
		flame --cpu 5000 "$R/fp.amber"
	bad_arg badval_weight "bad value 'x' for --weight: neither samples nor period" flame --weight x "$R/fp.amber"
	bad_arg badval_alpha "bad value '2' for --alpha: not a significance level between 0 and 1" \
		diff --alpha 2 "$R/fp.amber" "$R/fp2.amber"
	bad_arg badval_callgraph "bad value 'calee' for --call-graph: not caller, callee, graph or none" \
		report --call-graph=calee "$R/fp.amber"
	bad_arg badval_unknown "error: report: unknown option '--bogus' (see 'amber-analyze report --help')" \
		report --bogus "$R/fp.amber"
	bad_arg badval_extra "unexpected argument '$R/fp.amber': one FILE is read, and that is 'nope,2'" \
		report -g nope,2 "$R/fp.amber"
	# `help CMD` is CMD --help.
	"$ANA" help report >"$T/h1" 2>&1
	"$ANA" report --help >"$T/h2" 2>&1
	if cmp -s "$T/h1" "$T/h2" && head -n 1 "$T/h1" | grep -q '^usage: amber-analyze report '; then
		ok help_command
	else
		fail help_command "'help report' is not 'report --help': $(head -n 1 "$T/h1")"
	fi
}

t_time_absolute
t_time_forms
t_default_file
t_bad_values
finish
