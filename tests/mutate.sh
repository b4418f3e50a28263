#!/bin/sh
# tests/mutate.sh - does the test suite notice when the code is wrong?
#
#   sh tests/mutate.sh [NAME...]        (make mutate: all of them)
#   AMB_MUTATE_ALL=1 sh tests/mutate.sh  runs every test listed for each
#                                        mutation, not only up to the first
#                                        that kills it
#
# Each mutation below breaks one thing the tests claim to check, the way a
# plausible bug would (an offset off by one byte, a boundary moved, a
# check skipped).  For each one this script
#   1. copies the working tree (tracked files as they are now, with their
#      times, and the build directory) to a scratch directory, once;
#   2. applies the mutation there with sed, and fails if it no longer
#      changes the file (the code moved: update the mutation);
#   3. builds what its tests need (only the mutated file recompiles);
#   4. runs its tests in order - unit:DIR/BINARY (killed when it exits
#      non-zero), cli:SCRIPT (killed when it prints a FAIL line) or
#      cli:SCRIPT:NAME (killed when test NAME fails) - and stops at the
#      first that kills it;
#   5. puts the file back.
# It prints a table "mutation -> killing test" and exits 1 if a mutation
# survives every test listed for it, or cannot be applied.  Not part of
# `make test`: it takes a few minutes, needs root for the CLI tests that
# record, and perf for the cross-checks.
cd "$(dirname "$0")/.." || exit 2
ROOT=$(pwd)
B=${AMB_BUILD:-build}
ONLY="$*"
S=$(mktemp -d "${TMPDIR:-/tmp}/amber-mutate.XXXXXX") || exit 2
trap 'rm -rf "$S"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# --- the scratch copy -------------------------------------------------------------
[ -x "$B/amber-analyze" ] || { echo "mutate: build first (make all unit tools programs)"; exit 2; }
echo "mutate: copying the tree to $S/tree"
mkdir -p "$S/tree"
git ls-files -z | tar --null --verbatim-files-from --no-recursion -T - -cf - |
	(cd "$S/tree" && tar -xpf -) || exit 2
# The build directory, without the fuzz targets nothing here runs.
(cd "$B" && tar -cf - --exclude=./fuzz .) | (mkdir -p "$S/tree/build" && cd "$S/tree/build" && tar -xpf -) || exit 2
T=$S/tree

results=""
survivors=0

# run_test TEST: 0 if TEST passes on the mutated tree, 1 if it kills the
# mutation (its first FAIL line, or the unit test's failure, in $KILL_WHY).
run_test() {
	case $1 in
	unit:*)
		_bin=$T/build/tests/unit/${1#unit:}
		(cd "$T" && "$_bin") >"$S/out" 2>&1 && return 0
		KILL_WHY=$(grep -m 1 '^\[  FAILED  \] [a-z]' "$S/out" | sed 's/^\[  FAILED  \] //')
		[ -n "$KILL_WHY" ] || KILL_WHY="exit status $?"
		return 1 ;;
	cli:*:*)
		# Only a FAIL of the named test counts: a failure elsewhere (a
		# perf that crashed) is not what this mutation is about.
		_s=${1#cli:}
		_n=${_s#*:}
		(cd "$T" && AMB_BUILD=$T/build sh "tests/cli/${_s%%:*}") >"$S/out" 2>&1
		grep -q "^FAIL $_n[:]*\( \|\$\)" "$S/out" || return 0
		KILL_WHY=$(grep -m 1 "^FAIL $_n" "$S/out" | sed 's/^FAIL //' | cut -c1-70)
		return 1 ;;
	cli:*)
		(cd "$T" && AMB_BUILD=$T/build sh "tests/cli/${1#cli:}") >"$S/out" 2>&1
		grep -q '^FAIL ' "$S/out" || return 0
		KILL_WHY=$(grep -m 1 '^FAIL ' "$S/out" | sed 's/^FAIL //' | cut -c1-70)
		return 1 ;;
	esac
	echo "mutate: unknown test '$1'" >&2
	return 0
}

