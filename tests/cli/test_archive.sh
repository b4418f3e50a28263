#!/bin/sh
# tests/cli/test_archive.sh - recordings that analyze anywhere (FILE blocks,
# FORMAT.md §5.5): `amber-analyze archive` and `amber-rec --embed`.
#
#  - archive (full and --mini): on "another machine" (a fresh directory,
#    the program binary gone, HOME empty so ~/.debug is not used, --symfs an
#    empty root, which hides every recorded path and /usr/lib/debug of
#    this host as perf's --symfs does) report, script and flame print
#    exactly what they print on the host; without the archive the same
#    run loses the symbols of the program and of libc;
#  - buildids says where each DSO's ELF comes from;
#  - vDSO frames get the vDSO's symbols (__vdso_clock_gettime) from the
#    image --embed stores, and without it from this machine's own vDSO
#    (the same kernel: buildids says "host"), but not with --symfs, which
#    stands for another machine;
#  - a binary rebuilt after recording (another build-id): without
#    embedding its frames are marked stale, with --embed the symbols are
#    right;
#  - archive keeps every block of the input byte for byte (stored
#    payloads copied, not recompressed), then appends FILE blocks.
. "$(dirname "$0")/lib.sh"

SRC=$ROOT/testdata/programs/workload.c
# "Another machine" has no debuginfod server either (Debian's profile may
# point DEBUGINFOD_URLS at a public one, which has libc).
unset DEBUGINFOD_URLS
W=$PROG/workload

# analyze_all DIR FILE [OPTIONS...]: report, script and flame outputs of FILE
# into DIR, run from DIR with HOME=DIR/home and any extra options.
analyze_all() {
	_d=$1
	_f=$2
	shift 2
	mkdir -p "$_d/home"
	(cd "$_d" && HOME=$_d/home "$ANA" report --no-children --sort sym "$@" "$_f" >report.txt 2>report.err)
	(cd "$_d" && HOME=$_d/home "$ANA" report --no-children --sort dso,sym "$@" "$_f" >dso.txt 2>/dev/null)
	(cd "$_d" && HOME=$_d/home "$ANA" script "$@" "$_f" >script.txt 2>script.err)
	if "$ANA" flame --help >/dev/null 2>&1; then
		(cd "$_d" && HOME=$_d/home "$ANA" flame --folded "$@" "$_f" >flame.txt 2>flame.err)
	fi
}

# same NAME HOSTDIR OTHERDIR: the three outputs are identical.
same() {
	for _o in report script flame; do
		[ -e "$2/$_o.txt" ] || continue
		if ! cmp -s "$2/$_o.txt" "$3/$_o.txt"; then
			fail "$1" "$_o output differs: $(diff "$2/$_o.txt" "$3/$_o.txt" | head -n 6 | tr '\n' '|')"
			return 1
		fi
	done
	if ! grep -q 'hot_a' "$3/report.txt"; then
		fail "$1" "no hot_a in the report: the workload's symbols are missing"
		return 1
	fi
	if ! cmp -s "$2/dso.txt" "$3/dso.txt"; then
		fail "$1" "report --sort dso,sym differs: $(diff "$2/dso.txt" "$3/dso.txt" | head -n 6 | tr '\n' '|')"
		return 1
	fi
	ok "$1"
}

# libc_named DIR: some libc.so.6 row of DIR/dso.txt has a symbol name,
# not a bare address.
libc_named() {
	awk '$1 ~ /%$/ && $4 == "libc.so.6" && $6 !~ /^0x/ { f = 1 } END { exit !f }' "$1/dso.txt"
}

