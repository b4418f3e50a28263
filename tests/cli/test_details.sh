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
	# Every command that reads a recording reads trace.amber with no FILE,
	# the scheduler's and the counting ones too.
	rm -f "$T/cwd/trace.amber" "$T/cwd/trace.amber.old"
	bad=""
	for c in info verify dump script flame buildids stat export "sched latency" "sched timehist" "sched wakers"; do
		(cd "$T/cwd" && "$ANA" $c >/dev/null 2>"$T/err")
		rc=$?
		if [ $rc != 2 ] || ! grep -q "error: $c: no file given, and no trace.amber here" "$T/err"; then
			bad="$c: exit $rc: $(cat "$T/err")"
			break
		fi
	done
	[ -z "$bad" ] && ok default_file_all || fail default_file_all "$bad"
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
	# The scheduler's commands (issue 14) name a bad value the same way.
	bad_arg badval_sched_sort "error: sched latency: bad value 'avg,bogus' for --sort: keys: avg, max, switch, runtime, pid" \
		sched latency -s avg,bogus "$R/tp.amber"
	bad_arg badval_sched_count "error: sched wakers: bad value '-3' for --count: not a number from 0 to 100000" \
		sched wakers -n -3 "$R/tp.amber"
	bad_arg badval_sched_cmd "error: sched: unknown command 'latncy' (latency, timehist or wakers)" \
		sched latncy "$R/tp.amber"
	"$ANA" help sched latency >"$T/h1" 2>&1
	"$ANA" sched latency --help >"$T/h2" 2>&1
	cmp -s "$T/h1" "$T/h2" && head -n 1 "$T/h1" | grep -q '^usage: amber-analyze sched latency ' &&
		ok help_subcommand || fail help_subcommand "'help sched latency': $(head -n 1 "$T/h1")"
	# `help CMD` is CMD --help.
	"$ANA" help report >"$T/h1" 2>&1
	"$ANA" report --help >"$T/h2" 2>&1
	if cmp -s "$T/h1" "$T/h2" && head -n 1 "$T/h1" | grep -q '^usage: amber-analyze report '; then
		ok help_command
	else
		fail help_command "'help report' is not 'report --help': $(head -n 1 "$T/h1")"
	fi
}

# --- item 1: perf's sort key names; an unknown key is an error ---------------

t_sort_keys() {
	ana report --symfs "$T/symfs" --no-children -g none --sort sym,dso "$R/fp.amber" >"$T/a"
	ana report --symfs "$T/symfs" --no-children -g none --sort Symbol,DSO "$R/fp.amber" >"$T/b"
	if cmp -s "$T/a" "$T/b" && grep -q 'hot_a' "$T/a"; then
		ok sort_perf_names
	else
		fail sort_perf_names "--sort Symbol,DSO differs from --sort sym,dso: $(diff "$T/a" "$T/b" | head -3)"
	fi
	ana report --symfs "$T/symfs" --sort nosuch "$R/tp.amber" >"$T/a"
	rc=$?
	if [ $rc != 2 ] || [ -s "$T/a" ] ||
	   ! grep -q "error: report: unknown sort key 'nosuch'; keys: comm, pid, tid, dso, sym (symbol), srcline, cpu, event, srcfile, sym_size, time, parent, trace; memory keys: mem, snoop, tlb, locked, blocked, dso_daddr, symbol_daddr, data_page_size, local_weight, weight, phys_daddr, node, remote; tracepoint fields of this recording: sched:sched_switch: prev_comm, prev_pid, prev_prio, prev_state, next_comm, next_pid, next_prio" "$T/err"; then
		fail sort_unknown "exit $rc: $(cat "$T/err")"
	else
		ok sort_unknown
	fi
	ana report --symfs "$T/symfs" --sort parent,time "$R/fp.amber" >"$T/a"
	[ $? = 0 ] && grep -q 'Parent symbol  Time' "$T/a" && ok sort_new_keys ||
		fail sort_new_keys "--sort parent,time: $(cat "$T/err")"
	# time: buckets of --time-quantum, adding up to every sample.
	ana report --symfs "$T/symfs" --no-children --sort time --time-quantum 50ms "$R/fp.amber" >"$T/a"
	sum=$(awk '$1 ~ /%$/ { n += $2 } END { print n + 0 }' "$T/a")
	bad=$(awk '$1 ~ /%$/ { split($NF, t, "."); if ((t[2] + 0) % 50000) print $NF }' "$T/a" | head -n 1)
	if [ "$sum" = "$(samples_in "$T/a")" ] && [ -z "$bad" ] && [ "$(grep -c '%' "$T/a")" -ge 4 ]; then
		ok sort_time
	else
		fail sort_time "buckets add up to $sum, or are not on 50 ms: '$bad'"
	fi
	# srcfile: the file of the hot functions.
	ana report --symfs "$T/symfs" --no-children --sort srcfile "$R/dwarf.amber" >"$T/a"
	awk '$1 ~ /%$/ { print $NF; exit }' "$T/a" | grep -qx 'workload.c' && ok sort_srcfile ||
		fail sort_srcfile "first source file: $(awk '$1 ~ /%$/ { print $NF; exit }' "$T/a")"
	# --parent: the first caller matching; the others are [other].
	ana report --symfs "$T/symfs" --no-children --parent '^run_' --sort sym "$R/fp.amber" >"$T/a"
	if grep -q '\[\.\] hot_a  *run_mix$' "$T/a" && grep -q '\[\.\] msort_with_tmp.part.0  *\[other\]$' "$T/a"; then
		ok report_parent
	else
		fail report_parent "$(grep hot_a "$T/a" | head -2)"
	fi
	ana report --symfs "$T/symfs" --no-children -x --parent '^run_' --sort sym "$R/fp.amber" >"$T/a"
	grep -q 'other' "$T/a" && fail report_exclude_other "-x kept [other]" || ok report_exclude_other
}

