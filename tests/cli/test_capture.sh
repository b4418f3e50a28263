#!/bin/sh
# tests/cli/test_capture.sh - amber-rec on what already runs (issue 12):
# the names of processes and threads that existed before the recording,
# with -a and -p, against /proc/PID/task/TID/comm, and a name changed by
# exec during the recording; -G/--cgroup, -u/--uid and tracepoint
# --filter.  Needs root.
. "$(dirname "$0")/lib.sh"

WL=$PROG/workload
SP=$PROG/spinner

guards() {
	need_root "$1" && need_rec "$1" && need_ana "$1" && need_file "$1" "$WL" &&
		need_file "$1" "$SP"
}

# samples FILE: one line "PID TID COMM" per sample of FILE.
samples() {
	"$ANA" script --fields comm,pid,tid "$1" 2>/dev/null | awk '{
		tid = $NF; pid = $(NF - 1); sub("/", "", pid)
		comm = $1; for (i = 2; i <= NF - 2; i++) comm = comm " " $i
		print pid, tid, comm }'
}

# comm_of PID TID: the name /proc gives thread TID of process PID.
comm_of() {
	cat "/proc/$1/task/$2/comm" 2>/dev/null
}

# The targets, started before any recording: a copy of spinner under its
# own name, workload's three named worker threads (its main thread only
# waits), and a shell loop that execs a second spinner copy once $T/go
# exists.
start_targets() {
	cp "$SP" "$T/spin-alpha"
	cp "$SP" "$T/spin-beta"
	bg_start "$T/alpha.out" "$T/spin-alpha" --seconds 120
	ALPHA=$(wait_for_line "$T/alpha.out" 10) || return 1
	bg_start "$T/wl.out" "$WL" --threads 3 --work 100000
	WLPID=$BG_PID
	bg_start "$T/loop.out" sh -c "while [ ! -e '$T/go' ]; do :; done; exec '$T/spin-beta' --seconds 120"
	LOOP=$BG_PID
	# The workers exist and have their names.
	wait_until 10 sh -c "[ \$(cat /proc/$WLPID/task/*/comm 2>/dev/null | grep -c '^worker-') = 3 ]"
}

# expected: "PID TID COMM" of every busy thread started above, from /proc.
expected() {
	echo "$ALPHA $ALPHA $(comm_of "$ALPHA" "$ALPHA")"
	for _t in $(ls "/proc/$WLPID/task"); do
		_c=$(comm_of "$WLPID" "$_t")
		case $_c in worker-*) echo "$WLPID $_t $_c" ;; esac
	done
}

# check_names TEST FILE: every expected thread has samples in FILE, all of
# them under the name /proc gives it.
check_names() {
	_bad=""
	expected >"$T/expected"
	[ "$(grep -c ' worker-' "$T/expected")" = 3 ] || _bad="workload has no three workers: $(cat "$T/expected")"
	while read -r _p _t _c; do
		_got=$(awk -v p="$_p" -v t="$_t" '$1 == p && $2 == t { $1 = $2 = ""; sub("^  ", ""); print }' \
			"$T/$1.samples" | sort -u | tr '\n' '|')
		[ "$_got" = "$_c|" ] || _bad="$_bad; $_p/$_t is '$_c' in /proc, samples say '$_got'"
	done <"$T/expected"
	if [ -z "$_bad" ]; then
		ok "$1"
	else
		fail "$1" "$_bad"
	fi
}

test_names() {
	guards rec_names_system_wide || return 0
	if ! start_targets; then
		fail rec_names_system_wide "the targets did not start"
		return 0
	fi
	# -a: recorded until the loop's exec is seen in the file.
	"$REC" -e cpu-clock -a --flush-interval 100 -o "$T/a.amber" >/dev/null 2>"$T/a.err" &
	rpid=$!
	# The shell loop was sampled as itself before it execs.
	wait_until 30 sh -c "'$ANA' script --fields comm,pid '$T/a.amber' 2>/dev/null |
		grep -q ' sh  *$LOOP/'"
	touch "$T/go"
	wait_until 10 sh -c "[ \"\$(cat /proc/$LOOP/comm)\" = spin-beta ]"
	wait_until 30 sh -c "'$ANA' script --fields comm,pid '$T/a.amber' 2>/dev/null |
		grep -q ' spin-beta  *$LOOP/'"
	kill -INT "$rpid"
	wait "$rpid"
	rc=$?
	samples "$T/a.amber" >"$T/rec_names_system_wide.samples"
	if [ "$rc" != 0 ]; then
		fail rec_names_system_wide "exit $rc: $(tail -n 2 "$T/a.err")"
	else
		check_names rec_names_system_wide
	fi
	# The loop: its own name, then the one exec gave it, in that order.
	seq=$(awk -v p="$LOOP" '$1 == p { print $3 }' "$T/rec_names_system_wide.samples" | uniq | tr '\n' ' ')
	[ "$seq" = "sh spin-beta " ] && ok rec_names_exec ||
		fail rec_names_exec "samples of the loop, pid $LOOP, named in turn: '$seq'"

	"$REC" -e cpu-clock -p "$ALPHA,$WLPID" --duration 1 -o "$T/p.amber" >/dev/null 2>"$T/p.err"
	rc=$?
	samples "$T/p.amber" >"$T/rec_names_attach.samples"
	if [ "$rc" != 0 ]; then
		fail rec_names_attach "exit $rc: $(tail -n 2 "$T/p.err")"
	else
		check_names rec_names_attach
	fi
}

