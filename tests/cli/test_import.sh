#!/bin/sh
# tests/cli/test_import.sh - `amber-analyze import` on perf.data files that
# perf records here (-g, --call-graph dwarf, -z, a tracepoint, -a): the
# report of each import gives the top self symbols and shares that
# `perf report` gives on the original; perf script text exported from the
# import is byte-identical to `perf script`; a cut or damaged perf.data is
# named as such and what is intact is imported; an analyzer command given
# a perf.data says what it is; kernel symbols come from this host's
# kallsyms when the recording is of this host's kernel and boot, even
# without build-ids, and a table of another boot is refused.
. "$(dirname "$0")/lib.sh"

W=$PROG/workload

# top_amber FILE.amber [ARGS]: "symbol<TAB>share" of every symbol, sorted
# by name (the name is all after the "[.] " mark: a C++ name can hold
# spaces), the rows of symbols shown alike added up as top_perf does.
top_amber() {
	_f=$1
	shift
	"$ANA" report --no-children --sort sym "$@" "$_f" 2>/dev/null |
		awk '$1 ~ /%$/ { p = $1; sub("%", "", p); i = index($0, "] ")
				 k = i ? substr($0, i + 2) : $NF; sub(/ +$/, "", k); s[k] += p }
		     END { for (k in s) printf "%s\t%.2f\n", k, s[k] }' | sort
}

# top_perf PERF.DATA [ARGS]: "symbol<TAB>share<TAB>rows" of every user
# symbol with >= 3% self overhead in perf report on the original.  perf
# keeps a symbol of two objects (hot_a of two builds of the workload, seen
# system-wide) on two rows, amber's --sort sym on one: the rows are added
# up.  Kernel symbols
# ([k]) are left out: a perf.data stores none, perf names them from this
# host's kallsyms, an import without --kallsyms cannot, and on a loaded
# machine an interrupt path can pass 3%.  So are addresses without a
# symbol, which perf writes 0x0000000000186b94 and amber 0x186b94 (a
# system-wide recording meets them in whatever else runs).
top_perf() {
	_f=$1
	shift
	perf report -i "$_f" "$@" --stdio --no-children --sort sym -g none 2>/dev/null |
		awk '$1 ~ /%$/ && $2 != "[k]" { i = index($0, "] "); k = substr($0, i + 2); sub(/ +$/, "", k)
						 if (!i || k ~ /^0x[0-9a-f]+$/) next
						 p = $1; sub("%", "", p); s[k] += p; n[k]++ }
		     END { for (k in s) if (s[k] >= 3) printf "%s\t%.2f\t%d\n", k, s[k], n[k] }' | sort
}

# same_top NAME PERF.DATA FILE.amber [ARGS]: the same symbols over 3%, with
# the same shares (to the hundredth, give or take the rounding of added
# rows); ARGS go to both reports.
same_top() {
	_n=$1 _pd=$2 _am=$3
	shift 3
	top_perf "$_pd" "$@" >"$T/$_n.perf"
	top_amber "$_am" "$@" >"$T/$_n.amber"
	if [ ! -s "$T/$_n.perf" ]; then
		fail "$_n" "perf report shows no symbol over 3%"
	elif awk -F '\t' 'NR == FNR { a[$1] = $2; next }
		  !($1 in a) { bad = 1; next }
		  { d = $2 - a[$1]; if (d > 0.005 * $3 + 0.0001 || -d > 0.005 * $3 + 0.0001) bad = 1 }
		  END { exit bad }' "$T/$_n.amber" "$T/$_n.perf"; then
		ok "$_n"
	else
		fail "$_n" "top self symbols differ (perf: symbol share rows | amber): $(tr '\t\n' '  ' <"$T/$_n.perf") | $(awk -F '\t' 'NR == FNR { w[$1]; next } $1 in w' "$T/$_n.perf" "$T/$_n.amber" | tr '\t\n' '  ')"
	fi
}

# record_import [--buildids] NAME PERF-ARGS... -- CMD: perf record into
# $T/NAME.data (lib.sh's perf_record: with build-ids only when asked, as
# import_fp_buildids needs), then import.
record_import() {
	_pb=
	if [ "$1" = --buildids ]; then
		_pb=--buildids
		shift
	fi
	_n=$1
	shift
	# shellcheck disable=SC2086 # $_pb is empty or one word
	if ! perf_record $_pb "$T/$_n.data" "$@"; then
		fail "$_n" "perf record failed: $(tail -n 2 "$T/$_n.data.log")"
		return 1
	fi
	if ! "$ANA" import "$T/$_n.data" -o "$T/$_n.amber" >"$T/$_n.imp.log" 2>&1; then
		fail "$_n" "import failed: $(tail -n 3 "$T/$_n.imp.log")"
		return 1
	fi
	return 0
}

