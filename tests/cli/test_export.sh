#!/bin/sh
# tests/cli/test_export.sh - `amber-analyze export` read by the real
# consumers: go tool pprof (-top, -traces, -raw) agrees with `report` on
# the top self functions and their shares, on the stacks, and shows the
# build-ids and inline frames; speedscope's own importers, in headless
# Chromium (tests/browser/load_speedscope.sh), load the speedscope and
# Chrome trace-event files with the expected profile names, frame counts
# and total weights; the perf script text, collapsed with the logic of
# FlameGraph's stackcollapse-perf.pl, gives `flame --folded`'s stacks.
. "$(dirname "$0")/lib.sh"

W=$PROG/workload

# The recordings: the workload with call graphs (user space only, so that
# every frame resolves through its ELF), and one with sched_switch too.
make_recordings() {
	run_timeout 120 "$REC" -e cpu-clock:u -F 999 -g -o "$T/fp.amber" -- "$W" --work 60 \
		>/dev/null 2>"$T/rec.log" || { fail export_record "$(tail -n 2 "$T/rec.log")"; return 1; }
	run_timeout 120 "$REC" -e cpu-clock:u -F 999 -g -o "$T/mix.amber" -- "$W" --work 60 --mix 5,3,0 \
		>/dev/null 2>"$T/rec.log" || { fail export_record "$(tail -n 2 "$T/rec.log")"; return 1; }
	if tracefs_dir >/dev/null; then
		run_timeout 120 "$REC" -e cpu-clock -e sched:sched_switch -F 999 -g -o "$T/tp.amber" -- \
			"$W" --work 20 --sleep-ms 10 >/dev/null 2>"$T/rec.log" ||
			{ fail export_record "$(tail -n 2 "$T/rec.log")"; return 1; }
	fi
	return 0
}