# sym_size on a fresh recording, against the symbol table.
t_sym_size() {
	need_root sort_sym_size || return 0
	need_rec sort_sym_size || return 0
	need_cmd sort_sym_size nm || return 0
	run_timeout 60 "$REC" -e cpu-clock -F 999 -o "$T/nog.amber" -- "$W" --work 10 >/dev/null 2>&1 ||
		{ fail sort_sym_size "amber-rec failed"; return; }
	want=$(printf '%d' "0x$(nm -S "$W" | awk '$4 == "hot_a" { print $2 }')")
	ana report --sort sym,sym_size "$T/nog.amber" >"$T/a"
	got=$(awk '$1 ~ /%$/ && $(NF - 1) == "hot_a" { print $NF; exit }' "$T/a")
	if [ -n "$got" ] && [ "$got" = "$want" ]; then
		ok sort_sym_size
	else
		fail sort_sym_size "hot_a: sym_size '$got', nm says $want"
	fi
	# Without call chains report shows self overhead, and no call graph.
	if grep -q '^# Overhead ' "$T/a" && ! grep -q -- '---' "$T/a"; then
		ok report_no_chains_self
	else
		fail report_no_chains_self "$(sed -n 14p "$T/a")"
	fi
}

# --- item 11: everyday report options, children on a -g recording -----------

