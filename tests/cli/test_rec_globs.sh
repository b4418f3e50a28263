#!/bin/sh
# tests/cli/test_rec_globs.sh - tracepoint globs leave out what cannot be
# opened (issue 19, item 15): `-e '*e:*'` (make fuzz's input) records, and
# says how many of its tracepoints it left out and which glob; a glob of
# which nothing opens is an error naming the glob.  Which tracepoints a
# kernel refuses varies: the second test looks for one first.
. "$(dirname "$0")/lib.sh"

need_rec rec_globs || finish
mount_tracefs rec_globs || finish

run_timeout 120 "$REC" -e '*e:*' -o "$T/g.amber" -- true >/dev/null 2>"$T/g.err"
rc=$?
if [ $rc != 0 ]; then
	fail rec_glob_records "exit $rc: $(grep -v '^\[' "$T/g.err" | head -n 3 | tr '\n' '|')"
elif grep -q 'cannot open event' "$T/g.err"; then
	fail rec_glob_records "an event of the glob failed the recording"
elif grep -q 'left out' "$T/g.err" && ! grep -q "'\*e:\*': left out [0-9]* of its [0-9]* tracepoints" "$T/g.err"; then
	fail rec_glob_records "the warning does not name the glob: $(grep 'left out' "$T/g.err")"
else
	ok rec_glob_records
fi

# A tracepoint this kernel refuses to open (ftrace's are the usual ones).
bad=""
for tp in ftrace:print ftrace:function ftrace:bputs ftrace:raw_data; do
	if ! run_timeout 60 "$REC" -e "$tp" -o "$T/p.amber" -- true >/dev/null 2>"$T/p.err" &&
		grep -q "cannot open event '$tp'" "$T/p.err"; then
		bad=$tp
		break
	fi
done
if [ -z "$bad" ]; then
	skip rec_glob_none_opens "this kernel opens every ftrace tracepoint tried"
else
	glob=$(echo "$bad" | sed 's/.$/*/')
	run_timeout 60 "$REC" -e "$glob" -o "$T/n.amber" -- true >/dev/null 2>"$T/n.err"
	rc=$?
	if [ $rc = 125 ] && grep -q "no event that '$(echo "$glob" | sed 's/\*/\\*/')' matches can be opened here ($bad:" "$T/n.err"; then
		ok rec_glob_none_opens
	else
		fail rec_glob_none_opens "-e '$glob': exit $rc: $(head -n 2 "$T/n.err" | tr '\n' '|')"
	fi
fi
finish
