#!/bin/sh
# Run every test: layering check, cmocka unit tests (ASan+UBSan), CLI tests
# on the real binaries, and a short smoke run of every fuzz target.
# Closes with one "N passed, N failed, N skipped" line; exit 1 on failure.
#
# Skips: every skip is listed at the end.  With CI=true (or
# AMB_STRICT_SKIPS=1) a skip whose name is not in tests/skips.allowed is a
# failure: CI has root and every package `make deps` installs, so a test
# that skips there has stopped testing (a recorder that no longer records,
# a tool that went missing).
B=${1:-build}
cd "$(dirname "$0")/.." || exit 2
export AMB_BUILD="$(pwd)/$B"
pass=0 fail=0 skip=0
failed=""
skipped=""
strict=${AMB_STRICT_SKIPS:-}
[ "${CI:-}" = true ] && strict=1

note() { printf '%s\n' "$*"; }

# skipped NAME REASON: remember a skip; under the strict policy one not
# declared in tests/skips.allowed fails.
skipped() {
	skipped="$skipped
  $1: $2"
	if [ -n "$strict" ] && ! grep -q "^$1[ 	]" tests/skips.allowed; then
		fail=$((fail + 1))
		failed="$failed skip:$1"
		note "FAIL skip $1: not in tests/skips.allowed ($2)"
	fi
}

if sh tests/check_layering.sh; then pass=$((pass + 1)); else fail=$((fail + 1)); failed="$failed layering"; fi

export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
for t in $(find "$B/tests/unit" -type f -perm -u+x 2>/dev/null | sort); do
	out=$("$t" 2>&1); rc=$?
	# A binary may run several cmocka groups: add up their summaries.
	p=$(printf '%s\n' "$out" | sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' | awk '{ n += $1 } END { print n + 0 }')
	f=$(printf '%s\n' "$out" | sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' | awk '{ n += $1 } END { print n + 0 }')
	s=$(printf '%s\n' "$out" | grep -c '^\[  SKIPPED \] [a-z_]' || true)
	for n in $(printf '%s\n' "$out" | sed -n 's/^\[  SKIPPED \] \([a-z_][a-z0-9_]*\)$/\1/p'); do
		skipped "unit:$(basename "$t"):$n" "skipped by the test"
	done
	p=${p:-0}; f=${f:-0}
	if [ $rc != 0 ] && [ "$f" = 0 ]; then f=1; fi
	pass=$((pass + p)); fail=$((fail + f)); skip=$((skip + s))
	if [ "$f" != 0 ]; then
		printf '%s\n' "$out" | tail -40
		failed="$failed $(basename "$t")"
	fi
	note "unit: $(basename "$t"): $p passed, $f failed"
done

# CLI tests print "ok NAME", "FAIL NAME" or "skip NAME: reason" lines.
for t in tests/cli/test_*.sh; do
	[ -e "$t" ] || continue
	t0=$(date +%s)
	out=$(sh "$t" 2>&1); rc=$?
	printf '%s\n' "$out" | grep -E '^(ok|FAIL|skip) ' | sed 's/^/cli: /'
	# What each file costs, to keep the whole run within its ten minutes.
	note "cli: $(basename "$t"): $(($(date +%s) - t0)) s"
	p=$(printf '%s\n' "$out" | grep -c '^ok ' || true)
	f=$(printf '%s\n' "$out" | grep -c '^FAIL ' || true)
	s=$(printf '%s\n' "$out" | grep -c '^skip ' || true)
	printf '%s\n' "$out" | sed -n 's/^skip \([^:]*\): \(.*\)$/\1 \2/p' >"${TMPDIR:-/tmp}/amber-skips.$$"
	while read -r n why; do
		skipped "$n" "$why"
	done <"${TMPDIR:-/tmp}/amber-skips.$$"
	rm -f "${TMPDIR:-/tmp}/amber-skips.$$"
	if [ $rc != 0 ] && [ "$f" = 0 ]; then f=1; note "cli: $t exited $rc"; fi
	if [ "$f" != 0 ]; then printf '%s\n' "$out" | grep -v '^ok ' | tail -30; failed="$failed $(basename "$t")"; fi
	pass=$((pass + p)); fail=$((fail + f)); skip=$((skip + s))
done

# Fuzz smoke: each target replays its seeds and runs a few thousand inputs.
# Two lanes take the targets in turn (a target is a lane's when its mkdir
# in $claims succeeds: whichever lane is free takes the next), each
# target's outcome in $claims/NAME.rc and .log; they are read in order.
FUZZERS=$(find "$B/fuzz/bin" -type f -perm -u+x 2>/dev/null | sort)
# The slowest first (fuzz_stat prints every table of each input and stops
# at its 30 s), so that the lanes end together.
SLOW='/(fuzz_stat|fuzz_codec_roundtrip|fuzz_sched|fuzz_session)$'
FUZZ_ORDER="$(printf '%s\n' $FUZZERS | grep -E "$SLOW") $(printf '%s\n' $FUZZERS | grep -vE "$SLOW")"
claims=$(mktemp -d)
fuzz_lane() {
	for fz in $FUZZ_ORDER; do
		name=$(basename "$fz")
		mkdir "$claims/$name" 2>/dev/null || continue
		corpus=$(mktemp -d)
		if sh tests/fuzz/seeds.sh "$name" "$corpus" >/dev/null 2>&1 &&
		   "$fz" -runs=3000 -max_total_time=30 -timeout=10 -rss_limit_mb=2048 "$corpus" \
			>"$claims/$name.log" 2>&1; then
			echo 0 >"$claims/$name.rc"
		else
			echo 1 >"$claims/$name.rc"
		fi
		rm -rf "$corpus"
	done
}
fuzz_lane & lane=$!
fuzz_lane
wait $lane
for fz in $FUZZERS; do
	name=$(basename "$fz")
	if [ "$(cat "$claims/$name.rc" 2>/dev/null)" = 0 ]; then
		pass=$((pass + 1)); note "fuzz: $name: ok"
	else
		fail=$((fail + 1)); failed="$failed $name"
		tail -30 "$claims/$name.log" 2>/dev/null; note "fuzz: $name: FAILED"
	fi
done
rm -rf "$claims"

[ -n "$skipped" ] && note "skipped:$skipped"
[ -n "$failed" ] && note "failed:$failed"
echo "$pass passed, $fail failed, $skip skipped"
[ $fail = 0 ]
