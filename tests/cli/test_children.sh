#!/bin/sh
# tests/cli/test_children.sh - report --children on recordings with
# recursion (build/programs/recurse: descend calls itself 6 deep), with
# frame pointers and with DWARF unwinding.
#
#   children_bounded_{fp,dwarf}: amber-rec's recordings; a function on the
#     stack several times in one sample counts once for it, so no entry's
#     Children passes 100% and none is below its Self; and the Children
#     and Self shares of the program's functions are those counted from
#     script's call chains, sample by sample, each function once a sample.
#     (Not "descend + flat <= run": a sample taken in the prologue or
#     epilogue of descend or flat follows the frame pointer of run's
#     frame and misses run, so the frame-pointer chains need not nest.)
#   children_vs_perf_{fp,dwarf}: perf record of the same program, imported:
#     on the very same samples the Children and Self shares of the
#     program's functions equal those of perf report --children.
#   graph_vs_perf_{fp,dwarf}: ...and the call graphs under the program's
#     functions are perf's, frame by frame, with and without --children,
#     caller and callee, and with --sort sym.
. "$(dirname "$0")/lib.sh"

FUNCS="burn descend flat run main"
# bounded() checks the outermost frames too (__libc_start_call_main ends
# the frame-pointer chains, _start the DWARF ones).
OUTER="__libc_start_call_main _start"

# shares FILE: "SYM CHILDREN SELF" for each user-space row of a
# report --children --sort sym table (amber's or perf's: both end in
# "[.] SYM" and begin with the two percentages).
shares() {
	awk '$1 ~ /%$/ && $(NF - 1) == "[.]" { c = $1; s = $2; sub("%", "", c); sub("%", "", s); print $NF, c, s }' "$1"
}

# bounded NAME FILE AMBER: every row of the report FILE has SELF <=
# CHILDREN <= 100, and its shares for $FUNCS $OUTER are those
# chain_shares (lib.sh) counts in AMBER's chains (within the report's rounding to 0.01; a
# function in no chain has no row).
bounded() {
	_bad=$(awk '$1 ~ /%$/ { c = $1; s = $2; sub("%", "", c); sub("%", "", s);
		if (c + 0 > 100 || s + 0 > c + 0) print $NF " " c "% (self " s "%)" }' "$2" | head -n 3 | tr '\n' ';')
	if [ -n "$_bad" ]; then
		fail "$1" "entries over 100% or under their self share: $_bad"
		return
	fi
	shares "$2" >"$T/bounded.rep"
	# shellcheck disable=SC2086 # the function names are words
	chain_shares "$3" $FUNCS $OUTER >"$T/bounded.cnt"
	_diff=""
	for _f in $FUNCS $OUTER; do
		_r=$(awk -v f="$_f" '$1 == f { print $2, $3 }' "$T/bounded.rep")
		_c=$(awk -v f="$_f" '$1 == f { print $2, $3 }' "$T/bounded.cnt")
		[ -z "$_r" ] && [ "$_c" = "0.0000 0.0000" ] && continue
		[ -n "$_r" ] && [ -n "$_c" ] &&
			awk -v r="$_r" -v c="$_c" 'BEGIN { split(r, a, " "); split(c, b, " ")
				d1 = a[1] - b[1]; d2 = a[2] - b[2]
				exit !(d1 <= 0.0051 && d1 >= -0.0051 && d2 <= 0.0051 && d2 >= -0.0051) }' ||
			_diff="$_diff $_f: report '$_r' chains '$_c';"
	done
	if [ -n "$_diff" ]; then
		fail "$1" "children/self shares differ from the chains':$_diff"
	else
		ok "$1"
	fi
}

# graph_lines FILE: "ENTRY<TAB>LINE" for each line of the call graphs
# under the entries of $FUNCS in a report FILE (amber's or perf's --stdio),
# sorted, each line's "|" made blank: two branches of exactly equal weight
# may come in either order (perf orders them by symbol address), which
# moves them and the pipes to their left; every frame keeps its column,
# its percentage and whether it branches or goes straight on.
graph_lines() {
	awk -v funcs=" $FUNCS " '
		/^#/ { next }
		/^ +[0-9.]+%/ { key = $1 " " $NF; keep = index(funcs, " " $NF " ") > 0; next }
		/^ *$/ { next }
		keep { l = $0; gsub(/\|/, " ", l); sub(/ +$/, "", l); print key "\t" l }' "$1" | sort
}

