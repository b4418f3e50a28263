#!/bin/sh
# tests/cli/test_record.sh - amber-rec on real programs, checked through
# amber-analyze (dump --json, info, script) and readelf.  Needs root (and
# perf_event_open); about 30 s in all.
. "$(dirname "$0")/lib.sh"

WL=$PROG/workload
SP=$PROG/spinner

# rec NAME ARGS...: run amber-rec (bounded), stderr in $T/NAME.err, exit
# status in $RC.
rec() {
	_n=$1
	shift
	run_timeout 60 "$REC" "$@" >"$T/$_n.out" 2>"$T/$_n.err"
	RC=$?
}

# json FILE JQ-FILTER: the records of FILE passed through jq -r.
json() {
	"$ANA" dump --json "$1" 2>/dev/null | jq -Rr "fromjson? | $2" 2>/dev/null
}

buildid_of() {
	readelf -n "$1" 2>/dev/null | awk '/Build ID:/ { print $3; exit }'
}

guards() {
	need_root "$1" && need_rec "$1" && need_ana "$1" && need_cmd "$1" jq &&
		need_file "$1" "$WL" && need_file "$1" "$SP"
}

# --- a command: exit status, threads, mappings with build-ids --------------
test_command() {
	guards rec_command || return 0
	rec command -o "$T/wl.amber" -g -- "$WL" --threads 2 --work 40
	if [ "$RC" != 0 ]; then
		fail rec_command "exit $RC: $(tail -n 3 "$T/command.err")"
		return 0
	fi
	grep -q '^\[ amber-rec: captured [0-9]* samples (0 lost) in .* -> .*wl.amber \]$' \
		"$T/command.err" || fail rec_command "no summary line: $(tail -n 1 "$T/command.err")"
	# The worker threads are named worker-N: each must have samples.
	workers=$(json "$T/wl.amber" 'select(.type=="COMM" and (.comm|test("^worker-"))) | .tid' | sort -u)
	pid=$(json "$T/wl.amber" 'select(.type=="COMM" and .comm=="workload" and .exec) | .pid' | head -n 1)
	sampled=$(json "$T/wl.amber" "select(.type==\"SAMPLE\" and .pid==$pid) | .tid" | sort -u)
	if [ "$(echo "$workers" | wc -w)" != 2 ]; then
		fail rec_command "expected 2 worker threads, COMM records give '$workers'"
	else
		missing=""
		for t in $workers; do
			echo "$sampled" | grep -qx "$t" || missing="$missing $t"
		done
		[ -z "$missing" ] && ok rec_threads || fail rec_threads "no samples for threads$missing"
	fi
	# Callchains with -g.
	n=$(json "$T/wl.amber" 'select(.type=="SAMPLE" and (.callchain|length) > 2) | .tid' | wc -l)
	[ "$n" -gt 10 ] && ok rec_callchain || fail rec_callchain "only $n samples with a callchain"

	# MMAP2 of the program and of libc carry the build-ids readelf reads.
	want=$(buildid_of "$WL")
	got=$(json "$T/wl.amber" "select(.type==\"MMAP2\" and .filename==\"$WL\") | .build_id" | sort -u)
	libc=$(json "$T/wl.amber" 'select(.type=="MMAP2" and (.filename|test("/libc[.]so"))) | .filename' | head -n 1)
	libc_got=$(json "$T/wl.amber" "select(.type==\"MMAP2\" and .filename==\"$libc\") | .build_id" | sort -u)
	if [ -z "$want" ] || [ "$got" != "$want" ]; then
		fail rec_buildid "workload: readelf '$want', recorded '$got'"
	elif [ -z "$libc" ] || [ "$libc_got" != "$(buildid_of "$libc")" ]; then
		fail rec_buildid "libc '$libc': readelf '$(buildid_of "$libc")', recorded '$libc_got'"
	else
		ok rec_buildid
	fi
	# Kernel text is synthesized with its build-id from /sys/kernel/notes.
	k=$(json "$T/wl.amber" 'select(.synth and .type=="MMAP2" and .filename=="[kernel.kallsyms]_text") | .pid')
	[ "$k" = -1 ] && ok rec_kernel_map || fail rec_kernel_map "no synthesized kernel text MMAP2"
	ok rec_command
}