t_report_options() {
	# A -g recording: children and a caller call graph, as perf.
	ana report --symfs "$T/symfs" "$R/fp.amber" >"$T/a"
	if grep -q '^# Children      Self     Samples' "$T/a" && grep -q -- '---start_thread' "$T/a" &&
	   awk '/\[\.\] start_thread$/ { getline; getline; print; exit }' "$T/a" | grep -q -- '---start_thread'; then
		ok report_children_default
	else
		fail report_children_default "$(sed -n 14,20p "$T/a")"
	fi
	ana report --symfs "$T/symfs" --no-children "$R/fp.amber" >"$T/a"
	# Self overhead keeps perf's callee call graph: hot_a, then its callers.
	if grep -q '^# Overhead     Samples' "$T/a" &&
	   awk '/\[\.\] hot_a$/ { getline; getline; print; exit }' "$T/a" | grep -q -- '---hot_a'; then
		ok report_no_children
	else
		fail report_no_children "$(sed -n 14,22p "$T/a")"
	fi
	# --max-stack 1: no callers, so children are self.
	ana report --symfs "$T/symfs" --max-stack 1 -g none "$R/fp.amber" >"$T/a"
	awk '$1 ~ /%$/ && $1 != $2 { bad = 1 } END { exit bad }' "$T/a" && ! grep -q start_thread "$T/a" &&
		ok report_max_stack || fail report_max_stack "callers with --max-stack 1"
	# -F: only the columns named, the keys in their order.
	ana report --symfs "$T/symfs" --no-children -F overhead,sym,comm "$R/fp.amber" >"$T/a"
	if sed -n 14p "$T/a" | grep -q '^# Overhead  Symbol  *Command$' &&
	   grep -q '^ *[0-9.]*%  \[\.\] hot_a  *worker-[01]$' "$T/a"; then
		ok report_fields
	else
		fail report_fields "$(sed -n 14,18p "$T/a")"
	fi
	bad_arg report_fields_bad "unknown sort key 'overheat'" report --symfs "$T/symfs" -F overheat "$R/fp.amber"
	# -T: each thread's period; they add up to the event count.
	ana report --symfs "$T/symfs" -T -g none "$R/fp.amber" >"$T/a"
	total=$(awk '/^# Event count/ { print $NF; exit }' "$T/a")
	sum=$(awk '/^# Threads:/ { t = 1; next } t && $1 ~ /^[0-9]+$/ { n += $3 } END { print n + 0 }' "$T/a")
	[ "$sum" = "$total" ] && grep -q '^#     PID      TID         cpu-clock  Command$' "$T/a" &&
		ok report_threads || fail report_threads "threads add up to $sum of $total"
	# --header-only: perf's header, no table; --header: both.
	ana report --symfs "$T/symfs" --header-only "$R/fp.amber" >"$T/a"
	if grep -q '^# event : name = cpu-clock, type = 1, config = 0x0, sample_freq = 999, sample_type = IDENTIFIER|IP|TID|TIME|CPU|PERIOD|CALLCHAIN' "$T/a" &&
	   grep -q '^# cpus: [0-9]* online in ' "$T/a" && ! grep -q '^# Samples:' "$T/a"; then
		ok report_header_only
	else
		fail report_header_only "$(head -5 "$T/a")"
	fi
	ana report --symfs "$T/symfs" --header "$R/fp.amber" >"$T/a"
	grep -q '^# hostname : ' "$T/a" && grep -q '^# Samples: 473 ' "$T/a" && ok report_header ||
		fail report_header "no header or no table"
	# --hierarchy: command, then object, then symbol, each level summed.
	ana report --symfs "$T/symfs" --hierarchy "$R/fp.amber" >"$T/a"
	top=$(awk '/^    [0-9.]*%        worker-/ { sub("%", "", $1); t += $1 } END { printf "%.0f\n", t }' "$T/a")
	if [ "$top" = 100 ] && grep -q '^          [ 0-9][0-9]\.[0-9]*%        \[\.\] hot_a$' "$T/a"; then
		ok report_hierarchy
	else
		fail report_hierarchy "top level adds up to $top: $(sed -n 17,20p "$T/a")"
	fi
	# --percentage: of all samples (perf's default), or of those kept.
	ana report --symfs "$T/symfs" -g none --no-children --comm worker-0 "$R/fp.amber" >"$T/a"
	ana report --symfs "$T/symfs" -g none --no-children --comm worker-0 --percentage relative "$R/fp.amber" >"$T/b"
	abs=$(awk '$1 ~ /%$/ { sub("%", "", $1); t += $1 } END { printf "%.0f\n", t }' "$T/a")
	rel=$(awk '$1 ~ /%$/ { sub("%", "", $1); t += $1 } END { printf "%.0f\n", t }' "$T/b")
	if [ "$rel" = 100 ] && [ "$abs" -lt 60 ] && grep -q "^# Samples: 236 of event 'cpu-clock' (of 473; shares are of all" "$T/a"; then
		ok report_percentage
	else
		fail report_percentage "absolute $abs%, relative $rel%"
	fi
	# --ignore-callees: run_mix takes what it called; -S keeps one symbol.
	ana report --symfs "$T/symfs" -g none --no-children --ignore-callees '^run_mix$' --sort sym "$R/fp.amber" >"$T/a"
	if ! grep -q 'hot_a' "$T/a" && awk '$NF == "run_mix" { sub("%", "", $1); exit !($1 > 75) }' "$T/a"; then
		ok report_ignore_callees
	else
		fail report_ignore_callees "$(sed -n 17,20p "$T/a")"
	fi
	ana report --symfs "$T/symfs" -g none --no-children -S hot_b --sort sym "$R/fp.amber" >"$T/a"
	[ "$(awk '$1 ~ /%$/ { print $NF }' "$T/a" | sort -u)" = hot_b ] && ok report_symbols_short ||
		fail report_symbols_short "-S hot_b kept $(awk '$1 ~ /%$/ { print $NF }' "$T/a" | sort -u | tr '\n' ' ')"
	# Tracepoint fields print as script shows them; JSON symbols have no "[.] ".
	ana report --symfs "$T/symfs" -e sched:sched_switch --sort prev_state "$R/tp.amber" >"$T/a"
	states=$(awk '$1 ~ /%$/ { print $NF }' "$T/a" | sort -u | tr '\n' ' ')
	case $states in
	*[0-9]*|'') fail report_tp_state "prev_state values '$states' are not script's letters" ;;
	*) ok report_tp_state ;;
	esac
	ana report --symfs "$T/symfs" --json --no-children "$R/fp.amber" >"$T/a"
	if grep -q '"sym":"hot_a","kernel":false' "$T/a" && ! grep -q '"sym":"\[' "$T/a"; then
		ok report_json_sym
	else
		fail report_json_sym "$(head -c 300 "$T/a")"
	fi
}