# plt_names: script text with PLT stubs' names made one placeholder
# (addresses, offsets and objects stay): perf 6.1 and amber name them
# differently (below).  The names of libc's and the dynamic loader's
# functions are compared: where libc's debug file gives one address up to
# five names (strnlen, __strnlen, __GI_strnlen, __GI___strnlen,
# __strnlen_ifunc), amber names the one perf keeps, as a user-space
# recording of the workload shows when a sample lands in the loader's
# relocations (mprotect, __mprotect) or on the page fault at an ifunc
# resolver's first instruction (__strnlen_ifunc+0x0).  The PLT's first
# entry, the lazy binder's, is no symbol's: perf names it after _init, a
# sizeless symbol it extends to the next one (_init+0x20), amber leaves it
# [unknown]; both become [unknown].
plt_names() {
	sed -e 's/ [^ ]*@plt+0x/ @plt+0x/' -e 's/ _init+0x[0-9a-f]* (/ [unknown] (/'
}

# same_script NAME: perf script on the original == export perf-script of the import.
# A PLT stub's name is left out on both sides: perf 6.1 names a stub after
# the relocation at its position in .rela.plt, and libc's relocations are
# not in stub order (a sample on the stub that jumps to __tunable_get_val
# read "@plt+0x0" in perf's text); amber names it after the GOT slot it
# jumps through, as objdump does, which test_plt checks.
same_script() {
	_n=$1
	perf script -i "$T/$_n.data" 2>/dev/null | plt_names >"$T/$_n.perf.txt"
	"$ANA" export -f perf-script "$T/$_n.amber" 2>"$T/$_n.exp.log" | plt_names >"$T/$_n.amber.txt"
	if [ ! -s "$T/$_n.perf.txt" ]; then
		fail "script_$_n" "perf script printed nothing"
	elif cmp -s "$T/$_n.perf.txt" "$T/$_n.amber.txt"; then
		ok "script_$_n"
	else
		fail "script_$_n" "differs from perf script: $(diff "$T/$_n.perf.txt" "$T/$_n.amber.txt" | head -n 6 | tr '\n' ' ')"
	fi
}

test_fp() {
	record_import --buildids fp -e cpu-clock -F 999 -g -- "$W" --work 60 || return 0
	same_top import_fp "$T/fp.data" "$T/fp.amber"
	# The stacks came along: hot_a under run_mix under worker_main.
	if "$ANA" flame --folded "$T/fp.amber" 2>/dev/null | grep -q 'worker_main;run_mix;hot_a'; then
		ok import_fp_stacks
	else
		fail import_fp_stacks "no worker_main;run_mix;hot_a stack in flame --folded"
	fi
	# perf.data stores the build-ids of the objects hit: they are in the import.
	bid=$(perf buildid-list -i "$T/fp.data" 2>/dev/null | awk '$2 ~ /workload$/ { print $1; exit }')
	if [ -n "$bid" ] && "$ANA" buildids "$T/fp.amber" 2>/dev/null | grep -q "$bid"; then
		ok import_fp_buildids
	else
		fail import_fp_buildids "build-id '$bid' of workload not listed by amber-analyze buildids"
	fi
	if "$ANA" info "$T/fp.amber" 2>/dev/null | grep -q 'import.from.*perf.data'; then
		ok import_fp_meta
	else
		fail import_fp_meta "info shows no import.from key"
	fi
	# The rows of report --children in perf's order, ties too: of a
	# thread's start_thread, worker_main and run_mix, whose children are
	# equal, the caller comes first (perf's rule with call graphs).
	perf report -i "$T/fp.data" --children --stdio 2>/dev/null | workload_rows >"$T/order.perf"
	"$ANA" report --children "$T/fp.amber" 2>/dev/null | workload_rows >"$T/order.amber"
	if ! grep -q 'worker_main' "$T/order.perf"; then
		fail import_fp_order "no worker_main row in perf report --children"
	elif cmp -s "$T/order.perf" "$T/order.amber"; then
		ok import_fp_order
	else
		fail import_fp_order "rows differ (< perf, > amber): $(diff "$T/order.perf" "$T/order.amber" | grep '^[<>]' | head -n 6 | tr '\n' ' ')"
	fi
}

