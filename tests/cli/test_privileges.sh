#!/bin/sh
# tests/cli/test_privileges.sh - amber-rec run by a user without
# privileges, with kernel.perf_event_paranoid 2 (issue 12): the user's own
# command is recorded, user space only, with a note saying so; -a, a
# tracepoint and a ring larger than the locked-memory limit are refused
# before anything is opened, with what is missing and how to get it; and
# root recording that user's processes with -u.  Needs root to create a
# throwaway user (removed at the end) and to set perf_event_paranoid
# (restored at the end).
. "$(dirname "$0")/lib.sh"

WL=$PROG/workload
SP=$PROG/spinner
TUSER=ambpriv$$
PARANOID=/proc/sys/kernel/perf_event_paranoid
OLD_PARANOID=""

USER_PIDS=""

cleanup() {
	for _p in $USER_PIDS; do
		kill "$_p" 2>/dev/null
	done
	id "$TUSER" >/dev/null 2>&1 && userdel "$TUSER" 2>/dev/null
	[ -n "$OLD_PARANOID" ] && echo "$OLD_PARANOID" >"$PARANOID"
	_lib_cleanup
}

setup() {
	need_root "$1" && need_rec "$1" && need_ana "$1" && need_file "$1" "$WL" &&
		need_file "$1" "$SP" && need_cmd "$1" useradd && need_cmd "$1" runuser || return 1
	if ! useradd -M -d / -s /bin/sh "$TUSER" 2>"$T/useradd.err"; then
		skip "$1" "cannot create a user: $(head -n 1 "$T/useradd.err")"
		return 1
	fi
	trap cleanup EXIT
	if [ "$(cat "$PARANOID")" != 2 ]; then
		OLD_PARANOID=$(cat "$PARANOID")
		echo 2 >"$PARANOID"
	fi
	# The user's own directory; the test's is private to root.
	chmod 711 "$T"
	mkdir "$T/u"
	chown "$TUSER" "$T/u"
	U=$T/u
}

# as_user NAME ARGS...: amber-rec as the user; stderr in $T/NAME.err, exit in $RC.
as_user() {
	_n=$1
	shift
	run_timeout 60 runuser -u "$TUSER" -- "$REC" "$@" >"$T/$_n.out" 2>"$T/$_n.err"
	RC=$?
}

test_user() {
	setup rec_user_command || return 0
	as_user own -e cpu-clock -o "$U/own.amber" -- "$WL" --threads 1 --work 20
	n=$("$ANA" script --fields comm "$U/own.amber" 2>/dev/null | grep -cE 'workload|worker-0')
	# Every sample taken in user space.
	kernel=$("$ANA" dump "$U/own.amber" 2>/dev/null | grep ' SAMPLE ' | grep -vc ' user')
	if [ "$RC" = 0 ] && [ "$n" -gt 10 ] && [ "$kernel" = 0 ] &&
	   grep -q 'perf_event_paranoid is 2: without CAP_PERFMON only user space is sampled' "$T/own.err"; then
		ok rec_user_command
	else
		fail rec_user_command "exit $RC, $n samples of workload, $kernel in the kernel: $(head -n 3 "$T/own.err")"
	fi

	as_user sysw -e cpu-clock -a --duration 1 -o "$U/a.amber"
	if [ "$RC" = 125 ] && [ ! -e "$U/a.amber" ] &&
	   grep -q '^amber-rec: error: -a records every task on a CPU, which needs CAP_PERFMON' "$T/sysw.err" &&
	   grep -q 'perf_event_paranoid is 2\.' "$T/sysw.err" &&
	   grep -q 'setcap cap_perfmon' "$T/sysw.err" &&
	   grep -q 'sudo sysctl kernel.perf_event_paranoid=0' "$T/sysw.err" &&
	   ! grep -qi 'permission denied' "$T/sysw.err"; then
		ok rec_user_system_wide_refused
	else
		fail rec_user_system_wide_refused "exit $RC: $(head -n 3 "$T/sysw.err")"
	fi

	as_user tp -e sched:sched_switch -o "$U/tp.amber" -- true
	if [ "$RC" = 125 ] && [ ! -e "$U/tp.amber" ] &&
	   grep -Eq 'tracefs, which you \(uid [0-9]+\) may not read|raw event data' "$T/tp.err"; then
		ok rec_user_tracepoint_refused
	else
		fail rec_user_tracepoint_refused "exit $RC: $(head -n 3 "$T/tp.err")"
	fi

	as_user ring -e cpu-clock -m 65536 -o "$U/ring.amber" -- true
	if [ "$RC" = 125 ] && [ ! -e "$U/ring.amber" ] &&
	   grep -q 'ring buffers of 65536 pages lock' "$T/ring.err" &&
	   grep -q 'Use a smaller -m ([0-9]* fits)' "$T/ring.err"; then
		ok rec_user_ring_refused
	else
		fail rec_user_ring_refused "exit $RC: $(head -n 3 "$T/ring.err")"
	fi

	# -u: root records the user's processes, and nobody else's.
	runuser -u "$TUSER" -- "$SP" --seconds 60 >"$T/usp.out" 2>/dev/null &
	USER_PIDS="$USER_PIDS $!"
	usp=$(wait_for_line "$T/usp.out" 10)
	USER_PIDS="$USER_PIDS $usp"
	run_timeout 60 "$REC" -e cpu-clock -u "$TUSER" --duration 1 -o "$T/uid.amber" >/dev/null 2>"$T/uid.err"
	rc=$?
	pids=$("$ANA" script --fields pid "$T/uid.amber" 2>/dev/null | awk '{ sub("/.*", "", $1); print $1 }' | sort -u)
	if [ "$rc" = 0 ] && [ -n "$usp" ] && echo "$pids" | grep -qx "$usp" &&
	   [ "$(echo "$pids" | wc -l)" = 1 ] &&
	   "$ANA" info "$T/uid.amber" | grep -q "^  target  *uid $(id -u "$TUSER")$"; then
		ok rec_uid
	else
		fail rec_uid "exit $rc, spinner $usp, sampled pids: $(echo $pids): $(tail -n 1 "$T/uid.err")"
	fi
	kill "$usp" 2>/dev/null
	run_timeout 60 "$REC" -e cpu-clock -u no-such-user-xyz --duration 1 -o "$T/nouser.amber" >/dev/null 2>"$T/nouser.err"
	rc=$?
	[ "$rc" = 125 ] && grep -q 'amber-rec: error: -u no-such-user-xyz: no such user' "$T/nouser.err" &&
		ok rec_uid_unknown || fail rec_uid_unknown "exit $rc: $(head -n 1 "$T/nouser.err")"
}

test_user
finish