# --- item 12 and 10: script's everyday options, JSON with pid and fields ------

t_script_options() {
	ana script --symfs "$T/symfs" -F ip,sym "$R/fp.amber" >"$T/a"
	ana script --symfs "$T/symfs" -F ip,sym,symoff "$R/fp.amber" >"$T/b"
	ana script --symfs "$T/symfs" "$R/fp.amber" >"$T/c"
	if ! grep -q '+0x' "$T/a" && grep -q 'hot_a+0x' "$T/b" && grep -q 'hot_a+0x' "$T/c"; then
		ok script_symoff
	else
		fail script_symoff "offsets with -F ip,sym, or none with symoff"
	fi
	ana script --symfs "$T/symfs" --ns -F comm,tid,time "$R/fp.amber" >"$T/a"
	grep -qv '^ *worker-[01] *[0-9]* [0-9]*\.[0-9]\{9\}: *$' "$T/a" &&
		fail script_ns "$(grep -v '[0-9]\{9\}: *$' "$T/a" | head -2)" || ok script_ns
	# -G: one line per sample, its ip on it.
	ana script --symfs "$T/symfs" -G "$R/fp.amber" >"$T/a"
	if [ "$(wc -l <"$T/a")" = 473 ] && ! grep -q "$(printf '^\t')" "$T/a" &&
	   grep -q 'cpu-clock: *[0-9a-f]* hot_a+0x' "$T/a"; then
		ok script_hide_call_graph
	else
		fail script_hide_call_graph "$(wc -l <"$T/a") lines: $(head -2 "$T/a")"
	fi
	# Task and mmap records: as many as dump shows, in perf's words.
	ana script --symfs "$T/symfs" --show-task-events --show-mmap-events "$R/fp.amber" >"$T/a"
	"$ANA" dump "$R/fp.amber" >"$T/d" 2>/dev/null
	for ty in COMM FORK EXIT MMAP2; do
		got=$(grep -c "PERF_RECORD_$ty[ (:]" "$T/a")
		want=$(grep -c " $ty[ (]" "$T/d")
		if [ "$got" != "$want" ] || [ "$got" = 0 ] && [ $ty != EXIT ]; then
			fail "script_task_events_$ty" "$got PERF_RECORD_$ty lines, dump has $want"
		else
			ok "script_task_events_$ty"
		fi
	done
	grep -q '  *workload *[0-9]* \[[0-9]*\] [0-9.]*: PERF_RECORD_COMM exec: workload:[0-9]*/[0-9]*$' "$T/a" &&
	grep -q 'PERF_RECORD_FORK([0-9]*:[0-9]*):([0-9]*:[0-9]*)$' "$T/a" &&
	grep -q 'PERF_RECORD_MMAP2 [0-9]*/[0-9]*: \[0x[0-9a-f]*(0x[0-9a-f]*) @ 0x[0-9a-f]* <[0-9a-f]*>\]: r-xp .*/libc.so.6$' "$T/a" &&
		ok script_task_events_format || fail script_task_events_format "$(grep PERF_RECORD "$T/a" | head -3)"
	# They pass --time as the samples do.
	ana script --symfs "$T/symfs" --show-task-events -G --time 206.664,206.665 "$R/fp.amber" >"$T/a"
	if grep -q 'PERF_RECORD_COMM exec: workload' "$T/a" && ! grep -q 'PERF_RECORD_EXIT' "$T/a" &&
	   [ "$(grep -c PERF_RECORD "$T/a")" = 4 ]; then
		ok script_task_events_time
	else
		fail script_task_events_time "$(grep PERF_RECORD "$T/a")"
	fi
	# callindent: the leaf, four columns further in per caller.
	ana script --symfs "$T/symfs" -G -F tid,callindent "$R/fp.amber" >"$T/a"
	ana script --symfs "$T/symfs" --no-inline -F tid,sym "$R/fp.amber" >"$T/b"
	awk 'BEGIN { RS = "" } { print gsub(/\n\t/, "") - 1 }' "$T/b" >"$T/depths"
	awk '{ match($0, /^ *[0-9]+ /); rest = substr($0, RLENGTH + 1); match(rest, /^ */); print RLENGTH / 4 }' "$T/a" >"$T/indents"
	if [ -s "$T/indents" ] && cmp -s "$T/depths" "$T/indents"; then
		ok script_callindent
	else
		fail script_callindent "indents differ from call depths: $(paste "$T/depths" "$T/indents" | head -3 | tr '\n' ' ')"
	fi
	ana script --symfs "$T/symfs" --json "$R/fp.amber" >"$T/a"
	grep -q '"pid":[0-9]*,"tid":[0-9]*,.*"sym":"hot_a","offset":[0-9]*,"dso":' "$T/a" &&
	! grep -q '"sym":"\[[.k]\] ' "$T/a" && ok script_json_sym ||
		fail script_json_sym "$(head -c 300 "$T/a")"
	need_cmd script_json python3 || return 0
	ana script --symfs "$T/symfs" --json -e sched:sched_switch "$R/tp.amber" >"$T/a"
	if python3 -c '
import json, sys
n = 0
for line in open(sys.argv[1]):
    d = json.loads(line)
    f = d["fields"]
    assert isinstance(d["pid"], int) and isinstance(f["prev_pid"], int), d
    assert "prev_pid=%d " % f["prev_pid"] in d["trace"], d
    assert "prev_comm=%s " % f["prev_comm"] in d["trace"], d
    n += 1
assert n == 18, n
' "$T/a"; then
		ok script_json_fields
	else
		fail script_json_fields "$(head -c 300 "$T/a")"
	fi
}

