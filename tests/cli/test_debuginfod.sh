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
# Then servers that stall (a python3 listener written below): one that
# never answers is asked once per run, one that trickles forever costs
# the run's budget ($AMBER_DEBUGINFOD_BUDGET) and no more.
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
		XDG_CACHE_HOME="$T/xdg" "$ANA" report --no-children --sort sym "$T/w.amber" >"$T/d.txt" 2>"$T/d.err"
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

# A server that accepts and never answers ("silent"), or answers and then
# trickles bytes forever, just fast enough for libdebuginfod's timeout
# (100 KB in DEBUGINFOD_TIMEOUT seconds; "trickle").  Prints its port, logs one line per connection to $2.
cat >"$T/stall.py" <<'PY'
import socket, sys, threading, time
mode, log = sys.argv[1], open(sys.argv[2], "a")
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", 0))
s.listen(64)
print(s.getsockname()[1], flush=True)
held = []
def trickle(c):
    try:
        c.recv(4096)
        c.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 100000000\r\n\r\n")
        while True:
            c.sendall(b"x" * 65536)
            time.sleep(0.5)
    except OSError:
        pass
while True:
    c, _ = s.accept()
    held.append(c)
    log.write("connection\n")
    log.flush()
    if mode == "trickle":
        threading.Thread(target=trickle, args=(c,), daemon=True).start()
PY

# t_stall MODE: a run whose DSOs are all missing asks a stalling server
# within bounds: a silent one once (then no more), a trickling one for
# the run's budget in all.
t_stall() {
	mode=$1
	n=debuginfod_stall_$mode
	why="no answer from"
	[ $mode = trickle ] && why="are spent"
	need_cmd $n python3 || return
	bg_start "$T/$mode.port" python3 "$T/stall.py" $mode "$T/$mode.log"
	port=$(wait_for_line "$T/$mode.port" 20) || { fail $n "the $mode server does not start"; return; }
	mkdir -p "$T/empty"
	start=$(date +%s)
	DEBUGINFOD_URLS=http://127.0.0.1:$port DEBUGINFOD_TIMEOUT=2 DEBUGINFOD_RETRY_LIMIT=0 \
		AMBER_DEBUGINFOD_BUDGET=4 run_timeout 50 env HOME="$T/home" \
		DEBUGINFOD_CACHE_PATH="$T/cache-$mode" XDG_CACHE_HOME="$T/xdg" \
		"$ANA" report --symfs "$T/empty" "$T/plain.amber" >/dev/null 2>"$T/$mode.err"
	rc=$?
	secs=$(($(date +%s) - start))
	conns=$(wc -l <"$T/$mode.log")
	if [ $rc -gt 2 ]; then
		fail $n "exit status $rc after $secs s ($conns connections): the run is not bounded"
	elif [ $mode = silent ] && [ "$conns" -gt 1 ]; then
		fail $n "$conns connections to a server that timed out: it was asked again"
	elif ! grep -q "$why.*not asked again" "$T/$mode.err"; then
		fail $n "no warning that debuginfod is given up ($why): $(grep debuginfod "$T/$mode.err" | head -n 2 | tr '\n' '|')"
	elif [ $secs -gt 30 ]; then
		fail $n "$secs s for a budget of 4 s"
	else
		ok $n
	fi
}

t_stalls() {
	need_rec debuginfod_stall || return
	need_ana debuginfod_stall || return
	need_file debuginfod_stall "$W" || return
	[ -e /usr/lib/x86_64-linux-gnu/libdebuginfod.so.1 ] || [ -e /usr/lib/libdebuginfod.so.1 ] ||
		ldconfig -p 2>/dev/null | grep -q libdebuginfod.so.1 ||
		{ skip debuginfod_stall "libdebuginfod.so.1 is not installed"; return; }
	# Nothing embedded: under an empty --symfs every DSO is missing.
	if ! run_timeout 120 "$REC" -e cpu-clock -F 1000 -g -o "$T/plain.amber" -- "$W" --work 5 \
		>"$T/rec2.log" 2>&1; then
		skip debuginfod_stall "amber-rec cannot record here: $(tail -n 1 "$T/rec2.log")"
		return
	fi
	t_stall silent
	t_stall trickle
}

t_debuginfod
t_stalls
finish