# workload_rows: "children self comm sym" of each row of a report
# --children (perf's or amber's) that is one of the workload's functions
# or libc's start_thread, in the report's order.
workload_rows() {
	awk -v f=" start_thread worker_main run_mix hot_a hot_b hot_c level1 level2 level3 level4 sort_items " \
		'/^ +[0-9.]+%/ && index(f, " " $NF " ") { print $1, $2, $(NF - 3), $NF }'
}

test_dwarf() {
	record_import dwarf -e cpu-clock -F 999 --call-graph dwarf -- "$PROG/workload-nofp" --work 40 || return 0
	same_top import_dwarf "$T/dwarf.data" "$T/dwarf.amber"
	if "$ANA" flame --folded "$T/dwarf.amber" 2>/dev/null | grep -q 'run_mix;hot_'; then
		ok import_dwarf_unwound
	else
		fail import_dwarf_unwound "the user stacks were not unwound from perf's stack copies"
	fi
}

test_zstd() {
	record_import zstd -z -e cpu-clock -F 999 -g -- "$W" --work 60 || return 0
	if ! perf report -i "$T/zstd.data" --header-only 2>/dev/null | grep -q 'compressed'; then
		fail import_zstd "perf.data of perf record -z has no compression header"
		return 0
	fi
	same_top import_zstd "$T/zstd.data" "$T/zstd.amber"
}

# C++ and Rust names (testdata/programs/cxxnames): demangled as perf report
# shows them, the same rows and shares; with --no-demangle on both sides,
# the ELF's spelling on both; and perf script's frames in the program,
# byte for byte (not its other lines: in the dynamic loader the two can
# name an address by different aliases, mprotect and __mprotect).
test_cxx() {
	need_file import_cxx "$PROG/cxxnames" || return 0
	record_import cxx -e cpu-clock -F 999 -g -- "$PROG/cxxnames" || return 0
	same_top import_cxx "$T/cxx.data" "$T/cxx.amber"
	same_top import_cxx_no_demangle "$T/cxx.data" "$T/cxx.amber" --no-demangle
	# Each of the six names has a sixth of the time or more: all are on
	# perf's list, so the checks above compared them; and demangled they
	# are.
	missing=
	for f in 'ns::work' 'ns::Box<long>::spin' 'ns::(anonymous namespace)::anon' \
		 'Op::operator()' 'mycrate::inner::spin' 'mycrate::tick'; do
		grep -qF "$f	" "$T/import_cxx.perf" || missing="$missing '$f'"
	done
	grep -q '^_ZNK2OpclEl' "$T/import_cxx_no_demangle.amber" || missing="$missing _ZNK2OpclEl (--no-demangle)"
	if [ -z "$missing" ]; then
		ok import_cxx_names
	else
		fail import_cxx_names "not in perf's report of the recording:$missing: $(tr '\t\n' '  ' <"$T/import_cxx.perf")"
	fi
	# ns::work and its overload ns::work(long): two symbols, two rows named
	# alike, with the same shares as perf's.
	perf report -i "$T/cxx.data" --stdio --no-children --sort sym -g none 2>/dev/null |
		awk '/\] ns::work *$/ { print $1 }' | sort >"$T/cxx.perf.work"
	"$ANA" report --no-children --sort sym "$T/cxx.amber" 2>/dev/null |
		awk '/\] ns::work *$/ { print $1 }' | sort >"$T/cxx.amber.work"
	if [ "$(wc -l <"$T/cxx.perf.work")" -eq 2 ] && cmp -s "$T/cxx.perf.work" "$T/cxx.amber.work"; then
		ok import_cxx_overloads
	else
		fail import_cxx_overloads "ns::work rows: perf $(tr '\n' ' ' <"$T/cxx.perf.work")| amber $(tr '\n' ' ' <"$T/cxx.amber.work")"
	fi
	# ...and two callers in the call graph, with perf's shares (--children:
	# under main, its two callees).
	perf report -i "$T/cxx.data" --stdio --children 2>/dev/null |
		sed -n 's/^[ |]*\(--[0-9.]*%--ns::work\) *$/\1/p' | sort >"$T/cxx.perf.cg"
	"$ANA" report --children "$T/cxx.amber" 2>/dev/null |
		sed -n 's/^[ |]*\(--[0-9.]*%--ns::work\) *$/\1/p' | sort >"$T/cxx.amber.cg"
	if [ "$(wc -l <"$T/cxx.perf.cg")" -ge 2 ] && cmp -s "$T/cxx.perf.cg" "$T/cxx.amber.cg"; then
		ok import_cxx_callgraph
	else
		fail import_cxx_callgraph "ns::work branches: perf $(tr '\n' ' ' <"$T/cxx.perf.cg")| amber $(tr '\n' ' ' <"$T/cxx.amber.cg")"
	fi
	# --json tells them apart: each row's "mangled" is its symbol's.
	"$ANA" report --json --no-children --sort sym "$T/cxx.amber" 2>/dev/null >"$T/cxx.json"
	if python3 - "$T/cxx.json" <<'PY'
import json, sys
rows = [e for e in json.load(open(sys.argv[1]))["events"][0]["entries"] if e.get("sym") == "ns::work"]
want = {"_ZN2ns4workEl", "_ZN2ns4workElRKNSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEE"}
sys.exit(0 if len(rows) == 2 and {e.get("mangled") for e in rows} == want else 1)
PY
	then
		ok import_cxx_json_mangled
	else
		fail import_cxx_json_mangled "report --json: ns::work rows without their mangled names: $(grep -o '"sym":"ns::work"[^}]*' "$T/cxx.json" | head -n 2 | tr '\n' ' ')"
	fi
	perf script -i "$T/cxx.data" 2>/dev/null | grep -F '/cxxnames)' >"$T/cxx.perf.txt"
	"$ANA" export -f perf-script "$T/cxx.amber" 2>/dev/null | grep -F '/cxxnames)' >"$T/cxx.amber.txt"
	if [ -s "$T/cxx.perf.txt" ] && cmp -s "$T/cxx.perf.txt" "$T/cxx.amber.txt"; then
		ok script_cxx
	else
		fail script_cxx "frames in cxxnames differ from perf script's: $(diff "$T/cxx.perf.txt" "$T/cxx.amber.txt" | head -n 6 | tr '\n' ' ')"
	fi
}

