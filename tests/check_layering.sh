#!/bin/sh
# Enforce the dependency order of the Makefile's header comment, in every
# subfolder:
#   record -> format -> common,  analyze -> format -> common,
#   and inside analyze/: cmd -> view -> resolve -> replay.
# A layer of analyze/ may include, of a layer below it, only that layer's
# public header (replay/replay.h, resolve/resolve.h, view/view.h).
# <amber/format.h> is format/'s public header, <amber/common.h> common/'s.
# No two source files share a name.
# Prints each violation and exits 1 if there is any.
cd "$(dirname "$0")/.." || exit 2
bad=0

# includes FILE: the amber headers FILE includes, one per line, as paths
# from the repository root ("format/include/amber/format.h" for <amber/format.h>).
includes() {
	sed -n -e 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' \
	       -e 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*<amber\/\([a-z_]*\.h\)>.*/amber\/\1/p' "$1" |
	sed -e 's|^amber/format\.h$|format/include/amber/format.h|' \
	    -e 's|^amber/common\.h$|common/include/amber/common.h|'
}

# rank DIR-OR-HEADER: the layer a path belongs to, lowest first; "" if none.
rank() {
	case $1 in
	common/*) echo 0 ;;
	format/*) echo 1 ;;
	record/*) echo 2r ;;
	analyze/replay/*) echo 2 ;;
	analyze/resolve/*) echo 3 ;;
	analyze/view/*) echo 4 ;;
	analyze/cmd/*) echo 5 ;;
	analyze/*) echo 9 ;;   # a file directly in analyze/: not allowed
	*) echo "" ;;
	esac
}

# The public header of each layer below another.
public_of() {
	case $1 in
	analyze/replay/*) echo analyze/replay/replay.h ;;
	analyze/resolve/*) echo analyze/resolve/resolve.h ;;
	analyze/view/*) echo analyze/view/view.h ;;
	format/*) echo format/include/amber/format.h ;;
	esac
}

violation() {
	echo "layering: $1"
	bad=1
}

for f in $(find common format record analyze -name '*.[ch]' | sort); do
	me=$(rank "$f")
	[ "$me" = 9 ] && violation "$f: analyze/ keeps its files in replay/, resolve/, view/ or cmd/"
	for inc in $(includes "$f"); do
		case $inc in */*) ;; *) continue ;; esac
		[ -e "$inc" ] || { violation "$f includes $inc, which does not exist"; continue; }
		them=$(rank "$inc")
		[ -n "$them" ] || continue
		case "$me:$them" in
		2r:2r|2r:1|2r:0) continue ;;          # record -> format -> common
		2r:*) violation "$f includes $inc (record/ may include only format/ and common/)"; continue ;;
		*:2r) violation "$f includes $inc (nothing includes record/)"; continue ;;
		esac
		if [ "$them" -gt "$me" ]; then
			violation "$f includes $inc, a layer above it"
		elif [ "$them" -lt "$me" ] && [ "$them" -ge 2 ]; then
			# Another analyze layer below: only its public header.
			[ "$inc" = "$(public_of "$inc")" ] ||
				violation "$f includes $inc; only $(public_of "$inc") is public"
		elif [ "$them" = 1 ] && [ "$me" != 1 ]; then
			[ "$inc" = "$(public_of "$inc")" ] ||
				violation "$f includes $inc; only <amber/format.h> is format/'s public header"
		fi
	done
done

# The recorder stays small: never libdw or libtraceevent.
if grep -rn -E '#[[:space:]]*include[[:space:]]*<(elfutils/|dwarf\.h|traceevent/)' record/ 2>/dev/null; then
	echo "layering: record/ must not use libdw or libtraceevent"
	bad=1
fi
# One name, one file: a source name says which file it is.
dups=$(find common format record analyze -name '*.[ch]' | sed 's|.*/||' | sort | uniq -d)
for d in $dups; do
	violation "$d is the name of more than one file: $(find common format record analyze -name "$d" | tr '\n' ' ')"
done
[ $bad = 0 ] && echo "layering: ok"
exit $bad