setup() {
	need_root archive || return 1
	need_rec archive || return 1
	need_ana archive || return 1
	need_file archive "$W" || return 1
	mkdir -p "$T/bin"
	cp "$W" "$T/bin/workload" || return 1
	if ! (cd "$T/bin" && run_timeout 120 "$REC" -e cpu-clock -F 1000 -g -o "$T/w.amber" -- \
		./workload --work 30) >"$T/rec.log" 2>&1; then
		fail archive_record "amber-rec failed: $(tail -n 1 "$T/rec.log")"
		return 1
	fi
	analyze_all "$T/host" "$T/w.amber"
	grep -q hot_a "$T/host/report.txt" || {
		fail archive_host "the host report has no hot_a: $(head -n 3 "$T/host/report.err")"
		return 1
	}
	libc_named "$T/host" || {
		fail archive_host "the host report names no libc symbol: the control proves nothing: $(grep libc "$T/host/dso.txt" | head -n 2)"
		return 1
	}
	return 0
}

# Analyze FILE where nothing local may be used: binary moved away, empty
# HOME and --symfs root.
elsewhere() {
	_dir=$1
	mkdir -p "$_dir/symfs"
	cp "$2" "$_dir/rec.amber"
	mv "$T/bin/workload" "$T/bin/workload.away"
	analyze_all "$_dir" "$_dir/rec.amber" --symfs "$_dir/symfs"
	mv "$T/bin/workload.away" "$T/bin/workload"
}

t_archive() {
	if ! "$ANA" archive "$T/w.amber" -o "$T/a.amber" >"$T/arch.log" 2>&1; then
		fail archive_runs "$(tail -n 3 "$T/arch.log")"
		return
	fi
	ok archive_runs
	"$ANA" verify "$T/a.amber" >"$T/verify.txt" 2>&1 || fail archive_verifies "$(tail -n 2 "$T/verify.txt")"
	elsewhere "$T/other" "$T/a.amber"
	same archive_elsewhere_identical "$T/host" "$T/other"
	elsewhere "$T/plain" "$T/w.amber"
	# Control: the plain recording, analyzed there, loses the workload and
	# libc: --symfs hides this host's files.
	if grep -q 'hot_a' "$T/plain/report.txt"; then
		fail archive_control "the plain recording found the binary: the test proves nothing"
	elif libc_named "$T/plain"; then
		fail archive_control "--symfs to an empty root still found libc: $(grep libc "$T/plain/dso.txt" | head -n 2)"
	else
		ok archive_control
	fi
}

t_mini() {
	if ! "$ANA" archive --mini "$T/w.amber" -o "$T/m.amber" >"$T/mini.log" 2>&1; then
		fail archive_mini "$(tail -n 3 "$T/mini.log")"
		return
	fi
	elsewhere "$T/mini" "$T/m.amber"
	same archive_mini_identical "$T/host" "$T/mini"
	full=$(wc -c <"$T/a.amber")
	mini=$(wc -c <"$T/m.amber")
	if [ "$mini" -lt "$full" ]; then
		ok archive_mini_smaller
	else
		fail archive_mini_smaller "--mini $mini bytes, full $full bytes"
	fi
}

t_copy() {
	# Every block of the input is in the archive, then FILE blocks.
	"$ANA" dump "$T/w.amber" >"$T/d1.txt" 2>/dev/null
	"$ANA" dump "$T/a.amber" >"$T/d2.txt" 2>/dev/null
	if [ -s "$T/d1.txt" ] && cmp -s "$T/d1.txt" "$T/d2.txt"; then
		ok archive_same_records
	else
		fail archive_same_records "dump of the archive differs from the input's"
	fi
	# Verbatim: the input's blocks end where its INDEX starts (the
	# trailer's first field, FORMAT.md §6); up to there the archive holds
	# the same bytes: file header, block headers (same numbers, codecs,
	# checksums) and stored payloads.
	_size=$(wc -c <"$T/w.amber")
	_idx=$(od -An -tu8 -j $((_size - 24)) -N8 "$T/w.amber" | tr -d ' ')
	if [ -z "$_idx" ] || [ "$_idx" -le 64 ] || [ "$_idx" -ge "$_size" ]; then
		fail archive_verbatim "cannot read the index offset of the input ($_idx)"
	elif cmp -s -n "$_idx" "$T/w.amber" "$T/a.amber"; then
		ok archive_verbatim
	else
		fail archive_verbatim "the first $_idx bytes differ: $(cmp -n "$_idx" "$T/w.amber" "$T/a.amber" 2>&1)"
	fi
}

