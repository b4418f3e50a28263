#!/bin/sh
# tests/bench/format.sh [BUILD] [LEVELS]: format benchmark on perf ring data.
#
# Records a busy shell loop with `perf record -F 10000 -g` and takes the data
# section of perf.data (raw perf records, what RING blocks hold); falls back
# to amber's own build artifacts when perf cannot record.  For each zstd
# level (default "1 3 6") it runs build/tools/fmtbench (1 MiB blocks through
# the writer and reader) and `zstd -b LEVEL -B1MiB` on the same input, and
# prints both throughputs (MB/s of raw data; amber also per CPU second,
# stable on a busy machine) and the ratio amber/zstd: the cost of the
# format (headers, checksums, I/O) over bare compression.
B=${1:-build}
LEVELS=${2:-"1 3 6"}
cd "$(dirname "$0")/../.." || exit 2
bench=$B/tools/fmtbench
if [ ! -x "$bench" ]; then
	echo "format.sh: error: $bench not built (make tools)" >&2
	exit 2
fi
command -v zstd >/dev/null 2>&1 || { echo "format.sh: error: zstd not installed" >&2; exit 2; }
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT INT TERM
input=$tmp/ring.raw

# u64 little-endian at byte offset $2 of file $1
le64() { od -An -t u8 -j "$2" -N 8 "$1" | tr -d ' '; }

if perf record -q -o "$tmp/perf.data" -F 10000 -g -- \
	sh -c 'i=0; while [ $i -lt 3000000 ]; do i=$((i + 1)); done' >/dev/null 2>&1 &&
   [ "$(head -c 8 "$tmp/perf.data")" = "PERFILE2" ]; then
	# struct perf_file_header: the data section is {offset, size} at 40, 48.
	off=$(le64 "$tmp/perf.data" 40)
	size=$(le64 "$tmp/perf.data" 48)
	dd if="$tmp/perf.data" of="$input" iflag=skip_bytes,count_bytes skip="$off" count="$size" \
		bs=1M status=none || exit 1
	what="perf record -F 10000 -g data section"
else
	cat "$B"/amber-rec "$B"/amber-analyze "$B"/libamber-format.a > "$input" 2>/dev/null
	what="amber build artifacts (perf record failed)"
fi
bytes=$(wc -c < "$input")
if [ "$bytes" -lt 1048576 ]; then
	echo "format.sh: error: only $bytes bytes of input" >&2
	exit 1
fi
echo "format: input: $what, $bytes bytes, 1 MiB blocks"
printf 'format: %-5s %7s %9s %9s %9s %9s | %7s %9s %9s | %9s %9s\n' level ratio write read \
	cpu_write cpu_read zratio zcomp zdecomp write_a/z read_a/z
for level in $LEVELS; do
	a=$("$bench" -l "$level" -r 5 -d "$tmp" "$input") || exit 1
	# zstd -b rewrites one status line with \r; the last one holding both
	# speeds is the result: "name : IN -> OUT (xR), C MB/s, D MB/s".
	z=$(zstd -b"$level" -e"$level" -B1MiB "$input" 2>&1 | tr '\r' '\n' |
		grep 'MB/s, *[0-9.]* MB/s' | tail -1)
	echo "$a" "$z" | awk -v L="$level" '{
		for (i = 1; i <= NF; i++) {
			split($i, kv, "=")
			if (kv[1] == "ratio") ar = kv[2]
			if (kv[1] == "write_mbs") aw = kv[2]
			if (kv[1] == "read_mbs") ard = kv[2]
			if (kv[1] == "write_cpu_mbs") cw = kv[2]
			if (kv[1] == "read_cpu_mbs") cr = kv[2]
		}
		if (match($0, /\(x[0-9.]+\)/)) zr = substr($0, RSTART + 2, RLENGTH - 3)
		rest = substr($0, RSTART + RLENGTH)
		n = 0
		while (match(rest, /[0-9.]+ MB\/s/)) {
			v[++n] = substr(rest, RSTART, RLENGTH - 5)
			rest = substr(rest, RSTART + RLENGTH)
		}
		if (n < 2) { print "format: level " L ": cannot parse zstd -b output"; exit 1 }
		printf "format: %-5s %7.3f %9.1f %9.1f %9.1f %9.1f | %7.3f %9.1f %9.1f | %8.0f%% %8.0f%%\n",
			L, ar, aw, ard, cw, cr, zr, v[1], v[2], 100 * aw / v[1], 100 * ard / v[2]
	}' || exit 1
done