# "function share" of every function with >= 2% self, sorted by name.
test_pprof() {
	need_cmd pprof go || return 0
	"$ANA" export --format pprof -o "$T/fp.pb.gz" "$T/fp.amber" 2>"$T/exp.log" ||
		{ fail pprof_export "$(cat "$T/exp.log")"; return 0; }
	if [ "$(od -An -tx1 -N2 "$T/fp.pb.gz" | tr -d ' ')" != 1f8b ]; then
		fail pprof_export "not gzip-compressed"
		return 0
	fi
	ok pprof_export
	# -noinlines: inlined functions count for the function they are in, as in report.
	go tool pprof -top -noinlines -nodecount=1000 "$T/fp.pb.gz" 2>"$T/pprof.err" |
		awk 'f && $2 ~ /%$/ { p = $2; sub("%", "", p); n = $6; for (i = 7; i <= NF; i++) n = n " " $i;
		     if (p + 0 >= 2) print n, p } / flat%/ { f = 1 }' | sort >"$T/pprof.top"
	"$ANA" report --no-children --sort sym "$T/fp.amber" 2>/dev/null |
		awk '$1 ~ /%$/ { p = $1; sub("%", "", p); if (p + 0 >= 2) print $NF, p }' | sort >"$T/report.top"
	if [ -s "$T/report.top" ] && cmp -s "$T/pprof.top" "$T/report.top"; then
		ok pprof_top
	else
		fail pprof_top "pprof | report: $(paste -d'|' "$T/pprof.top" "$T/report.top" | tr '\n' ' ') $(head -c 300 "$T/pprof.err")"
	fi
	# -traces: the set of stacks (root first, with the command) is flame's.
	go tool pprof -traces -noinlines "$T/fp.pb.gz" 2>/dev/null | awk '
		/^-+\+/ { if (s != "") print c ";" s; s = ""; c = ""; next }
		$1 == "comm:" { c = $2; next }
		$1 ~ /:$/ { next }
		NF >= 2 && $1 ~ /[0-9](ns|us|ms|s)$/ { s = $0; sub(/^ *[^ ]+ +/, "", s); next }
		NF >= 1 && s != "" { f = $0; sub(/^ +/, "", f); s = f ";" s }
		END { if (s != "") print c ";" s }' | sort -u >"$T/pprof.stacks"
	"$ANA" flame --folded --no-inline "$T/fp.amber" 2>/dev/null | sed 's/ [0-9]*$//' | sort -u >"$T/flame.stacks"
	if [ -s "$T/flame.stacks" ] && cmp -s "$T/pprof.stacks" "$T/flame.stacks"; then
		ok pprof_traces
	else
		fail pprof_traces "stacks differ: $(diff "$T/pprof.stacks" "$T/flame.stacks" | head -n 6 | tr '\n' ' ')"
	fi
	go tool pprof -raw "$T/fp.pb.gz" >"$T/pprof.raw" 2>/dev/null
	bid=$("$ANA" buildids "$T/fp.amber" 2>/dev/null | awk '$NF ~ /\/workload$/ { print $1; exit }')
	if [ -n "$bid" ] && sed -n '/^Mappings/,$p' "$T/pprof.raw" | grep "workload" | grep -q "$bid"; then
		ok pprof_buildid
	else
		fail pprof_buildid "build-id '$bid' of workload not in pprof's mappings: $(sed -n '/^Mappings/,$p' "$T/pprof.raw" | head -n 3 | tr '\n' ' ')"
	fi
	# mix_inline is inlined into hot_b: one location, two lines.
	if go tool pprof -top -nodecount=1000 "$T/fp.pb.gz" 2>/dev/null | grep -q 'mix_inline (inline)' &&
	   grep -A1 ' mix_inline ' "$T/pprof.raw" | grep -q '^  *hot_b '; then
		ok pprof_inline
	else
		fail pprof_inline "no mix_inline (inline) frame inside hot_b"
	fi
	for l in pid tid comm; do
		grep -q "^ *$l:" "$T/pprof.traces" 2>/dev/null ||
			go tool pprof -traces "$T/fp.pb.gz" 2>/dev/null >"$T/pprof.traces"
	done
	if grep -q '^ *comm:  *worker-0' "$T/pprof.traces" && grep -q '^ *tid:' "$T/pprof.traces" &&
	   go tool pprof -raw "$T/fp.pb.gz" 2>/dev/null | grep -q 'PeriodType: cpu nanoseconds'; then
		ok pprof_labels
	else
		fail pprof_labels "labels or period type missing"
	fi
}

# C++ and Rust names (testdata/programs/cxxnames): a pprof Function's name is
# demangled, as report shows it, and its system_name is the ELF symbol's,
# which go tool pprof -raw prints in parentheses when the two differ; with
# --no-demangle both are the ELF's.  -symbolize=none: pprof shows the file
# as it is (it demangles a name equal to its system_name by itself).
test_pprof_mangled() {
	need_cmd pprof_mangled go || return 0
	need_file pprof_mangled "$PROG/cxxnames" || return 0
	run_timeout 120 "$REC" -e cpu-clock:u -F 999 -g -o "$T/cxx.amber" -- "$PROG/cxxnames" \
		>/dev/null 2>"$T/rec.log" || { fail pprof_mangled "$(tail -n 2 "$T/rec.log")"; return 0; }
	"$ANA" export -f pprof -o "$T/cxx.pb.gz" "$T/cxx.amber" 2>/dev/null &&
		go tool pprof -raw -symbolize=none "$T/cxx.pb.gz" >"$T/cxx.raw" 2>/dev/null
	"$ANA" export -f pprof --no-demangle -o "$T/cxx-raw.pb.gz" "$T/cxx.amber" 2>/dev/null &&
		go tool pprof -raw -symbolize=none "$T/cxx-raw.pb.gz" >"$T/cxx-raw.raw" 2>/dev/null
	bad=
	grep -q ' ns::Box<long>::spin .*(_ZNK2ns3BoxIlE4spinEl' "$T/cxx.raw" || bad="$bad ns::Box<long>::spin"
	grep -q ' mycrate::tick .*(_RNvCs1234_7mycrate4tick)' "$T/cxx.raw" || bad="$bad mycrate::tick"
	grep -q ' _ZNK2ns3BoxIlE4spinEl[.a-z0-9]* ' "$T/cxx-raw.raw" || bad="$bad --no-demangle"
	if grep -q ' _ZNK2ns3BoxIlE4spinEl.*(' "$T/cxx-raw.raw"; then
		bad="$bad --no-demangle system_name differs"
	fi
	if [ -z "$bad" ]; then
		ok pprof_mangled
	else
		fail pprof_mangled "not as expected in go tool pprof -raw:$bad: $(grep -E 'spin|tick' "$T/cxx.raw" | head -n 3 | tr '\n' ' ')"
	fi
}

