#!/bin/sh
# tests/cli/test_rotate.sh - recordings that write more than one file or
# keep to a budget (issue 12): --switch-output on SIGUSR2 and at a time
# interval, against a continuous recording of the very same events; every
# rotated file analyzing alone; --switch-max-files; --max-size alone and
# with --switch-output; the flight recorder by time and by size.  Needs
# root; about 40 s.
. "$(dirname "$0")/lib.sh"

WL=$PROG/workload

guards() {
	need_root "$1" && need_rec "$1" && need_ana "$1" && need_file "$1" "$WL"
}

# meta FILE KEY: the value of META key KEY in FILE ("" when absent).
meta() {
	"$ANA" info "$1" 2>/dev/null | awk -v k="$2" '$1 == k { print $2; exit }'
}

# lost FILES...: the records the kernel could not write, by the files' META.
lost() {
	_n=0
	for _f in "$@"; do
		_n=$((_n + $(meta "$_f" lost.records) + $(meta "$_f" lost.samples)))
	done
	echo "$_n"
}

# getppid_samples FILES...: "TIME CPU PID/TID" of every sys_enter_getppid
# sample (time in ns: no two samples of one CPU share it).
getppid_samples() {
	for _f in "$@"; do
		"$ANA" dump "$_f" 2>/dev/null |
			awk '$5 == "SAMPLE" && $6 == "syscalls:sys_enter_getppid" { print $2, $3, $4 }'
	done
}

# count DIR: the files in DIR.
count() {
	ls "$1" | wc -l
}

