#!/bin/sh
# tests/cli/test_mem.sh - memory samples (issue 15): node attribution,
# remote accesses, weights and data sources on synthetic recordings of two
# and four NUMA nodes (build/tools/mkmemsynth, whose comment says what each
# holds), the errors for what a recording lacks, topology, and on this
# machine page faults of build/programs/memtouch recorded with -d
# --phys-data: every data address in the buffer the code touched, named by
# its data object, every physical address in a recorded range.
. "$(dirname "$0")/lib.sh"

MKMEM=$B/tools/mkmemsynth
MEM='cpu/mem-loads,ldlat=30/P'

# py NAME CODE FILE: run python3 CODE with the JSON of FILE as `d`; it
# prints "ok" or what is wrong.
py() {
	_r=$(python3 -c "import json,sys
d = json.load(open(sys.argv[1]))
$2" "$3" 2>&1)
	if [ "$_r" = ok ]; then ok "$1"; else fail "$1" "$_r"; fi
}

synth_setup() {
	need_ana mem_synth || return 1
	need_file mem_synth "$MKMEM" || return 1
	need_cmd mem_synth python3 || return 1
	"$MKMEM" "$T/s2.amber" && "$MKMEM" --nodes 4 "$T/s4.amber" &&
		"$MKMEM" --no-phys "$T/s0.amber" || { fail mkmemsynth; return 1; }
}

# Two nodes: per node, local and remote, weights and their percentiles.
t_synth_mem() {
	"$ANA" mem --json "$T/s2.amber" >"$T/m2.json" || { fail mem_synth_runs; return; }
	py mem_synth_nodes '
n = {x["node"]: x for x in d["nodes"]}
want = {0: (40, 20, 20, 347.5, 100), 1: (80, 40, 40, 322.5, 200)}
bad = [k for k, (s, l, r, a, p) in want.items()
       if (n[k]["samples"], n[k]["local"], n[k]["remote"], n[k]["avg_weight"], n[k]["pct_weight"]) != (s, l, r, a, p)]
if bad or n[None]["samples"] != 20 or d["header"]["samples"] != 140 or d["header"]["skipped"] != 8:
    print("nodes", d["nodes"], d["header"])
else:
    print("ok")' "$T/m2.json"
	py mem_synth_matrix '
m = {(x["cpu_node"], x["mem_node"]): x["samples"] for x in d["matrix"]}
print("ok" if m == {(0, 0): 20, (0, 1): 40, (0, None): 10, (1, 0): 20, (1, 1): 40, (1, None): 10} else m)' "$T/m2.json"
	py mem_synth_levels '
l = {x["level"]: x["samples"] for x in d["levels"]}
print("ok" if l == {"RAM hit": 60, "Remote node, same socket RAM hit": 60, "L1 hit": 20} else l)' "$T/m2.json"
	py mem_synth_objects '
o = d["objects"]
print("ok" if len(o) == 1 and o[0]["object"] == "[heap]" and o[0]["mapping"] == "[heap]"
      and o[0]["samples"] == 140 and sorted(x["samples"] for x in o[0]["nodes"]) == [20, 40, 80]
      else o)' "$T/m2.json"
	"$ANA" mem --json --percentile 100 "$T/s2.amber" >"$T/m2p.json" &&
		py mem_synth_percentile '
n = {x["node"]: x["pct_weight"] for x in d["nodes"]}
print("ok" if n == {0: 10000, 1: 10000, None: 5} else n)' "$T/m2p.json"
	"$ANA" mem "$T/s2.amber" >"$T/m2.txt" 2>&1 &&
		grep -q '^  1                80   57.14%         40         40          0        322.5          200$' "$T/m2.txt" &&
		ok mem_synth_text || fail mem_synth_text "$(head -12 "$T/m2.txt")"
}

# report's node and remote keys agree with the same counts.
t_synth_report() {
	"$ANA" report -e "$MEM" --sort node,remote --json "$T/s2.amber" >"$T/r2.json" ||
		{ fail report_node_remote "exit $?"; return; }
	py report_node_remote '
e = {(x["node"], x["remote"]): x["samples"] for x in d["events"][0]["entries"]}
print("ok" if e == {("0", "local"): 20, ("0", "remote"): 20, ("1", "local"): 40,
                    ("1", "remote"): 40, ("unknown", "unknown"): 20} else e)' "$T/r2.json"
	"$ANA" report -e "$MEM" --sort mem,snoop,tlb,locked,blocked --json "$T/s2.amber" >"$T/r2m.json" &&
		py report_mem_keys '
e = {(x["mem"], x["snoop"], x["tlb"], x["locked"], x["blocked"]): x["samples"] for x in d["events"][0]["entries"]}
print("ok" if e == {("RAM hit", "Hit", "N/A", "No", "N/A"): 60,
                    ("Remote node, same socket RAM hit", "Hit", "N/A", "No", "N/A"): 60,
                    ("L1 hit", "None", "N/A", "No", "N/A"): 20} else e)' "$T/r2m.json"
	"$ANA" report -e "$MEM" --sort local_weight,weight --json "$T/s2.amber" >"$T/r2w.json" &&
		py report_weight_keys '
e = {x["local_weight"]: (x["samples"], x["weight"]) for x in d["events"][0]["entries"]}
print("ok" if e == {"10000": (2, "20000"), "200": (79, "15800"), "100": (39, "3900"), "5": (20, "100")} else e)' "$T/r2w.json"
	"$ANA" report -e "$MEM" --sort symbol_daddr,dso_daddr,phys_daddr --json "$T/s2.amber" >"$T/r2d.json" &&
		py report_daddr_keys '
e = d["events"][0]["entries"]
ok = all(x["symbol_daddr"] == "[.] [heap]" and x["dso_daddr"] == "[heap]" for x in e)
# 10 + 20 addresses in the nodes, 0, and two in no range
print("ok" if ok and sum(x["samples"] for x in e) == 140 and len(e) == 33 else e[:3])' "$T/r2d.json"
}

# Four nodes, two ranges each but one: every edge of the interleaving.
t_synth_four() {
	"$ANA" mem --json "$T/s4.amber" >"$T/m4.json" || { fail mem_four_nodes "exit $?"; return; }
	py mem_four_nodes '
n = {x["node"]: (x["samples"], x.get("local"), x.get("remote")) for x in d["nodes"]}
m = {(x["cpu_node"], x["mem_node"]): x["samples"] for x in d["matrix"]}
want = {(c, k): 10 for c in range(4) for k in range(4)}
want.update({(c, None): 2 for c in range(4)})
print("ok" if n == {0: (40, 10, 30), 1: (40, 10, 30), 2: (40, 10, 30), 3: (40, 10, 30),
                    None: (8, None, None)} and m == want else (n, m))' "$T/m4.json"
	"$ANA" report -e "$MEM" --sort node --json "$T/s4.amber" >"$T/r4.json" &&
		py report_four_nodes '
e = {x["node"]: x["samples"] for x in d["events"][0]["entries"]}
print("ok" if e == {"0": 40, "1": 40, "2": 40, "3": 40, "unknown": 8} else e)' "$T/r4.json"
	"$ANA" topology --json "$T/s4.amber" >"$T/t4.json" &&
		py topology_four_nodes '
n = d["nodes"]
ok = [x["node"] for x in n] == [0, 1, 2, 3] and n[3]["distance"] == [21, 21, 21, 10]
ok = ok and [len(x["ranges"]) for x in n] == [2, 2, 1, 2] and n[2]["ranges"][0] == {"start": "0x80000000", "end": "0xc0000000"}
ok = ok and n[1]["hugepages"] == [{"size_kb": 2048, "total": 16, "free": 1}] and n[3]["cpus"] == "6-7"
ok = ok and d["memory_block_size"] == 134217728 and len(d["cpus"]) == 8 and len(d["packages"]) == 4
c = {(x["level"], x["type"]): x["instances"] for x in d["caches"]}
print("ok" if ok and c == {(1, "Data"): 8, (3, "Unified"): 4} else d)' "$T/t4.json"
	"$ANA" topology "$T/s4.amber" >"$T/t4.txt"
	if grep -q '^  3        21    21    21    10$' "$T/t4.txt" &&
		grep -q '^  2       0x80000000-0xc0000000 ' "$T/t4.txt" && ! grep -q '^  several' "$T/t4.txt"; then
		ok topology_text
	else
		fail topology_text "$(head -30 "$T/t4.txt")"
	fi
}

# data_src as perf script prints it, and its fields in JSON.
t_synth_script() {
	"$ANA" script -e "$MEM" -F cpu,data_src "$T/s2.amber" >"$T/s2.txt" || { fail script_data_src; return; }
	n=$(grep -c '103a00202042 |OP LOAD|LVL Remote node, same socket RAM hit|SNP Hit|TLB N/A|LCK No|BLK  N/A' "$T/s2.txt")
	l=$(grep -c '1a00201042 |OP LOAD|LVL RAM hit|SNP Hit|TLB N/A|LCK No|BLK  N/A' "$T/s2.txt")
	if [ "$n" = 60 ] && [ "$l" = 60 ]; then ok script_data_src; else fail script_data_src "$n remote, $l local lines"; fi
	"$ANA" script -e "$MEM" --json -F data_src,phys_addr,weight "$T/s2.amber" | head -1 >"$T/s2.json" &&
		py script_data_src_json '
m = d["mem"]
print("ok" if (m["op"], m["level"], m["snoop"], m["remote"], m["hops"], d["weight"]) ==
      ("LOAD", "RAM hit", "Hit", False, 0, 10000) and d["phys_addr"] == "0x1040" else d)' "$T/s2.json"
}

# What a recording does not hold is an error naming the option.
t_errors() {
	"$ANA" report --sort node "$T/s0.amber" >/dev/null 2>"$T/e0" && fail node_without_phys "exit 0" ||
		{ grep -q "sort key 'node' needs the samples' physical addresses.*record with --phys-data" "$T/e0" &&
			ok node_without_phys || fail node_without_phys "$(cat "$T/e0")"; }
	"$ANA" report -e cpu-clock --sort mem "$T/s2.amber" >/dev/null 2>"$T/e1" && fail mem_key_without_src "exit 0" ||
		{ grep -q "event 'cpu-clock' of .* has none: record with -d" "$T/e1" &&
			ok mem_key_without_src || fail mem_key_without_src "$(cat "$T/e1")"; }
	"$ANA" report -e "$MEM" --sort weight "$T/s2.amber" >/dev/null 2>&1 && ok weight_key ||
		fail weight_key
	"$ANA" mem "$T/s0.amber" >"$T/m0.txt" 2>&1 && grep -q 'record with --phys-data' "$T/m0.txt" &&
		ok mem_without_phys || fail mem_without_phys "$(head -5 "$T/m0.txt")"
	"$ANA" mem -e cpu-clock "$T/s2.amber" >/dev/null 2>"$T/e2" && fail mem_no_memory_samples "exit 0" ||
		{ grep -q 'has no memory samples.*record with -d' "$T/e2" && ok mem_no_memory_samples ||
			fail mem_no_memory_samples "$(cat "$T/e2")"; }
}

# amber-rec mem here: what this machine lacks, named.
t_rec_mem() {
	need_rec rec_mem || return
	if ls /sys/bus/event_source/devices/*/events/mem-loads /sys/bus/event_source/devices/ibs_op \
		/sys/bus/event_source/devices/arm_spe_* >/dev/null 2>&1; then
		skip rec_mem_none "this machine has a memory-sampling PMU"
		return
	fi
	"$REC" mem -o "$T/mem.amber" -- true >/dev/null 2>"$T/rm.err"
	rc=$?
	if [ $rc = 125 ] && grep -q 'no PMU of this machine samples memory accesses' "$T/rm.err" &&
		grep -q 'ibs_op' "$T/rm.err" && grep -q 'arm_spe' "$T/rm.err" &&
		grep -q 'page-faults -c 1 -d --phys-data' "$T/rm.err" && [ ! -e "$T/mem.amber" ]; then
		ok rec_mem_none
	else
		fail rec_mem_none "exit $rc: $(cat "$T/rm.err")"
	fi
}

# Page faults of memtouch: real data and physical addresses.
t_memtouch() {
	need_root memtouch || return
	need_rec memtouch || return
	need_file memtouch "$PROG/memtouch" || return
	need_cmd memtouch python3 || return
	if ! run_timeout 60 "$REC" -e page-faults -c 1 -d --phys-data -o "$T/mt.amber" -- \
		"$PROG/memtouch" >"$T/mt.ranges" 2>"$T/mt.log"; then
		skip memtouch "cannot record page faults here: $(tail -n 1 "$T/mt.log")"
		return
	fi
	"$ANA" script -F tid,sym,addr,phys_addr --json "$T/mt.amber" >"$T/mt.jsonl" 2>/dev/null &&
		"$ANA" topology --json "$T/mt.amber" >"$T/mt.topo" || { fail memtouch_analyze; return; }
	# The data address of every fault in touch_X is in buffer X, but the
	# first fetch of a code page (its own address, in the text).
	_r=$(python3 -c '
import json, sys
r = {}
for line in open(sys.argv[1]):
    k, a, b = line.split()
    r[k] = (int(a, 16), int(b, 16))
seen = {"global": 0, "heap": 0, "stack": 0}
bad = []
for line in open(sys.argv[2]):
    s = json.loads(line)
    sym = s["callchain"][0].get("sym", "") if s.get("callchain") else ""
    if not sym.startswith("touch_"):
        continue
    buf = sym[6:]
    a = int(s["addr"], 16)
    if r[buf][0] <= a < r[buf][1]:
        seen[buf] += 1
    elif not (r["text"][0] <= a < r["text"][1]):
        bad.append((sym, hex(a)))
print("ok" if not bad and all(seen.values()) else (bad[:5], seen))' "$T/mt.ranges" "$T/mt.jsonl")
	[ "$_r" = ok ] && ok memtouch_addresses || fail memtouch_addresses "$_r"
	# Every physical address the kernel gave is in a recorded range.
	_r=$(python3 -c '
import json, sys
t = json.load(open(sys.argv[2]))
ranges = [(int(x["start"], 16), int(x["end"], 16)) for n in t["nodes"] for x in n["ranges"]]
phys = [int(json.loads(l)["phys_addr"], 16) for l in open(sys.argv[1])]
known = [p for p in phys if p]
out = [hex(p) for p in known if not any(a <= p < b for a, b in ranges)]
print("ok" if known and ranges and not out else (len(known), len(ranges), out[:5]))' "$T/mt.jsonl" "$T/mt.topo")
	[ "$_r" = ok ] && ok memtouch_phys_in_ranges || fail memtouch_phys_in_ranges "$_r"
	# dso_daddr and symbol_daddr name the buffer each function touched.
	"$ANA" report --sort sym,symbol_daddr,dso_daddr --sym touch_global,touch_heap,touch_stack \
		--json "$T/mt.amber" >"$T/mt.rep" 2>/dev/null || { fail memtouch_objects "report failed"; return; }
	py memtouch_objects '
want = {"touch_global": ("[.] memtouch_global", "memtouch"),
        "touch_heap": ("[.] [heap]", "[heap]"), "touch_stack": ("[.] [stack]", "[stack]")}
found, bad = set(), []
for e in d["events"][0]["entries"]:
    obj = (e["symbol_daddr"], e["dso_daddr"])
    if obj == want[e["sym"]]:
        found.add(e["sym"])
    elif not (e["dso_daddr"] == "memtouch" and e["symbol_daddr"].startswith("[.] touch_")):
        bad.append((e["sym"], obj, e["samples"]))     # not even a code fetch
print("ok" if found == set(want) and not bad else (sorted(found), bad))' "$T/mt.rep"
	# node: every sample with a physical address has the only node, 0;
	# the others are unknown, none guessed.
	"$ANA" report --sort node --json "$T/mt.amber" >"$T/mt.node" 2>/dev/null &&
		_r=$(python3 -c '
import json, sys
phys = [int(json.loads(l)["phys_addr"], 16) for l in open(sys.argv[1])]
t = json.load(open(sys.argv[3]))
e = {x["node"]: x["samples"] for x in json.load(open(sys.argv[2]))["events"][0]["entries"]}
nodes = len(t["nodes"])
want = {"0": sum(1 for p in phys if p), "unknown": sum(1 for p in phys if not p)}
print("ok" if nodes != 1 or e == want else (e, want))' "$T/mt.jsonl" "$T/mt.node" "$T/mt.topo")
	[ "$_r" = ok ] && ok memtouch_node || fail memtouch_node "$_r"
	"$ANA" mem --json "$T/mt.amber" >"$T/mt.mem" 2>/dev/null &&
		py memtouch_mem '
o = {x["object"]: x for x in d["objects"]}
need = ["memtouch_global", "[heap]", "[stack]"]
ok = all(n in o for n in need) and o["memtouch_global"]["mapping"] == "memtouch"
ok = ok and o["memtouch_global"]["code"][0]["sym"] == "touch_global"
print("ok" if ok else list(o)[:8])' "$T/mt.mem"
}

# -p with -d: the data mappings of a running process are synthesized too.
t_attach_data_maps() {
	need_root attach_data_maps || return
	need_rec attach_data_maps || return
	need_file attach_data_maps "$PROG/spinner" || return
	bg_start "$T/spin.pid" "$PROG/spinner" --seconds 20
	pid=$(wait_for_line "$T/spin.pid" 10) || { fail attach_data_maps "spinner did not start"; return; }
	run_timeout 30 "$REC" -e cpu-clock -d -p "$pid" --duration 0.5 -o "$T/att.amber" \
		>/dev/null 2>&1 || { fail attach_data_maps "amber-rec failed"; return; }
	"$ANA" dump "$T/att.amber" >"$T/att.txt" 2>/dev/null
	if grep -q 'MMAP2(synth) .* rw- .*\[stack\]$' "$T/att.txt" &&
		grep -q 'MMAP2(synth) .* rw- .*//anon$' "$T/att.txt"; then
		ok attach_data_maps
	else
		fail attach_data_maps "$(grep 'MMAP2(synth)' "$T/att.txt" | head -5)"
	fi
	kill "$pid" 2>/dev/null
}

# Beside perf 6.1, on the same page faults of memtouch: the attr amber-rec
# opens for -d --phys-data -W --data-page-size has perf's memory bits; the
# perf.data imported prints perf script's data addresses, physical
# addresses, weights and page sizes; then, with each sample's data_src
# and weight rewritten to kernel encodings no PMU here gives (every op,
# level, snoop, snoopx, lock, TLB and block bit; lvl_num stays 0: perf 6.1
# predates its printing), perf script's data_src text and perf report
# --mem-mode's counts per mem,snoop,tlb,locked,blocked and per
# data_page_size,local_weight,weight are amber's.
t_perf_cross() {
	need_root perf_mem_cross || return
	need_rec perf_mem_cross || return
	need_file perf_mem_cross "$PROG/memtouch" || return
	need_perf perf_mem_cross || return
	_opts="-e page-faults -c 1 -d --phys-data -W --data-page-size"
	# perf 6.1 now and then dies in its build-id code when another
	# recorder's MMAP2 flags reach its records: recorded again.
	_try=0
	until run_timeout 60 perf record -q -N -B $_opts -o "$T/pm.data" -- "$PROG/memtouch" \
		>/dev/null 2>"$T/pm.log" && perf evlist -v -i "$T/pm.data" >"$T/pm.attr" 2>&1 &&
		perf script -i "$T/pm.data" -F tid >/dev/null 2>&1; do
		_try=$((_try + 1))
		[ $_try = 3 ] && { fail perf_mem_cross "perf failed 3 times: $(tail -n 2 "$T/pm.log")"; return; }
	done
	run_timeout 60 "$REC" $_opts -o "$T/am.amber" -- "$PROG/memtouch" >/dev/null 2>&1 &&
		"$ANA" info "$T/am.amber" >"$T/am.info" || { fail perf_mem_attr "amber-rec failed"; return; }
	_p=$(tr ',' '\n' <"$T/pm.attr" | sed -n 's/^ *sample_type: //p' | tr '|' '\n' |
		grep -E '^(ADDR|DATA_SRC|PHYS_ADDR|DATA_PAGE_SIZE|WEIGHT|WEIGHT_STRUCT)$' | sort | tr '\n' ' ')
	_a=$(sed -n 's/.*sample_type \([A-Z_|]*\).*/\1/p' "$T/am.info" | tr '|' '\n' |
		grep -E '^(ADDR|DATA_SRC|PHYS_ADDR|DATA_PAGE_SIZE|WEIGHT|WEIGHT_STRUCT)$' | sort | tr '\n' ' ')
	if [ -n "$_p" ] && [ "$_p" = "$_a" ] && grep -q 'mmap_data: 1' "$T/pm.attr"; then
		ok perf_mem_attr
	else
		fail perf_mem_attr "perf: $_p | amber: $_a"
	fi
	# Rewrite data_src and weight in a copy; perf.data's layout: header,
	# the attr (sample_type at 24), the data section of records.
	python3 - "$T/pm.data" "$T/pw.data" >"$T/pw.n" 2>&1 <<'EOF' || { fail perf_mem_cross "rewrite: $(cat "$T/pw.n")"; return; }
import struct, sys
def ds(op=0, lvl=0, snoop=0, lock=0, tlb=0, snoopx=0, blk=0):
    return op | lvl << 5 | snoop << 19 | lock << 24 | tlb << 26 | snoopx << 38 | blk << 40
VALUES = [ds(op=2, lvl=0x8 | 0x2, snoop=2, lock=1, tlb=0x8 | 0x2, blk=1),
          ds(op=2, lvl=0x10 | 0x2, snoop=8, lock=2, tlb=0x10 | 0x4 | 0x20),
          ds(op=4, lvl=0x20 | 0x4, snoop=0x10, lock=1, tlb=0x40 | 0x2),
          ds(op=2, lvl=0x100 | 0x2, snoop=4, blk=2),
          ds(op=2, lvl=0x800 | 0x2, snoop=0x10, snoopx=1, blk=6),
          ds(op=8, lvl=0x40 | 0x4, snoop=1, tlb=1),
          ds(op=0x10, lvl=0x1000 | 0x2),
          ds(op=2, lvl=0x8 | 0x20 | 0x2, snoop=2 | 4, tlb=2 | 8 | 0x10),
          ds(op=2, lvl=0x2000 | 0x2, lock=2, blk=1),
          ds(op=2 | 4, lvl=0x80 | 0x4, snoop=2),
          ds(op=1, lvl=1, snoop=1, lock=1, tlb=1),
          ds(op=2, lvl=0x200 | 0x2, snoop=4, tlb=4 | 0x40),
          ds(op=2, lvl=0x400 | 0x4), 0]
d = bytearray(open(sys.argv[1], "rb").read())
a_off, a_size, d_off, d_size = struct.unpack_from("<QQQQ", d, 24)
st = struct.unpack_from("<Q", d, a_off + 24)[0]
# IP TID TIME ADDR, WEIGHT_STRUCT, DATA_SRC, PHYS_ADDR, DATA_PAGE_SIZE
assert st == 0x1 | 0x2 | 0x4 | 0x8 | 0x1000000 | 0x8000 | 0x80000 | 0x400000, hex(st)
o, n = d_off, 0
while o < d_off + d_size:
    t, misc, sz = struct.unpack_from("<IHH", d, o)
    if sz == 0:
        break
    if t == 9:
        struct.pack_into("<QQ", d, o + 40, 100 * (n % 5) + 3, VALUES[n % len(VALUES)])
        n += 1
    o += sz
open(sys.argv[2], "wb").write(d)
print(n)
EOF
	for _f in pm pw; do
		"$ANA" import "$T/$_f.data" -o "$T/$_f.amber" >/dev/null 2>&1 ||
			{ fail perf_mem_cross "import of $_f.data failed"; return; }
	done
	# Field by field, whitespace aside: the same lines (tid, addr, weight,
	# ip, phys_addr, page size), some physical addresses known.
	_fl=tid,ip,addr,phys_addr,weight,data_page_size
	for _f in pm pw; do
		perf script -i "$T/$_f.data" -F $_fl 2>/dev/null | awk '{ $1 = $1; print }' >"$T/$_f.perf"
		"$ANA" script -F $_fl "$T/$_f.amber" | awk '{ $1 = $1; print }' >"$T/$_f.amb"
	done
	if [ -s "$T/pm.perf" ] && cmp -s "$T/pm.perf" "$T/pm.amb" && cmp -s "$T/pw.perf" "$T/pw.amb" &&
		[ "$(awk '$5 != 0' "$T/pm.amb" | wc -l)" -gt 0 ]; then
		ok perf_mem_addresses
	else
		fail perf_mem_addresses "$(diff "$T/pm.perf" "$T/pm.amb" | head -4)$(diff "$T/pw.perf" "$T/pw.amb" | head -4)"
	fi
	# data_src: perf cuts its text at 63 characters and pads it; amber
	# prints it whole.
	perf script -i "$T/pw.data" -F data_src 2>/dev/null | sed 's/ *$//' >"$T/pw.ds.perf"
	"$ANA" script -F data_src "$T/pw.amber" | sed 's/ *$//' >"$T/pw.ds.amb"
	_r=$(python3 -c '
import sys
p = open(sys.argv[1]).read().splitlines()
a = open(sys.argv[2]).read().splitlines()
bad = [(x, y) for x, y in zip(p, a) if not y.startswith(x)]
print("ok" if len(p) == len(a) and len(set(p)) == 14 and not bad else (len(p), len(a), bad[:3]))' \
		"$T/pw.ds.perf" "$T/pw.ds.amb")
	[ "$_r" = ok ] && ok perf_mem_data_src || fail perf_mem_data_src "$_r"
	# The heap's samples: perf resolves a sample's data address at its
	# time, in the maps of its mode; amber in the thread's maps: user-mode
	# heap writes are the same samples.  (The .bss past the file's pages
	# perf calls anon, amber by its symbol; README.md says so.)
	perf report -i "$T/pm.data" --mem-mode --stdio -q --sort symbol_daddr,dso_daddr \
		-F sample,symbol_daddr,dso_daddr -t '|' >"$T/pm.obj.perf" 2>/dev/null
	_p=$(awk -F'|' '$3 ~ /^\[heap\] *$/ && $2 ~ /^\[\.\]/ { n += $1 } END { print n + 0 }' "$T/pm.obj.perf")
	_a=$("$ANA" report --sort dso_daddr --json "$T/pm.amber" | python3 -c '
import json, sys
print(sum(e["samples"] for e in json.load(sys.stdin)["events"][0]["entries"] if e["dso_daddr"] == "[heap]"))')
	if [ "$_p" -gt 0 ] && [ "$_p" = "$_a" ]; then ok "perf_mem_heap ($_p samples)"; else fail perf_mem_heap "perf $_p, amber $_a"; fi
	# Samples per key (weight: their sum), as perf report --mem-mode has them.
	for _k in mem,snoop,tlb,locked,blocked data_page_size,local_weight,weight; do
		perf report -i "$T/pw.data" --mem-mode --stdio -q --sort $_k -F sample,$_k -t '|' \
			>"$T/pw.rep.perf" 2>/dev/null
		"$ANA" report --sort $_k --json "$T/pw.amber" >"$T/pw.rep.json"
		_r=$(python3 -c '
import json, sys
keys = sys.argv[3].split(",")
p = {}
for line in open(sys.argv[1]):
    f = [x.strip() for x in line.split("|")]
    if len(f) == len(keys) + 1:
        p[tuple(f[1:])] = p.get(tuple(f[1:]), 0) + int(f[0])
a = {}
for e in json.load(open(sys.argv[2]))["events"][0]["entries"]:
    k = tuple(e[x] for x in keys)
    a[k] = a.get(k, 0) + e["samples"]
print("ok" if len(p) > 1 and p == a else sorted(set(p.items()) ^ set(a.items()))[:4])' \
			"$T/pw.rep.perf" "$T/pw.rep.json" "$_k")
		_n=perf_mem_report_${_k%%,*}
		[ "$_r" = ok ] && ok "$_n" || fail "$_n" "$_r"
	done
}

# The topology amber-rec records here is this machine's sysfs: CPUs,
# distances and memory per node, the memory block size, huge pages of
# each size, and every memory block of a node inside its recorded ranges.
t_topology_here() {
	need_rec topology_here || return
	need_cmd topology_here python3 || return
	[ -d /sys/devices/system/node/node0 ] || { skip topology_here "no /sys/devices/system/node"; return; }
	run_timeout 30 "$REC" -e cpu-clock -o "$T/th.amber" -- true >/dev/null 2>&1 &&
		"$ANA" topology --json "$T/th.amber" >"$T/th.json" || { fail topology_here "record failed"; return; }
	py topology_here '
import glob, os, re
def rd(p):
    return open(p).read().strip()
S = "/sys/devices/system"
bad = []
bs = int(rd(S + "/memory/block_size_bytes"), 16) if os.path.exists(S + "/memory/block_size_bytes") else None
if d.get("memory_block_size") != bs:
    bad.append(("block size", d.get("memory_block_size"), bs))
nodes = {x["node"]: x for x in d["nodes"]}
sysn = sorted(int(re.sub(r"\D", "", os.path.basename(p))) for p in glob.glob(S + "/node/node[0-9]*"))
if sorted(nodes) != sysn:
    bad.append(("nodes", sorted(nodes), sysn))
for n in sysn:
    x, base = nodes.get(n, {}), "%s/node/node%d" % (S, n)
    if x.get("cpus", "") != rd(base + "/cpulist"):
        bad.append((n, "cpus", x.get("cpus"), rd(base + "/cpulist")))
    if x.get("distance") != [int(v) for v in rd(base + "/distance").split()]:
        bad.append((n, "distance", x.get("distance")))
    kb = int(re.search(r"MemTotal:\s+(\d+) kB", rd(base + "/meminfo")).group(1))
    if x.get("mem_total") != kb * 1024:
        bad.append((n, "mem_total", x.get("mem_total"), kb * 1024))
    hp = sorted((int(re.search(r"(\d+)kB", h).group(1)), int(rd(h + "/nr_hugepages")),
                 int(rd(h + "/free_hugepages"))) for h in glob.glob(base + "/hugepages/hugepages-*kB"))
    if sorted((h["size_kb"], h["total"], h["free"]) for h in x.get("hugepages", [])) != hp:
        bad.append((n, "hugepages", x.get("hugepages"), hp))
    r = [(int(y["start"], 16), int(y["end"], 16)) for y in x.get("ranges", [])]
    for m in glob.glob(base + "/memory[0-9]*"):
        i = int(re.sub(r"\D", "", os.path.basename(m)))
        if bs and not any(a <= i * bs and (i + 1) * bs <= b for a, b in r):
            bad.append((n, "block", i, r))
            break
print("ok" if not bad else bad[:4])' "$T/th.json"
}

if synth_setup; then
	t_synth_mem
	t_synth_report
	t_synth_four
	t_synth_script
	t_errors
fi
t_rec_mem
t_memtouch
t_attach_data_maps
t_perf_cross
t_topology_here
finish
