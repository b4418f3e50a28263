#!/bin/sh
# tests/cli/test_report.sh - amber-analyze report on real recordings of the
# bundled workload (testdata/programs/README.md describes its known work
# split and call tree): self and children shares (the children shares of
# hot_a, hot_b, run_mix and worker_main are those counted from script's
# call chains of the same recording, each function once a sample), the
# hot loop's source line, the always-inline function, kernel symbols,
# build-id lookup of a moved and renamed binary, a rebuilt binary never
# used, and a cross-check of the top five self symbols against perf.
. "$(dirname "$0")/lib.sh"

SRC=$ROOT/testdata/programs/workload.c
W=$PROG/workload

# pct FILE SYM: the share (first column) of the entry whose last field is SYM.
pct() {
	awk -v s="$2" '$1 ~ /%$/ && $NF == s { sub("%", "", $1); t += $1 }
		END { printf "%.2f\n", t + 0 }' "$1"
}

# top FILE N: the last fields of the first N table rows.
top() {
	awk '$1 ~ /%$/ { print $NF }' "$1" | head -n "$2"
}

setup() {
	need_root report || return 1
	need_rec report || return 1
	need_ana report || return 1
	need_file report "$W" || return 1
	mkdir -p "$T/bin"
	cp "$W" "$T/bin/workload" || return 1
	if ! run_timeout 120 "$REC" -e cpu-clock -F 1000 -g -o "$T/w.amber" -- \
		"$T/bin/workload" --work 60 >"$T/rec.log" 2>&1; then
		fail report_record "amber-rec failed: $(tail -n 1 "$T/rec.log")"
		return 1
	fi
	"$ANA" report --no-children --sort sym --percent-limit 0 "$T/w.amber" >"$T/self.txt" 2>"$T/self.err" ||
		{ fail report_runs "$(cat "$T/self.err")"; return 1; }
	ok report_runs
}

t_self_order() {
	# hot_a (5 parts) does its work itself; hot_b (3 parts) too, mostly in
	# its inlined mix_inline; hot_c (2 parts) spends its time in libc's qsort.
	first=$(top "$T/self.txt" 2 | tr '\n' ' ')
	n=$(awk '/^# Samples:/ { print $3; exit }' "$T/self.txt")
	a=$(pct "$T/self.txt" hot_a)
	b=$(pct "$T/self.txt" hot_b)
	if [ "$first" != "hot_a hot_b " ]; then
		fail report_self_order "top two self symbols are '$first', expected 'hot_a hot_b'"
	elif ! near "$a" 50 "$n" 10 || ! near "$b" 30 "$n" 10; then
		# The workload's parts are "about 1 ms" each (programs/README.md):
		# 10 points of slack for that calibration, the rest is sampling
		# noise over the recording's $n samples.
		fail report_self_order "hot_a $a%, hot_b $b% of $n samples: not the 5:3 split"
	else
		ok report_self_order
	fi
}

t_children() {
	# With frame pointers the stacks of hot_a and hot_b reach run_mix and
	# worker_main; hot_c's time is spent inside libc's qsort, which has no
	# frame pointers, so its callers are not seen (perf shows the same).
	# Not "run_mix >= hot_a + hot_b": a sample taken in the prologue or
	# epilogue of hot_a or hot_b (or of publish) follows the frame pointer
	# of the caller's frame and misses run_mix (or hot_a), so the chains
	# need not nest; the children shares are checked against the chains.
	"$ANA" report --children --sort sym "$T/w.amber" >"$T/children.txt" 2>/dev/null
	a=$(pct "$T/children.txt" hot_a)
	b=$(pct "$T/children.txt" hot_b)
	sa=$(pct "$T/self.txt" hot_a)
	n=$(awk '/^# Samples:/ { print $3; exit }' "$T/self.txt")
	chain_shares "$T/w.amber" hot_a hot_b run_mix worker_main >"$T/children.cnt"
	# Each report share within its rounding to 0.01 of the chains' count.
	_diff=""
	for _s in hot_a hot_b run_mix worker_main; do
		_r=$(pct "$T/children.txt" "$_s")
		_c=$(awk -v s="$_s" '$1 == s { print $2 }' "$T/children.cnt")
		awk -v r="$_r" -v c="$_c" 'BEGIN { d = r - c; exit !(c != "" && d <= 0.0051 && d >= -0.0051) }' ||
			_diff="$_diff $_s: report $_r% chains $_c%;"
	done
	if [ -n "$_diff" ]; then
		fail report_children_split "children shares differ from the chains':$_diff"
	# As report_self_order: 10 points for the parts' calibration.
	elif ! near "$a" 50 "$n" 10 || ! near "$b" 30 "$n" 10; then
		fail report_children_split "children: hot_a $a% hot_b $b% of $n samples (want ~50/30)"
	elif ! awk -v a="$a" -v sa="$sa" 'BEGIN { exit !(a >= sa) }'; then
		fail report_children_split "hot_a children $a% below its self $sa%"
	else
		ok report_children_split
	fi
}

