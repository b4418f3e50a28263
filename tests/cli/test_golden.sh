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
. "$(dirname "$0")/lib.sh"

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
