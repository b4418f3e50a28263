#!/bin/sh
# tests/bench/archive.sh - what making a recording self-contained costs.
#
# For the bundled workload and for a program with big shared objects
# (clang-14 compiling workload.c: libLLVM-14 is about 110 MB), prints the
# size of the plain recording, of `amber-analyze archive` (full and
# --mini), of `amber-rec --embed`, and, for the workload, of perf's
# equivalent: `perf record` + `perf archive` (data file plus tarball).
#
# usage: sh tests/bench/archive.sh [BUILD_DIR]        (as root)
set -u
B=${1:-build}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
case $B in /*) ;; *) B=$ROOT/$B ;; esac
REC=$B/amber-rec
ANA=$B/amber-analyze
T=$(mktemp -d "${TMPDIR:-/tmp}/amber-bench-archive.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT

size() { wc -c <"$1" | awk '{ printf "%.2f", $1 / 1e6 }'; }

# row NAME CMD...: record with amber-rec, archive, print one table row.
row() {
	name=$1
	shift
	if ! timeout 300 "$REC" -e cpu-clock -F 1000 -g -o "$T/$name.amber" -- "$@" \
		>"$T/$name.rec.log" 2>&1; then
		echo "$name: amber-rec failed: $(tail -n 1 "$T/$name.rec.log")" >&2
		return 1
	fi
	timeout 300 "$REC" --embed -e cpu-clock -F 1000 -g -o "$T/$name.embed.amber" -- "$@" \
		>"$T/$name.embed.log" 2>&1 || return 1
	s0=$(date +%s.%N)
	"$ANA" archive "$T/$name.amber" -o "$T/$name.full.amber" 2>"$T/$name.full.log" || return 1
	s1=$(date +%s.%N)
	"$ANA" archive --mini "$T/$name.amber" -o "$T/$name.mini.amber" 2>"$T/$name.mini.log" || return 1
	s2=$(date +%s.%N)
	files=$("$ANA" buildids --hit "$T/$name.amber" 2>/dev/null | awk 'NR > 1' | wc -l)
	printf '| %-16s | %8s | %5s | %10s | %10s | %10s | %7.2f | %7.2f |\n' "$name" \
		"$(size "$T/$name.amber")" "$files" "$(size "$T/$name.full.amber")" \
		"$(size "$T/$name.mini.amber")" "$(size "$T/$name.embed.amber")" \
		"$(echo "$s1 - $s0" | bc)" "$(echo "$s2 - $s1" | bc)"
}

echo "sizes in MB; hit = DSOs hit by samples; times in seconds"
echo "| program          | plain MB |   hit | archive MB |  --mini MB | --embed MB | arch s  | mini s  |"
echo "|------------------|----------|-------|------------|------------|------------|---------|---------|"
cp "$B/programs/workload" "$T/workload"
row workload "$T/workload" --work 30
if command -v clang-14 >/dev/null 2>&1; then
	row clang-14 clang-14 -O2 -g -c "$ROOT/testdata/programs/workload.c" -o "$T/w.o"
fi

if command -v perf >/dev/null 2>&1 && command -v bzip2 >/dev/null 2>&1; then
	mkdir -p "$T/home"
	if HOME=$T/home timeout 300 perf record -q -e cpu-clock -F 1000 -g -o "$T/perf.data" -- \
		"$T/workload" --work 30 >"$T/perf.log" 2>&1 &&
	   (cd "$T" && HOME=$T/home perf archive perf.data >"$T/perfarch.log" 2>&1); then
		echo
		echo "perf, same workload: perf.data $(size "$T/perf.data") MB," \
			"perf archive tarball $(size "$T/perf.data.tar.bz2") MB" \
			"(together $(echo "$(size "$T/perf.data") + $(size "$T/perf.data.tar.bz2")" | bc) MB," \
			"to set up with tar xf under ~/.debug on the other machine)"
	else
		echo "perf record/archive failed: $(tail -n 1 "$T/perf.log" "$T/perfarch.log" 2>/dev/null)" >&2
	fi
fi