# graphs_same NAME PERF.DATA FILE.amber: the call graphs of graph_lines()
# in perf report and amber's report, in each mode.
graphs_same() {
	_bad=
	for _mode in "--children" "--no-children" "--children -g callee" "--no-children -g caller" \
		     "--children --sort sym"; do
		# shellcheck disable=SC2086 # the mode is words
		perf report -i "$2" --stdio --no-inline $_mode >"$T/g.perf" 2>/dev/null
		# shellcheck disable=SC2086
		"$ANA" report --no-inline $_mode "$3" >"$T/g.amber" 2>/dev/null
		graph_lines "$T/g.perf" >"$T/g.perf.l"
		graph_lines "$T/g.amber" >"$T/g.amber.l"
		if [ "$(grep -c -- '--[0-9.]*%--' "$T/g.perf.l")" = 0 ]; then
			_bad="$_bad $_mode: no branch in perf's graphs;"
		elif ! cmp -s "$T/g.perf.l" "$T/g.amber.l"; then
			_bad="$_bad $_mode: $(diff "$T/g.perf.l" "$T/g.amber.l" | grep '^[<>].*[^ ]$' | head -n 4 | tr '\t\n' ' ');"
		fi
	done
	if [ -n "$_bad" ]; then
		fail "$1" "call graphs differ from perf report's (< perf, > amber):$_bad"
	else
		ok "$1"
	fi
}

# amber_children MODE: record recurse with amber-rec, check the bounds.
amber_children() {
	if [ "$1" = fp ]; then
		set -- fp -g -- "$PROG/recurse"
	else
		set -- dwarf --call-graph dwarf -- "$PROG/recurse-nofp"
	fi
	_m=$1
	shift
	if ! run_timeout 120 "$REC" -e cpu-clock -F 999 -o "$T/$_m.amber" "$@" >"$T/$_m.out" 2>"$T/$_m.err"; then
		fail "children_bounded_$_m" "amber-rec failed: $(tail -n 1 "$T/$_m.err")"
		return
	fi
	"$ANA" report --children -g none --sort sym --percent-limit 0 "$T/$_m.amber" >"$T/$_m.txt" 2>"$T/$_m.rerr" ||
		{ fail "children_bounded_$_m" "report failed: $(tail -n 1 "$T/$_m.rerr")"; return; }
	bounded "children_bounded_$_m" "$T/$_m.txt" "$T/$_m.amber"
}

# perf_children MODE: perf record, import, compare with perf report.
perf_children() {
	need_perf "children_vs_perf_$1" || return
	if [ "$1" = fp ]; then
		set -- fp -g -- "$PROG/recurse"
	else
		set -- dwarf --call-graph dwarf -- "$PROG/recurse-nofp"
	fi
	_m=$1
	shift
	if ! perf_record "$T/p$_m.data" -e cpu-clock -F 999 "$@"; then
		fail "children_vs_perf_$_m" "perf record failed: $(tail -n 1 "$T/p$_m.data.log")"
		return
	fi
	if ! "$ANA" import "$T/p$_m.data" -o "$T/p$_m.amber" >"$T/p$_m.imp" 2>&1; then
		fail "children_vs_perf_$_m" "import failed: $(tail -n 1 "$T/p$_m.imp")"
		return
	fi
	perf report -i "$T/p$_m.data" --children --stdio --sort sym -g none >"$T/p$_m.perf" 2>"$T/p$_m.perf.err"
	"$ANA" report --children -g none --sort sym --percent-limit 0 "$T/p$_m.amber" >"$T/p$_m.txt" 2>/dev/null
	shares "$T/p$_m.perf" | sort >"$T/p$_m.perf.s"
	shares "$T/p$_m.txt" | sort >"$T/p$_m.amber.s"
	# Both tools read the same samples (and, with DWARF, unwind the same
	# stack copies with the program's CFI): equal shares, no tolerance.
	_diff=""
	for _f in $FUNCS; do
		_p=$(awk -v f="$_f" '$1 == f { print $2, $3 }' "$T/p$_m.perf.s")
		_a=$(awk -v f="$_f" '$1 == f { print $2, $3 }' "$T/p$_m.amber.s")
		[ -n "$_p" ] && [ "$_p" = "$_a" ] || _diff="$_diff $_f: perf '$_p' amber '$_a';"
	done
	if [ -n "$_diff" ]; then
		fail "children_vs_perf_$_m" "children/self shares differ:$_diff (perf report: $(tail -n 2 "$T/p$_m.perf.err" | tr '\n' ' '); import: $(grep -v '^amber-analyze: import: [0-9/]' "$T/p$_m.imp" | head -n 3 | tr '\n' ' '))"
		[ -n "$AMB_KEEP_FAILED" ] && cp -r "$T" "$AMB_KEEP_FAILED"
	else
		ok "children_vs_perf_$_m"
	fi
	bounded "children_bounded_import_$_m" "$T/p$_m.txt" "$T/p$_m.amber"
	graphs_same "graph_vs_perf_$_m" "$T/p$_m.data" "$T/p$_m.amber"
}

need_root children || finish
need_rec children || finish
need_ana children || finish
need_file children "$PROG/recurse" || finish
need_file children "$PROG/recurse-nofp" || finish
amber_children fp
amber_children dwarf
perf_children fp
perf_children dwarf
finish