# --- item 13: frame-pointer chains through code without frame pointers --------

t_fp_cut() {
	need_root fp_cut || return 0
	need_rec fp_cut || return 0
	need_cmd fp_cut python3 || return 0
	# CPython is built without frame pointers: its -g chains run on into
	# whatever its registers held.
	run_timeout 120 "$REC" -e cpu-clock -F 999 -g -o "$T/py.amber" -- python3 -c '
import json
x = 0
for i in range(200000):
    x += len(json.dumps({"a": i, "b": [i, i * 2]}))' >/dev/null 2>&1 ||
		{ fail fp_cut "amber-rec python3 failed"; return; }
	ana script "$T/py.amber" >"$T/a"
	cut=$(grep -c '\[broken frame-pointer chain\]' "$T/a")
	# No chain goes on with unknown frames: the tail is cut, one marker.
	tails=$(awk 'BEGIN { RS = "" } { n = split($0, l, "\n"); run = 0
		for (i = n; i > 1 && l[i] ~ /\[unknown\] \(\[unknown\]\)$/; i--) run++
		if (run > 1) bad++ } END { print bad + 0 }' "$T/a")
	# Which objects the warning names depends on where the samples landed
	# (python3, libc, the loader ...): any list will do, said once.
	warned=$(grep -c 'warning: call chains followed frame pointers through code built without them in .*: they end at \[broken frame-pointer chain\]; record with --call-graph dwarf for real stacks' "$T/err")
	if [ "$cut" -gt 0 ] && [ "$tails" = 0 ] && [ "$warned" = 1 ] && [ "$(wc -l <"$T/err")" = 1 ]; then
		ok fp_cut
	else
		fail fp_cut "$cut markers, $tails chains with unknown tails, warned $warned times: $(cat "$T/err")"
	fi
	# The export for perf's tools keeps the chains as perf prints them.
	"$ANA" export --format perf-script "$T/py.amber" 2>/dev/null | grep -q broken &&
		fail fp_cut_export "perf-script export cut a chain" || ok fp_cut_export
	# Flame graphs and report see the marker too, and warn once each.
	ana flame --folded "$T/py.amber" >"$T/a"
	if grep -q ';\[broken frame-pointer chain\];' "$T/a" || grep -q '^python3;\[broken frame-pointer chain\]' "$T/a"; then
		[ "$(grep -c 'frame pointers' "$T/err")" = 1 ] && ok fp_cut_flame ||
			fail fp_cut_flame "warned $(grep -c 'frame pointers' "$T/err") times"
	else
		fail fp_cut_flame "no marker in the folded stacks"
	fi
}

