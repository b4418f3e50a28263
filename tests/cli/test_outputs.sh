#!/bin/sh
# tests/cli/test_outputs.sh - `flame -o` and `diff -o` never write through
# a link (issue 19, item 11): a symbolic link is refused and what it points
# to is left alone; an existing regular file is replaced whole (a new file
# renamed over it: its other hard links keep their content, its
# permissions are kept); a new file is made; a directory is refused; a
# FIFO and /dev/null are written to as they are.
. "$(dirname "$0")/lib.sh"

F=$ROOT/testdata/recordings/fp.amber
F2=$ROOT/testdata/recordings/fp2.amber

# out CMD PATH: write CMD's output (flame or diff --flame) to -o PATH.
out() {
	case $1 in
	flame) "$ANA" flame -o "$2" "$F" ;;
	diff) "$ANA" diff --flame -o "$2" "$F" "$F2" ;;
	esac
}

t_outputs() {
	c=$1
	d=$T/$c
	mkdir -p "$d"

	# A symbolic link: refused, its target untouched.
	echo precious >"$d/target"
	ln -s "$d/target" "$d/link"
	if out $c "$d/link" >/dev/null 2>"$d/link.err"; then
		fail "output_${c}_symlink" "writing through a symbolic link succeeded"
	elif [ "$(cat "$d/target")" != precious ] || [ ! -L "$d/link" ]; then
		fail "output_${c}_symlink" "the link or its target changed"
	elif ! grep -q 'symbolic link' "$d/link.err"; then
		fail "output_${c}_symlink" "no reason given: $(cat "$d/link.err")"
	else
		ok "output_${c}_symlink"
	fi

	# An existing file with a second hard link and mode 0640: replaced.
	echo old >"$d/file"
	chmod 0640 "$d/file"
	ln "$d/file" "$d/other-link"
	if ! out $c "$d/file" >/dev/null 2>"$d/file.err"; then
		fail "output_${c}_replace" "$(cat "$d/file.err")"
	elif ! grep -q '<svg' "$d/file"; then
		fail "output_${c}_replace" "no SVG written"
	elif [ "$(cat "$d/other-link")" != old ]; then
		fail "output_${c}_replace" "the other hard link was truncated through"
	elif [ "$(stat -c %a "$d/file")" != 640 ]; then
		fail "output_${c}_replace" "mode $(stat -c %a "$d/file"), not 640"
	elif ls "$d" | grep -q '\.new-'; then
		fail "output_${c}_replace" "a temporary file is left: $(ls "$d")"
	else
		ok "output_${c}_replace"
	fi

	# New, a directory, a FIFO, /dev/null.
	out $c "$d/new.svg" >/dev/null 2>&1 && grep -q '<svg' "$d/new.svg" && ok "output_${c}_new" ||
		fail "output_${c}_new"
	mkdir "$d/dir"
	if out $c "$d/dir" >/dev/null 2>"$d/dir.err" || ! grep -q 'is a directory' "$d/dir.err"; then
		fail "output_${c}_dir" "$(cat "$d/dir.err")"
	else
		ok "output_${c}_dir"
	fi
	mkfifo "$d/fifo"
	cat "$d/fifo" >"$d/fifo.out" &
	reader=$!
	if run_timeout 60 sh -c "$(command -v "$ANA") $( [ $c = flame ] && echo "flame -o '$d/fifo' '$F'" || echo "diff --flame -o '$d/fifo' '$F' '$F2'")" >/dev/null 2>"$d/fifo.err" &&
		wait $reader && grep -q '<svg' "$d/fifo.out" && [ -p "$d/fifo" ]; then
		ok "output_${c}_fifo"
	else
		kill $reader 2>/dev/null
		fail "output_${c}_fifo" "$(cat "$d/fifo.err")"
	fi
	if out $c /dev/null >/dev/null 2>"$d/null.err" && [ -c /dev/null ]; then
		ok "output_${c}_devnull"
	else
		fail "output_${c}_devnull" "$(cat "$d/null.err")"
	fi
}

need_ana outputs || finish
t_outputs flame
t_outputs diff
finish
