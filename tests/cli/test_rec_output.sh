#!/bin/sh
# tests/cli/test_rec_output.sh - amber-rec's output and its command (issue
# 19, items 1 to 5):
#  1. -o moves aside only a regular file or a symbolic link; a directory,
#     a FIFO or a device is refused, named, and left in place; -o /dev/null
#     records and keeps nothing (the device stays; tried on a node of the
#     test's own with /dev/null's numbers); -o - is refused;
#  2. older recordings are all kept: FILE.old, FILE.old.1, ...;
#  3. a second recorder on the same path moves the first one's file aside
#     while it records: the first one's trim rewrites only its own file,
#     and its summary names where that file is;
#  4. a command whose recorder is killed is killed too (PR_SET_PDEATHSIG);
#  5. a command that is not there fails before any file is made or moved;
#     one that cannot be executed leaves a file the summary says holds no
#     sample; a full disk: the summary says how many samples the file
#     holds, which is what the analyzer finds in it.
. "$(dirname "$0")/lib.sh"

# uuid FILE: the recording's uuid.
uuid() {
	"$ANA" info "$1" 2>/dev/null | awk '$1 == "uuid:" { print $2 }'
}

# Device nodes of the test's own, never the system's: a recorder that
# moved what -o names aside would otherwise take /dev/null away from
# everyone.
t_refused() {
	need_root rec_output_refused || return
	cd "$T" || return
	mkdir -p refuse && cd refuse || return
	mkdir dir
	mkfifo fifo
	mknod zero c 1 5 || { fail rec_output_refused "mknod"; return; }
	for p in dir fifo zero -; do
		run_timeout 60 "$REC" -e cpu-clock -o "$p" -- true >/dev/null 2>err
		rc=$?
		case $p in
		dir) what="is a directory" ;;
		fifo) what="is a FIFO" ;;
		zero) what="is a character device" ;;
		-) what="standard output" ;;
		esac
		if [ $rc != 125 ] || ! grep -q "$what" err; then
			fail rec_output_refused "-o $p: exit $rc: $(head -n 1 err)"
			return
		fi
	done
	if [ -d dir ] && [ -p fifo ] && [ -c zero ] && [ -z "$(ls | grep old)" ]; then
		ok rec_output_refused
	else
		fail rec_output_refused "something was moved: $(ls)"
	fi
	cd "$T" || return
}

t_devnull() {
	need_root rec_output_devnull || return
	mknod "$T/null" c 1 3 || { fail rec_output_devnull "mknod"; return; }
	if ! run_timeout 60 "$REC" -e cpu-clock -o "$T/null" -- "$PROG/workload" --work 2 >/dev/null 2>"$T/null.err"; then
		fail rec_output_devnull "exit $?: $(tail -n 2 "$T/null.err")"
	elif [ ! -c "$T/null" ] || [ "$(stat -c '%t:%T' "$T/null")" != 1:3 ] || [ -e "$T/null.old" ]; then
		fail rec_output_devnull "the device was moved or replaced"
	elif ! grep -q 'none kept (-o /dev/null)' "$T/null.err"; then
		fail rec_output_devnull "the summary does not say nothing was kept: $(tail -n 1 "$T/null.err")"
	else
		ok rec_output_devnull
	fi
}

t_old_files() {
	mkdir -p "$T/old" && cd "$T/old" || return
	for i in 1 2 3; do
		run_timeout 60 "$REC" -e cpu-clock -o t.amber -- true >/dev/null 2>>err || {
			fail rec_output_old "run $i failed: $(tail -n 1 err)"
			return
		}
	done
	u1=$(uuid t.amber.old) u2=$(uuid t.amber.old.1) u3=$(uuid t.amber)
	if [ -n "$u1" ] && [ -n "$u2" ] && [ -n "$u3" ] && [ "$u1" != "$u2" ] && [ "$u2" != "$u3" ] &&
		grep -q 'moved existing t.amber to t.amber.old.1' err; then
		ok rec_output_old
	else
		fail rec_output_old "three runs left: $(ls | tr '\n' ' ')"
	fi
	# A symbolic link is moved as it is; what it names is left alone.
	echo precious >target
	rm -f t.amber
	ln -s target t.amber
	run_timeout 60 "$REC" -e cpu-clock -o t.amber -- true >/dev/null 2>>err
	if [ "$(cat target)" = precious ] && [ -L t.amber.old.2 ] && [ -f t.amber ] && [ ! -L t.amber ]; then
		ok rec_output_symlink
	else
		fail rec_output_symlink "$(ls -l | tr '\n' '|')"
	fi
	cd "$T" || return
}