t_srcline() {
	line=$(grep -n 'HOT-LOOP' "$SRC" | head -n 1 | cut -d: -f1)
	"$ANA" report --no-children --sort srcline "$T/w.amber" >"$T/src.txt" 2>/dev/null
	share=$(awk -v l="workload.c:$line" '$1 ~ /%$/ && $4 == l { sub("%", "", $1); print $1; exit }' "$T/src.txt")
	if [ -z "$line" ]; then
		fail report_srcline "no HOT-LOOP marker in $SRC"
	elif [ -z "$share" ]; then
		fail report_srcline "workload.c:$line (HOT-LOOP) not in --sort srcline output"
	elif ! awk -v s="$share" -v a="$(pct "$T/self.txt" hot_a)" 'BEGIN { exit !(s > a / 2 && s <= a + 0.01) }'; then
		# The line is part of hot_a: at most its share, and most of it
		# (the loop's other lines are its bookkeeping).
		fail report_srcline "workload.c:$line has $share%, expected most of hot_a's share"
	else
		ok report_srcline
	fi
}

t_inline() {
	if ! grep -q 'workload.c:[0-9]* mix_inline (inlined)' "$T/src.txt"; then
		fail report_inline_srcline "no 'mix_inline (inlined)' source line"
		return
	fi
	ok report_inline_srcline
	"$ANA" report --no-children -g callee --sort sym "$T/w.amber" >"$T/cg.txt" 2>/dev/null
	# In hot_b's call graph the inlined function comes first, hot_b after it.
	if awk '/\[\.\] hot_b$/ { in_b = 1; next } /%.*\[/ { in_b = 0 }
		in_b && /mix_inline \(inlined\)/ { seen = 1 }
		seen && in_b && /hot_b/ { ok = 1 } END { exit !ok }' "$T/cg.txt"; then
		ok report_inline_callgraph
	else
		fail report_inline_callgraph "hot_b's call graph lacks 'mix_inline (inlined)' then hot_b"
	fi
}

t_kernel() {
	if ! run_timeout 120 "$REC" -e cpu-clock -F 1000 -g -o "$T/k.amber" -- \
		"$T/bin/workload" --work 0 --syscalls 200000 >/dev/null 2>&1; then
		fail report_kernel "recording the syscall phase failed"
		return
	fi
	"$ANA" report --no-children --sort dso,sym "$T/k.amber" >"$T/k.txt" 2>/dev/null
	ks=$(awk '$1 ~ /%$/ && $4 == "[kernel.kallsyms]" { sub("%", "", $1); t += $1 } END { printf "%.2f\n", t + 0 }' "$T/k.txt")
	named=$(awk '$1 ~ /%$/ && $4 == "[kernel.kallsyms]" && $5 == "[k]" && $6 !~ /^(0x|\[unknown\])/ { sub("%", "", $1); t += $1 } END { printf "%.2f\n", t + 0 }' "$T/k.txt")
	"$ANA" report --children --sort sym "$T/k.amber" >"$T/kc.txt" 2>/dev/null
	if ! in_range "$ks" 20 100; then
		fail report_kernel "kernel share $ks% for a syscall loop"
	elif ! awk -v k="$ks" -v n="$named" 'BEGIN { exit !(n >= k * 0.9) }'; then
		fail report_kernel "only $named% of $ks% kernel samples have a symbol"
	elif ! grep -q '\[k\] .*sys_getppid\|\[k\] do_syscall_64' "$T/kc.txt"; then
		fail report_kernel "no syscall entry symbol (do_syscall_64, *sys_getppid) in --children"
	else
		ok report_kernel
	fi
}

