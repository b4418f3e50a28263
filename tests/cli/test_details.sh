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

t_time_absolute
t_time_forms
finish
