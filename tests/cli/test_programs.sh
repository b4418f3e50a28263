#!/bin/sh
# tests/cli/test_programs.sh - the bundled test programs behave as
# testdata/programs/README.md says: they run, exit 0, give stable checksums,
# keep the documented call tree, and --mix moves the work split perf sees.
# shellcheck source=tests/cli/lib.sh
. "$(dirname "$0")/lib.sh"

SRC=$ROOT/testdata/programs
W=$PROG/workload
WNOFP=$PROG/workload-nofp
WSTATIC=$PROG/workload-static

t_built() {
	_missing=""
	for p in workload workload-nofp workload-static spinner forker waiter switcher memtouch cxxnames; do
		[ -x "$PROG/$p" ] || _missing="$_missing $p"
	done
	if [ -n "$_missing" ]; then
		fail programs_built "missing in $PROG:$_missing (run 'make programs')"
		return
	fi
	ok programs_built
}

t_help() {
	for p in workload workload-nofp workload-static spinner forker waiter switcher memtouch cxxnames; do
		[ -x "$PROG/$p" ] || continue
		if ! out=$(run_timeout 10 "$PROG/$p" --help 2>&1); then
			fail programs_help "$p --help exited non-zero"
			return
		fi
		case $out in
		usage:*) ;;
		*) fail programs_help "$p --help prints no usage line"; return ;;
		esac
	done
	ok programs_help
}

t_bad_option() {
	need_file workload_bad_option "$W" || return 0
	run_timeout 10 "$W" --no-such-option >/dev/null 2>&1
	rc1=$?
	run_timeout 10 "$W" --mix 1,2 >/dev/null 2>&1
	rc2=$?
	run_timeout 10 "$W" --threads 0 >/dev/null 2>&1
	rc3=$?
	if [ $rc1 = 2 ] && [ $rc2 = 2 ] && [ $rc3 = 2 ]; then
		ok workload_bad_option
	else
		fail workload_bad_option "exit codes $rc1 $rc2 $rc3, expected 2 2 2"
	fi
}

checksum() {
	run_timeout 60 "$@" 2>"$T/err" | sed -n 's/^workload: checksum \(0x[0-9a-f]\{16\}\)$/\1/p'
}

t_checksum() {
	need_file workload_checksum "$W" || return 0
	need_file workload_checksum "$WNOFP" || return 0
	a=$(checksum "$W" --work 20)
	b=$(checksum "$W" --work 20)
	c=$(checksum "$WNOFP" --work 20)
	g=$(checksum "$WSTATIC" --work 20)
	d=$(checksum "$W" --work 20 --mix 1,0,0)
	e=$(checksum "$W" --work 20 --mix 0,1,0)
	f=$(checksum "$W" --work 20 --threads 3)
	if [ -z "$a" ]; then
		fail workload_checksum "no checksum line: $(head -n 2 "$T/err")"
	elif [ "$a" != "$b" ]; then
		fail workload_checksum "two identical runs differ: $a $b"
	elif [ "$a" != "$c" ]; then
		fail workload_checksum "workload and workload-nofp differ: $a $c"
	elif [ "$a" != "$g" ]; then
		fail workload_checksum "workload and workload-static differ: $a $g"
	elif [ -z "$d" ] || [ "$d" = "$e" ] || [ "$d" = "$a" ]; then
		fail workload_checksum "--mix does not change the checksum: $a $d $e"
	elif [ -z "$f" ] || [ "$f" = "$a" ]; then
		fail workload_checksum "--threads 3 gives the checksum of 2 threads: $f"
	else
		ok workload_checksum
	fi
}

