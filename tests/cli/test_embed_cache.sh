#!/bin/sh
# tests/cli/test_embed_cache.sh - the cache of embedded files
# ($TMPDIR/amber-embed.XXXXXX) never outlives a run (issue 19, item 9):
# SIGINT, SIGTERM and SIGHUP while script writes into a pipe nobody reads,
# and SIGPIPE when the reader goes away (script | head), each end the run
# by that signal with TMPDIR empty.
. "$(dirname "$0")/lib.sh"

# cache_made DIR: DIR holds an extracted file (the cache is in use).
cache_made() {
	[ -n "$(find "$1" -mindepth 4 -type f 2>/dev/null | head -n 1)" ]
}

# t_signal SIG: script blocked on a full FIFO gets SIG.
t_signal() {
	sig=$1
	tmp=$T/tmp-$sig
	mkdir -p "$tmp"
	rm -f "$T/fifo"
	mkfifo "$T/fifo"
	# Opened for reading, never read: the writer blocks once it is full.
	sleep 600 <"$T/fifo" &
	holder=$!
	# A job started with & ignores SIGINT; the analyzer must get the default.
	TMPDIR=$tmp env --default-signal=INT,TERM,HUP "$ANA" script "$T/e.amber" >"$T/fifo" 2>"$T/$sig.err" &
	pid=$!
	i=0
	while ! cache_made "$tmp" && kill -0 $pid 2>/dev/null && [ $i -lt 300 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	if ! cache_made "$tmp"; then
		kill $pid $holder 2>/dev/null
		wait $pid 2>/dev/null
		fail "embed_cache_$sig" "no cache was made: $(head -n 2 "$T/$sig.err" | tr '\n' '|')"
		return
	fi
	kill -s "$sig" $pid
	wait $pid
	rc=$?
	kill $holder 2>/dev/null
	wait $holder 2>/dev/null
	left=$(find "$tmp" -mindepth 1 | head -n 3 | tr '\n' ' ')
	if [ -n "$left" ]; then
		fail "embed_cache_$sig" "left behind: $left"
	elif [ $rc -le 128 ]; then
		fail "embed_cache_$sig" "exit status $rc: the signal did not end the run"
	else
		ok "embed_cache_$sig"
	fi
}

need_rec embed_cache || finish
need_ana embed_cache || finish
need_file embed_cache "$PROG/workload" || finish
if ! run_timeout 120 "$REC" -e cpu-clock -F 4999 -g --embed -o "$T/e.amber" -- \
	"$PROG/workload" --work 20 >/dev/null 2>"$T/rec.err"; then
	fail embed_cache_record "amber-rec failed: $(tail -n 1 "$T/rec.err")"
	finish
fi
for s in INT TERM HUP; do
	t_signal $s
done

# SIGPIPE: the reader of the output leaves early.
mkdir -p "$T/tmp-PIPE"
TMPDIR=$T/tmp-PIPE "$ANA" script "$T/e.amber" 2>"$T/pipe.err" | head -c 100 >/dev/null
left=$(find "$T/tmp-PIPE" -mindepth 1 | head -n 3 | tr '\n' ' ')
if [ -n "$left" ]; then
	fail embed_cache_PIPE "left behind: $left"
else
	ok embed_cache_PIPE
fi
finish
