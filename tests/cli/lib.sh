# tests/cli/lib.sh - shared helpers for the CLI tests (POSIX sh).
# shellcheck shell=sh disable=SC2034 # the variables are for the sourcing scripts
#
# Sourced by tests/cli/test_*.sh:   . "$(dirname "$0")/lib.sh"
#
# Sets
#   ROOT  the repository          B     the build directory ($AMB_BUILD or build/)
#   REC   $B/amber-rec            ANA   $B/amber-analyze
#   PROG  $B/programs (workload, workload-nofp, spinner, forker)
#   T     a private temporary directory, removed on exit
#
# Result lines, counted by tests/run_all.sh:
#   ok NAME              "ok NAME"
#   fail NAME [DETAIL]   "FAIL NAME: DETAIL"
#   skip NAME REASON     "skip NAME: REASON"
# A script ends with `finish`, which exits 1 if any test failed.
#
# Guards print the skip line themselves and return 1, so a test reads
#   need_perf mytest || return 0
#
# Background processes started with `bg_start` are killed on exit.

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
B=${AMB_BUILD:-$ROOT/build}
case $B in /*) ;; *) B=$ROOT/$B ;; esac
REC=$B/amber-rec
ANA=$B/amber-analyze
PROG=$B/programs

_lib_failed=0
_lib_bg_pids=""

T=$(mktemp -d "${TMPDIR:-/tmp}/amber-cli.XXXXXX") || {
	echo "FAIL lib: cannot create a temporary directory"
	exit 1
}

_lib_cleanup() {
	for _p in $_lib_bg_pids; do
		kill -TERM "$_p" 2>/dev/null
	done
	for _p in $_lib_bg_pids; do
		wait "$_p" 2>/dev/null
	done
	rm -rf "$T"
}
trap _lib_cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

ok() {
	echo "ok $1"
}

fail() {
	_lib_failed=$((_lib_failed + 1))
	if [ $# -gt 1 ]; then
		_n=$1
		shift
		echo "FAIL $_n: $*"
	else
		echo "FAIL $1"
	fi
}

skip() {
	_n=$1
	shift
	echo "skip $_n: ${*:-no reason given}"
}

# finish: the last line of a test script; exit status 1 if anything failed.
finish() {
	[ "$_lib_failed" = 0 ]
	exit $?
}

# run_timeout SECS CMD...: run CMD, killed after SECS (exit 124) and, if it
# ignores SIGTERM, SIGKILLed 5 s later.
run_timeout() {
	_s=$1
	shift
	timeout --kill-after=5 "$_s" "$@"
}

# bg_start OUTFILE CMD...: start CMD in the background with stdout in
# OUTFILE; its pid is in $BG_PID and it is killed when the script exits.
bg_start() {
	_out=$1
	shift
	"$@" >"$_out" 2>"$_out.err" &
	BG_PID=$!
	_lib_bg_pids="$_lib_bg_pids $BG_PID"
}

# wait_for_line FILE SECS: wait until FILE has a first line (e.g. a pid
# printed by spinner); prints it, or returns 1 after SECS seconds.
wait_for_line() {
	_i=0
	while [ "$_i" -lt $(($2 * 10)) ]; do
		if [ -s "$1" ] && _l=$(head -n 1 "$1") && [ -n "$_l" ]; then
			case $(tail -c 1 "$1" | od -An -c) in
			*'\n'*) echo "$_l"; return 0 ;;
			esac
		fi
		sleep 0.1
		_i=$((_i + 1))
	done
	return 1
}

# wait_until SECS CMD...: run CMD every 0.1 s until it succeeds; returns 1
# if it has not after SECS seconds.  SECS only bounds a hung test: a test
# waits for a condition, never for a time.
wait_until() {
	_wl=$(($1 * 10))
	shift
	while ! "$@" 2>/dev/null; do
		_wl=$((_wl - 1))
		[ $_wl -gt 0 ] || return 1
		sleep 0.1
	done
	return 0
}

# ring_blocks FILE: how many RING blocks FILE (perhaps still being written)
# holds, from amber-analyze info (0 when none or unreadable).
ring_blocks() {
	"$ANA" info "$1" 2>/dev/null | awk '$1 == "ring" && NF == 6 { n = $2 } END { print n + 0 }'
}

# has_ring_blocks FILE N: FILE holds at least N RING blocks.
has_ring_blocks() {
	[ "$(ring_blocks "$1")" -ge "$2" ]
}

# --- guards: print "skip NAME: reason" and return 1 when unmet -------------

need_root() {
	[ "$(id -u)" = 0 ] && return 0
	skip "$1" "needs root"
	return 1
}

# need_cmd NAME CMD
need_cmd() {
	command -v "$2" >/dev/null 2>&1 && return 0
	skip "$1" "$2 not installed"
	return 1
}

# need_file NAME PATH: PATH must exist and be executable (a built binary).
need_file() {
	[ -x "$2" ] && return 0
	skip "$1" "$2 not built"
	return 1
}

need_rec() {
	need_file "$1" "$REC"
}

need_ana() {
	need_file "$1" "$ANA"
}

# perf_record [--buildids] [--sched] OUT PERF-RECORD-ARGS...: `perf record
# -q -N -B -o OUT ARGS` (bounded, 120 s), its output in OUT.log; with
# --buildids without -B (perf.data then lists the build-ids of the objects
# hit), which -a needs; with --sched `perf sched record -N -B -o OUT ARGS`.
# perf 6.1 now and then aborts at the end of a recording ("assertion failed
# at util/build-id.c:1010", "stack smashing detected"), or writes MMAP2
# records with a garbage build-id size (254) that its own report and
# script then die on, when other perf runs share the machine.  -N (no
# ~/.debug cache) makes that rarer; a run that aborts (SIGABRT, exit 134)
# or whose file perf script cannot read back is made again, up to ten
# times, a second apart (these come in bursts under load: a stress run of
# test_offcpu saw five in a row fail, where one in five fails alone),
# saying so on stderr.  Any other failure returns perf's exit status at
# once.
perf_record() {
	_pb=-B
	_pc="record -q"
	while :; do
		case $1 in
		--buildids) _pb= ;;
		--sched) _pc="sched record" ;;
		*) break ;;
		esac
		shift
	done
	_po=$1
	shift
	_pt=1
	while :; do
		rm -f "$_po" "$_po.old"
		# shellcheck disable=SC2086 # $_pb is empty or one word
		# shellcheck disable=SC2086 # $_pc is words on purpose
		run_timeout 120 perf $_pc -N $_pb -o "$_po" "$@" >"$_po.log" 2>&1
		_prc=$?
		if [ $_prc = 0 ]; then
			run_timeout 120 perf script -i "$_po" >/dev/null 2>"$_po.check" && return 0
			_prc=$?
			_why="perf script cannot read it back (exit $_prc: $(grep -m 1 -i 'smashing\|assert\|abort' "$_po.check"))"
		elif [ $_prc = 134 ] || grep -q 'assertion failed at util/build-id.c\|stack smashing detected' "$_po.log"; then
			_why="perf record aborted (exit $_prc: $(grep -m 1 'assert\|smashing' "$_po.log"))"
		else
			return $_prc
		fi
		[ $_pt = 10 ] && return $_prc
		echo "note: run $_pt of perf record: $_why: recording again" >&2
		_pt=$((_pt + 1))
		sleep 1
	done
}

# need_perf NAME: perf is installed and `perf record -e cpu-clock true` works.
# The probe runs once per script.
_lib_perf_state=""
need_perf() {
	if [ -z "$_lib_perf_state" ]; then
		if ! command -v perf >/dev/null 2>&1; then
			_lib_perf_state="perf not installed"
		elif perf_record "$T/.perf-probe.data" -e cpu-clock true 2>/dev/null; then
			_lib_perf_state=yes
		else
			_lib_perf_state="perf record -e cpu-clock fails: $(head -n 1 "$T/.perf-probe.data.log")"
		fi
		rm -f "$T/.perf-probe.data" "$T/.perf-probe.data.old" "$T/.perf-probe.data.log"
	fi
	[ "$_lib_perf_state" = yes ] && return 0
	skip "$1" "$_lib_perf_state"
	return 1
}

# tracefs_dir: print the tracefs mount point, mounting tracefs at
# /sys/kernel/tracing if it is missing and we are root; returns 1 if none.
tracefs_dir() {
	for _d in /sys/kernel/tracing /sys/kernel/debug/tracing; do
		if [ -e "$_d/events" ]; then
			echo "$_d"
			return 0
		fi
	done
	[ "$(id -u)" = 0 ] || return 1
	mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null || return 1
	[ -e /sys/kernel/tracing/events ] || return 1
	echo /sys/kernel/tracing
}

# mount_tracefs NAME: make tracepoints usable, or print a skip line.
mount_tracefs() {
	tracefs_dir >/dev/null && return 0
	skip "$1" "tracefs is not mounted and cannot be mounted"
	return 1
}

# --- perf helpers -------------------------------------------------------------

# perf_self_pct DATA SYM: self-time percentage of symbol SYM in perf data
# file DATA (0 when absent), summed over every line that names it.
perf_self_pct() {
	perf report -i "$1" --stdio --no-children --sort sym -g none 2>/dev/null |
		awk -v s="$2" '$1 ~ /%$/ && $NF == s { sub("%", "", $1); t += $1 }
			END { printf "%.2f\n", t + 0 }'
}

# perf_samples DATA: how many samples perf report counts in DATA.
perf_samples() {
	perf report -i "$1" --stdio --no-children --sort comm -n -g none 2>/dev/null |
		awk '$1 ~ /%$/ { n += $2 } END { print n + 0 }'
}

# near PCT EXPECT N SLACK: the share PCT (in %) measured over N samples is
# within EXPECT +- (5 sigma + SLACK): sigma = sqrt(EXPECT (100 - EXPECT) / N)
# is the binomial noise of sampling, so the bound follows the recording's
# own sample count and 5 sigma fails by luck once in ~2 million runs;
# SLACK (percentage points) is what the program's design leaves open,
# which each caller states and explains.
near() {
	awk -v v="$1" -v e="$2" -v n="$3" -v s="$4" 'BEGIN {
		if (n + 0 <= 0) exit 1
		d = 5 * sqrt(e * (100 - e) / n) + s
		exit !(v + 0 >= e - d && v + 0 <= e + d) }'
}

# chain_shares AMBER SYM...: "SYM CHILDREN SELF" for each SYM, counted
# from the call chains `script -F period,sym` prints for AMBER: CHILDREN
# the share (%) of the period of the samples with SYM anywhere in the
# chain, once a sample, SELF of those with SYM first; an oracle for
# report's --children that is independent of its code.  Report inlined
# frames' names only for functions never inlined (report gives inlined
# frames no entry).
chain_shares() {
	_cs_file=$1
	shift
	"$ANA" script -F period,sym "$_cs_file" 2>/dev/null | awk -v funcs="$*" '
		function flush(  f) {
			if (!insample)
				return
			for (f in seen)
				children[f] += period
			if (first != "")
				self[first] += period
			delete seen
		}
		/^[^\t]/ { flush(); insample = 1; period = $1; total += $1; first = ""; next }
		/^\t/ { f = ($NF == "(inlined)") ? $2 : $1
			if (first == "")
				first = f
			seen[f] = 1 }
		END { flush(); n = split(funcs, fs, " ")
			for (i = 1; i <= n; i++)
				printf "%s %.4f %.4f\n", fs[i], total ? 100 * children[fs[i]] / total : 0,
					total ? 100 * self[fs[i]] / total : 0 }'
}

# in_range VALUE LO HI: LO <= VALUE <= HI, decimals allowed.
in_range() {
	awk -v v="$1" -v lo="$2" -v hi="$3" 'BEGIN { exit !(v + 0 >= lo + 0 && v + 0 <= hi + 0) }'
}