# expected_speedscope JSON: what speedscope should import from our file.
expected_speedscope() {
	python3 - "$1" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for p in d["profiles"]:
    frames = {f for s in p["samples"] for f in s}
    print("profile %s\tframes %d\tweight %d\tunit %s" % (p["name"], len(frames), sum(p["weights"]), p["unit"]))
PY
}

# expected_chrome JSON: speedscope names a thread "proc (pid P), thread
# (tid T)", weighs samples by the time to the next one (microseconds) and
# keys frames by name and category.
expected_chrome() {
	python3 - "$1" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
procs = {e["pid"]: e["args"]["name"] for e in d["traceEvents"] if e["ph"] == "M" and e["name"] == "process_name"}
thr = {(e["pid"], e["tid"]): e["args"]["name"] for e in d["traceEvents"] if e["ph"] == "M" and e["name"] == "thread_name"}
sf = d["stackFrames"]
by = {}
for s in d["samples"]:
    by.setdefault((s["pid"], s["tid"]), []).append(s)
for (pid, tid), ss in sorted(by.items()):
    keys = set()
    for i, s in enumerate(ss):
        # A sample weighs the time to the next one: the last weighs 0, and
        # speedscope keeps no frame of a sample without weight.
        if i + 1 == len(ss) or ss[i + 1]["ts"] <= s["ts"]:
            continue
        n = s.get("sf")
        while n:
            keys.add((sf[n]["name"], sf[n]["category"]))
            n = sf[n].get("parent")
    w = ss[-1]["ts"] - ss[0]["ts"]
    print("profile %s (pid %d), %s (tid %d)\tframes %d\tweight %.3f" % (procs[pid], pid, thr[(pid, tid)], tid, len(keys), w))
PY
}

test_speedscope() {
	need_cmd speedscope chromium || return 0
	need_cmd speedscope node || return 0
	"$ANA" export --format speedscope -o "$T/fp.speedscope.json" "$T/fp.amber" 2>"$T/exp.log" ||
		{ fail speedscope_export "$(cat "$T/exp.log")"; return 0; }
	mkdir -p "$B/screenshots"
	sh "$ROOT/tests/browser/load_speedscope.sh" "$T/fp.speedscope.json" "$B/screenshots/speedscope.png" \
		>"$T/ss.out" 2>"$T/ss.err"
	rc=$?
	[ $rc = 2 ] && { skip speedscope "$(cat "$T/ss.err")"; return 0; }
	grep '^profile ' "$T/ss.out" | sort >"$T/ss.got"
	expected_speedscope "$T/fp.speedscope.json" | sort >"$T/ss.want"
	if [ $rc = 0 ] && [ -s "$T/ss.want" ] && cmp -s "$T/ss.got" "$T/ss.want" &&
	   grep -q '^errors 0$' "$T/ss.out" && grep -q '^title .*(pid [0-9]*, tid [0-9]*) (1/' "$T/ss.out"; then
		ok speedscope_loaded
	else
		fail speedscope_loaded "page | expected: $(cat "$T/ss.out" "$T/ss.err" | tr '\n' ' ') | $(tr '\n' ' ' <"$T/ss.want")"
	fi
}