test_exit_status() {
	guards rec_exit_status || return 0
	rec st3 -o "$T/st3.amber" -- sh -c 'exit 3'
	r3=$RC
	rec st143 -o "$T/st143.amber" -- sh -c 'kill -TERM $$'
	r143=$RC
	rec st127 -o "$T/st127.amber" -- /nonexistent/program
	if [ "$r3" = 3 ] && [ "$r143" = 143 ] && [ "$RC" = 127 ] &&
	   grep -q "cannot run '/nonexistent/program'" "$T/st127.err" &&
	   "$ANA" info "$T/st3.amber" >/dev/null 2>&1; then
		ok rec_exit_status
	else
		fail rec_exit_status "exit 3 gave $r3, SIGTERM gave $r143, missing program gave $RC"
	fi
}

# --- tracepoints: raw payloads and their format text ------------------------
test_tracepoint() {
	guards rec_tracepoint || return 0
	mount_tracefs rec_tracepoint || return 0
	rec tp -o "$T/tp.amber" -e sched:sched_switch -e cpu-clock -- "$WL" --threads 1 --work 5 --sleep-ms 20
	n=$(json "$T/tp.amber" 'select(.type=="SAMPLE" and .event=="sched:sched_switch" and .raw_size > 40) | .tid' | wc -l)
	if [ "$RC" != 0 ] || [ "$n" -lt 20 ]; then
		fail rec_tracepoint "exit $RC, $n sched_switch samples with raw data"
	elif ! "$ANA" script "$T/tp.amber" 2>/dev/null | grep -q 'sched:sched_switch: prev_comm=workload'; then
		fail rec_tracepoint "the format text was not stored: script cannot decode the fields"
	else
		ok rec_tracepoint
	fi
}

# --- -p: mappings made before attaching; -t; -a ----------------------------
test_attach() {
	guards rec_attach || return 0
	bg_start "$T/sp.out" "$SP" --seconds 20
	spid=$(wait_for_line "$T/sp.out" 10) || { fail rec_attach "spinner did not start"; return 0; }
	rec attach -o "$T/p.amber" -p "$spid" --duration 1
	# spinner dlopen()ed libm before we attached: only synthesis knows it.
	libm=$(json "$T/p.amber" "select(.synth and .type==\"MMAP2\" and .pid==$spid and (.filename|test(\"libm[.]so\"))) | .build_id" | head -n 1)
	me=$(json "$T/p.amber" "select(.synth and .type==\"MMAP2\" and .pid==$spid and .filename==\"$SP\") | .build_id" | head -n 1)
	ns=$(json "$T/p.amber" "select(.type==\"SAMPLE\" and .pid==$spid) | .tid" | wc -l)
	if [ "$RC" != 0 ] || [ -z "$libm" ] || [ "$me" != "$(buildid_of "$SP")" ] || [ "$ns" -lt 100 ]; then
		fail rec_attach "exit $RC, libm build-id '$libm', spinner '$me', $ns samples"
	else
		ok rec_attach
	fi

	rec tid -o "$T/t.amber" -t "$spid" --duration 0.5
	ns=$(json "$T/t.amber" "select(.type==\"SAMPLE\") | .tid" | sort -u)
	[ "$RC" = 0 ] && [ "$ns" = "$spid" ] && ok rec_tid || fail rec_tid "exit $RC, sampled tids '$ns'"

	rec sys -o "$T/a.amber" -a --duration 1
	ns=$(json "$T/a.amber" "select(.type==\"SAMPLE\" and .pid==$spid) | .tid" | wc -l)
	# Every process that existed was synthesized, the spinner among them.
	procs=$(json "$T/a.amber" 'select(.synth and .type=="COMM" and .pid==.tid) | .pid' | sort -u | wc -l)
	spc=$(json "$T/a.amber" "select(.synth and .type==\"COMM\" and .pid==$spid) | .comm" | head -n 1)
	if [ "$RC" = 0 ] && [ "$ns" -gt 100 ] && [ "$procs" -gt 3 ] && [ "$spc" = spinner ]; then
		ok rec_system_wide
	else
		fail rec_system_wide "exit $RC, $ns samples of the spinner, $procs processes synthesized, spinner comm '$spc'"
	fi

	# SIGTERM (like Ctrl-C) ends a system-wide recording with a closed file.
	"$REC" -o "$T/term.amber" -a >/dev/null 2>"$T/term.err" &
	rpid=$!
	sleep 2
	kill -TERM "$rpid"
	wait "$rpid"
	rc=$?
	if [ "$rc" = 0 ] && "$ANA" info "$T/term.amber" 2>/dev/null | grep -q '^closed: *yes' &&
	   grep -q '^\[ amber-rec: captured' "$T/term.err"; then
		ok rec_sigterm
	else
		fail rec_sigterm "exit $rc: $(tail -n 2 "$T/term.err")"
	fi
	kill "$BG_PID" 2>/dev/null
}