# The functions tests look for exist as symbols in both builds; mix_inline
# does not (it is always inlined) but DWARF describes it as inlined.
t_symbols() {
	need_cmd workload_symbols nm || return 0
	need_cmd workload_symbols readelf || return 0
	need_file workload_symbols "$W" || return 0
	# workload-static: no shared library at all.
	if [ -x "$WSTATIC" ] && readelf -d "$WSTATIC" 2>/dev/null | grep -q NEEDED; then
		fail workload_symbols "workload-static needs shared libraries: $(readelf -d "$WSTATIC" | grep NEEDED)"
		return
	fi
	for bin in "$W" "$WNOFP" "$WSTATIC"; do
		syms=$(nm "$bin" | awk '$2 ~ /^[tT]$/ { print $3 }')
		for s in worker_main run_mix hot_a hot_b hot_c level1 level2 level3 level4 \
			sort_items cmp_items syscall_phase sleep_phase; do
			if ! printf '%s\n' "$syms" | grep -qx "$s"; then
				fail workload_symbols "$(basename "$bin"): no function symbol $s"
				return
			fi
		done
		if printf '%s\n' "$syms" | grep -q '^mix_inline'; then
			fail workload_symbols "$(basename "$bin"): mix_inline was not inlined"
			return
		fi
		# The DIE that names mix_inline, then an inlined instance of it.
		readelf --debug-dump=info "$bin" >"$T/info.txt" 2>/dev/null
		die=$(awk '/^ *<[0-9]+><[0-9a-f]+>:/ { split($1, a, /[<>]/); die = a[4] }
			/DW_AT_name *:.* mix_inline$/ { print die; exit }' "$T/info.txt")
		if [ -z "$die" ] || ! awk -v o="<0x$die>" '
			/^ *<[0-9]+><[0-9a-f]+>:/ { inl = /DW_TAG_inlined_subroutine/ }
			inl && /DW_AT_abstract_origin/ && $NF == o { f = 1 }
			END { exit !f }' "$T/info.txt"; then
			fail workload_symbols "$(basename "$bin"): no DW_TAG_inlined_subroutine for mix_inline"
			return
		fi
	done
	n=$(grep -c '/\* HOT-LOOP \*/' "$SRC/workload.c")
	if [ "$n" != 1 ]; then
		fail workload_symbols "workload.c has $n '/* HOT-LOOP */' markers, expected 1"
		return
	fi
	ok workload_symbols
}

t_thread_names() {
	need_file workload_thread_names "$W" || return 0
	bg_start "$T/tn.out" "$W" --work 400
	pid=$BG_PID
	names=""
	i=0
	while [ $i -lt 50 ]; do
		names=$(cat /proc/"$pid"/task/*/comm 2>/dev/null | sort | tr '\n' ' ')
		case $names in *worker-0*worker-1*) break ;; esac
		sleep 0.1
		i=$((i + 1))
	done
	kill -TERM "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	case $names in
	*worker-0*worker-1*workload*) ok workload_thread_names ;;
	*) fail workload_thread_names "threads seen: '$names'" ;;
	esac
}

t_syscalls_sleep() {
	need_file workload_syscalls "$W" || return 0
	if ! out=$(run_timeout 60 "$W" --work 0 --syscalls 20000 --sleep-ms 20 2>&1); then
		fail workload_syscalls "exited non-zero: $out"
		return
	fi
	need_perf workload_syscalls || return 0
	mount_tracefs workload_syscalls || return 0
	# Two workers, each 20000 getppid and 20 sleeps of 1 ms.
	run_timeout 60 perf stat -x, -e syscalls:sys_enter_getppid -e sched:sched_switch \
		-o "$T/stat.csv" "$W" --work 0 --syscalls 20000 --sleep-ms 20 >/dev/null 2>&1
	getppid=$(awk -F, '$3 == "syscalls:sys_enter_getppid" { print $1 }' "$T/stat.csv")
	switches=$(awk -F, '$3 == "sched:sched_switch" { print $1 }' "$T/stat.csv")
	if [ -z "$getppid" ] || [ -z "$switches" ]; then
		fail workload_syscalls "perf stat gave no counts: $(grep -v '^#' "$T/stat.csv" | head -n 3)"
	elif [ "$getppid" -lt 40000 ] || [ "$getppid" -gt 40100 ]; then
		fail workload_syscalls "getppid count $getppid, expected 40000"
	elif [ "$switches" -lt 40 ]; then
		fail workload_syscalls "only $switches sched_switch events, expected >= 40"
	else
		ok workload_syscalls
	fi
}

# --mix moves the self-time split perf measures (README.md's numbers).
t_mix_split() {
	need_file workload_mix_split "$W" || return 0
	need_perf workload_mix_split || return 0
	if ! perf_record "$T/mix1.data" -e cpu-clock -F 999 "$W" --work 60 ||
	   ! perf_record "$T/mix2.data" -e cpu-clock -F 999 "$W" --work 60 --mix 2,3,5; then
		fail workload_mix_split "perf record failed: $(tail -n 1 "$T"/mix*.data.log)"
		return
	fi
	a1=$(perf_self_pct "$T/mix1.data" hot_a)
	b1=$(perf_self_pct "$T/mix1.data" hot_b)
	a2=$(perf_self_pct "$T/mix2.data" hot_a)
	b2=$(perf_self_pct "$T/mix2.data" hot_b)
	detail="default hot_a $a1% hot_b $b1%, --mix 2,3,5 hot_a $a2% hot_b $b2%"
	n1=$(perf_samples "$T/mix1.data")
	n2=$(perf_samples "$T/mix2.data")
	detail="$detail ($n1 and $n2 samples)"
	# 5:3:2 gives hot_a 50% and hot_b 30%, 2:3:5 20% and 30%: 5 sigma of
	# each recording's own sampling noise (near) and 8 points for the
	# parts being "about 1 ms" each (README.md), a calibration that moves
	# with the compiler and the CPU.
	if near "$a1" 50 "$n1" 8 && near "$b1" 30 "$n1" 8 &&
	   near "$a2" 20 "$n2" 8 && near "$b2" 30 "$n2" 8; then
		ok workload_mix_split
	else
		fail workload_mix_split "$detail"
	fi
}

# The hottest line of hot_a is the one marked HOT-LOOP.
t_hot_loop_line() {
	need_file workload_hot_loop "$W" || return 0
	need_perf workload_hot_loop || return 0
	[ -s "$T/mix1.data" ] || perf_record "$T/mix1.data" -e cpu-clock -F 999 "$W" --work 60 ||
		{ fail workload_hot_loop "perf record failed: $(tail -n 1 "$T/mix1.data.log")"; return; }
	want=$(grep -n '/\* HOT-LOOP \*/' "$SRC/workload.c" | cut -d: -f1)
	got=$(perf report -i "$T/mix1.data" --stdio --no-children --sort sym,srcline -g none \
		2>/dev/null | awk '$1 ~ /%$/ && $3 == "hot_a" { print $4; exit }')
	if [ "$got" = "workload.c:$want" ]; then
		ok workload_hot_loop
	else
		fail workload_hot_loop "hottest line of hot_a is '$got', expected workload.c:$want"
	fi
}

# DWARF unwinding from cmp_items (called by libc's qsort) reaches hot_c
# through the documented chain, in the build without frame pointers.
t_dwarf_chain() {
	need_file workload_dwarf_chain "$WNOFP" || return 0
	need_perf workload_dwarf_chain || return 0
	perf_record "$T/dwarf.data" -e cpu-clock -F 999 --call-graph dwarf \
		"$WNOFP" --threads 1 --work 200 --mix 0,0,1 ||
		{ fail workload_dwarf_chain "perf record failed: $(tail -n 1 "$T/dwarf.data.log")"; return; }
	chain=$(run_timeout 120 perf script -i "$T/dwarf.data" -F ip,sym 2>/dev/null |
		awk 'NF == 0 { if (s ~ /^ cmp_items .* hot_c run_mix worker_main/) { print s; exit } s = ""; next }
		     { s = s " " $2 }')
	case $chain in
	*" cmp_items "*qsort*" sort_items level4 level3 level2 level1 hot_c run_mix worker_main"*)
		ok workload_dwarf_chain ;;
	*) fail workload_dwarf_chain "no sample unwinds cmp_items -> ... -> worker_main: '$chain'" ;;
	esac
}

t_spinner() {
	need_file spinner "$PROG/spinner" || return 0
	bg_start "$T/spin.out" run_timeout 30 "$PROG/spinner" --seconds 20
	if ! pid=$(wait_for_line "$T/spin.out" 10); then
		fail spinner "printed no pid within 10 s: $(cat "$T/spin.out.err")"
		return
	fi
	maps=$(cat /proc/"$pid"/maps 2>/dev/null)
	kill -TERM "$pid"
	wait "$BG_PID"
	rc=$?
	case $maps in
	*libm.so.6*) ;;
	*) fail spinner "libm.so.6 not mapped in pid $pid"; return ;;
	esac
	if [ $rc != 0 ]; then
		fail spinner "exit status $rc after SIGTERM: $(cat "$T/spin.out.err")"
		return
	fi
	if ! run_timeout 10 "$PROG/spinner" --seconds 1 >/dev/null 2>&1; then
		fail spinner "--seconds 1 did not exit 0 within 10 s"
		return
	fi
	ok spinner
}