test_tracepoint() {
	mount_tracefs import_tracepoint || return 0
	record_import tp -e sched:sched_switch -- "$W" --work 5 --sleep-ms 20 || return 0
	perf report -i "$T/tp.data" --stdio --sort comm 2>/dev/null |
		awk '$1 ~ /%$/ { print $NF, $1 }' | sort >"$T/tp.perf.comm"
	"$ANA" report -e sched:sched_switch --sort comm "$T/tp.amber" 2>/dev/null |
		awk '$1 ~ /%$/ { print $NF, $1 }' | sort >"$T/tp.amber.comm"
	if [ -s "$T/tp.perf.comm" ] && cmp -s "$T/tp.perf.comm" "$T/tp.amber.comm"; then
		ok import_tracepoint
	else
		fail import_tracepoint "shares per comm differ: $(paste -d'|' "$T/tp.perf.comm" "$T/tp.amber.comm" | tr '\n' ' ')"
	fi
	# The tracing data came along: payloads decode.
	if "$ANA" script "$T/tp.amber" 2>/dev/null | grep -q 'prev_comm=.*next_comm='; then
		ok import_tracepoint_formats
	else
		fail import_tracepoint_formats "sched_switch payloads not decoded"
	fi
	same_script tp
}

test_system_wide() {
	# With build-ids: with -B, perf 6.1 writes the MMAP2 of the processes it
	# synthesizes for -a with a build-id flag and a garbage size (254), which
	# import leaves out and perf report itself aborts on.
	# --buildid-all: the kernel's build-id is listed even when no sample
	# happened to land in the kernel, so import can match it with this
	# kernel's and take /proc/kallsyms (import_a_kallsyms).
	record_import --buildids a -a --buildid-all -e cpu-clock -F 499 -g -- "$W" --work 20 || return 0
	# The workload's own symbols: a system-wide recording meets whatever
	# else runs, and where perf and libdwfl choose different aliases for
	# an address of libc (perf named one __GI___libc_write, in a run with
	# another test beside it), a neighbour that writes much failed the
	# test for a reason that is not the import's.  Shares stay of all
	# samples, in both (--dsos filters).
	same_top import_a "$T/a.data" "$T/a.amber" --dsos workload
	if grep -q 'kernel symbols from' "$T/a.imp.log"; then
		ok import_a_kallsyms
	else
		fail import_a_kallsyms "no kernel symbols taken for a perf.data of this kernel: $(cat "$T/a.imp.log")"
	fi
	if [ "$("$ANA" info "$T/a.amber" 2>/dev/null | grep -c 'cpu\.[0-9]*\.core')" -ge 1 ] ||
	   "$ANA" info "$T/a.amber" 2>/dev/null | grep -q 'nr_cpus'; then
		ok import_a_topology
	else
		fail import_a_topology "no CPU topology or nr_cpus in the import"
	fi
}