# mutation NAME FILE SED-SCRIPT TESTS: apply, build, test, restore.
mutation() {
	_name=$1 _file=$2 _sed=$3 _tests=$4
	if [ -n "$ONLY" ] && ! printf ' %s ' "$ONLY" | grep -q " $_name "; then
		return
	fi
	cp -p "$T/$_file" "$S/orig"
	sed -i "$_sed" "$T/$_file"
	if cmp -s "$T/$_file" "$S/orig"; then
		results="$results
$_name|NOT APPLIED: the sed script no longer changes $_file|"
		survivors=$((survivors + 1))
		return
	fi
	_targets=""
	for _t in $_tests; do
		case $_t in
		unit:*) _targets="$_targets build/tests/unit/${_t#unit:}" ;;
		cli:*) _targets="$_targets all tools programs static" ;;
		esac
	done
	# shellcheck disable=SC2086 # a list of targets
	if ! make -C "$T" -s -j2 $_targets >"$S/build.log" 2>&1; then
		results="$results
$_name|killed by the build: $(grep -m 1 'error' "$S/build.log" | cut -c1-60)|"
		echo "mutate: $_name: does not build (a mutation should compile): $(grep -m 1 error "$S/build.log")"
		survivors=$((survivors + 1))
	else
		_killer=""
		for _t in $_tests; do
			if ! run_test "$_t"; then
				_killer="${_killer:+$_killer; }$_t ($KILL_WHY)"
				[ -n "$AMB_MUTATE_ALL" ] || break
			elif [ -n "$AMB_MUTATE_ALL" ]; then
				_killer="${_killer:+$_killer; }$_t (passed)"
			fi
		done
		# With AMB_MUTATE_ALL every test listed runs: killed when any did.
		printf '%s' "$_killer" | grep -qv '^\([^;]*(passed);\? *\)*$' || _killer=""
		if [ -n "$_killer" ]; then
			results="$results
$_name|$_killer|"
			echo "mutate: $_name: killed by $_killer"
		else
			survivors=$((survivors + 1))
			results="$results
$_name|SURVIVED $_tests|"
			echo "mutate: $_name: SURVIVED $_tests"
		fi
	fi
	# Back as it was, and newer than what was built from the mutant.
	cp "$S/orig" "$T/$_file"
	touch "$T/$_file"
}

# --- the mutations ------------------------------------------------------------------
# The breaks of issue 20 first, then others of the same kind.

# script's sym+off of a caller frame (a return address, looked up one byte
# back) shifted by that byte, for user symbols and for kernel symbols.
mutation symoff_user analyze/resolve/machine.c \
	's/loc->offset = loc->sym->offset + (addr - lookup_addr);/loc->offset = loc->sym->offset;/' \
	"cli:test_import.sh:script_symoff"
mutation symoff_kernel analyze/resolve/machine.c \
	's/loc->offset += addr - lookup_addr;/loc->offset += 0;/' \
	"unit:analyze/test_report_core"
# --children counts a recursive frame once per occurrence.
mutation children_per_occurrence analyze/cmd/cmd_report.c \
	's/if (e->stamp == r->stamp)/if (e->stamp == r->stamp \&\& 0)/' \
	"unit:analyze/test_report_core cli:test_children.sh:children_bounded_dwarf"
# The outermost callchain frame dropped.
mutation outermost_frame_dropped analyze/resolve/stackwalk.c \
	's/for (i = 0; i < s->nr_callchain; i++) {/for (i = 0; i + 1 < s->nr_callchain; i++) {/' \
	"unit:analyze/test_report_core"
# The build-id reader never finds the note.
mutation buildid_never_found record/buildid.c \
	's/if (elf_kind(elf) != ELF_K_ELF)/if (elf_kind(elf) == ELF_K_ELF || 1)/' \
	"unit:record/test_synthesize"
# The sample codec's time delta decoded off by one.
mutation codec_time_delta format/codec_sample_dec.c \
	's/v = time_pred(c) + unzz64(v);/v = time_pred(c) + unzz64(v) + 1;/' \
	"unit:format/test_codec"
# report reuses what it made of a chain the codec named for another thread.
mutation chain_memo_any_thread analyze/cmd/report.h \
	's/if (!same_thread || cm->cpu != smp->cpu/if ((!same_thread \&\& 0) || cm->cpu != smp->cpu/' \
	"cli:test_codec.sh:codec_threads"
