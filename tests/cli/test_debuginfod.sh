#!/bin/sh
# tests/cli/test_debuginfod.sh - the last step of the DSO search: a binary
# that exists on no local path is fetched by build-id from the servers in
# DEBUGINFOD_URLS (through libdebuginfod, loaded at run time).
#
# A local `debuginfod` (Debian package debuginfod, installed here when
# missing and possible) serves a directory holding the only copy of the
# recorded workload; the binary itself is moved away.  Then
#  - report names the workload's functions, and does not without
#    DEBUGINFOD_URLS (the control);
#  - buildids says "debuginfod" for it, and "missing" with --no-debuginfod.
# The server listens on 127.0.0.1's port only for the test and is killed
# by pid at the end; every client cache is under the test's directory.
. "$(dirname "$0")/lib.sh"

W=$PROG/workload
# Only the server started here may be asked (Debian's profile may point
# DEBUGINFOD_URLS at a public server).
unset DEBUGINFOD_URLS

# have_debuginfod: the server program is there, or could be installed.
have_debuginfod() {
	command -v debuginfod >/dev/null 2>&1 && return 0
	[ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1 || return 1
	DEBIAN_FRONTEND=noninteractive run_timeout 300 \
		apt-get install -y -qq --no-install-recommends debuginfod >"$T/apt.log" 2>&1
	command -v debuginfod >/dev/null 2>&1
}

# start_server DIR: serve DIR on a free port; sets PORT and SRV_PID.
start_server() {
	for PORT in $((20000 + $$ % 20000)) $((21000 + $$ % 20000)) $((22000 + $$ % 20000)); do
		bg_start "$T/srv.log" debuginfod -F "$1" -p "$PORT" -d "$T/srv.sqlite" -c 1 -v
		SRV_PID=$BG_PID
		_i=0
		while [ $_i -lt 50 ]; do
			if curl -sf -o /dev/null "http://127.0.0.1:$PORT/metrics"; then
				return 0
			fi
			kill -0 "$SRV_PID" 2>/dev/null || break
			sleep 0.2
			_i=$((_i + 1))
		done
		stop_server
	done
	return 1
}

stop_server() {
	[ -n "$SRV_PID" ] || return 0
	kill -TERM "$SRV_PID" 2>/dev/null
	wait "$SRV_PID" 2>/dev/null
	SRV_PID=""
}

# wait_indexed HEX: the server has scanned the binary with build-id HEX.
wait_indexed() {
	_i=0
	while [ $_i -lt 100 ]; do
		curl -sf -o /dev/null "http://127.0.0.1:$PORT/buildid/$1/executable" && return 0
		sleep 0.2
		_i=$((_i + 1))
	done
	return 1
}

# ana CMD ARGS...: amber-analyze with a private HOME and client cache.
ana() {
	HOME=$T/home DEBUGINFOD_CACHE_PATH=$T/cache XDG_CACHE_HOME=$T/xdg "$ANA" "$@"
}

t_debuginfod() {
	need_rec debuginfod || return
	need_ana debuginfod || return
	need_file debuginfod "$W" || return
	need_cmd debuginfod curl || return
	[ -e /usr/lib/x86_64-linux-gnu/libdebuginfod.so.1 ] || [ -e /usr/lib/libdebuginfod.so.1 ] ||
		ldconfig -p 2>/dev/null | grep -q libdebuginfod.so.1 ||
		{ skip debuginfod "libdebuginfod.so.1 is not installed"; return; }
	have_debuginfod ||
		{ skip debuginfod "no debuginfod server program, and it cannot be installed"; return; }
	mkdir -p "$T/bin" "$T/srv" "$T/home"
	cp "$W" "$T/bin/workload" || return
	if ! (cd "$T/bin" && run_timeout 120 "$REC" -e cpu-clock -F 1000 -g -o "$T/w.amber" -- \
		./workload --work 20) >"$T/rec.log" 2>&1; then
		skip debuginfod "amber-rec cannot record here: $(tail -n 1 "$T/rec.log")"
		return
	fi
	hex=$(ana buildids --no-debuginfod "$T/w.amber" 2>/dev/null |
		awk '$NF ~ /\/workload$/ { print $1 }')
	case $hex in
	[0-9a-f][0-9a-f]*) ;;
	*) fail debuginfod "no build-id recorded for the workload: '$hex'"; return ;;
	esac
	# The server has the only copy.
	mv "$T/bin/workload" "$T/srv/workload" || return
	if ! start_server "$T/srv"; then
		skip debuginfod "the debuginfod server does not start: $(tail -n 2 "$T/srv.log.err")"
		return
	fi
	if ! wait_indexed "$hex"; then
		fail debuginfod "the server did not index $T/srv/workload in 20 s: $(tail -n 2 "$T/srv.log.err")"
		stop_server
		return
	fi
	url=http://127.0.0.1:$PORT

	ana report --sort sym "$T/w.amber" >"$T/plain.txt" 2>"$T/plain.err"
	DEBUGINFOD_URLS=$url run_timeout 120 env HOME="$T/home" DEBUGINFOD_CACHE_PATH="$T/cache" \
		XDG_CACHE_HOME="$T/xdg" "$ANA" report --sort sym "$T/w.amber" >"$T/d.txt" 2>"$T/d.err"
	DEBUGINFOD_URLS=$url ana buildids "$T/w.amber" >"$T/bid.txt" 2>"$T/bid.err"
	DEBUGINFOD_URLS=$url ana buildids --no-debuginfod "$T/w.amber" >"$T/bid0.txt" 2>/dev/null
	for c in report script flame; do
		DEBUGINFOD_URLS=$url ana $c --no-debuginfod "$T/w.amber" >"$T/nd-$c.txt" 2>/dev/null
	done
	stop_server

	if grep -q hot_a "$T/plain.txt"; then
		fail debuginfod_control "the workload was found without debuginfod: the test proves nothing"
	else
		ok debuginfod_control
	fi
	first=$(awk '$1 ~ /%$/ { print $NF }' "$T/d.txt" | head -n 2 | tr '\n' ' ')
	if [ "$first" = "hot_a hot_b " ]; then
		ok debuginfod_report
	else
		fail debuginfod_report "top symbols '$first' (expected 'hot_a hot_b'): $(head -n 3 "$T/d.err" | tr '\n' '|')"
	fi
	if ! awk '$NF ~ /\/workload$/ && $4 == "debuginfod" { f = 1 } END { exit !f }' "$T/bid.txt"; then
		fail debuginfod_buildids "workload not listed as from debuginfod: $(cat "$T/bid.txt" "$T/bid.err" | tr '\n' '|')"
	elif ! awk '$NF ~ /\/workload$/ && $4 == "missing" { f = 1 } END { exit !f }' "$T/bid0.txt"; then
		fail debuginfod_buildids "--no-debuginfod still found the workload: $(tr '\n' '|' <"$T/bid0.txt")"
	else
		ok debuginfod_buildids
	fi
	if grep -l hot_a "$T/nd-report.txt" "$T/nd-script.txt" "$T/nd-flame.txt"; then
		fail debuginfod_optout "--no-debuginfod still symbolized through the server"
	elif ! [ -s "$T/nd-report.txt" ] || ! [ -s "$T/nd-flame.txt" ]; then
		fail debuginfod_optout "report or flame printed nothing with --no-debuginfod"
	else
		ok debuginfod_optout
	fi
}

t_debuginfod
finish
