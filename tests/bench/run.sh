#!/bin/sh
# tests/bench/run.sh BUILD - `make bench`: run every benchmark script in
# tests/bench/ (each prints its own table) and exit 1 if any of them failed.
B=${1:-build}
cd "$(dirname "$0")/../.." || exit 2
rc=0
for t in tests/bench/*.sh; do
	[ "$(basename "$t")" = run.sh ] && continue
	echo "=== $t"
	if ! sh "$t" "$B"; then
		echo "bench: $t failed" >&2
		rc=1
	fi
	echo
done
exit $rc
