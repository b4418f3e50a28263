#!/bin/sh
# Run every example of README.md: each line of each ```sh block, in order,
# from the repository root.  A line passes when it exits 0 and prints no
# "error:"; the examples that show an error say so with `|| echo`.
. "$(dirname "$0")/lib.sh"

need_root readme || finish
[ -x "$REC" ] && [ -x "$ANA" ] && [ -x "$PROG/workload" ] || {
	skip readme "build/amber-rec, amber-analyze or the programs are not built"
	finish
}
mount_tracefs >/dev/null 2>&1

cd "$ROOT" || exit 1
# Use the build directory under test, and keep the examples' /tmp files apart.
sed -n '/^```sh$/,/^```$/p' README.md | grep -v '^```' | grep -v '^#' | grep -v '^$' |
	sed -e "s#/tmp/#$T/#g" | sed -e "s#\(^\| \)build/#\1$B/#g" > "$T/examples"
n=0
while IFS= read -r line; do
	n=$((n + 1))
	out=$(sh -c "$line" 2>&1 </dev/null)
	rc=$?
	if [ $rc != 0 ]; then
		fail "readme_$n" "exit $rc: $line: $(printf '%s' "$out" | tail -3)"
	elif printf '%s' "$out" | grep -q 'error:' && ! printf '%s' "$line" | grep -q '|| echo'; then
		fail "readme_$n" "printed an error: $line: $(printf '%s' "$out" | grep error: | head -2)"
	else
		ok "readme_$n"
	fi
done < "$T/examples"
[ $n -gt 20 ] || fail readme_count "only $n examples found"
finish