# --time's end no longer included.
mutation time_filter_end analyze/resolve/filter.c \
	's/if (time >= f->t_start\[i\] \&\& time <= f->t_end\[i\])/if (time >= f->t_start[i] \&\& time < f->t_end[i])/' \
	"unit:analyze/test_report_core"
# --time's start no longer included.
mutation time_filter_start analyze/resolve/filter.c \
	's/if (time >= f->t_start\[i\] \&\& time <= f->t_end\[i\])/if (time > f->t_start[i] \&\& time <= f->t_end[i])/' \
	"unit:analyze/test_report_core"
# The writer compresses at level 1 whatever it is asked: files stay valid
# and read the same, only their bytes change.
mutation writer_zstd_level_ignored format/writer.c \
	's/data, len, w->opts.zstd_level);/data, len, 1);/' \
	"cli:test_golden.sh:golden_mkgolden"
# report's entries sorted the wrong way round.
mutation sort_reversed analyze/cmd/report_print.c \
	's/return wx > wy ? -1 : 1;/return wx > wy ? 1 : -1;/' \
	"unit:analyze/test_report_core"
# The writer's threads write each block as soon as it is encoded, not in
# its turn: the blocks come out of append order.
mutation writer_no_turn format/writer.c \
	's/	while (job->order != w->next_emit)/	while (0)/' \
	"unit:format/test_writer unit:format/test_codec"
# A RING block encoded by a background thread without the sample layout
# an EVENT_ATTR block appended before it gave.
mutation writer_layout_not_passed format/writer.c \
	's/		job->layout = w->have_layout;/		job->layout = false;/' \
	"unit:format/test_codec"
# A block's payload checksum never compared.
mutation payload_checksum_unchecked format/load.c \
	's/if (computed != h.payload_checksum) {/if (0 \&\& computed != h.payload_checksum) {/' \
	"unit:format/test_golden cli:test_info_verify.sh:verify_invalid_payload_checksum"
# LOST records no longer counted.
mutation lost_count_dropped analyze/replay/session.c \
	's/st->lost += rec->u.lost.lost;/st->lost += 0;/' \
	"cli:test_info_verify.sh:info_swapped_lost"
# Holm's correction multiplies by one too few.
mutation holm_off_by_one analyze/view/stats.c \
	's/fmin(1.0, (double)(n - i) \* p\[order\[i\]\])/fmin(1.0, (double)(n - i - 1) * p[order[i]])/' \
	"unit:analyze/test_stats unit:analyze/test_report_core"
# --comm ignored.
mutation comm_filter_ignored analyze/resolve/filter.c \
	's/if (f->comms \&\& !str_in(f->comms, ana_thread_comm(t)))/if (0 \&\& f->comms \&\& !str_in(f->comms, ana_thread_comm(t)))/' \
	"unit:analyze/test_report_core"
# The children of the outermost frame: --children walks all but the last.
mutation children_skip_outermost analyze/cmd/cmd_report.c \
	's/for (unsigned k = leaf; k < r->nr_frames; k++) {/for (unsigned k = leaf; k + 1 < r->nr_frames; k++) {/' \
	"unit:analyze/test_report_core cli:test_children.sh"
# The codec's room for a branch stack computed as a product that wraps.
mutation codec_branch_room_wraps format/codec_sample_dec.c \
	's/ROOM_N(d, \&w, n, 24);/ROOM(d, \&w, 24 * n);/' \
	"unit:format/test_codec_hostile"
# A number column's two streams not checked against each other on load.
mutation codec_column_counts_unchecked format/codec_sample_dec.c \
	's/if (!number_column_ok(\&d->col\[k\]))/if (0 \&\& !number_column_ok(\&d->col[k]))/' \
	"unit:format/test_codec"
# verify no longer counts a RING or SYNTH payload's records.
mutation verify_record_count_unchecked format/verify.c \
	's/else if (count != bi->record_count)/else if (0 \&\& count != bi->record_count)/' \
	"unit:format/test_verify unit:format/test_codec"
# libdwfl's rules, made from the sorted table, without "the closer start
# wins": a function's name where a symbol nested in it starts.
mutation sym_closer_start_ignored analyze/resolve/symbols.c \
	's/if (!best || best->start < s->start || best->bind < s->bind)/if (!best || best->bind < s->bind)/' \
	"unit:analyze/test_sym_ranges"
