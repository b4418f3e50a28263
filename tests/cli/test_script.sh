#!/bin/sh
# tests/cli/test_script.sh - amber-analyze script on real recordings of the
# bundled workload: one line per sample, callchains under it, inlined
# frames, source lines, --json, and sched:sched_switch payloads decoded by
# libtraceevent and consistent with the thread model.
. "$(dirname "$0")/lib.sh"

SRC=$ROOT/testdata/programs/workload.c
W=$PROG/workload

setup() {
	need_root script || return 1
	need_rec script || return 1
	need_ana script || return 1
	need_file script "$W" || return 1
	if ! run_timeout 120 "$REC" -e cpu-clock -F 1000 -g -o "$T/w.amber" -- \
		"$W" --work 40 >"$T/rec.log" 2>&1; then
		fail script_record "amber-rec failed: $(tail -n 1 "$T/rec.log")"
		return 1
	fi
	"$ANA" script "$T/w.amber" >"$T/s.txt" 2>"$T/s.err" ||
		{ fail script_runs "$(cat "$T/s.err")"; return 1; }
	ok script_runs
}

t_lines() {
	n=$(grep -c ' cpu-clock: *$' "$T/s.txt")
	want=$("$ANA" report "$T/w.amber" 2>/dev/null | awk '/^# Samples:/ { print $3; exit }')
	if [ -z "$want" ] || [ "$n" != "$want" ]; then
		fail script_one_line_per_sample "$n sample lines, report counts $want"
		return
	fi
	# Every sample line: comm tid [cpu] secs.usecs: period event:
	bad=$(grep ' cpu-clock: *$' "$T/s.txt" |
		grep -cv '^ *[^ ].* [0-9][0-9]* \[[0-9][0-9][0-9]\] [0-9]*\.[0-9]\{6\}: *[0-9][0-9]* cpu-clock: *$')
	if [ "$bad" != 0 ]; then
		fail script_one_line_per_sample "$bad sample lines not in 'comm tid [cpu] time: period event:' form"
	else
		ok script_one_line_per_sample
	fi
}

t_callchain() {
	# A sample in hot_a: its frames follow, hot_a then run_mix then worker_main.
	if awk '/cpu-clock: *$/ { n = 0; next }
		/^\t/ { f[n++] = $2 }
		/^$/ && n >= 3 && f[0] ~ /^hot_a\+/ && f[1] ~ /^run_mix\+/ && f[2] ~ /^worker_main\+/ { ok = 1 }
		END { exit !ok }' "$T/s.txt"; then
		ok script_callchain
	else
		fail script_callchain "no hot_a <- run_mix <- worker_main stack"
	fi
	if grep -q '^	 *[0-9a-f]* mix_inline (inlined)$' "$T/s.txt" &&
	   awk '/mix_inline \(inlined\)/ { getline; if ($2 ~ /^hot_b\+/) ok = 1 } END { exit !ok }' "$T/s.txt"; then
		ok script_inline
	else
		fail script_inline "no 'mix_inline (inlined)' frame followed by hot_b"
	fi
}

t_srcline_json() {
	line=$(grep -n 'HOT-LOOP' "$SRC" | head -n 1 | cut -d: -f1)
	"$ANA" script -F comm,tid,ip,sym,srcline "$T/w.amber" >"$T/src.txt" 2>/dev/null
	if grep -q "^  workload.c:$line\$" "$T/src.txt"; then
		ok script_srcline
	else
		fail script_srcline "workload.c:$line (HOT-LOOP) never printed"
	fi
	if ! command -v python3 >/dev/null 2>&1; then
		skip script_json "python3 not installed"
		return
	fi
	if "$ANA" script --json "$T/w.amber" 2>/dev/null | python3 -c '
import json, sys
n = hot = 0
for line in sys.stdin:
    o = json.loads(line)
    n += 1
    assert o["event"] == "cpu-clock"
    if o["callchain"] and o["callchain"][0].get("sym") == "hot_a":
        hot += 1
assert n > 100 and hot > n // 5, (n, hot)
'; then
		ok script_json
	else
		fail script_json "not one valid JSON object per sample"
	fi
}