# --- items 3, 4, 9: flame and diff, one event; significance; object+offset ----

# folded_sum FILE: the samples folded stacks add up to.
folded_sum() {
	awk '{ n += $NF } END { print n + 0 }' "$1"
}

t_flame_diff() {
	# tp.amber: sched:sched_switch (18 samples), then cpu-clock and task-clock.
	ana flame --symfs "$T/symfs" --folded "$R/tp.amber" >"$T/a"
	if [ "$(folded_sum "$T/a")" = 18 ] &&
	   grep -q '^amber-analyze: flame: the samples of sched:sched_switch, the first of 3 events sampled (--event NAME for another)$' "$T/err"; then
		ok flame_one_event
	else
		fail flame_one_event "$(folded_sum "$T/a") samples: $(cat "$T/err")"
	fi
	ana flame --symfs "$T/symfs" --folded -e cpu-clock "$R/tp.amber" >"$T/a"
	ana report --symfs "$T/symfs" -e cpu-clock "$R/tp.amber" >"$T/b"
	[ "$(folded_sum "$T/a")" = "$(samples_in "$T/b")" ] && ! grep -q 'first of' "$T/err" &&
		ok flame_event || fail flame_event "$(folded_sum "$T/a") samples of cpu-clock, report says $(samples_in "$T/b")"
	ana flame --symfs "$T/symfs" "$R/tp.amber" >"$T/a"
	grep -q "<text id=\"subtitle\"[^>]*>$R/tp.amber: 18 of 18 samples of sched:sched_switch (the first event sampled: --event for another)</text>" "$T/a" &&
		ok flame_event_subtitle || fail flame_event_subtitle "$(grep subtitle "$T/a")"
	# A frame without a symbol keeps its object.
	ana flame --symfs "$T/symfs" --folded "$R/fp.amber" >"$T/a"
	grep -q '^worker-0;libc.so.6+0x26290 1$' "$T/a" && ! grep -q ';0x[0-9a-f]* ' "$T/a" &&
		ok flame_object_offset || fail flame_object_offset "$(grep 0x "$T/a")"
	# diff refuses unlike events, unless asked.
	ana diff --symfs "$T/symfs" "$R/fp.amber" "$R/tp.amber" >"$T/a"
	rc=$?
	if [ $rc = 2 ] && grep -q "error: diff: $R/fp.amber samples cpu-clock, $R/tp.amber samples sched:sched_switch: unlike events do not compare (--event cpu-clock=sched:sched_switch compares them anyway, --event NAME picks one in both)" "$T/err"; then
		ok diff_unlike_events
	else
		fail diff_unlike_events "exit $rc: $(cat "$T/err")"
	fi
	ana diff --symfs "$T/symfs" --event cpu-clock "$R/fp.amber" "$R/tp.amber" >"$T/a"
	rc1=$?
	ana diff --symfs "$T/symfs" --event cpu-clock=task-clock "$R/fp.amber" "$R/tp.amber" >"$T/b"
	rc2=$?
	ana diff --symfs "$T/symfs" --force "$R/fp.amber" "$R/tp.amber" >"$T/c"
	rc3=$?
	if [ $rc1$rc2$rc3 = 000 ] && grep -q "^# new:  $R/tp.amber (686 samples of cpu-clock)$" "$T/a" &&
	   grep -q "^# new:  $R/tp.amber ([0-9]* samples of task-clock)$" "$T/b" &&
	   grep -q "^# new:  $R/tp.amber (18 samples of sched:sched_switch, the first event sampled: --event for another)$" "$T/c"; then
		ok diff_event
	else
		fail diff_event "exits $rc1 $rc2 $rc3: $(head -2 "$T/a" "$T/b" "$T/c")"
	fi
	# The differential flame graph colours what changed significantly and
	# only that; the rest is grey with an outline; a legend says so.
	ana diff --symfs "$T/symfs" --flame "$R/fp.amber" "$R/fp2.amber" >"$T/a"
	need_cmd diff_flame_significance python3 || return 0
	if python3 -c '
import re, sys
svg = open(sys.argv[1]).read()
frames = re.findall(r"<title>(.*?)</title><rect [^>]*fill=\"([^\"]*)\"([^>]*)>", svg, re.S)
grey = coloured = 0
for title, fill, rest in frames:
    if title.startswith("all\n"):
        continue
    if "not significant" in title:
        assert fill == "rgb(224,224,218)" and "stroke=" in rest, (title, fill)
        grey += 1
    else:
        assert "(Holm)" in title and fill != "rgb(224,224,218)", (title, fill)
        coloured += 1
assert grey and coloured, (grey, coloured)
assert ">no significant change</text>" in svg and "Holm-adjusted p below 0.05 over" in svg
' "$T/a"; then
		ok diff_flame_significance
	else
		fail diff_flame_significance "frames coloured against their significance"
	fi
}