t_forker() {
	need_file forker "$PROG/forker" || return 0
	if ! out=$(run_timeout 60 "$PROG/forker" --children 3 --work 20 2>&1); then
		fail forker "exited non-zero: $out"
		return
	fi
	[ "$out" = "forker: 3 children done" ] || { fail forker "output: $out"; return; }
	need_perf forker || return 0
	perf_record "$T/fork.data" -e cpu-clock -F 999 "$PROG/forker" --children 2 --work 50 ||
		{ fail forker "perf record failed: $(tail -n 1 "$T/fork.data.log")"; return; }
	syms=$(perf report -i "$T/fork.data" --stdio --no-children --sort sym -g none 2>/dev/null)
	for s in parent_work forked_work exec_work; do
		if ! printf '%s\n' "$syms" | awk -v s="$s" '$NF == s { f = 1 } END { exit !f }'; then
			fail forker "perf saw no samples in $s (children not followed?)"
			return
		fi
	done
	ok forker
}

# waiter: every kind waits --rounds times about --ms in its function, in
# the documented state; busy threads use --busy-ms of CPU; bad options exit 2.
t_waiter() {
	WT=$PROG/waiter
	need_file waiter "$WT" || return 0
	for bad in "--rounds x" "--ms 0" "--only nosuch" "--busy 65" "--nope 1"; do
		# shellcheck disable=SC2086 # the words are the options
		run_timeout 10 "$WT" $bad >/dev/null 2>&1
		rc=$?
		[ $rc = 2 ] || { fail waiter "'$bad' exited $rc, expected 2"; return; }
	done
	if ! run_timeout 60 "$WT" --rounds 10 --ms 5 --busy 2 --busy-ms 50 >"$T/w.out" 2>&1; then
		fail waiter "exited non-zero: $(head -n 3 "$T/w.out")"
		return
	fi
	for kind in "nap_sleep S" "futex_timed_wait S" "pipe_wait S" "mutex_wait S" "vfork_wait D"; do
		set -- $kind
		line=$(awk -v f="$1" '$2 == "wait" && $3 == f' "$T/w.out")
		ns=$(printf '%s
' "$line" | awk '{ print $5 }')
		n=$(printf '%s
' "$line" | awk '{ print $7 }')
		st=$(printf '%s
' "$line" | awk '{ print $4 }')
		# Ten waits of at least 5 ms (--ms 5, timed by the partner or the
		# sleep) less 10% for the clock reads around each; no upper
		# bound: how much longer they take is the machine's load.
		if [ "$st" != "$2" ] || [ "$n" != 10 ] || ! awk -v v="$ns" 'BEGIN { exit !(v >= 45000000) }'; then
			fail waiter "$1: '$line' (expected state $2, 10 waits, >= 45 ms)"
			return
		fi
	done
	for b in busy-0 busy-1; do
		cpu=$(awk -v b="$b" '$3 == b { print $9 }' "$T/w.out")
		in_range "${cpu:-0}" 50000000 10000000000 ||
			{ fail waiter "$b: CPU time '$cpu' ns, expected >= 50 ms"; return; }
	done
	run_timeout 30 "$WT" --only nap --rounds 2 --ms 1 >"$T/w1.out" 2>&1
	if [ "$(grep -c ' wait ' "$T/w1.out")" != 1 ] || ! grep -q 'wait nap_sleep' "$T/w1.out"; then
		fail waiter "--only nap: $(cat "$T/w1.out")"
		return
	fi
	need_cmd waiter nm || return 0
	syms=$(nm "$WT" | awk '$2 ~ /^[tT]$/ { print $3 }')
	for s in nap_call nap_sleep futex_timed_wait pipe_wait writer_pause mutex_wait vfork_call \
		holder_pause wait_turn vfork_wait vfork_child spin; do
		printf '%s\n' "$syms" | grep -qx "$s" || { fail waiter "no function symbol $s"; return; }
	done
	# The states, as perf sees them.
	need_perf waiter || return 0
	mount_tracefs waiter || return 0
	perf_record --sched "$T/w.data" "$WT" --only nap,vfork --rounds 5 ||
		{ fail waiter "perf sched record failed: $(tail -n 2 "$T/w.data.log")"; return; }
	perf sched timehist --state -i "$T/w.data" >"$T/th.txt" 2>/dev/null
	s_nap=$(awk '$3 ~ /^nap\[/ { print $NF }' "$T/th.txt" | sort | uniq -c | sort -rn | awk 'NR == 1 { print $2 }')
	s_vf=$(awk '$3 ~ /^vforker\[[0-9]+\/[0-9]+\]/ { print $NF }' "$T/th.txt" | sort | uniq -c |
		sort -rn | awk 'NR == 1 { print $2 }')
	if [ "$s_nap" = S ] && [ "$s_vf" = D ]; then
		ok waiter
	else
		fail waiter "perf sched timehist --state: nap mostly '$s_nap', vforker mostly '$s_vf'"
	fi
}

# switcher: both modes run for --seconds and say how much they did; they
# switch a lot (at least 10000 switches a second even on a loaded machine).
t_switcher() {
	SW=$PROG/switcher
	need_file switcher "$SW" || return 0
	for bad in "" "pingpong --seconds 0" "mutex --threads 1" "nosuch"; do
		# shellcheck disable=SC2086 # the words are the options
		run_timeout 10 "$SW" $bad >/dev/null 2>&1
		rc=$?
		[ $rc = 2 ] || { fail switcher "'$bad' exited $rc, expected 2"; return; }
	done
	a=$(run_timeout 30 "$SW" pingpong --seconds 0.5)
	b=$(run_timeout 30 "$SW" mutex --threads 4 --seconds 0.5)
	case "$a|$b" in
	"switcher: pingpong "*" round trips in 0.500 s, cpu "*" s|switcher: mutex 4 threads "*" passes in 0.500 s, cpu "*" s") ;;
	*) fail switcher "output: '$a' '$b'"; return ;;
	esac
	need_perf switcher || return 0
	for mode in pingpong mutex; do
		run_timeout 60 perf stat -x, -e context-switches -o "$T/sw.csv" "$SW" "$mode" \
			--seconds 0.5 >/dev/null 2>&1
		n=$(awk -F, '$3 == "context-switches" { print $1 }' "$T/sw.csv")
		in_range "${n:-0}" 5000 1000000000 ||
			{ fail switcher "$mode: $n context switches in 0.5 s"; return; }
	done
	ok switcher
}

# memtouch: four ranges, buffers of the documented sizes, each in its
# place (the global within the program's image, the stack above the heap).
# cxxnames: a stable checksum, exit 2 on a bad option, and the mangled
# names of its hot functions in its symbol table (what the demangling
# tests rely on).
t_cxxnames() {
	need_file cxxnames "$PROG/cxxnames" || return 0
	a=$(run_timeout 60 "$PROG/cxxnames" --work 3)
	b=$(run_timeout 60 "$PROG/cxxnames" --work 3)
	c=$(run_timeout 60 "$PROG/cxxnames" --work 4)
	run_timeout 10 "$PROG/cxxnames" --work x >/dev/null 2>&1
	rc1=$?
	run_timeout 10 "$PROG/cxxnames" --nope >/dev/null 2>&1
	rc2=$?
	syms=$(nm "$PROG/cxxnames" | awk '$2 == "T" || $2 == "t" { print $3 }' | sort)
	missing=
	for m in _ZNK2ns3BoxIlE4spinEl _ZN2ns4workElRKNSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEE _ZN2ns4workEl \
		 _ZN2ns12_GLOBAL__N_14anonEl _ZNK2OpclEl _ZN7mycrate5inner4spin17h0123456789abcdefE \
		 _RNvCs1234_7mycrate4tick; do
		# GCC may name a clone NAME.isra.0: the same name, demangled.
		echo "$syms" | grep -Eq "^$m(\.|$)" || missing="$missing $m"
	done
	case $a in
	"cxxnames: checksum 0x"????????????????) ;;
	*) a="bad: $a" ;;
	esac
	if [ "$a" = "$b" ] && [ "$a" != "$c" ] && [ "${a#bad}" = "$a" ] && [ $rc1 = 2 ] && [ $rc2 = 2 ] &&
	   [ -z "$missing" ]; then
		ok cxxnames
	else
		fail cxxnames "runs '$a' '$b' '$c', bad options exit $rc1 $rc2 (2 2), symbols missing:${missing:- none}"
	fi
}