# --- rotation loses and repeats no sample -----------------------------------------
# Three recorders attach to one waiting process: one continuous, one
# switching every 100 ms, one switching on each SIGUSR2.  The process then
# execs workload, whose threads call getppid(); all three record the same
# tracepoint hits, so the rotated files must add up to the continuous count,
# give or take what the kernel says it lost, and name no sample twice.
test_no_loss() {
	guards rec_rotate_no_loss || return 0
	mount_tracefs rec_rotate_no_loss || return 0
	mkdir -p "$T/cont" "$T/time" "$T/sig"
	bg_start "$T/loop.out" sh -c "while [ ! -e '$T/go' ]; do :; done; exec '$WL' --threads 2 --work 0 --syscalls 400000"
	target=$BG_PID
	# cpu-clock samples of the waiting loop show that a recorder's events
	# are enabled.
	ev="-e syscalls:sys_enter_getppid -e cpu-clock --flush-interval 100"
	# shellcheck disable=SC2086 # $ev is words on purpose
	"$REC" $ev -p "$target" -o "$T/cont/c.amber" >/dev/null 2>"$T/cont.err" &
	r1=$!
	# shellcheck disable=SC2086
	"$REC" $ev -p "$target" --switch-output=100ms -o "$T/time/t.amber" >/dev/null 2>"$T/time.err" &
	r2=$!
	# shellcheck disable=SC2086
	"$REC" $ev -p "$target" --switch-output=signal -o "$T/sig/s.amber" >/dev/null 2>"$T/sig.err" &
	r3=$!
	for d in cont time sig; do
		wait_until 30 sh -c "for f in '$T/$d'/*.amber; do
			'$ANA' dump \"\$f\" 2>/dev/null | grep -q ' SAMPLE cpu-clock ' && exit 0; done; exit 1"
	done
	touch "$T/go"
	# Two switches on SIGUSR2 while the workload runs, each seen as a new file.
	for n in 2 3; do
		wait_until 10 sh -c "[ -d /proc/$target ] && grep -q '^workload' /proc/$target/comm"
		kill -USR2 "$r3"
		wait_until 20 sh -c "[ \$(ls '$T/sig' | wc -l) -ge $n ] || [ ! -d /proc/$target ]"
	done
	wait "$r1"
	rc1=$?
	wait "$r2"
	rc2=$?
	wait "$r3"
	rc3=$?
	cont=$(getppid_samples "$T/cont/c.amber" | wc -l)
	lc=$(lost "$T/cont/c.amber")
	for mode in time sig; do
		name=rec_rotate_no_loss_$mode
		files=$(ls "$T/$mode"/*.amber)
		# shellcheck disable=SC2086 # a list of files
		n=$(getppid_samples $files | wc -l)
		# shellcheck disable=SC2086
		uniq=$(getppid_samples $files | sort -u | wc -l)
		# shellcheck disable=SC2086
		lr=$(lost $files)
		nf=$(count "$T/$mode")
		d=$((n - cont))
		[ "$d" -lt 0 ] && d=$((-d))
		if [ "$rc1$rc2$rc3" != 000 ]; then
			fail "$name" "exit $rc1 $rc2 $rc3: $(tail -n 1 "$T/$mode.err")"
		elif [ "$nf" -lt 3 ]; then
			fail "$name" "only $nf files: $(ls "$T/$mode")"
		elif [ "$cont" -lt 1000 ]; then
			fail "$name" "the continuous recording has $cont getppid samples"
		elif [ "$d" -gt $((lc + lr)) ] || [ "$uniq" != "$n" ]; then
			fail "$name" "$n samples in $nf files ($uniq distinct, $lr lost), continuous $cont ($lc lost)"
		else
			ok "$name"
		fi
	done
}

# --- each rotated file analyzes alone ------------------------------------------------
test_self_contained() {
	guards rec_rotate_self_contained || return 0
	mkdir -p "$T/sc"
	run_timeout 60 "$REC" -e cpu-clock -F 999 -g --switch-output=300ms -o "$T/sc/w.amber" -- \
		"$WL" --threads 2 --work 150 >/dev/null 2>"$T/sc.err"
	rc=$?
	bad=""
	prev=""
	seq=0
	named=0
	for f in "$T"/sc/*.amber; do
		b=$(basename "$f")
		"$ANA" verify "$f" >/dev/null 2>&1 || bad="$bad; $b does not verify"
		[ "$(meta "$f" rotate.seq)" = "$seq" ] || bad="$bad; $b: rotate.seq $(meta "$f" rotate.seq), expected $seq"
		[ "$(meta "$f" rotate.prev)" = "$prev" ] || bad="$bad; $b: rotate.prev '$(meta "$f" rotate.prev)', expected '$prev'"
		for blk in meta event_attr topology synth buildid counts; do
			"$ANA" info "$f" | grep -q "^  $blk  " || bad="$bad; $b has no $blk block"
		done
		# The worker threads, their names and symbols, from this file
		# alone: no sample without its command's name, none of workload
		# without a symbol (hot_c calls qsort through the PLT some 14000
		# times: now and then a sample lands in the stub, qsort@plt).
		"$ANA" report --no-children -g none --sort comm,dso,sym "$f" 2>/dev/null | grep -v '^#' | grep . >"$T/sc.rep"
		grep -q 'worker-[01]  *workload  *\[\.\] hot_a$' "$T/sc.rep" && named=$((named + 1))
		unnamed=$(awk '$4 !~ /^(workload|worker-[01])$/ || ($5 == "workload" && $7 ~ /^0x/)' "$T/sc.rep")
		[ -z "$unnamed" ] || bad="$bad; $b: $unnamed"
		prev=$b
		seq=$((seq + 1))
	done
	if [ "$rc" != 0 ] || [ "$named" -lt 3 ] || [ -n "$bad" ]; then
		fail rec_rotate_self_contained "exit $rc, $seq files, $named with hot_a of a named worker$bad"
	else
		ok rec_rotate_self_contained
	fi
}

test_max_files() {
	guards rec_switch_max_files || return 0
	mkdir -p "$T/mf"
	run_timeout 60 "$REC" -e cpu-clock --switch-output=100ms --switch-max-files 2 \
		-o "$T/mf/m.amber" -- "$WL" --threads 1 --work 80 >/dev/null 2>"$T/mf.err"
	rc=$?
	set -- "$T"/mf/*.amber
	last=$(meta "$2" rotate.seq)
	if [ "$rc" = 0 ] && [ $# = 2 ] && [ "${last:-0}" -ge 3 ] &&
	   [ "$(meta "$1" rotate.seq)" = $((last - 1)) ] &&
	   [ "$(meta "$2" rotate.prev)" = "$(basename "$1")" ] &&
	   [ "$(meta "$1" rotate.next)" = "$(basename "$2")" ] &&
	   grep -q 'older ones removed' "$T/mf.err"; then
		ok rec_switch_max_files
	else
		fail rec_switch_max_files "exit $rc, $# files, last seq '$last': $(tail -n 1 "$T/mf.err")"
	fi
}

# --- a disk budget ------------------------------------------------------------------------
test_max_size() {
	guards rec_max_size || return 0
	max=$((2 * 1024 * 1024))
	# DWARF samples pass 2 MiB within a second: the budget ends the recording.
	run_timeout 60 "$REC" -e cpu-clock --call-graph dwarf --kallsyms=all --max-size 2M \
		-o "$T/ms.amber" -- "$WL" --threads 2 --work 400 >/dev/null 2>"$T/ms.err"
	size=$(stat -c %s "$T/ms.amber" 2>/dev/null || echo 0)
	if [ "$size" -gt 0 ] && [ "$size" -le "$max" ] &&
	   "$ANA" verify "$T/ms.amber" >/dev/null 2>&1 &&
	   [ "$(meta "$T/ms.amber" rotate.reason)" = max-size ] &&
	   grep -q 'stopped before --max-size 2097152 bytes was passed' "$T/ms.err"; then
		ok rec_max_size
	else
		fail rec_max_size "$size bytes (max $max), reason '$(meta "$T/ms.amber" rotate.reason)': $(tail -n 2 "$T/ms.err")"
	fi

	mkdir -p "$T/msr"
	run_timeout 60 "$REC" -e cpu-clock --call-graph dwarf --kallsyms=all --max-size 2M \
		--switch-output -o "$T/msr/r.amber" -- "$WL" --threads 2 --work 200 >/dev/null 2>"$T/msr.err"
	rc=$?
	bad=""
	for f in "$T"/msr/*.amber; do
		s=$(stat -c %s "$f")
		[ "$s" -le "$max" ] || bad="$bad; $(basename "$f") has $s bytes"
		"$ANA" verify "$f" >/dev/null 2>&1 || bad="$bad; $(basename "$f") does not verify"
	done
	n=$(count "$T/msr")
	if [ "$rc" = 0 ] && [ "$n" -ge 2 ] && [ -z "$bad" ]; then
		ok rec_max_size_rotates
	else
		fail rec_max_size_rotates "exit $rc, $n files$bad: $(tail -n 1 "$T/msr.err")"
	fi

	run_timeout 60 "$REC" -e cpu-clock --max-size 10K -o "$T/tiny.amber" -- true >/dev/null 2>"$T/tiny.err"
	rc=$?
	[ "$rc" = 125 ] && grep -q 'max-size 10240 bytes is too small' "$T/tiny.err" &&
		ok rec_max_size_too_small || fail rec_max_size_too_small "exit $rc: $(head -n 2 "$T/tiny.err")"
}

# --- the flight recorder ------------------------------------------------------------------
# span FILE: seconds from the first to the last sample of FILE.
span() {
	"$ANA" script --fields time "$1" 2>/dev/null |
		awk '{ t = $1 + 0; if (NR == 1) f = t; l = t } END { printf "%.3f\n", l - f }'
}

test_flight() {
	guards rec_flight_time || return 0
	mkdir -p "$T/fl"
	# A workload that runs until the recorder ends it, so that how fast
	# this machine works it decides nothing.
	"$REC" -e cpu-clock -F 999 -g --flight-recorder=2s -o "$T/fl/f.amber" -- \
		"$WL" --threads 2 --work 1000000 >/dev/null 2>"$T/fl.err" &
	rpid=$!
	# A dump while it runs, once it holds more than its two seconds; then
	# the end (SIGTERM, which the workload gets too: exit status 143) once
	# it has recorded three seconds more, more than it keeps.
	wait_until 30 sh -c "[ \$(ps -o etimes= -p $rpid) -ge 4 ]"
	kill -USR2 "$rpid"
	wait_until 20 sh -c "[ \$(ls '$T/fl' | wc -l) -ge 1 ]"
	e0=$(ps -o etimes= -p "$rpid")
	wait_until 30 sh -c "[ \$(ps -o etimes= -p $rpid) -ge $((e0 + 3)) ]"
	kill -TERM "$rpid"
	wait "$rpid"
	rc=$?
	[ "$rc" = 143 ] && rc=0
	bad=""
	for f in "$T"/fl/*.amber; do
		b=$(basename "$f")
		sp=$(span "$f")
		# Two seconds, give or take the blocks (handed over each second).
		in_range "$sp" 1.5 3.5 || bad="$bad; $b spans $sp s"
		"$ANA" report --sort comm,sym "$f" 2>/dev/null >"$T/fl.rep"
		grep -q 'worker-[01]  *\[\.\] hot_a$' "$T/fl.rep" ||
			bad="$bad; $b: no named worker in hot_a: $(grep -v '^#' "$T/fl.rep" | head -n 2)"
		[ "$(meta "$f" flight.keep)" = 2s ] || bad="$bad; $b: flight.keep '$(meta "$f" flight.keep)'"
		"$ANA" verify "$f" >/dev/null 2>&1 || bad="$bad; $b does not verify"
	done
	set -- "$T"/fl/*.amber
	if [ "$rc" != 0 ] || [ $# != 2 ] || [ -n "$bad" ]; then
		fail rec_flight_time "exit $rc, $# files$bad: $(tail -n 2 "$T/fl.err")"
	elif [ "$(meta "$1" rotate.reason)" != signal ] || [ "$(meta "$2" rotate.reason)" != end ] ||
	     [ "$(meta "$1" flight.dropped_samples)" -le 0 ]; then
		fail rec_flight_time "reasons '$(meta "$1" rotate.reason)' '$(meta "$2" rotate.reason)', dropped '$(meta "$1" flight.dropped_samples)'"
	else
		ok rec_flight_time
	fi

	# By size: what is kept stays near 1 MiB of raw records.
	mkdir -p "$T/fs"
	run_timeout 60 "$REC" -e cpu-clock --call-graph dwarf,4096 --flight-recorder=1M \
		-o "$T/fs/s.amber" -- "$WL" --threads 2 --work 100 >/dev/null 2>"$T/fs.err"
	rc=$?
	set -- "$T"/fs/*.amber
	raw=$("$ANA" info "$1" 2>/dev/null | awk '$1 == "ring" { print $4 }')
	if [ "$rc" = 0 ] && [ $# = 1 ] && [ "${raw:-0}" -gt 0 ] &&
	   [ "$raw" -le $((1024 * 1024 + 1024 * 1024 / 8)) ] &&
	   [ "$(meta "$1" flight.dropped_samples)" -gt 0 ] &&
	   "$ANA" report --sort comm,sym "$1" 2>/dev/null | grep -q 'worker-[01]  *\[\.\] hot_a$'; then
		ok rec_flight_size
	else
		fail rec_flight_size "exit $rc, $# files, $raw raw ring bytes: $(tail -n 2 "$T/fs.err")"
	fi
}

test_options() {
	guards rec_rotate_options || return 0
	bad=""
	for args in "--switch-output=3x" "--switch-output=10ms" "--flight-recorder=10s --switch-output=1M" \
		    "--switch-max-files 2" "--max-size 1M --flight-recorder" "--embed --switch-output"; do
		# shellcheck disable=SC2086 # $args is words on purpose
		"$REC" $args -o "$T/opt.amber" -- true >/dev/null 2>"$T/opt.err"
		rc=$?
		[ "$rc" = 125 ] && grep -q '^amber-rec: error: ' "$T/opt.err" ||
			bad="$bad; '$args': exit $rc $(head -n 1 "$T/opt.err")"
	done
	[ -z "$bad" ] && ok rec_rotate_options || fail rec_rotate_options "$bad"
}

test_no_loss
test_self_contained
test_max_files
test_max_size
test_flight
test_options
finish