# perf script text, byte for byte, on recordings of the workload's own code
# (hot_a only, user space), where libc has several names for one address
# (malloc and __libc_malloc, clone3 and __clone3): amber names the one perf
# keeps.  PLT stubs aside (plt_names).  The static workload is a non-PIE
# executable, loaded at 0x400000: perf shows a frame's address in the file
# (0x1c53 for hot_a+0x33 at 0x401c53).
test_script_identical() {
	record_import user -e cpu-clock:u -F 999 -g -- "$W" --work 40 --mix 1,0,0 || return 0
	same_script user
	record_import plain -e cpu-clock:u -F 999 -- "$W" --work 40 --mix 1,0,0 || return 0
	same_script plain
	record_import static -e cpu-clock:u -F 999 -g -- "$PROG/workload-static" --work 40 \
		--mix 1,0,0 || return 0
	same_script static
}

# perf script text, byte for byte, on processes that exec, kernel frames
# included: a sample inside execve holds the old image's user registers
# (__GI___execve in the old libc) after the COMM record of the exec, and
# both name that frame from the old image's maps.  Mostly the 16 children
# give some such samples; how many is not checked.
test_script_exec() {
	record_import exec -e cpu-clock -F 4000 -g -- "$PROG/forker" --children 16 --work 10 ||
		return 0
	same_script exec
}

# script_frames FILE: script text with each sample's header reduced to
# "comm tid time: period event:" (perf prints no CPU for a command's
# recording) and each frame to "sym+off (dso)": perf script prints the ip
# of a frame with -F ...,dso relative to its object, amber the address.
script_frames() {
	# Where a frame-pointer chain runs into unmapped addresses (a sample
	# in code built without frame pointers, such as libc's thread start),
	# perf prints each as "[unknown] ([unknown])" and amber cuts the chain
	# with one "[broken frame-pointer chain] ([unknown])": both become one
	# "[unknown] ([unknown])" line.
	awk '/^[^\t]/ { gsub(/ \[[0-9]+\]/, ""); gsub(/[ ]+/, " "); sub(/^ /, ""); sub(/ $/, ""); print; unk = 0; next }
	     /^\t/ { $1 = ""; sub(/^ /, "")
		      sub(/^\[broken frame-pointer chain\] /, "[unknown] ")
		      if ($0 == "[unknown] ([unknown])") { if (unk++) next } else unk = 0
		      print; next }
	     { print; unk = 0 }' "$1"
}