t_memtouch() {
	need_file memtouch "$PROG/memtouch" || return 0
	if ! out=$(run_timeout 30 "$PROG/memtouch" --rounds 2 2>&1); then
		fail memtouch "exited non-zero: $out"
		return
	fi
	# shellcheck disable=SC2046 # the words are the ranges
	set -- $(printf '%s\n' "$out" | awk '{ print $2, $3 }')
	r=bad
	if [ $# = 8 ]; then
		gs=$(($1)) ge=$(($2)) hs=$(($3)) he=$(($4)) ss=$(($5)) se=$(($6)) ts=$(($7)) te=$(($8))
		if [ $((ge - gs)) = $((64 * 4096)) ] && [ $((he - hs)) = $((16 * 4096)) ] &&
			[ $((se - ss)) = $((32 * 4096)) ] && [ "$ts" -lt "$te" ] && [ "$te" -le "$gs" ] &&
			[ "$hs" -gt "$ge" ] && [ "$ss" -gt "$he" ] && [ $((gs % 4096)) = 0 ] &&
			[ "$(printf '%s\n' "$out" | awk '{ printf "%s ", $1 }')" = "global heap stack text " ]; then
			r=ok
		fi
	fi
	[ "$r" = ok ] && ok memtouch || fail memtouch "ranges: $out"
	run_timeout 10 "$PROG/memtouch" --rounds 0 >/dev/null 2>&1
	[ $? = 2 ] || fail memtouch_bad_option "--rounds 0 did not exit 2"
}

t_built
t_help
t_memtouch
t_cxxnames
t_bad_option
t_checksum
t_symbols
t_thread_names
t_syscalls_sleep
t_mix_split
t_hot_loop_line
t_dwarf_chain
t_spinner
t_forker
t_waiter
t_switcher
finish