t_moved() {
	id=$(readelf -n "$T/bin/workload" 2>/dev/null | awk '/Build ID/ { print $3 }')
	if [ -z "$id" ]; then
		skip report_moved_buildid "readelf finds no build-id in workload"
		return
	fi
	rest=${id#??}
	dir=$(printf '%s' "$id" | cut -c1-2)
	mkdir -p "$T/moved" "$T/home/.debug/.build-id/$dir" "$T/symfs/.build-id/$dir"
	cp "$T/w.amber" "$T/moved/rec.amber"
	mv "$T/bin/workload" "$T/moved/renamed-binary"
	# Without the cache the binary is gone: no hot_a.
	HOME=$T/nohome "$ANA" report --no-children --sort sym "$T/moved/rec.amber" >"$T/m0.txt" 2>"$T/m0.err"
	cp "$T/moved/renamed-binary" "$T/home/.debug/.build-id/$dir/$rest"
	HOME=$T/home "$ANA" report --no-children --sort sym "$T/moved/rec.amber" >"$T/m1.txt" 2>/dev/null
	cp "$T/moved/renamed-binary" "$T/symfs/.build-id/$dir/$rest"
	HOME=$T/nohome "$ANA" report --no-children --symfs "$T/symfs" --sort sym "$T/moved/rec.amber" >"$T/m2.txt" 2>/dev/null
	if [ "$(pct "$T/m0.txt" hot_a)" != 0.00 ] || ! grep -q 'not found' "$T/m0.err"; then
		fail report_moved_buildid "without the binary hot_a was still named, or no 'not found' warning"
	elif [ "$(top "$T/m1.txt" 1)" != hot_a ]; then
		fail report_moved_buildid "~/.debug/.build-id copy not used: top is '$(top "$T/m1.txt" 1)'"
	elif [ "$(top "$T/m2.txt" 1)" != hot_a ]; then
		fail report_moved_buildid "--symfs copy not used: top is '$(top "$T/m2.txt" 1)'"
	else
		ok report_moved_buildid
	fi
	mv "$T/moved/renamed-binary" "$T/bin/workload"
}

t_stale() {
	# A rebuilt binary (another build-id) at the recorded path.
	cp "$PROG/workload-nofp" "$T/bin/workload"
	HOME=$T/nohome "$ANA" report --no-children --sort sym "$T/w.amber" >"$T/st.txt" 2>"$T/st.err"
	if ! grep -q 'build-id' "$T/st.err"; then
		fail report_stale_buildid "no warning about the build-id: $(cat "$T/st.err")"
	elif [ "$(grep -c 'workload:.*build-id' "$T/st.err")" != 1 ]; then
		fail report_stale_buildid "expected exactly one warning for the DSO"
	elif grep -q 'hot_a' "$T/st.txt"; then
		fail report_stale_buildid "symbols were taken from the rebuilt binary"
	elif ! grep -q '\[stale build-id\] 0x' "$T/st.txt"; then
		fail report_stale_buildid "frames are not marked [stale build-id]"
	else
		ok report_stale_buildid
	fi
	cp "$W" "$T/bin/workload"
}

t_filters_json() {
	n_all=$(awk '$1 ~ /%$/' "$T/self.txt" | wc -l)
	"$ANA" report --comm worker-0 --sort comm "$T/w.amber" >"$T/f.txt" 2>/dev/null
	comms=$(awk '$1 ~ /%$/ { print $NF }' "$T/f.txt" | sort -u | tr '\n' ' ')
	"$ANA" report --no-children --time +0,+0.2 --sort sym "$T/w.amber" >"$T/ft.txt" 2>/dev/null
	s_all=$(awk '/^# Samples:/ { print $3; exit }' "$T/self.txt")
	s_t=$(awk '/^# Samples:/ { print $3; exit }' "$T/ft.txt")
	# +0 is the first record the rings hold (the first of dump's lines
	# that is not synthesized); dump's second column is each record's
	# time in seconds with 9 decimals.
	want_t=$("$ANA" dump "$T/w.amber" 2>/dev/null | awk '/^[^\t]/ && $2 != "-" && $5 !~ /\(synth\)$/ {
		t = $2; sub(/\./, "", t); t += 0; if (s == "") s = t
		if ($5 == "SAMPLE" && t - s <= 200000000) n++ } END { print n + 0 }')
	if [ "$comms" != "worker-0 " ]; then
		fail report_filters "--comm worker-0 left '$comms'"
	elif [ -z "$s_t" ] || [ "$s_t" != "$want_t" ] || [ "$s_t" -ge "$s_all" ]; then
		# Exactly the samples the recording holds from its first one to
		# 0.2 s later, both included, counted here from dump's times.
		fail report_filters "--time +0,+0.2 kept $s_t of $s_all samples; the recording has $want_t in that window"
	elif [ "$n_all" -lt 3 ]; then
		fail report_filters "only $n_all entries"
	else
		ok report_filters
	fi
	if ! command -v python3 >/dev/null 2>&1; then
		skip report_json "python3 not installed"
		return
	fi
	if "$ANA" report --no-children --json --sort sym "$T/w.amber" 2>/dev/null | python3 -c '
import json, sys
d = json.load(sys.stdin)
e = d["events"][0]["entries"]
assert e[0]["sym"] == "hot_a" and e[0]["kernel"] is False, e[0]
assert abs(sum(x["overhead"] for x in e) - 100) < 0.01
'; then
		ok report_json
	else
		fail report_json "JSON does not parse or is inconsistent"
	fi
}

t_perf() {
	need_perf report_vs_perf || return 0
	# User-space samples only (:u, the same event for both tools): how much
	# time the kernel spends in interrupts depends on the machine's load at
	# the moment of each run, and would make the comparison flaky.
	if ! perf_record "$T/perf.data" -e cpu-clock:u -F 1000 -- "$T/bin/workload" --work 60; then
		fail report_vs_perf "perf record failed: $(tail -n 1 "$T/perf.data.log")"
		return
	fi
	if ! run_timeout 120 "$REC" -e cpu-clock:u -F 1000 -o "$T/p.amber" -- \
		"$T/bin/workload" --work 60 >/dev/null 2>"$T/p.err"; then
		fail report_vs_perf "amber-rec failed: $(tail -n 1 "$T/p.err")"
		return
	fi
	"$ANA" report --no-children --sort sym "$T/p.amber" >"$T/p.txt" 2>/dev/null
	perf report -i "$T/perf.data" --stdio --no-children --sort sym -n 2>/dev/null >"$T/perf.txt"
	ours=$(top "$T/p.txt" 5 | sort | tr '\n' ' ')
	theirs=$(top "$T/perf.txt" 5 | sort | tr '\n' ' ')
	na=$(awk '/^# Samples:/ { print $3; exit }' "$T/p.txt")
	# perf report -n: "OVERHEAD SAMPLES [.] SYM" rows, summed.
	np=$(awk '$1 ~ /%$/ { n += $2 } END { print n + 0 }' "$T/perf.txt")
	# Two runs of the same program: every symbol of either top five has
	# the same share in both but for the sampling noise of two runs, 5
	# sigma of the two sample counts (sqrt(p (100 - p) (1/na + 1/np))),
	# and 1 point for what differs between two runs of the same work
	# (cache and frequency effects on the parts' relative cost).  The sets
	# must be equal, except for a tail near-tie: a symbol below 5% in both
	# that one tool ranks fifth and the other sixth.
	for s in $(printf '%s\n' $ours $theirs | sort -u); do
		a=$(pct "$T/p.txt" "$s")
		p=$(pct "$T/perf.txt" "$s")
		if ! awk -v a="$a" -v p="$p" -v na="$na" -v np="$np" 'BEGIN { d = a - p; if (d < 0) d = -d
			m = (a + p) / 2; if (na <= 0 || np <= 0) exit 1
			exit !(d <= 5 * sqrt(m * (100 - m) * (1 / na + 1 / np)) + 1) }'; then
			fail report_vs_perf "$s: amber $a% of $na samples, perf $p% of $np (beyond 5 sigma + 1 point)"
			return
		fi
		case " $ours " in *" $s "*) in_ours=1 ;; *) in_ours=0 ;; esac
		case " $theirs " in *" $s "*) in_theirs=1 ;; *) in_theirs=0 ;; esac
		if [ $in_ours != $in_theirs ] && ! awk -v a="$a" -v p="$p" 'BEGIN { exit !(a < 5 && p < 5) }'; then
			fail report_vs_perf "top five differ: amber '$ours', perf '$theirs' ($s: $a% / $p%)"
			return
		fi
	done
	ok report_vs_perf
	# The very same samples: perf's recording imported.  Self shares of
	# the workload's own functions equal perf report's to the printed
	# hundredth.
	if ! "$ANA" import "$T/perf.data" -o "$T/perf.amber" >"$T/imp.log" 2>&1; then
		fail report_vs_perf_same "import failed: $(tail -n 1 "$T/imp.log")"
		return
	fi
	"$ANA" report --no-children --sort sym "$T/perf.amber" >"$T/pi.txt" 2>/dev/null
	for s in hot_a hot_b run_mix worker_main; do
		a=$(pct "$T/pi.txt" "$s")
		p=$(pct "$T/perf.txt" "$s")
		if [ "$a" != "$p" ]; then
			fail report_vs_perf_same "$s: amber $a%, perf $p% on the same samples"
			return
		fi
	done
	ok report_vs_perf_same
}

if setup; then
	t_self_order
	t_children
	t_srcline
	t_inline
	t_kernel
	t_moved
	t_stale
	t_filters_json
	t_perf
fi
finish