# --- -G: a cgroup's tasks only --------------------------------------------------------
test_cgroup() {
	guards rec_cgroup || return 0
	# mountinfo: ... MOUNTPOINT OPTIONS [OPTIONAL...] - FSTYPE SOURCE SUPEROPTIONS
	fstype='{ for (i = 7; i < NF; i++) if ($i == "-") { t = $(i + 1); break } }'
	mnt=$(awk "$fstype"' t == "cgroup2" { print $5; exit }' /proc/self/mountinfo)
	if [ -z "$mnt" ] ||
	   awk "$fstype"' t == "cgroup" && $NF ~ /perf_event/ { f = 1 } END { exit !f }' /proc/self/mountinfo; then
		skip rec_cgroup "no cgroup2 hierarchy holding the perf_event controller"
		return 0
	fi
	cg=amber-test-$$
	if ! mkdir "$mnt/$cg" 2>"$T/cg.err"; then
		skip rec_cgroup "cannot create a cgroup: $(head -n 1 "$T/cg.err")"
		return 0
	fi
	# A spinner inside the cgroup, another outside.
	bg_start "$T/in.out" sh -c "echo \$\$ >'$mnt/$cg/cgroup.procs' && exec '$SP' --seconds 60"
	in=$(wait_for_line "$T/in.out" 10)
	bg_start "$T/out.out" "$SP" --seconds 60
	out=$(wait_for_line "$T/out.out" 10)
	"$REC" -e cpu-clock -G "$cg" --duration 1 -o "$T/cg.amber" >/dev/null 2>"$T/cg.err"
	rc=$?
	pids=$("$ANA" script --fields pid "$T/cg.amber" 2>/dev/null | awk '{ sub("/.*", "", $1); print $1 }' | sort -u)
	if [ "$rc" = 0 ] && [ -n "$in" ] && [ "$pids" = "$in" ] &&
	   "$ANA" info "$T/cg.amber" | grep -q "^  target  *system-wide, cgroup $cg$"; then
		ok rec_cgroup
	else
		fail rec_cgroup "exit $rc, in the cgroup $in, outside $out, sampled: $(echo $pids): $(tail -n 1 "$T/cg.err")"
	fi
	"$REC" -e cpu-clock -G "$cg-none" --duration 1 -o "$T/cg2.amber" >/dev/null 2>"$T/cg2.err"
	rc=$?
	[ "$rc" = 125 ] && grep -q "amber-rec: error: -G $cg-none: cannot open $mnt/$cg-none: No such file" "$T/cg2.err" &&
		ok rec_cgroup_missing || fail rec_cgroup_missing "exit $rc: $(head -n 1 "$T/cg2.err")"
	kill "$in" "$out" 2>/dev/null
	# cgroup files read as size 0: look at what they hold.
	wait_until 10 sh -c "[ -z \"\$(cat '$mnt/$cg/cgroup.procs')\" ]"
	rmdir "$mnt/$cg" || fail rec_cgroup_cleanup "cannot remove the test's cgroup $mnt/$cg"
}

# --- --filter: the kernel keeps the matching hits only, or says why not ---------------
test_filter() {
	guards rec_filter || return 0
	mount_tracefs rec_filter || return 0
	"$REC" -e sched:sched_switch --filter "prev_comm == \"worker-1\"" -o "$T/f.amber" -- \
		"$WL" --threads 2 --work 0 --sleep-ms 50 >/dev/null 2>"$T/f.err"
	rc=$?
	"$ANA" script --fields trace "$T/f.amber" 2>/dev/null | sed -n 's/.*prev_comm=\([^ ]*\) .*/\1/p' |
		sort | uniq -c >"$T/f.comms"
	if [ "$rc" = 0 ] && [ "$(wc -l <"$T/f.comms")" = 1 ] &&
	   awk '$2 == "worker-1" && $1 >= 50 { f = 1 } END { exit !f }' "$T/f.comms" &&
	   "$ANA" info "$T/f.amber" | grep -q '^  event.0.filter  *prev_comm == "worker-1"$'; then
		ok rec_filter
	else
		fail rec_filter "exit $rc, switches out of: $(cat "$T/f.comms" | tr '\n' ' '): $(tail -n 1 "$T/f.err")"
	fi

	"$REC" -e sched:sched_switch --filter 'no_such_field == 1' -o "$T/fbad.amber" -- true >/dev/null 2>"$T/fbad.err"
	rc=$?
	# The kernel's parse error, with the caret under the field.
	if [ "$rc" = 125 ] && [ ! -e "$T/fbad.amber" ] &&
	   grep -q "^amber-rec: error: --filter 'no_such_field == 1' on sched:sched_switch: the kernel refused it: Field not found$" "$T/fbad.err" &&
	   grep -q '^    no_such_field == 1$' "$T/fbad.err" && grep -q '^    *\^$' "$T/fbad.err" &&
	   grep -q 'none' "$(tracefs_dir)/events/sched/sched_switch/filter"; then
		ok rec_filter_refused
	else
		fail rec_filter_refused "exit $rc: $(cat "$T/fbad.err")"
	fi

	"$REC" -e cpu-clock --filter 'x == 1' -o "$T/fcpu.amber" -- true >/dev/null 2>"$T/fcpu.err"
	rc=$?
	[ "$rc" = 125 ] && grep -q "event 'cpu-clock' is not a tracepoint" "$T/fcpu.err" &&
		ok rec_filter_not_tracepoint || fail rec_filter_not_tracepoint "exit $rc: $(head -n 1 "$T/fcpu.err")"
}

test_names
test_cgroup
test_filter
finish
