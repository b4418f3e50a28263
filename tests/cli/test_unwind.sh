#!/bin/sh
# tests/cli/test_unwind.sh - DWARF call graphs (analyze/unwind.c) on real
# recordings of workload-nofp, whose frames only CFI can recover:
#   unwind_complete    >= 95% of the samples in the program's own functions
#                      unwind through the expected callers to main or
#                      start_thread (qsort's callback through libc back to
#                      sort_items, level4..level1, hot_c, run_mix, worker_main)
#   unwind_vs_perf     the top folded stacks (function names, worker threads)
#                      equal those of perf script on a perf recording of the
#                      same binary
#   unwind_truncated   with a 1 KiB stack copy, cut stacks end with the
#                      [truncated] marker and every frame before it is one
#                      the full unwind also finds
. "$(dirname "$0")/lib.sh"

NOFP=$PROG/workload-nofp

# fold: script-format text (amber-analyze script, perf script -F comm,tid,ip,sym,dso)
# -> one line per sample: "COMM<TAB>root;...;leaf" with user frames only,
# function names only, inlined frames and the [truncated] marker left out.
# glibc aliases are named alike (__GI___qsort_r / qsort_r, clone3 / __clone3).
fold() {
	awk '
	function flush() {
		if (have && n) {
			s = st[n]
			for (i = n - 1; i >= 1; i--)
				s = s ";" st[i]
			print comm "\t" s
		}
		n = 0; have = 0
	}
	/^[^ \t]/ || /^ +[^ \t]/ && !/^\t/ {
		if ($0 ~ /^[ ]*[^ \t]+[ ]+[0-9]+/) { flush(); comm = $1; have = 1; next }
	}
	/^\t/ {
		if ($0 ~ /\(inlined\)/ || $2 == "[truncated]") next
		if ($1 ~ /^ffff/ || $0 ~ /kernel\.kallsyms/) next
		name = $2
		sub(/\+0x[0-9a-f]+$/, "", name)
		sub(/@.*/, "", name)
		sub(/^__GI_/, "", name)
		sub(/^_+/, "", name)
		st[++n] = name
		next
	}
	/^$/ { flush() }
	END { flush() }'
}

