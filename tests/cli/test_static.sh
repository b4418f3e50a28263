#!/bin/sh
# tests/cli/test_static.sh - the static amber-rec of `make static` (issue
# 12): no shared library; copied alone into an empty root (a chroot with
# /proc, /sys and /sys/kernel/tracing mounted, nothing else) it records the
# static test program - samples with call chains, tracepoints, system-wide
# - and the files analyze outside with the normal amber-analyze.  Needs
# root (chroot, mount).
. "$(dirname "$0")/lib.sh"

SREC=$B/static/amber-rec
WS=$PROG/workload-static
R=$T/root

unmount_root() {
	for _m in "$R/sys/kernel/tracing" "$R/sys" "$R/proc"; do
		mountpoint -q "$_m" 2>/dev/null && umount "$_m"
	done
}

cleanup() {
	unmount_root
	_lib_cleanup
}

test_static() {
	need_root rec_static || return 0
	need_ana rec_static || return 0
	need_file rec_static "$SREC" || return 0
	need_file rec_static "$WS" || return 0
	need_cmd rec_static readelf || return 0
	need_cmd rec_static chroot || return 0

	if readelf -d "$SREC" 2>/dev/null | grep -q NEEDED || readelf -l "$SREC" | grep -q INTERP; then
		fail rec_static_linked "$SREC needs: $(readelf -d "$SREC" | grep NEEDED | tr '\n' ' ')"
	else
		ok rec_static_linked
	fi

	mkdir -p "$R/proc" "$R/sys"
	cp "$SREC" "$WS" "$R/"
	trap cleanup EXIT
	if ! mount -t proc proc "$R/proc" || ! mount -t sysfs sysfs "$R/sys"; then
		skip rec_static "cannot mount /proc and /sys in $R"
		return 0
	fi
	mount -t tracefs nodev "$R/sys/kernel/tracing" 2>/dev/null
	# Nothing else is there: no libc, no loader, no /etc, no /dev.
	extra=$(cd "$R" && ls | grep -vxE 'proc|sys|amber-rec|workload-static')
	if [ -n "$extra" ] || [ -e "$R/lib" ] || [ -e "$R/etc" ]; then
		fail rec_static "the root is not empty: $extra"
		return 0
	fi

	run_timeout 60 chroot "$R" /amber-rec -e cpu-clock -F 999 -g -o /wl.amber -- \
		/workload-static --threads 2 --work 30 >"$T/wl.out" 2>"$T/wl.err"
	rc1=$?
	run_timeout 60 chroot "$R" /amber-rec -e sched:sched_switch -e cpu-clock -o /tp.amber -- \
		/workload-static --threads 1 --work 5 --sleep-ms 20 >/dev/null 2>"$T/tp.err"
	rc2=$?
	run_timeout 60 chroot "$R" /amber-rec -e cpu-clock -a --duration 0.5 -o /a.amber \
		>/dev/null 2>"$T/a.err"
	rc3=$?
	unmount_root

	# Analyzed outside, with the normal amber-analyze; the program's
	# symbols come from the root's copy (by build-id).
	"$ANA" report --symfs "$R" --sort comm,dso,sym "$T/root/wl.amber" 2>/dev/null >"$T/wl.rep"
	if [ "$rc1" != 0 ] || ! grep -q 'checksum' "$T/wl.out"; then
		fail rec_static_command "exit $rc1: $(tail -n 2 "$T/wl.err")"
	elif ! grep -q 'worker-[01]  *workload-static  *\[\.\] hot_a$' "$T/wl.rep" ||
	     ! "$ANA" verify "$R/wl.amber" >/dev/null 2>&1; then
		fail rec_static_command "report: $(grep -v '^#' "$T/wl.rep" | head -n 3)"
	else
		ok rec_static_command
	fi
	# Call chains through the program's frames, unwound by the kernel.
	chains=$("$ANA" script --symfs "$R" "$R/wl.amber" 2>/dev/null | grep -c 'run_mix')
	[ "$chains" -gt 10 ] && ok rec_static_callchain ||
		fail rec_static_callchain "$chains frames in run_mix"

	if [ "$rc2" = 0 ] &&
	   "$ANA" script --fields trace "$R/tp.amber" 2>/dev/null | grep -q 'prev_comm=worker-0'; then
		ok rec_static_tracepoint
	else
		fail rec_static_tracepoint "exit $rc2: $(tail -n 2 "$T/tp.err")"
	fi

	n=$("$ANA" script --fields comm "$R/a.amber" 2>/dev/null | wc -l)
	if [ "$rc3" = 0 ] && [ "$n" -gt 100 ] && "$ANA" verify "$R/a.amber" >/dev/null 2>&1; then
		ok rec_static_system_wide
	else
		fail rec_static_system_wide "exit $rc3, $n samples: $(tail -n 2 "$T/a.err")"
	fi
}

test_static
finish