test_chrome() {
	need_cmd chrome chromium || return 0
	need_cmd chrome node || return 0
	f=$T/tp.amber
	[ -s "$f" ] || f=$T/fp.amber
	# Not *.chrome.json: speedscope takes that name for a DevTools timeline.
	"$ANA" export --format chrome -o "$T/trace.json" "$f" 2>"$T/exp.log" ||
		{ fail chrome_export "$(cat "$T/exp.log")"; return 0; }
	if [ "$f" = "$T/tp.amber" ]; then
		if python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); ev=[e for e in d["traceEvents"] if e["ph"]=="i" and e["name"]=="sched:sched_switch"]; sys.exit(not ev or "prev_comm=" not in ev[0]["args"]["trace"])' "$T/trace.json"; then
			ok chrome_tracepoints
		else
			fail chrome_tracepoints "no sched:sched_switch instant events with their payload"
		fi
	fi
	sh "$ROOT/tests/browser/load_speedscope.sh" "$T/trace.json" "$B/screenshots/chrome-trace.png" \
		>"$T/ct.out" 2>"$T/ct.err"
	rc=$?
	[ $rc = 2 ] && { skip chrome_loaded "$(cat "$T/ct.err")"; return 0; }
	grep '^profile ' "$T/ct.out" | awk -F '\t' '{ w = $3; sub("weight ", "", w); printf "%s\t%s\tweight %.3f\n", $1, $2, w }' |
		sort >"$T/ct.got"
	expected_chrome "$T/trace.json" | sort >"$T/ct.want"
	if [ $rc = 0 ] && [ -s "$T/ct.want" ] && cmp -s "$T/ct.got" "$T/ct.want" && grep -q '^errors 0$' "$T/ct.out"; then
		ok chrome_loaded
	else
		fail chrome_loaded "page | expected: $(cat "$T/ct.out" "$T/ct.err" | tr '\n' ' ') | $(tr '\n' ' ' <"$T/ct.want")"
	fi
}

# stackcollapse-perf.pl's logic: the command, then the frames root first,
# "+0x.." offsets stripped, names tidied; one line per stack with its count.
# The export keeps a frame-pointer chain as perf prints it; flame ends one
# that ran on into unmapped addresses ([unknown] frames at its root) at one
# [broken frame-pointer chain] frame (issue 18, item 13): so does this.
collapse_perf() {
	python3 -c '
import re, sys
out, stack, pname = {}, [], None
for line in sys.stdin:
    line = line.rstrip("\n")
    if line.startswith("#"):
        continue
    if line == "":
        n = 0
        while n < len(stack) and stack[n] == "[unknown]":
            n += 1
        if 0 < n < len(stack):
            stack[:n] = ["[broken frame-pointer chain]"]
        if stack:
            k = ";".join([pname or ""] + stack)
            out[k] = out.get(k, 0) + 1
        stack, pname = [], None
        continue
    m = re.match(r"^(\S+\s*?\S*?)\s+(\d+)\s", line)
    if m:
        pname = m.group(1).replace(" ", "_")
        continue
    m = re.match(r"^\s*(\w+)\s*(.+) \((\S*)\)", line)
    if m:
        # A caller frame whose return address starts a symbol: perf-script
        # names that symbol, flame the caller (README): marked, for
        # same_folded to match it with any name.
        mark = "\x01" if stack and re.search(r"\+0x0$", m.group(2)) else ""
        f = re.sub(r"\+0x[\da-f]+$", "", m.group(2))
        if f.startswith("("):
            continue
        f = f.replace(";", ":").replace("<", "").replace(">", "")
        if not re.search(r"\.\(.*\)\.", f):
            f = re.sub(r"\(.*", "", f)
        f = f.replace("\"", "").replace("\x27", "")
        stack.insert(0, mark + f)
for k in sorted(out):
    print(k, out[k])
'
}

