#!/bin/sh
# tests/cli/test_golden.sh - amber-analyze's output on fixed recordings,
# byte for byte.
#
# testdata/recordings/ holds self-contained recordings (tests/golden_record.sh);
# testdata/golden/COMMANDS lists the commands run on them and
# testdata/golden/NAME.out what each must print.  Any change of output shows
# here: a refactor must leave every file as it is, and an intended change
# regenerates them with
#     AMB_GOLDEN_UPDATE=1 sh tests/cli/test_golden.sh
# after which the diff is reviewed and committed with the change.
# It also rebuilds testdata/valid and testdata/invalid with the generator
# that wrote them (build/tools/mkgolden) and compares them byte for byte: a
# change of the writer that alters a file's bytes shows here, and is either
# a bug or a format change to regenerate (mkgolden testdata) and review.
. "$(dirname "$0")/lib.sh"

# mkgolden_same: every file mkgolden writes equals its testdata/ copy, and
# testdata/ holds no .amber or .err file mkgolden does not write.
mkgolden_same() {
	need_file golden_mkgolden "$B/tools/mkgolden" || return
	if ! "$B/tools/mkgolden" "$T/mkgolden" >"$T/mkgolden.log" 2>&1; then
		fail golden_mkgolden "mkgolden failed: $(tail -n 2 "$T/mkgolden.log")"
		return
	fi
	bad=""
	n=0
	for f in "$T"/mkgolden/valid/* "$T"/mkgolden/invalid/*; do
		rel=${f#"$T"/mkgolden/}
		n=$((n + 1))
		cmp -s "$f" "$ROOT/testdata/$rel" || bad="$bad $rel"
	done
	for f in "$ROOT"/testdata/valid/*.amber "$ROOT"/testdata/invalid/*.amber "$ROOT"/testdata/invalid/*.err; do
		rel=${f#"$ROOT"/testdata/}
		[ -e "$T/mkgolden/$rel" ] || bad="$bad $rel(not written)"
	done
	if [ -n "$bad" ]; then
		fail golden_mkgolden "differs from what mkgolden writes now:$bad"
	elif [ $n -lt 10 ]; then
		fail golden_mkgolden "mkgolden wrote only $n files"
	else
		ok golden_mkgolden
	fi
}
mkgolden_same

G=$ROOT/testdata/golden
mkdir -p "$T/symfs" "$T/home"
cd "$ROOT/testdata/recordings" || { fail golden_dir "no testdata/recordings"; finish; }

while read -r name args; do
	case $name in ''|'#'*) continue ;; esac
	# shellcheck disable=SC2086 # ARGS are words by design
	set -- $(printf '%s\n' "$args" | sed "s|@SYMFS@|$T/symfs|g")
	{
		HOME=$T/home DEBUGINFOD_URLS= TZ=UTC LC_ALL=C "$ANA" "$@" 2>"$T/err"
		rc=$?
		echo "--- stderr"
		sed "s|$T/symfs|@SYMFS@|g; s|$T|@T@|g" "$T/err"
		echo "--- exit $rc"
	} >"$T/out"
	if [ -n "$AMB_GOLDEN_UPDATE" ]; then
		cp "$T/out" "$G/$name.out"
		ok "golden_$name"
	elif [ ! -f "$G/$name.out" ]; then
		fail "golden_$name" "no $G/$name.out (AMB_GOLDEN_UPDATE=1 writes it)"
	elif cmp -s "$T/out" "$G/$name.out"; then
		ok "golden_$name"
	else
		fail "golden_$name" "output differs: $(diff "$G/$name.out" "$T/out" | head -5 | tr '\n' '|')"
	fi
done <"$G/COMMANDS"
finish
