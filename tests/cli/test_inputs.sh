#!/bin/sh
# tests/cli/test_inputs.sh - what amber-analyze does with a FILE argument
# that is no recording file (issue 19, item 14): a FIFO must not hang any
# command (nobody ever writes into it here), and a FIFO, a directory or a
# device is named as what it is, with exit status 1 or 2.
. "$(dirname "$0")/lib.sh"

# try NAME PATH WHAT: every command on PATH fails in time and says WHAT.
try() {
	_name=$1 _path=$2 _what=$3
	for c in info verify dump report script flame buildids diff archive; do
		case $c in
		diff) set -- diff "$_path" "$_path" ;;
		archive) set -- archive "$_path" -o "$T/arch-$_name.amber" ;;
		*) set -- $c "$_path" ;;
		esac
		run_timeout 20 "$ANA" "$@" >"$T/out" 2>"$T/err"
		rc=$?
		if [ $rc = 124 ] || [ $rc = 137 ]; then
			fail "input_$_name" "$c hangs on it"
			return
		fi
		if [ $rc != 1 ] && [ $rc != 2 ]; then
			fail "input_$_name" "$c exits $rc: $(head -n 1 "$T/err")"
			return
		fi
		if ! grep -q "is $_what" "$T/err"; then
			fail "input_$_name" "$c does not say 'is $_what': $(head -n 1 "$T/err")"
			return
		fi
	done
	ok "input_$_name"
}

need_ana inputs || finish
mkfifo "$T/fifo" || { fail input_fifo "mkfifo"; finish; }
try fifo "$T/fifo" "a FIFO"
mkdir "$T/dir"
try dir "$T/dir" "a directory"
try chardev /dev/null "a character device"
finish
