#!/bin/sh
# run.sh BUILD SECONDS: run every fuzz target for SECONDS each (make fuzz).
B=$1; T=${2:-300}
cd "$(dirname "$0")/../.." || exit 2
rc=0
for fz in "$B"/fuzz/bin/*; do
	name=$(basename "$fz")
	corpus=tests/fuzz/corpus/$name
	sh tests/fuzz/seeds.sh "$name" "$corpus"
	echo "fuzz: $name for ${T}s"
	"$fz" -max_total_time="$T" -timeout=10 -rss_limit_mb=2048 "$corpus" || rc=1
done
exit $rc