# A thread-local symbol, which libdwfl never names, taken for code.
mutation sym_tls_kept analyze/resolve/symbols.c \
	's/type == STT_SECTION || type == STT_FILE || type == STT_TLS/type == STT_SECTION || type == STT_FILE/' \
	"unit:analyze/test_sym_ranges"
# perf's choice among functions at one start without "non-weak first".
mutation perf_alias_weak_first analyze/resolve/symbols.c \
	's/	if ((a->bind == RANK_WEAK) != (b->bind == RANK_WEAK))/	if (0)/' \
	"unit:analyze/test_sym_ranges cli:test_import.sh:script_user"
# ... or perf's choice where it ends before the address.
mutation perf_alias_past_end analyze/resolve/symbols.c \
	's/if (!named || best == named || best->end <= addr)/if (!named || best == named)/' \
	"unit:analyze/test_sym_ranges"
# Of kernel aliases the first in the text shown, not perf's (the last).
mutation ksym_first_alias analyze/resolve/ksyms.c \
	's/^\tif (offset)$/\twhile (i > 0 \&\& k->syms[i - 1].addr == s->addr) s = \&k->syms[--i];\n\tif (offset)/' \
	"unit:analyze/test_ksyms"
# perf-script export printing a frame's ELF address, not its place in the
# file (a non-PIE executable's frames 0x400000 off).
mutation perfscript_elf_address analyze/view/export_perfscript.c \
	's/	return ana_map_file_offset(loc->map, loc->addr);/	return loc->kind == ANA_LOC_SYM || loc->kind == ANA_LOC_NO_SYM ? loc->vaddr : ana_map_file_offset(loc->map, loc->addr);/' \
	"cli:test_import.sh:script_static"
# The old image forgotten at the exec: a sample inside execve loses its
# user frame (__GI___execve in the old libc).
mutation pre_exec_dropped analyze/resolve/machine.c \
	's/		if (p->nr) {/		if (0) {/' \
	"unit:analyze/test_machine cli:test_import.sh:script_exec"
# An inline chain cut to its innermost level, as dwarf_getscopes() gave it
# (leaf without mid).
mutation inline_innermost_only analyze/resolve/symbols.c \
	's/^\t\t\tf = \&chain\[n++\];$/\t\t\tn = 0;\n\t\t\tf = \&chain[n++];/' \
	"unit:analyze/test_symbols"
# An inlined function named by DW_AT_name where it has a linkage name
# (_Fork, where addr2line says __GI__Fork).
mutation inline_name_not_linkage analyze/resolve/symbols.c \
	's/^\t\treturn shown_name(c, name);$/\t\tname = NULL;/' \
	"unit:analyze/test_symbols"
# A PLT stub's GOT slot read one byte short: no stub named.
mutation plt_slot_off_by_one analyze/resolve/plt.c \
	's/\*slot = addr + p + 6 + /*slot = addr + p + 5 + /' \
	"unit:analyze/test_plt"
# An ifunc's stub (IRELATIVE) named by objdump's *ABS* form, not the ifunc.
mutation plt_ifunc_unnamed analyze/resolve/plt.c \
	's/: name_at ? name_at(ctx, e->ifunc) : NULL;/: 0 \&\& name_at ? name_at(ctx, e->ifunc) : NULL;/' \
	"unit:analyze/test_plt"
# archive --mini drops the GLOB_DAT relocations that name .plt.got stubs.
mutation mini_drops_glob_dat analyze/resolve/elfmini.c \
	's/if ((type == R_X86_64_JUMP_SLOT || type == R_X86_64_GLOB_DAT ||/if ((type == R_X86_64_JUMP_SLOT ||/' \
	"unit:analyze/test_plt"
# import takes a kallsyms table without checking it is of the recorded boot.
mutation import_kallsyms_boot_unchecked analyze/replay/perfdata_import.c \
	's/if (k.found \&\& (at = kallsyms_addr(text, len, k.sym)) != k.addr) {/if (0 \&\& k.found \&\& (at = kallsyms_addr(text, len, k.sym)) != k.addr) {/' \
	"cli:test_import.sh:import_kallsyms_moved"