test_complete() {
	need_rec unwind_complete || return 0
	need_ana unwind_complete || return 0
	need_file unwind_complete "$NOFP" || return 0
	if ! run_timeout 120 "$REC" -e cpu-clock -F 999 --call-graph dwarf -o "$T/nofp.amber" \
		-- "$NOFP" --work 60 >"$T/rec.log" 2>&1; then
		fail unwind_complete "amber-rec failed: $(tail -n 1 "$T/rec.log")"
		return 0
	fi
	if ! "$ANA" script -F comm,tid,ip,sym,dso "$T/nofp.amber" >"$T/nofp.txt" 2>"$T/ana.log"; then
		fail unwind_complete "amber-analyze script failed: $(tail -n 1 "$T/ana.log")"
		return 0
	fi
	# Samples whose leaf user frame is in workload-nofp itself.
	fold <"$T/nofp.txt" >"$T/nofp.folded"
	r=$(awk -F '\t' -v prog="$T/nofp.txt" '
	BEGIN {
		# The program'"'"'s functions, from the frames that name its DSO.
		while ((getline l < prog) > 0)
			if (l ~ /workload-nofp\)$/) {
				split(l, f, " "); s = f[2]; sub(/\+0x[0-9a-f]+$/, "", s); mine[s] = 1
			}
	}
	{
		k = split($2, fr, ";")
		if (!(fr[k] in mine)) next
		total++
		ok = $2 ~ /(^|;)(start|libc_start_main|libc_start_call_main);main(;|$)/ ||
		     $2 ~ /^clone3;start_thread;worker_main;/
		if ($2 ~ /cmp_items$/)
			ok = ok && $2 ~ /worker_main;run_mix;hot_c;level1;level2;level3;level4;sort_items;(qsort_r|qsort);/
		if ($2 ~ /;level4(;|$)/)
			ok = ok && $2 ~ /hot_c;level1;level2;level3;level4/
		good += ok
	}
	END { printf "%d %d\n", good, total }' "$T/nofp.folded")
	good=${r% *}
	total=${r#* }
	# The share that unwinds whole is what is checked; how many samples
	# the run gave is not (any at all: the workload runs its functions).
	if [ "$total" -lt 1 ]; then
		fail unwind_complete "only $total samples in workload-nofp's functions"
	elif [ $((good * 100)) -ge $((total * 95)) ]; then
		ok unwind_complete
	else
		fail unwind_complete "$good of $total program samples unwind to main/start_thread (< 95%)"
	fi
}

test_vs_perf() {
	[ -s "$T/nofp.folded" ] || { skip unwind_vs_perf "no amber recording"; return 0; }
	need_perf unwind_vs_perf || return 0
	if ! perf_record "$T/perf.data" -e cpu-clock -F 999 --call-graph dwarf -- "$NOFP" --work 60; then
		fail unwind_vs_perf "perf record failed: $(tail -n 1 "$T/perf.data.log")"
		return 0
	fi
	perf script -i "$T/perf.data" -F comm,tid,ip,sym,dso --no-inline 2>/dev/null |
		fold >"$T/perf.folded"
	# The 2 most frequent worker stacks (hot_a's, hot_b's: 50% and 30%)
	# must be the same; below them msort's recursion depth spreads the
	# counts too thin for a stable order, so each of amber's next 3 must
	# merely be a stack perf saw too.
	top() {
		awk -F '\t' '$1 ~ /^worker-/ { c[$2]++ } END { for (s in c) print c[s] "\t" s }' "$1" |
			sort -t '	' -k1,1nr -k2 | head -n "$2" | cut -f 2
	}
	top "$T/nofp.folded" 2 | sort >"$T/amber.top"
	top "$T/perf.folded" 2 | sort >"$T/perf.top"
	missing=$(top "$T/nofp.folded" 5 | tail -n 3 | while IFS= read -r st; do
		cut -f 2 "$T/perf.folded" | grep -qxF -- "$st" || echo "$st"
	done)
	if [ ! -s "$T/amber.top" ]; then
		fail unwind_vs_perf "no worker stacks in amber's output"
	elif ! cmp -s "$T/amber.top" "$T/perf.top"; then
		fail unwind_vs_perf "top stacks differ: amber [$(tr '\n' ' ' <"$T/amber.top")] perf [$(tr '\n' ' ' <"$T/perf.top")]"
	elif [ -n "$missing" ]; then
		fail unwind_vs_perf "stacks perf never saw: $missing"
	else
		ok unwind_vs_perf
	fi
}

test_truncated() {
	need_rec unwind_truncated || return 0
	need_file unwind_truncated "$NOFP" || return 0
	if ! run_timeout 120 "$REC" -e cpu-clock -F 999 --call-graph dwarf,1024 -o "$T/short.amber" \
		-- "$NOFP" --work 30 >"$T/rec2.log" 2>&1; then
		fail unwind_truncated "amber-rec failed: $(tail -n 1 "$T/rec2.log")"
		return 0
	fi
	"$ANA" script -F comm,tid,ip,sym,dso "$T/short.amber" >"$T/short.txt" 2>/dev/null
	# A marker is always the last frame of its stack and never the only
	# one; and no stack has callers the program does not have (a frame
	# made up past the end of the copy would show as one).
	r=$(awk '
	/^[^\t]/ { if (last ~ /\[truncated\]/) cut++; last = ""; n = 0; next }
	/^\t/ {
		if (last ~ /\[truncated\]/) bad++
		n++; last = $0
		if ($0 ~ /\[truncated\]/ && n == 1) bad++
		next
	}
	END { if (last ~ /\[truncated\]/) cut++; printf "%d %d\n", cut, bad }' "$T/short.txt")
	cut=${r% *}
	bad=${r#* }
	wrong=$(fold <"$T/short.txt" | awk -F '\t' '
		$2 ~ /level1;level2;level3;level4/ { next }
		$2 ~ /hot_c;level[234]|level1;level[1345]|level2;level[1245]|level3;level[1235]/ { n++ }
		END { print n + 0 }')
	if [ "$cut" -eq 0 ]; then
		fail unwind_truncated "no stack ends with [truncated] with a 1 KiB stack copy"
	elif [ "$bad" -ne 0 ] || [ "$wrong" -ne 0 ]; then
		fail unwind_truncated "$bad misplaced markers, $wrong stacks with impossible callers"
	else
		ok unwind_truncated
	fi
}

test_complete
test_vs_perf
test_truncated
finish