# --- SIGKILL: the file is read by scanning, up to about a second before ----
test_sigkill() {
	guards rec_sigkill || return 0
	"$REC" -o "$T/k.amber" -- "$WL" --threads 2 --work 600 >/dev/null 2>"$T/k.err" &
	rpid=$!
	sleep 3
	wpid=$(pgrep -P "$rpid" | head -n 1)
	kill -KILL "$rpid"
	wait "$rpid" 2>/dev/null
	[ -n "$wpid" ] && kill "$wpid" 2>/dev/null
	start=$(json "$T/k.amber" 'select(.synth) | .time' | head -n 1)
	last=$(json "$T/k.amber" 'select(.type=="SAMPLE") | .time' | sort -n | tail -n 1)
	# Started about 3 s before the kill; flushed at least every second.
	if ! "$ANA" info "$T/k.amber" >"$T/k.info" 2>&1; then
		fail rec_sigkill "info cannot read the file: $(tail -n 2 "$T/k.info")"
	elif [ -z "$start" ] || [ -z "$last" ] ||
	     ! in_range "$(( (last - start) / 1000000 ))" 1500 4000; then
		fail rec_sigkill "samples end $(( (${last:-0} - ${start:-0}) / 1000000 )) ms after the start"
	else
		ok rec_sigkill
	fi
	# Killed before any trim: the whole kernel symbol table is there.
	n=$(ksyms_count "$T/k.amber")
	[ "${n:-0}" -gt 1000 ] && ok rec_sigkill_ksyms ||
		fail rec_sigkill_ksyms "a killed recording holds ${n:-no} kernel symbols"
}

# ksyms_count FILE: the lines of FILE's KSYMS blocks, from info.
ksyms_count() {
	"$ANA" info "$1" 2>/dev/null | awk '$1 == "ksyms" && NF == 6 { print $3 }'
}