# A big buffer's last 2 MiB gets a huge page for a few bytes.
mutation big_tail_huge common/util.c \
	's|if (want - huge >= BIG_ALIGN / 16)|if (want - huge >= 1)|' \
	"unit:common/test_common"
# A payload's buffers grown block by block again, not made for the largest.
mutation payload_no_reserve_ahead format/load.c \
	's/if (need >= AMB_BIG_MIN \&\& largest > need \&\&/if (0 \&\& largest > need \&\&/' \
	"unit:format/test_reader"
# C++ and Rust names shown as the ELF spells them, demangling or not.
mutation names_not_demangled analyze/resolve/symbols.c \
	's/	c->no_demangle = d->no_demangle;/	c->no_demangle = true;/' \
	"cli:test_import.sh:import_cxx"
# A C++ PLT stub's NAME@plt passed to the demangler whole (which refuses it).
mutation plt_name_not_demangled analyze/resolve/symbols.c \
	's/		base = strndup(name, len - 4);/		base = NULL;/' \
	"unit:analyze/test_plt"
# pprof's system_name given the shown (demangled) name, not the ELF's.
mutation pprof_system_name_shown analyze/view/export_pprof.c \
	's/		fn->system_name = str_index(pp, f->system_name);/		fn->system_name = fn->name;/' \
	"cli:test_export.sh:pprof_mangled"
# Report keys a symbol by its shown name alone: overloads merge in one row.
mutation overloads_merged analyze/cmd/report_keys.c \
	's/	return f->inlined ? NULL : ana_loc_mangled(&f->loc);/	return NULL;/' \
	"cli:test_import.sh:import_cxx_overloads"
# report --json without the ELF names of demangled symbols.
mutation json_mangled_missing analyze/cmd/report_print.c \
	's/	if (!p || hidden == end)$/	if (!p || hidden == end || p)/' \
	"cli:test_import.sh:import_cxx_json_mangled"

# The call graph names a demangled symbol by its shown name: overloads are
# one caller.
mutation overload_callers_merged analyze/cmd/cmd_report.c \
	's/	canon = ana_intern(&r->strings, raw);/	canon = ana_intern(\&r->strings, shown);/' \
	"cli:test_import.sh:import_cxx_callgraph"
# A single child drawn straight on though some paths end at its parent.
mutation graph_straight_partial analyze/cmd/report_print.c \
	's/nr_all == 1 \&\& n->parent \&\& n->period == n->parent->period/nr_all == 1/' \
	"cli:test_children.sh:graph_vs_perf_dwarf"
# --children: the sample's own entry shows only its own frame, not how it
# was reached.
mutation graph_self_callers_dropped analyze/cmd/cmd_report.c \
	's/children\[i\] == self ? UINT_MAX : pos\[i\]/pos[i]/' \
	"cli:test_children.sh:graph_vs_perf_fp"
# --children: ties of equal children by name, not caller before callee.
mutation children_ties_by_name analyze/cmd/report_print.c \
	's/	if (sort_ctx->children \&\& sort_ctx->callgraph \&\& x->tid == y->tid \&\&/	if (0 \&\& x->tid == y->tid \&\&/' \
	"cli:test_import.sh:import_fp_order"
# Branches of equal weight in the order they came, not perf's (higher
# symbol address first).
mutation branch_ties_unordered analyze/cmd/report_print.c \
	's/	return x->order == y->order ? 0 : x->order > y->order ? -1 : 1;/	return 0;/' \
	"cli:test_golden.sh:golden_report_tp"
# A user-mode address with the top bit set taken for the kernel's.
mutation user_garbage_is_kernel analyze/resolve/machine.c \
	's/	if (cpumode == PERF_RECORD_MISC_USER || cpumode == PERF_RECORD_MISC_GUEST_USER)/	if (0)/' \
	"unit:analyze/test_machine"

# --- the table ----------------------------------------------------------------------
echo
printf '%-28s %s\n' mutation "killed by"
printf '%s\n' "$results" | awk -F'|' 'NF >= 2 { printf "%-28s %s\n", $1, $2 }'
echo
if [ "$survivors" != 0 ]; then
	echo "mutate: $survivors mutation(s) survived or could not be applied"
	exit 1
fi
echo "mutate: every mutation was killed"