t_two_recorders() {
	mkdir -p "$T/two" && cd "$T/two" || return
	bg_start a.pid "$REC" -e cpu-clock -F 999 -o same.amber -- "$PROG/spinner" --seconds 60
	apid=$BG_PID
	spid=$(wait_for_line a.pid 30) || { fail rec_output_two "the first recorder did not start: $(cat a.pid.err)"; return; }
	# The second one, on the same path, moves the first one's file aside.
	run_timeout 60 "$REC" -e cpu-clock -o same.amber -- true >/dev/null 2>b.err ||
		{ fail rec_output_two "the second recorder failed: $(tail -n 1 b.err)"; return; }
	b_before=$(md5sum <same.amber)
	kill -INT "$apid"
	wait "$apid"
	b_after=$(md5sum <same.amber)
	if [ "$b_before" != "$b_after" ]; then
		fail rec_output_two "the first recorder rewrote the second one's file"
	elif ! grep -q -- "-> $T/two/same.amber.old ]" a.pid.err; then
		fail rec_output_two "the first recorder's summary does not name its file: $(tail -n 1 a.pid.err)"
	elif ! "$ANA" verify same.amber.old >/dev/null 2>&1 || ! "$ANA" verify same.amber >/dev/null 2>&1; then
		fail rec_output_two "a recording does not verify"
	elif ! "$ANA" report --sort sym same.amber.old 2>/dev/null | grep -q spin_forever; then
		fail rec_output_two "same.amber.old is not the spinner's recording"
	else
		ok rec_output_two
	fi
	kill "$spid" 2>/dev/null
	cd "$T" || return
}

# gone PID: the process has ended (a zombie counts as ended).
gone() {
	_st=$(ps -o stat= -p "$1" 2>/dev/null)
	[ -z "$_st" ] || case $_st in Z*) true ;; *) false ;; esac
}

t_pdeathsig() {
	"$REC" -e cpu-clock -o "$T/d.amber" -- "$PROG/spinner" --seconds 60 >"$T/d.pid" 2>"$T/d.err" &
	rpid=$!
	spid=$(wait_for_line "$T/d.pid" 30) || { fail rec_output_pdeathsig "no spinner: $(cat "$T/d.err")"; return; }
	kill -KILL "$rpid"
	wait "$rpid" 2>/dev/null
	i=0
	while ! gone "$spid" && [ $i -lt 100 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	if gone "$spid"; then
		ok rec_output_pdeathsig
	else
		kill "$spid" 2>/dev/null
		fail rec_output_pdeathsig "the command runs on after its recorder was killed"
	fi
}

t_no_command() {
	mkdir -p "$T/cmd" && cd "$T/cmd" || return
	run_timeout 60 "$REC" -e cpu-clock -o keep.amber -- true >/dev/null 2>&1 ||
		{ fail rec_output_notfound "amber-rec -- true failed"; return; }
	before=$(md5sum <keep.amber)
	run_timeout 60 "$REC" -e cpu-clock -o keep.amber -- ./no-such-command >/dev/null 2>err
	rc=$?
	if [ $rc != 127 ] || [ "$(md5sum <keep.amber)" != "$before" ] || [ -e keep.amber.old ]; then
		fail rec_output_notfound "exit $rc; $(ls | tr '\n' ' '): $(cat err)"
	else
		ok rec_output_notfound
	fi
	# A directory passes the access check but cannot be executed.
	run_timeout 60 "$REC" -e cpu-clock -o dir.amber -- "$T" >/dev/null 2>err
	rc=$?
	if [ $rc = 126 ] && grep -q 'no samples: the command did not run;.*dir.amber holds only' err; then
		ok rec_output_noexec
	else
		fail rec_output_noexec "exit $rc: $(tail -n 2 err | tr '\n' '|')"
	fi
	cd "$T" || return
}

t_disk_full() {
	need_root rec_output_full || return
	mkdir -p "$T/full"
	# The prologue of a recording here, to size a file system that fills
	# up while samples are written.
	run_timeout 60 "$REC" -e cpu-clock -g --kallsyms=all -o "$T/pro.amber" -- true >/dev/null 2>&1 ||
		{ fail rec_output_full "amber-rec -- true failed"; return; }
	size=$(( ($(stat -c %s "$T/pro.amber") + 12 * 1024) / 4096 * 4096 ))
	if ! mount -t tmpfs -o size=$size amber-test "$T/full" 2>/dev/null; then
		skip rec_output_full "cannot mount a tmpfs"
		return
	fi
	run_timeout 120 "$REC" -e cpu-clock -F 4000 -g --kallsyms=all --flush-interval 20 -o "$T/full/f.amber" -- \
		"$PROG/workload" --work 40 >/dev/null 2>"$T/full.err"
	rc=$?
	said=$(sed -n 's/.* samples (.* lost), \([0-9]*\) of them in the file.*/\1/p' "$T/full.err")
	found=$("$ANA" info --records "$T/full/f.amber" 2>/dev/null |
		sed -n 's/^records: .* (\([0-9]*\) samples.*/\1/p')
	umount "$T/full"
	if [ $rc != 125 ]; then
		fail rec_output_full "exit $rc on a full disk: $(tail -n 2 "$T/full.err" | tr '\n' '|')"
	elif [ -z "$said" ] || [ "$said" != "$found" ]; then
		fail rec_output_full "the summary says '${said:-nothing}' samples are in the file, the analyzer finds '$found': $(tail -n 1 "$T/full.err")"
	else
		ok rec_output_full
	fi
}

need_rec rec_output || finish
need_ana rec_output || finish
need_file rec_output "$PROG/spinner" || finish
t_refused
t_devnull
t_old_files
t_two_recorders
t_pdeathsig
t_no_command
t_disk_full
finish