# script_frames() of perf's script and of amber's, line by line, the
# same but where a caller frame's return address is where a symbol
# starts: perf 6.1 names that symbol (NAME+0x0), amber the function the
# call is in, the symbol before (README), in the same object with an
# offset above 0, or, where the byte before lies between two functions
# (a frame-pointer walk through libc reads a pointer to pthread_self as a
# return address), no symbol (its address in the object).  Prints the
# lines that differ otherwise; fails then.
frames_same() {
	awk 'NR == FNR { p[FNR] = $0; n = FNR; next }
	     { a = $0; pl = p[FNR]
	       if (FNR > n) { print "amber has more lines: " a; bad = 1; next }
	       # Frame lines end in "(dso)"; the first after a sample line is
	       # the sampled address, looked up as it is.
	       frame = pl ~ / \([^()]*\)$/
	       pos = frame ? pos + 1 : 0
	       if (pl == a)
	           next
	       if (frame && pos > 1 && pl ~ /^[^ ]+\+0x0 \(/ &&
	           (a ~ /^[^ ]+\+0x[0-9a-f]*[1-9a-f][0-9a-f]* \(/ || a ~ /^0x[0-9a-f]+ \(/)) {
	           pd = pl; sub(/^[^ ]+ /, "", pd); ad = a; sub(/^[^ ]+ /, "", ad)
	           if (pd == ad)
	               next
	       }
	       print FNR ": perf " pl " / amber " a; bad = 1 }
	     END { if (FNR < n) { print "amber has fewer lines"; bad = 1 }
	           exit bad }' "$1" "$2"
}

# script's "ip sym+off (dso)" lines against perf script on the very same
# samples (the perf.data and its import), offsets included: a caller
# frame's offset is its return address minus the symbol's start, as perf
# prints it.  Mostly the workload's own code and libc's start_thread are
# hit (cpu-clock:u, --mix 1,0,0); PLT stubs are compared by address and
# offset, not name (plt_names).
test_script_symoff() {
	[ -s "$T/user.amber" ] ||
		record_import user -e cpu-clock:u -F 999 -g -- "$W" --work 40 --mix 1,0,0 || return 0
	perf script -i "$T/user.data" -F comm,tid,time,period,event,ip,sym,symoff,dso \
		>"$T/symoff.perf" 2>/dev/null
	"$ANA" script --no-inline "$T/user.amber" >"$T/symoff.amber" 2>"$T/symoff.err"
	script_frames "$T/symoff.perf" | plt_names >"$T/symoff.perf.n"
	script_frames "$T/symoff.amber" | plt_names >"$T/symoff.amber.n"
	callers=$(grep -c '^run_mix+0x[0-9a-f]* (' "$T/symoff.perf.n")
	if [ "$callers" = 0 ]; then
		fail script_symoff "perf script shows no caller frame run_mix+OFF"
	elif frames_same "$T/symoff.perf.n" "$T/symoff.amber.n" >"$T/symoff.diff"; then
		ok script_symoff
	else
		fail script_symoff "differs from perf script -F ...,sym,symoff,dso: $(head -n 6 "$T/symoff.diff" | tr '\n' ' ')"
	fi
	# The addresses: those the recording holds, in the same order, a
	# sample a line; script's chain may stop at a [broken frame-pointer
	# chain] frame (the first address where nothing is mapped), the
	# recorded one runs on.
	"$ANA" dump "$T/user.amber" 2>/dev/null |
		awk '/ SAMPLE / { if (n++) print l; l = ""; s = 1; next }
		     /^\t/ && s { l = l " " $1; next } { s = 0 } END { if (n) print l }' >"$T/ips.dump"
	awk '/^[^\t]/ { if (n++) print l; l = ""; next }
	     /^\t/ { l = l " " $1; if (/\[broken frame-pointer chain\]/) l = l " |cut" }
	     END { if (n) print l }' "$T/symoff.amber" >"$T/ips.script"
	if [ -s "$T/ips.dump" ] &&
	   awk 'NR == FNR { d[FNR] = $0; n = FNR; next }
		{ if (d[FNR] == $0) next
		  if ($NF == "|cut") { k = NF - 1; nw = split(d[FNR], w, " ")
		      for (i = 1; i <= k && w[i] == $i; i++) ;
		      if (i > k && nw >= k) next }
		  print FNR ": recorded" d[FNR] ", script" $0; bad = 1; exit }
		END { if (!bad && FNR != n) { print "samples: " n " recorded, " FNR " in script"; bad = 1 }
		      exit bad }' "$T/ips.dump" "$T/ips.script" >"$T/ips.diff"; then
		ok script_ips
	else
		fail script_ips "script's frame addresses are not the recorded callchains: $(head -n 2 "$T/ips.diff" | tr '\n' ' ')"
	fi
}

test_damaged() {
	[ -s "$T/fp.data" ] || { fail import_cut "no perf.data from test_fp"; return 0; }
	# Cut at two thirds, but after the workload's MMAP2, or no sample left
	# could be named: perf writes each CPU's buffer whole in a round, and
	# when the exec ran on the last CPU its MMAP2 can be in the last third
	# of a file that is one round (then the cut keeps the middle of what
	# follows it in the data section, read from the header: offset and
	# size at byte 40).
	size=$(wc -c <"$T/fp.data")
	cut=$((size * 2 / 3))
	mm=$(perf report -D -i "$T/fp.data" 2>/dev/null |
	     awk '/PERF_RECORD_MMAP2/ && / \/.*\/workload$/ { sub(/^\[/, "", $3); sub(/\]:$/, "", $3); print $2, $3; exit }')
	if [ -n "$mm" ]; then
		# shellcheck disable=SC2086 # offset and size, two words
		set -- $mm
		mend=$(($1 + $2))
		# shellcheck disable=SC2046 # two numbers
		set -- $(od -An -t u8 -j 40 -N 16 "$T/fp.data")
		[ "$cut" -gt "$mend" ] || cut=$((mend + ($1 + $2 - mend) / 2))
	fi
	head -c "$cut" "$T/fp.data" >"$T/cut.data"
	"$ANA" import "$T/cut.data" -o "$T/cut.amber" >"$T/cut.log" 2>&1
	rc=$?
	if [ $rc = 1 ] && grep -q 'cut short' "$T/cut.log" &&
	   "$ANA" report "$T/cut.amber" 2>/dev/null | grep -q 'hot_'; then
		ok import_cut
	else
		fail import_cut "exit $rc (cut at $cut of $size, workload's MMAP2 at ${mm:-none}): $(tr '\n' ' ' <"$T/cut.log")"
	fi
	# A record header broken in the middle of the data (its size zeroed, at
	# an offset perf report -D names): the records before it are imported.
	cp "$T/fp.data" "$T/bad.data"
	n=$(perf report -D -i "$T/fp.data" 2>/dev/null | grep -c '^0x[0-9a-f]*@[^ ]* \[0x[0-9a-f]*\]: event: 9$')
	off=$(perf report -D -i "$T/fp.data" 2>/dev/null | grep '^0x[0-9a-f]*@[^ ]* \[0x[0-9a-f]*\]: event: 9$' |
	      sed -n "$((n / 2))s/@.*//p")
	printf '\000\000' | dd of="$T/bad.data" bs=1 seek=$((off + 6)) conv=notrunc 2>/dev/null
	"$ANA" import "$T/bad.data" -o "$T/bad.amber" >"$T/bad.log" 2>&1
	rc=$?
	got=$("$ANA" report "$T/bad.amber" 2>/dev/null | sed -n 's/^# samples: \([0-9]*\).*/\1/p')
	if [ $rc = 1 ] && grep -q "record at offset $((off)) .*shorter than its header" "$T/bad.log" &&
	   [ "${got:-0}" -gt 0 ] && [ "${got:-0}" -lt "$n" ]; then
		ok import_corrupt
	else
		fail import_corrupt "exit $rc, $got of $n samples: $(tr '\n' ' ' <"$T/bad.log")"
	fi
	printf 'not a perf.data file at all' >"$T/junk.data"
	"$ANA" import "$T/junk.data" -o "$T/junk.amber" >"$T/junk.log" 2>&1
	rc=$?
	if [ $rc = 2 ] && grep -q 'not a perf.data' "$T/junk.log" && [ ! -e "$T/junk.amber" ]; then
		ok import_not_perfdata
	else
		fail import_not_perfdata "exit $rc: $(cat "$T/junk.log")"
	fi
}

test_analyzer_hint() {
	[ -s "$T/fp.data" ] || return 0
	for c in report info script; do
		"$ANA" $c "$T/fp.data" >/dev/null 2>"$T/hint.log"
		if ! grep -q "is a perf.data file.*amber-analyze import" "$T/hint.log"; then
			fail analyzer_hint "$c: $(cat "$T/hint.log")"
			return 0
		fi
	done
	ok analyzer_hint
}

# Kernel symbols.  perf record -B writes no build-id, not even the
# kernel's; import takes this host's /proc/kallsyms when the recording's
# host name and kernel release are this host's and perf's kernel map puts
# _text where this table does (the same boot).  The kernel's share is
# then named, as perf report (reading the same table) names it; a copy of
# the table whose _text moved (another boot, as KASLR has it) is refused
# by name, and this host's table for a perf.data of another boot left out
# with a warning; --no-kallsyms stores none.
test_kallsyms() {
	if [ "$(awk '$3 == "_text" && $4 == "" { print $1; exit }' /proc/kallsyms)" = "" ] ||
	   [ "$(awk '$3 == "_text" { print $1; exit }' /proc/kallsyms | tr -d 0)" = "" ]; then
		skip import_kallsyms "/proc/kallsyms shows no addresses to this user"
		return 0
	fi
	record_import kk -e cpu-clock -F 999 -- dd if=/dev/zero of=/dev/null bs=4k count=200000 ||
		return 0
	kshare() {
		awk '$1 ~ /%$/ && $NF == "[kernel.kallsyms]" { sub("%", "", $1); print $1 }' "$1"
	}
	perf report -i "$T/kk.data" --no-children --stdio --sort dso -g none >"$T/kk.perf.dso" 2>/dev/null
	"$ANA" report --no-children -g none --sort dso "$T/kk.amber" >"$T/kk.amber.dso" 2>/dev/null
	"$ANA" report --no-children -g none --sort sym "$T/kk.amber" >"$T/kk.amber.sym" 2>/dev/null
	_p=$(kshare "$T/kk.perf.dso")
	_a=$(kshare "$T/kk.amber.dso")
	if ! grep -q 'kernel symbols from /proc/kallsyms (this host.s: no kernel build-id recorded' "$T/kk.imp.log"; then
		fail import_kallsyms "this host's kallsyms not taken: $(cat "$T/kk.imp.log")"
	elif [ -z "$_p" ] || [ "$_p" != "$_a" ]; then
		fail import_kallsyms "kernel share: perf '$_p'%, amber '$_a'%"
	elif grep -q '\[k\] \[unknown\]' "$T/kk.amber.sym" ||
	     ! grep -q '\[k\] [a-z_]' "$T/kk.amber.sym"; then
		fail import_kallsyms "kernel frames not named: $(grep '\[k\]' "$T/kk.amber.sym" | head -n 3 | tr '\n' '|')"
	else
		ok import_kallsyms
	fi
	# The same table with _text moved (its sixth hex digit from the right
	# changed: by 2 MiB or more).
	awk '$3 == "_text" && $4 == "" && !done { n = length($1); d = substr($1, n - 5, 1)
		$1 = substr($1, 1, n - 6) (d == "2" ? "4" : "2") substr($1, n - 4); done = 1 } 1' \
		/proc/kallsyms >"$T/moved.kallsyms"
	_t0=$(awk '$3 == "_text" && $4 == "" { print $1; exit }' /proc/kallsyms)
	_t1=$(awk '$3 == "_text" && $4 == "" { print $1; exit }' "$T/moved.kallsyms")
	if [ -z "$_t1" ] || [ "$_t0" = "$_t1" ]; then
		fail import_kallsyms_moved "could not move _text in a copy of /proc/kallsyms ('$_t0' -> '$_t1')"
	elif "$ANA" import --kallsyms "$T/moved.kallsyms" "$T/kk.data" -o "$T/kk2.amber" >"$T/kk2.log" 2>&1; then
		fail import_kallsyms_moved "a table whose _text moved was taken: $(cat "$T/kk2.log")"
	elif ! grep -q "_text is at 0x$(echo "$_t1" | sed 's/^0*//') in it, at 0x$(echo "$_t0" | sed 's/^0*//') in the recording" "$T/kk2.log" ||
	     [ -e "$T/kk2.amber" ]; then
		fail import_kallsyms_moved "$(cat "$T/kk2.log")"
	else
		ok import_kallsyms_moved
	fi
	# The perf.data of another boot: perf's kernel map (its pgoff, the 8
	# bytes before the name, is where _text was) moved by 2 MiB.  This
	# host's table does not fit it: left out, with a warning.
	if command -v python3 >/dev/null 2>&1 && python3 - "$T/kk.data" "$T/kk4.data" <<'PY'
import struct, sys
b = bytearray(open(sys.argv[1], "rb").read())
i = b.find(b"[kernel.kallsyms]_text\0")
assert i >= 8
(pgoff,) = struct.unpack_from("<Q", b, i - 8)
struct.pack_into("<Q", b, i - 8, pgoff + (2 << 20))
open(sys.argv[2], "wb").write(b)
PY
	then
		"$ANA" import "$T/kk4.data" -o "$T/kk4.amber" >"$T/kk4.log" 2>&1
		if grep -q 'kernel symbols from' "$T/kk4.log" ||
		   ! grep -q "puts _text at 0x[0-9a-f]*, the recording at 0x[0-9a-f]* (another boot" "$T/kk4.log"; then
			fail import_kallsyms_other_boot "$(cat "$T/kk4.log")"
		else
			ok import_kallsyms_other_boot
		fi
	else
		fail import_kallsyms_other_boot "could not move the kernel map in a copy of the perf.data"
	fi
	"$ANA" import --no-kallsyms "$T/kk.data" -o "$T/kk3.amber" >"$T/kk3.log" 2>&1
	if grep -q 'kernel symbols from' "$T/kk3.log" ||
	   ! "$ANA" report --no-children -g none --sort sym "$T/kk3.amber" 2>/dev/null | grep -q '\[k\] \[unknown\]'; then
		fail import_no_kallsyms "$(cat "$T/kk3.log")"
	else
		ok import_no_kallsyms
	fi
}

need_ana import && need_perf import && {
	test_fp
	test_dwarf
	test_zstd
	test_cxx
	test_tracepoint
	test_system_wide
	test_script_identical
	test_script_exec
	test_script_symoff
	test_damaged
	test_analyzer_hint
	test_kallsyms
}
finish
