#!/bin/sh
# Enforce the dependency order of the Makefile's header comment:
#   record -> format -> common,  analyze -> format -> common.
# Prints each violation and exits 1 if there is any.
cd "$(dirname "$0")/.." || exit 2
bad=0
check() { # dir forbidden-prefix...
	dir=$1; shift
	for f in "$dir"/*.c "$dir"/*.h; do
		[ -e "$f" ] || continue
		for p in "$@"; do
			if grep -n "^[[:space:]]*#[[:space:]]*include[[:space:]]*\"$p/" "$f"; then
				echo "layering: $f includes $p/ (not allowed from $dir/)"
				bad=1
			fi
		done
	done
}
check common format record analyze
check format record analyze
check record analyze
check analyze record
# The recorder stays small: never libdw or libtraceevent.
if grep -n -E '#[[:space:]]*include[[:space:]]*<(elfutils/|dwarf\.h|traceevent/)' record/*.c record/*.h 2>/dev/null; then
	echo "layering: record/ must not use libdw or libtraceevent"
	bad=1
fi
[ $bad = 0 ] && echo "layering: ok"
exit $bad