t_sched_switch() {
	mount_tracefs script_sched_switch || return
	if ! run_timeout 120 "$REC" -e cpu-clock -e sched:sched_switch -F 1000 -o "$T/sw.amber" -- \
		"$W" --work 10 --sleep-ms 30 >"$T/sw.log" 2>&1; then
		fail script_sched_switch "recording sched:sched_switch failed: $(tail -n 1 "$T/sw.log")"
		return
	fi
	"$ANA" script -e sched:sched_switch -F comm,tid,event,trace "$T/sw.amber" >"$T/sw.txt" 2>/dev/null
	# The worker threads' tids, from the thread model (COMM records).
	tids=$("$ANA" script -e cpu-clock -F comm,tid "$T/sw.amber" 2>/dev/null |
		awk '$1 ~ /^worker-/ { print $2 }' | sort -u)
	if [ -z "$tids" ]; then
		fail script_sched_switch "no worker threads in the cpu-clock samples"
		return
	fi
	for t in $tids; do
		n=$(grep -c "prev_pid=$t " "$T/sw.txt")
		if [ "$n" -lt 30 ]; then
			fail script_sched_switch "worker tid $t is prev_pid of $n switches, expected >= 30 (--sleep-ms 30)"
			return
		fi
	done
	# A switch is recorded in the context of the task leaving the CPU.
	bad=$(awk '/sched:sched_switch:/ { for (i = 1; i <= NF; i++) if ($i ~ /^prev_pid=/) { split($i, a, "="); if (a[2] != $2) n++ } } END { print n + 0 }' "$T/sw.txt")
	if [ "$bad" != 0 ]; then
		fail script_sched_switch "$bad switches whose prev_pid is not the sample's tid"
	elif ! grep -q 'prev_comm=worker-[0-9]* .*==> next_comm=' "$T/sw.txt"; then
		fail script_sched_switch "payload not formatted as the tracepoint's print format"
	else
		ok script_sched_switch
	fi
	# --field-filter keeps exactly the samples whose field prints so.
	"$ANA" script --field-filter prev_comm=worker-0 --fields trace "$T/sw.amber" >"$T/ff.txt" 2>&1
	n_ff=$(grep -c . "$T/ff.txt")
	n_w0=$(grep -c 'prev_comm=worker-0 ' "$T/sw.txt")
	if [ "$n_ff" -gt 0 ] && [ "$n_ff" = "$n_w0" ] && ! grep -v 'prev_comm=worker-0 ' "$T/ff.txt" | grep -q .; then
		ok script_field_filter
	else
		fail script_field_filter "$n_ff lines kept, $n_w0 expected: $(head -n 2 "$T/ff.txt" | tr '\n' '|')"
	fi
	if "$ANA" report --field-filter prev_comm "$T/sw.amber" >/dev/null 2>&1; then
		fail field_filter_syntax "a term without '=' was accepted"
	else
		ok field_filter_syntax
	fi
	"$ANA" report -e sched:sched_switch --sort prev_comm "$T/sw.amber" >"$T/swr.txt" 2>/dev/null
	if grep -q '^ .*%.* worker-0$' "$T/swr.txt"; then
		ok report_sort_tracepoint_field
	else
		fail report_sort_tracepoint_field "--sort prev_comm has no worker-0 row"
	fi
}

# An -e that names no event of the recording is an error naming the events
# there, in script as in report, before any sample is read.
t_unknown_event() {
	for c in script report; do
		"$ANA" $c -e no-such-event "$T/w.amber" >"$T/ue.out" 2>"$T/ue.err"
		rc=$?
		if [ $rc != 1 ] || [ -s "$T/ue.out" ] ||
		   ! grep -q "no event 'no-such-event' in the recording (events: cpu-clock)" "$T/ue.err"; then
			fail "${c}_unknown_event" "exit $rc, stderr: $(head -n 2 "$T/ue.err")"
		else
			ok "${c}_unknown_event"
		fi
	done
}

# Output to a full device is an error naming the cause, not a silent loss.
t_full_output() {
	[ -w /dev/full ] || { skip output_full "/dev/full is not writable here"; return; }
	for c in script report; do
		"$ANA" $c "$T/w.amber" >/dev/full 2>"$T/full.err"
		rc=$?
		if [ $rc = 1 ] && grep -q "$c: writing the output: No space left on device" "$T/full.err"; then
			ok "${c}_output_full"
		else
			fail "${c}_output_full" "exit $rc: $(head -n 2 "$T/full.err")"
		fi
	done
}

