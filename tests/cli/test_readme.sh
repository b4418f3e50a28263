#!/bin/sh
# Run every example of README.md: each line of each ```sh block, in order,
# from the repository root.  A line passes when it exits 0 and prints no
# "error:"; the examples that show an error say so with `|| echo`, and
# must then print the message want() gives for them, and the echo.
. "$(dirname "$0")/lib.sh"

# want LINE: what an example ending in `|| echo` must print (a fixed
# string), one per line of output; fails for an example not listed.
want() {
	case $1 in
	*"-e cycels "*)
		echo "amber-rec: error: unknown event 'cycels'; did you mean: cycles?"
		echo "exit status 125" ;;
	*"--filter 'prev_cpu == 1'"*)
		echo "amber-rec: error: --filter 'prev_cpu == 1' on sched:sched_switch: the kernel refused it: Field not found"
		echo "exit status 125" ;;
	*"-e instructions "*)
		# Counted where the kernel lists a CPU PMU (README: "on a machine
		# with a hardware PMU this one is counted").
		if [ -e /sys/bus/event_source/devices/cpu ] || [ -e /sys/bus/event_source/devices/cpu_core ]; then
			echo "[ amber-rec: captured"
		else
			echo "amber-rec: error: cannot open event 'instructions' (cpu 0, thread "
			echo "no hardware PMU on this machine"
			echo "exit status 125"
		fi ;;
	*"--sort symbol,nosuch "*)
		echo "amber-analyze: error: report: unknown sort key 'nosuch'; keys: comm, pid, tid, dso, sym (symbol), srcline"
		echo "exit status 2" ;;
	*"amber-rec mem "*)
		# Recorded where a PMU samples memory accesses (mem-loads, IBS, SPE).
		if ls /sys/bus/event_source/devices/*/events/mem-loads /sys/bus/event_source/devices/ibs_op \
			/sys/bus/event_source/devices/arm_spe_* >/dev/null 2>&1; then
			echo "[ amber-rec: captured"
		else
			echo "amber-rec mem: error: no PMU of this machine samples memory accesses"
			echo "amber-rec -e page-faults -c 1 -d --phys-data -- COMMAND"
			echo "exit status 125"
		fi ;;
	*"report --off-cpu "*)
		echo "no sched:sched_switch samples: record the scheduler with amber-rec --off-cpu"
		echo "exit status 1" ;;
	*"verify --salvage "*)
		echo "/cut.amber: salvaged "
		echo "problems listed above; intact blocks saved" ;;
	*"report "*"/perf.data ||"*)
		echo "perf.data is a perf.data file (written by perf record), not an .amber recording: convert it with 'amber-analyze import "
		echo "exit status 1" ;;
	*) return 1 ;;
	esac
}

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
	case $line in
	*'|| echo'*)
		if ! want "$line" >"$T/want"; then
			fail "readme_$n" "an example ending in || echo with no message in want(): $line"
			continue
		fi
		missing=""
		while IFS= read -r w; do
			printf '%s\n' "$out" | grep -qF -- "$w" || missing="$missing '$w'"
		done <"$T/want"
		if [ $rc != 0 ] || [ -n "$missing" ]; then
			fail "readme_$n" "exit $rc, did not print$missing: $line: $(printf '%s' "$out" | tail -3)"
		else
			ok "readme_$n"
		fi
		continue ;;
	esac
	if [ $rc != 0 ]; then
		fail "readme_$n" "exit $rc: $line: $(printf '%s' "$out" | tail -3)"
	elif printf '%s' "$out" | grep -q 'error:'; then
		fail "readme_$n" "printed an error: $line: $(printf '%s' "$out" | grep error: | head -2)"
	else
		ok "readme_$n"
	fi
done < "$T/examples"
[ $n -gt 20 ] || fail readme_count "only $n examples found"
finish