# --- items 6 and 8: a perf.data is named; one warning per problem -------------

t_perfdata_warnings() {
	pd=$ROOT/testdata/fuzz/fuzz_perfdata/fp.data
	for c in info verify dump report script flame buildids export stat diff archive sched; do
		case $c in
		sched) set -- sched latency "$pd"; c="sched latency" ;;
		diff) set -- diff "$pd" "$pd" ;;
		archive) set -- archive "$pd" -o "$T/pd.amber" ;;
		export) set -- export --format pprof -o "$T/pd.pb.gz" "$pd" ;;
		*) set -- $c "$pd" ;;
		esac
		"$ANA" "$@" >"$T/a" 2>"$T/err"
		rc=$?
		if [ $rc = 0 ] || [ "$(wc -l <"$T/err")" != 1 ] || [ -s "$T/a" ] ||
		   ! grep -q "error: $c: $pd is a perf.data file (written by perf record), not an .amber recording: convert it with 'amber-analyze import $pd -o FILE.amber'" "$T/err"; then
			fail perfdata_named "$c: exit $rc: $(cat "$T/a" "$T/err" | head -3)"
			return
		fi
	done
	ok perfdata_named
	# A recording cut short: each problem once, with the file's name.
	head -c 100000 "$R/fp.amber" >"$T/cut.amber"
	ana report --symfs "$T/symfs" "$T/cut.amber" >/dev/null
	if [ "$(grep -c 'has no trailer' "$T/err")" = 1 ] && [ "$(grep -c 'torn:' "$T/err")" = 1 ] &&
	   grep -q "warning: $T/cut.amber: file of 100000 bytes has no trailer" "$T/err" &&
	   grep -q "warning: $T/cut.amber: block [0-9]* at offset [0-9]*: torn:" "$T/err"; then
		ok warnings_once
	else
		fail warnings_once "$(cat "$T/err")"
	fi
	# After archive, on a machine without the files (an empty --symfs):
	# the objects with samples are embedded, and nothing is said of those
	# without (ld-linux here).
	"$ANA" archive "$R/fp.amber" -o "$T/arch.amber" >/dev/null 2>&1
	said=""
	for c in report script flame; do
		"$ANA" $c --symfs "$T/symfs" "$T/arch.amber" >/dev/null 2>"$T/err" || said="$said $c failed;"
		[ -s "$T/err" ] && said="$said $c: $(cat "$T/err")"
	done
	[ -s "$T/arch.amber" ] && [ -z "$said" ] && ok archive_no_warnings ||
		fail archive_no_warnings "$said"
	# buildids' table says which files are missing: no warning says it again.
	ana buildids --symfs "$T/symfs" "$R/fp.amber" >"$T/a"
	if [ ! -s "$T/err" ] && grep -q ' missing  *.*/ld-linux-x86-64.so.2$' "$T/a"; then
		ok buildids_no_warnings
	else
		fail buildids_no_warnings "$(cat "$T/err")"
	fi
}