# Kernel function pointers in tracepoint payloads (%ps) are named from the
# recorded kallsyms, as perf script names them; the line ends with the
# payload (no ip) as perf's does.  With a trimmed table they stay in hex.
t_tracepoint_functions() {
	mount_tracefs script_tracepoint_functions || return
	if ! run_timeout 120 "$REC" -e timer:hrtimer_expire_entry -a -o "$T/hr.amber" -- \
		"$W" --work 5 --sleep-ms 2 >"$T/hr.log" 2>&1 ||
	   ! run_timeout 120 "$REC" -e timer:hrtimer_expire_entry -a --kallsyms=used \
		-o "$T/hru.amber" -- "$W" --work 5 --sleep-ms 2 >"$T/hru.log" 2>&1; then
		fail script_tracepoint_functions "recording failed: $(tail -n 1 "$T/hr.log" "$T/hru.log")"
		return
	fi
	"$ANA" script "$T/hr.amber" >"$T/hr.txt" 2>&1
	"$ANA" script "$T/hru.amber" >"$T/hru.txt" 2>&1
	names=$(sed -n 's/.*timer:hrtimer_expire_entry: .* function=\([^ ]*\) now=[0-9]*$/\1/p' "$T/hr.txt" | sort -u)
	bad=""
	for n in $names; do
		grep -q " $n\$" /proc/kallsyms || bad="$bad $n"
	done
	lines=$(grep -c 'timer:hrtimer_expire_entry:' "$T/hr.txt")
	if [ -z "$names" ] || [ -n "$bad" ] || "$ANA" info "$T/hr.amber" | grep -q ksyms.kept ||
	   grep 'timer:hrtimer_expire_entry:' "$T/hr.txt" | grep -q 'kernel.kallsyms'; then
		fail script_tracepoint_functions "$lines lines, names '$names', not kernel symbols '$bad': $(head -n 2 "$T/hr.txt")"
	else
		ok script_tracepoint_functions
	fi
	hex=$(grep -c 'timer:hrtimer_expire_entry: .* function=0x[0-9a-f]* now=' "$T/hru.txt")
	all=$(grep -c 'timer:hrtimer_expire_entry:' "$T/hru.txt")
	if [ "$all" -gt 0 ] && [ "$hex" = "$all" ] && "$ANA" info "$T/hru.amber" | grep -q ksyms.kept; then
		ok script_tracepoint_functions_trimmed
	else
		fail script_tracepoint_functions_trimmed "$hex of $all payloads with a hex function: $(head -n 1 "$T/hru.txt")"
	fi
}

# -F tod: the wall-clock time of each sample, from the recording's clock
# reference, falls between the moments the recording began and ended.
t_tod() {
	before=$(date +%s)
	run_timeout 60 "$REC" -e cpu-clock -F 999 -o "$T/tod.amber" -- "$W" --work 5 >/dev/null 2>&1
	after=$(date +%s)
	"$ANA" script -F tod,event "$T/tod.amber" >"$T/tod.txt" 2>&1
	first=$(head -n 1 "$T/tod.txt" | cut -c1-19)
	last=$(tail -n 1 "$T/tod.txt" | cut -c1-19)
	f=$(date -d "$first" +%s 2>/dev/null)
	l=$(date -d "$last" +%s 2>/dev/null)
	if [ -n "$f" ] && [ -n "$l" ] && [ "$f" -ge $((before - 1)) ] && [ "$l" -le $((after + 1)) ] &&
	   [ "$f" -le "$l" ] && grep -q '^[0-9-]* [0-9:]*\.[0-9]\{6\} cpu-clock: $' "$T/tod.txt"; then
		ok script_tod
	else
		fail script_tod "recorded $before..$after, tod $first..$last: $(head -n 1 "$T/tod.txt")"
	fi
}

# -d: page faults carry the faulting data address; script shows it by
# default (as perf script does) and -F data_src,weight on request, the
# same values dump decodes.  A recording without -d has no addr.
t_data_addr() {
	if ! run_timeout 60 "$REC" -e page-faults -c 1 -d -o "$T/pf.amber" -- "$W" --work 2 \
		>"$T/pf.log" 2>&1; then
		fail script_data_addr "recording page-faults -d failed: $(tail -n 1 "$T/pf.log")"
		return
	fi
	"$ANA" script --json -F tid,time,addr,data_src,weight "$T/pf.amber" 2>/dev/null |
		jq -r '[.time, .addr, .data_src, .weight] | @tsv' >"$T/pf.script"
	"$ANA" dump --json "$T/pf.amber" 2>/dev/null | jq -Rr 'fromjson? | select(.type=="SAMPLE") |
		[.time, .addr, .data_src, .weight] | @tsv' >"$T/pf.dump"
	n=$(wc -l <"$T/pf.script")
	col=$("$ANA" script "$T/pf.amber" 2>/dev/null | grep -c 'page-faults: *[0-9a-f]\{8,\} ffffffff')
	noaddr=$("$ANA" script --json "$T/w.amber" 2>/dev/null | grep -c '"addr"')
	if [ "$n" -gt 10 ] && cmp -s "$T/pf.script" "$T/pf.dump" && [ "$col" -gt 0 ] && [ "$noaddr" = 0 ]; then
		ok script_data_addr
	else
		fail script_data_addr "$n samples, script vs dump: $(diff "$T/pf.script" "$T/pf.dump" | head -n 2); $col lines with an addr column; $noaddr addr without -d"
	fi
}

if setup; then
	t_lines
	t_unknown_event
	t_full_output
	t_callchain
	t_srcline_json
	t_sched_switch
	t_tracepoint_functions
	t_tod
	t_data_addr
fi
finish