# same_folded COLLAPSED FOLDED: the same stacks with the same counts, a
# frame collapse_perf marked matching any one frame.  Prints what differs.
same_folded() {
	python3 -c '
import re, sys
def load(path):
    d = {}
    for line in open(path, encoding="utf-8", errors="replace"):
        k, c = line.rstrip("\n").rsplit(" ", 1)
        d[k] = d.get(k, 0) + int(c)
    return d
coll, fold, bad = load(sys.argv[1]), load(sys.argv[2]), []
marked = {k: c for k, c in coll.items() if "\x01" in k}
for k, c in coll.items():
    if k in marked:
        continue
    if fold.get(k, 0) < c:
        bad.append("perf-script %s %d, flame %d" % (k, c, fold.get(k, 0)))
    else:
        fold[k] -= c
for k, c in marked.items():
    rx = re.compile("^" + ";".join("[^;]+" if f.startswith("\x01") else re.escape(f)
                                   for f in k.split(";")) + "$")
    for fk in fold:
        if c and fold[fk] and rx.match(fk):
            n = min(c, fold[fk])
            fold[fk] -= n
            c -= n
    if c:
        bad.append("perf-script %s: %d not in flame" % (k.replace("\x01", "?"), c))
bad += ["flame %s %d more" % (k, c) for k, c in fold.items() if c]
print("\n".join(bad[:6]))
sys.exit(1 if bad else 0)
' "$1" "$2"
}

test_perf_script_collapse() {
	"$ANA" export --format perf-script "$T/mix.amber" 2>"$T/exp.log" | collapse_perf >"$T/collapsed" ||
		{ fail perf_script_collapse "$(cat "$T/exp.log")"; return 0; }
	"$ANA" flame --folded --no-inline "$T/mix.amber" 2>/dev/null | sort >"$T/folded"
	if [ -s "$T/folded" ] && same_folded "$T/collapsed" "$T/folded" >"$T/folded.diff"; then
		ok perf_script_collapse
	else
		fail perf_script_collapse "$(tr '\n' ' ' <"$T/folded.diff")"
	fi
}

test_errors() {
	"$ANA" export "$T/fp.amber" >/dev/null 2>"$T/err.log"
	rc1=$?
	"$ANA" export --format svg "$T/fp.amber" >/dev/null 2>"$T/err2.log"
	rc2=$?
	if [ $rc1 = 2 ] && grep -q 'no --format' "$T/err.log" && [ $rc2 = 2 ] &&
	   grep -q "bad value 'svg' for --format: formats: pprof, speedscope, chrome, perf-script" "$T/err2.log"; then
		ok export_usage
	else
		fail export_usage "$rc1 $rc2: $(cat "$T/err.log" "$T/err2.log")"
	fi
	# The usual filters apply.
	n_all=$("$ANA" export -f perf-script "$T/fp.amber" 2>/dev/null | grep -c 'cpu-clock')
	n_w0=$("$ANA" export -f perf-script --comm worker-0 "$T/fp.amber" 2>/dev/null | grep -c 'cpu-clock')
	n_w0b=$("$ANA" export -f perf-script "$T/fp.amber" 2>/dev/null | grep -c '^worker-0 ')
	if [ "$n_w0" -gt 0 ] && [ "$n_w0" -lt "$n_all" ] && [ "$n_w0" = "$n_w0b" ]; then
		ok export_filters
	else
		fail export_filters "--comm worker-0 kept $n_w0 of $n_all samples, $n_w0b expected"
	fi
}

need_rec export && need_ana export && make_recordings && {
	test_pprof
	test_pprof_mangled
	test_speedscope
	test_chrome
	test_perf_script_collapse
	test_errors
}
finish