# --- kernel symbols: trimmed to the ones samples use; analysis unchanged ----
test_kallsyms() {
	guards rec_kallsyms || return 0
	need_file rec_kallsyms "$B/tools/rec_trim" || return 0
	# A CPU-bound workload may spend no sampled tick in the kernel; the
	# context switches of its naps always do (their call chains start in
	# __schedule), so some kernel symbols are used in every run.
	kev="-e cpu-clock -e context-switches/period=1/"
	# shellcheck disable=SC2086 # $kev is words on purpose
	rec kall -o "$T/kall.amber" -g $kev --kallsyms=all -- "$WL" --threads 2 --work 20 --sleep-ms 5
	all=$(ksyms_count "$T/kall.amber")
	# shellcheck disable=SC2086
	rec kdef -o "$T/kdef.amber" -g $kev -- "$WL" --threads 2 --work 20 --sleep-ms 5
	kept=$(ksyms_count "$T/kdef.amber")
	meta=$("$ANA" info "$T/kdef.amber" | awk '$1 == "ksyms.kept" { print $2 }')
	if [ "${all:-0}" -gt 1000 ] && ! "$ANA" info "$T/kall.amber" | grep -q ksyms.kept &&
	   [ "${kept:-0}" -gt 0 ] && [ "$kept" -lt 1000 ] && [ "$meta" = "$kept" ] &&
	   grep -q "kept the $kept of [0-9]* kernel symbols the samples use" "$T/kdef.err" &&
	   [ "$(stat -c %s "$T/kdef.amber")" -lt "$(( $(stat -c %s "$T/kall.amber") / 2 ))" ] &&
	   "$ANA" verify "$T/kdef.amber" >/dev/null 2>&1; then
		ok rec_kallsyms_trimmed
	else
		fail rec_kallsyms_trimmed "all: ${all:-none} symbols; default: ${kept:-none} (META ${meta:-none}): $(tail -n 2 "$T/kdef.err")"
	fi

	# The same samples with the whole table and with the trimmed one: every
	# analysis reads the same, kernel frames included.
	cp "$T/kall.amber" "$T/ktrim.amber"
	"$B/tools/rec_trim" used "$T/ktrim.amber" >"$T/ktrim.out" 2>&1
	same=ok
	for cmd in "report --sort sym" "report --children -g caller" "script" "flame --folded"; do
		# shellcheck disable=SC2086 # $cmd is words on purpose
		"$ANA" $cmd "$T/kall.amber" >"$T/kall.txt" 2>&1
		# shellcheck disable=SC2086
		"$ANA" $cmd "$T/ktrim.amber" >"$T/ktrim.txt" 2>&1
		cmp -s "$T/kall.txt" "$T/ktrim.txt" || same="'$cmd' differs: $(diff "$T/kall.txt" "$T/ktrim.txt" | head -n 3)"
	done
	named=$("$ANA" report --sort sym "$T/ktrim.amber" 2>/dev/null | grep -c '\[k\] [A-Za-z_]')
	if [ "$same" = ok ] && [ "$named" -gt 0 ] && grep -q '^kept [0-9]* of' "$T/ktrim.out"; then
		ok rec_kallsyms_same_analysis
	else
		fail rec_kallsyms_same_analysis "$same; $named named kernel symbols; $(cat "$T/ktrim.out")"
	fi

	# User-only samples name no kernel address: no symbol is kept, and
	# buildids says so rather than calling the kernel's symbols missing.
	rec kuser -o "$T/kuser.amber" -e cpu-clock:u -g -- "$WL" --work 10
	if [ "$RC" = 0 ] && [ -z "$(ksyms_count "$T/kuser.amber")" ] &&
	   "$ANA" info "$T/kuser.amber" | grep -q '^  ksyms.kept  *0$' &&
	   "$ANA" buildids "$T/kuser.amber" 2>/dev/null | grep -q ' unused  *\[kernel.kallsyms\]'; then
		ok rec_kallsyms_none_used
	else
		fail rec_kallsyms_none_used "exit $RC: $("$ANA" buildids "$T/kuser.amber" 2>&1 | grep kernel)"
	fi

	rec kbad -o "$T/kbad.amber" --kallsyms=some -- true
	[ "$RC" = 125 ] && grep -q "invalid --kallsyms 'some' (auto, used or all)" "$T/kbad.err" &&
		ok rec_kallsyms_bad_mode || fail rec_kallsyms_bad_mode "exit $RC: $(head -n 1 "$T/kbad.err")"
}

# --- disk full: an error, a valid file, non-zero exit -------------------
test_disk_full() {
	guards rec_disk_full || return 0
	mkdir -p "$T/small"
	if ! mount -t tmpfs -o size=1m tmpfs "$T/small" 2>/dev/null; then
		skip rec_disk_full "cannot mount a tmpfs"
		return 0
	fi
	# dwarf samples fill 1 MB within a second even compressed (plain
	# samples of the whole run can fit: the test would not test).
	rec full --call-graph dwarf -o "$T/small/f.amber" -- "$WL" --threads 2 --work 100
	"$ANA" dump "$T/small/f.amber" >/dev/null 2>&1
	drc=$?
	if [ "$RC" = 0 ] || ! grep -q 'No space left on device' "$T/full.err" ||
	   ! grep -q 'MB saved' "$T/full.err" || [ "$drc" != 0 ]; then
		fail rec_disk_full "exit $RC, dump exit $drc: $(head -n 3 "$T/full.err")"
	else
		ok rec_disk_full
	fi
	umount "$T/small"
}