t_buildids() {
	"$ANA" buildids "$T/a.amber" >"$T/bid.txt" 2>"$T/bid.err"
	"$ANA" buildids "$T/w.amber" >"$T/bid0.txt" 2>/dev/null
	if ! awk '$NF ~ /\/workload$/ && $4 == "embedded" { f = 1 } END { exit !f }' "$T/bid.txt"; then
		fail archive_buildids "workload not listed as embedded: $(cat "$T/bid.txt" "$T/bid.err")"
	elif ! awk '$NF ~ /\/workload$/ && $2 > 0 && $4 == "path" { f = 1 } END { exit !f }' "$T/bid0.txt"; then
		fail archive_buildids "plain recording: workload not found at its path with hits: $(cat "$T/bid0.txt")"
	elif ! awk '$NF == "[vdso]" && $4 == "embedded" { f = 1 } END { exit !f }' "$T/bid.txt"; then
		fail archive_buildids "vDSO not embedded: $(cat "$T/bid.txt")"
	else
		ok archive_buildids
	fi
}

t_stale() {
	need_cmd archive_stale cc || return
	mkdir -p "$T/st"
	cc -std=gnu11 -O2 -g -D_GNU_SOURCE -fno-omit-frame-pointer -pthread \
		-o "$T/st/workload" "$SRC" || { fail archive_stale "cannot build the workload"; return; }
	for m in plain embed; do
		opt=""
		[ $m = embed ] && opt=--embed
		# shellcheck disable=SC2086 # $opt is empty or one word
		(cd "$T/st" && run_timeout 120 "$REC" $opt -e cpu-clock -F 1000 -g -o "$T/st/$m.amber" \
			-- ./workload --work 20) >"$T/st/$m.log" 2>&1 ||
			{ fail archive_stale "recording failed: $(tail -n 1 "$T/st/$m.log")"; return; }
	done
	# Rebuild in place with one more variable: the code moves, and the
	# build-id changes (a -D the source ignores would change neither).
	printf 'int amber_stale_marker[4096] = { 1 };\n' >"$T/st/stale.c"
	cc -std=gnu11 -O2 -g -D_GNU_SOURCE -DSTALE -fno-omit-frame-pointer -pthread \
		-o "$T/st/workload.new" "$T/st/stale.c" "$SRC" &&
		mv "$T/st/workload.new" "$T/st/workload" ||
		{ fail archive_stale "cannot rebuild the workload"; return; }
	"$ANA" report --no-children --sort sym "$T/st/plain.amber" >"$T/st/plain.txt" 2>"$T/st/plain.err"
	"$ANA" report --no-children --sort sym "$T/st/embed.amber" >"$T/st/embed.txt" 2>"$T/st/embed.err"
	if ! grep -q 'build-id' "$T/st/plain.err" || ! grep -q '\[stale build-id\]' "$T/st/plain.txt"; then
		fail archive_stale_plain "no stale warning or marks without embedding: $(head -n 2 "$T/st/plain.err")"
	elif grep -q 'hot_a' "$T/st/plain.txt"; then
		fail archive_stale_plain "symbols were taken from the rebuilt binary"
	else
		ok archive_stale_plain
	fi
	first=$(awk '$1 ~ /%$/ { print $NF }' "$T/st/embed.txt" | head -n 2 | tr '\n' ' ')
	if [ "$first" != "hot_a hot_b " ]; then
		fail archive_stale_embedded "top symbols '$first' (expected 'hot_a hot_b'): $(head -n 2 "$T/st/embed.err")"
	elif grep -q 'stale' "$T/st/embed.txt" "$T/st/embed.err"; then
		fail archive_stale_embedded "frames still marked stale with the binary embedded"
	else
		ok archive_stale_embedded
	fi
}