# --- item 14: info shows the stored topology and counts -----------------------

t_info_topology() {
	ana info "$R/fp.amber" >"$T/a"
	if grep -q '^topology:$' "$T/a" &&
	   grep -q '^  cpus: 2 online in 1 package, 1 die, 2 cores (1 thread per core)$' "$T/a" &&
	   grep -q '^  numa: node 0: cpus 0-1, [0-9.]* GiB$' "$T/a" &&
	   grep -q '^  caches of cpu 0: L1d [0-9]*K, L1i [0-9]*K, L2 [0-9]*K' "$T/a" &&
	   grep -q '^counts: ' "$T/a" && grep -q '^  cpu-clock  .* msec  (100.00% running)$' "$T/a"; then
		ok info_topology
	else
		fail info_topology "$(sed -n '/^topology/,/^blocks/p' "$T/a")"
	fi
	[ -s "$T/nog.amber" ] || return 0
	ana info "$T/nog.amber" >"$T/a"
	n=$(getconf _NPROCESSORS_ONLN)
	grep -q "^  cpus: $n online in " "$T/a" && ok info_topology_host ||
		fail info_topology_host "$(grep cpus: "$T/a"), $n online here"
}

# --- FORMAT.md: info and verify report alike -----------------------------------

t_info_verify_agree() {
	cp "$R/fp.amber" "$T/app.amber"
	printf 'appended by someone' >>"$T/app.amber"
	"$ANA" info "$T/app.amber" >"$T/i" 2>&1
	"$ANA" verify "$T/app.amber" >"$T/v" 2>&1
	msg="offset 143269: 19 bytes after the trailer of the closed recording: not part of it, left out"
	if grep -q '^closed:     yes' "$T/i" && grep -q '^problems:   1$' "$T/i" &&
	   grep -qF "  warning: $msg" "$T/i" && grep -qF "$T/app.amber: $msg" "$T/v" &&
	   grep -q '1 problem; closed (trailer and index valid)' "$T/v"; then
		ok info_verify_appended
	else
		fail info_verify_appended "$(grep -A3 '^problems' "$T/i") / $(cat "$T/v")"
	fi
	# A damaged block header the index lists: the same two problems.
	cp "$R/fp.amber" "$T/dmg.amber"
	printf '\377' | dd of="$T/dmg.amber" bs=1 seek=1310 conv=notrunc 2>/dev/null
	"$ANA" info "$T/dmg.amber" >"$T/i" 2>&1
	"$ANA" verify "$T/dmg.amber" >"$T/v" 2>&1
	ni=$(sed -n 's/^problems: *//p' "$T/i")
	nv=$(sed -n 's/.* \([0-9]*\) problems\{0,1\};.*/\1/p' "$T/v")
	if [ "$ni" = 2 ] && [ "$nv" = 2 ] && grep -q 'index entry 3: no such block at offset 1270' "$T/i" &&
	   grep -q 'index entry 3: no such block at offset 1270' "$T/v" &&
	   grep -q 'block 3 at offset 1270: header checksum mismatch' "$T/i" &&
	   grep -q 'block 3 at offset 1270: header checksum mismatch' "$T/v"; then
		ok info_verify_damaged_header
	else
		fail info_verify_damaged_header "info $ni, verify $nv problems: $(cat "$T/v")"
	fi
}

t_time_absolute
t_time_forms
t_default_file
t_bad_values
t_sort_keys
t_sym_size
t_report_options
t_script_options
t_fp_cut
t_flame_diff
t_perfdata_warnings
t_info_topology
t_info_verify_agree
finish