test_errors() {
	guards rec_unknown_event || return 0
	rec unk -o "$T/unk.amber" -e no_such_event_xyz -- true
	if [ "$RC" = 125 ] && grep -q "amber-rec: error: .*no_such_event_xyz" "$T/unk.err" &&
	   [ ! -e "$T/unk.amber" ]; then
		ok rec_unknown_event
	else
		fail rec_unknown_event "exit $RC: $(head -n 2 "$T/unk.err")"
	fi

	rec old1 -o "$T/old.amber" -- true
	cp "$T/old.amber" "$T/first.amber"
	rec old2 -o "$T/old.amber" -- true
	if [ "$RC" = 0 ] && cmp -s "$T/old.amber.old" "$T/first.amber" &&
	   grep -q "moved existing .*old.amber to .*old.amber.old" "$T/old2.err" &&
	   "$ANA" info "$T/old.amber" >/dev/null 2>&1; then
		ok rec_old_output
	else
		fail rec_old_output "exit $RC: $(head -n 2 "$T/old2.err")"
	fi

	rec bad -o "$T/bad.amber" -m 3 -- true
	[ "$RC" = 125 ] && grep -q "power of two" "$T/bad.err" && ok rec_bad_option ||
		fail rec_bad_option "exit $RC: $(head -n 1 "$T/bad.err")"
}

test_dwarf() {
	guards rec_dwarf || return 0
	need_file rec_dwarf "$PROG/workload-nofp" || return 0
	rec dwarf -o "$T/d.amber" --call-graph dwarf,4096 -- "$PROG/workload-nofp" --threads 1 --work 10
	n=$(json "$T/d.amber" 'select(.type=="SAMPLE" and .cpumode=="user" and .stack_user==4096 and .regs_user > 10) | .tid' | wc -l)
	[ "$RC" = 0 ] && [ "$n" -gt 10 ] && ok rec_dwarf || fail rec_dwarf "exit $RC, $n user samples with a 4096-byte stack"
}

# --- perf's pmu/terms/ syntax on this machine's msr PMU, which only counts ---
test_pmu() {
	guards rec_pmu || return 0
	if [ ! -f /sys/bus/event_source/devices/msr/events/tsc ]; then
		skip rec_pmu "no msr PMU with events/tsc here"
		return 0
	fi
	rec pmu -o "$T/pmu.amber" -e msr/tsc/ -- true
	if [ "$RC" = 125 ] && grep -q "amber-rec: error: cannot open event 'msr/tsc/'" "$T/pmu.err" &&
	   grep -q "this PMU does not support sampling" "$T/pmu.err" && [ ! -e "$T/pmu.amber" ]; then
		ok rec_pmu_no_sampling
	else
		fail rec_pmu_no_sampling "exit $RC: $(head -n 2 "$T/pmu.err")"
	fi

	rec pmuterm -o "$T/pmuterm.amber" -e msr/bogus=1/ -- true
	if [ "$RC" = 125 ] &&
	   grep -q "amber-rec: error: event 'msr/bogus=1/': PMU 'msr' has no term 'bogus' (formats: event; events: .*tsc" \
		"$T/pmuterm.err"; then
		ok rec_pmu_unknown_term
	else
		fail rec_pmu_unknown_term "exit $RC: $(head -n 2 "$T/pmuterm.err")"
	fi

	# Each event at its own period= or freq=, as the recorded attrs and
	# every sample's period show.
	rec pmuper -o "$T/pmuper.amber" -e cpu-clock/period=2000000/ -e task-clock/freq=200/ \
		-- "$WL" --work 10
	per=$(json "$T/pmuper.amber" 'select(.type=="SAMPLE" and .event=="cpu-clock/period=2000000/") | .period' | sort -u)
	tfreq=$("$ANA" info "$T/pmuper.amber" | grep -c "task-clock/freq=200/: type 1 config 0x1, freq 200,")
	if [ "$RC" = 0 ] && [ "$per" = 2000000 ] && [ "$tfreq" = 1 ]; then
		ok rec_pmu_period_freq
	else
		fail rec_pmu_period_freq "exit $RC, cpu-clock periods '$per', task-clock freq line $tfreq: $(tail -n 1 "$T/pmuper.err")"
	fi

	"$REC" --list-events 'msr/*' >"$T/pmulist.out" 2>&1
	# msr counts but cannot be sampled: the listing says so.
	if grep -q '^  msr/tsc/  *\[Kernel PMU event; counts only\]$' "$T/pmulist.out" &&
	   ! grep -q 'cpu-clock' "$T/pmulist.out"; then
		ok rec_pmu_list
	else
		fail rec_pmu_list "$(head -n 5 "$T/pmulist.out")"
	fi
}

test_command
test_exit_status
test_tracepoint
test_attach
test_sigkill
test_kallsyms
test_disk_full
test_errors
test_dwarf
test_pmu
finish