# vDSO frames symbolize from the embedded vDSO image: a program that reads
# the clock in a loop (clock_gettime does not enter the kernel) spends
# its time in the vDSO.
t_vdso() {
	need_cmd archive_vdso cc || return
	mkdir -p "$T/vd"
	cat >"$T/vd/vd.c" <<'EOF'
#include <time.h>
int main(void)
{
	struct timespec ts, start;

	/* Two seconds: __vdso_clock_gettime itself gets a few percent of the
	 * samples (most go to an unexported helper, shown as an offset as
	 * perf shows it), so it needs enough samples to appear. */
	clock_gettime(CLOCK_MONOTONIC, &start);
	do
		clock_gettime(CLOCK_MONOTONIC, &ts);
	while ((ts.tv_sec - start.tv_sec) * 1000000000L + (ts.tv_nsec - start.tv_nsec) < 2000000000L);
	return 0;
}
EOF
	cc -O2 -fno-omit-frame-pointer -o "$T/vd/vd" "$T/vd/vd.c" ||
		{ fail archive_vdso "cannot build the clock loop"; return; }
	(cd "$T/vd" && run_timeout 60 "$REC" --embed -e cpu-clock -F 1000 -g -o "$T/vd/e.amber" \
		-- ./vd) >"$T/vd/rec.log" 2>&1 ||
		{ fail archive_vdso "recording failed: $(tail -n 1 "$T/vd/rec.log")"; return; }
	"$ANA" report --no-children --sort dso,sym "$T/vd/e.amber" >"$T/vd/report.txt" 2>"$T/vd/report.err"
	if ! awk '$1 ~ /%$/ && $4 == "[vdso]" { f = 1 } END { exit !f }' "$T/vd/report.txt"; then
		skip archive_vdso "no sample in the vDSO (no vDSO clock here?): $(grep % "$T/vd/report.txt" | head -n 2)"
	elif awk '$1 ~ /%$/ && $4 == "[vdso]" && $6 ~ /^__vdso_/ { f = 1 } END { exit !f }' \
		"$T/vd/report.txt"; then
		ok archive_vdso
	else
		fail archive_vdso "no named vDSO symbol: $(grep vdso "$T/vd/report.txt" | head -n 3 | tr '\n' '|') $(head -n 2 "$T/vd/report.err")"
	fi
	# Not embedded: on this host, its own vDSO (same kernel, same build-id).
	(cd "$T/vd" && run_timeout 60 "$REC" -e cpu-clock -F 1000 -g -o "$T/vd/p.amber" -- ./vd) \
		>"$T/vd/prec.log" 2>&1 ||
		{ fail archive_vdso_host "recording failed: $(tail -n 1 "$T/vd/prec.log")"; return; }
	mkdir -p "$T/vd/empty"
	"$ANA" buildids "$T/vd/p.amber" >"$T/vd/pbid.txt" 2>&1
	"$ANA" buildids --symfs "$T/vd/empty" "$T/vd/p.amber" >"$T/vd/sbid.txt" 2>&1
	"$ANA" report --no-children --sort dso,sym "$T/vd/p.amber" >"$T/vd/preport.txt" 2>/dev/null
	if ! awk '$NF == "[vdso]" && $4 == "host" { f = 1 } END { exit !f }' "$T/vd/pbid.txt"; then
		fail archive_vdso_host "[vdso] not found as this host's: $(grep vdso "$T/vd/pbid.txt")"
	elif ! awk '$NF == "[vdso]" && $4 == "-" { f = 1 } END { exit !f }' "$T/vd/sbid.txt"; then
		fail archive_vdso_host "with --symfs, [vdso] found anyway: $(grep vdso "$T/vd/sbid.txt")"
	elif awk '$1 ~ /%$/ && $4 == "[vdso]" { f = 1 } END { exit !f }' "$T/vd/preport.txt" &&
	     ! awk '$1 ~ /%$/ && $4 == "[vdso]" && $6 ~ /^__vdso_/ { f = 1 } END { exit !f }' "$T/vd/preport.txt"; then
		fail archive_vdso_host "no named vDSO symbol: $(grep vdso "$T/vd/preport.txt" | head -n 3 | tr '\n' '|')"
	else
		ok archive_vdso_host
	fi
}

if setup; then
	t_archive
	t_mini
	t_copy
	t_buildids
	t_stale
	t_vdso
fi
finish
