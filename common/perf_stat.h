/* SPDX-License-Identifier: MIT */
/*
 * common/perf_stat.h - the counting model that `amber-rec stat` and
 * `amber-analyze stat` share, so that a table printed while recording and
 * the same table printed later from the file are made by one piece of
 * code: scaling counter reads by time_enabled/time_running, the state of a
 * reading (exact, estimate, unreliable estimate, <not counted>,
 * <not supported>), summing counters per CPU, thread or NUMA node, the
 * derived figures perf stat prints (CPUs utilized, GHz, insn per cycle,
 * miss rates, per-second rates), mean and relative standard deviation over
 * repeated runs, and the table in perf stat's text, CSV and JSON shapes
 * (perf_stat.c: the model; perf_stat_print.c: the output).
 *
 * It knows the kernel's counting ABI (<linux/perf_event.h> types and
 * configs, the read_format times) and nothing of perf_event_open itself or
 * of amber's file format: the recorder feeds it what read(2) returned, the
 * analyzer what COUNTS blocks hold (FORMAT.md §5.4).
 *
 * Use: amb_stat_new() with the events; for each window (a run of the
 * command, or one -I interval) amb_stat_add() every counter read and
 * amb_stat_end_run() with the window's wall time; then amb_stat_print().
 * Windows folded with amb_stat_end_run() are the runs of -r: the table
 * shows their mean, and the relative standard deviation when there are
 * several.  amb_stat_reset() forgets them all (the next interval).
 */
#ifndef AMB_COMMON_PERF_STAT_H
#define AMB_COMMON_PERF_STAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/*
 * A multiplexed estimate from less running time than this is marked
 * unreliable: a sub-millisecond slice can inflate the scale five times or
 * more (the perf_event_open survey's experiment A).
 */
#define AMB_STAT_RELIABLE_NS 1000000ull

/* One counter reading (read_format value, time_enabled, time_running), or
 * a sum or difference of readings. */
struct amb_stat_count {
	uint64_t val;
	uint64_t ena;   /* ns the counter was enabled */
	uint64_t run;   /* ns it was on the PMU */
};

/*
 * @c's value scaled to its enabled time with the kernel's formula
 * (perf_event.h: quot * enabled + rem * enabled / running), which does not
 * overflow where val * ena would; saturates at UINT64_MAX.  @c->val when
 * run >= ena (not multiplexed), 0 when run is 0.
 */
uint64_t amb_stat_scale(const struct amb_stat_count *c);

enum amb_stat_state {
	AMB_STAT_EXACT,          /* ran all the time it was enabled */
	AMB_STAT_SCALED,         /* multiplexed: an estimate */
	AMB_STAT_UNRELIABLE,     /* multiplexed, and ran less than AMB_STAT_RELIABLE_NS */
	AMB_STAT_NOT_COUNTED,    /* never ran (time_running 0) */
	AMB_STAT_NOT_SUPPORTED,  /* the event could not be opened */
};

/* The state of a reading that ran @c->run of @c->ena ns in @runs windows
 * (the reliability threshold applies to each window's running time). */
enum amb_stat_state amb_stat_state_of(const struct amb_stat_count *c, unsigned runs);

/* How counters are summed into lines. */
enum amb_stat_aggr {
	AMB_STAT_AGGR_GLOBAL,    /* one line per event */
	AMB_STAT_AGGR_CPU,       /* per CPU (-A, --per-cpu) */
	AMB_STAT_AGGR_THREAD,    /* per thread (--per-thread) */
	AMB_STAT_AGGR_NODE,      /* per NUMA node (--per-node) */
};

/* "global", "cpu", "thread", "node" (the META value stat.aggr), and back:
 * 0 or -EINVAL. */
const char *amb_stat_aggr_name(enum amb_stat_aggr a);
int amb_stat_aggr_parse(const char *s, enum amb_stat_aggr *a);

/* One event of the table, in the order it is printed. */
struct amb_stat_event {
	const char *name;        /* copied by amb_stat_new() */
	uint32_t type;           /* perf_event_attr type and config: choose the */
	uint64_t config;         /* unit (msec) and the derived figure */
	int32_t leader;          /* index of the group leader, -1 if not grouped */
	const char *unsupported; /* NULL, or why it could not be opened (copied) */
};

struct amb_stat;

/*
 * A table of the @n events @ev (copied) summed as @aggr says.  Returns 0
 * and *@out, or -ENOMEM / -EINVAL (no events, a leader out of range).
 * Free with amb_stat_free() (NULL accepted).
 */
int amb_stat_new(const struct amb_stat_event *ev, size_t n, enum amb_stat_aggr aggr,
		 struct amb_stat **out);
void amb_stat_free(struct amb_stat *st);

/* The node of CPU @cpu, for AMB_STAT_AGGR_NODE (CPUs never set are in no
 * node, printed as node -1).  0 or -ENOMEM. */
int amb_stat_set_node(struct amb_stat *st, uint32_t cpu, uint32_t node);
/* The name of thread @tid, for AMB_STAT_AGGR_THREAD lines (copied,
 * "comm-tid" as perf prints it).  0 or -ENOMEM. */
int amb_stat_set_comm(struct amb_stat *st, uint32_t tid, const char *comm);

/*
 * Add the reading @c of event @event on CPU @cpu and thread @tid
 * (UINT32_MAX for "any", as in COUNTS entries) to the current window.
 * Returns 0, -EINVAL for an event out of range, -ENOMEM.
 */
int amb_stat_add(struct amb_stat *st, uint32_t event, uint32_t cpu, uint32_t tid,
		 const struct amb_stat_count *c);

/*
 * Add the @n readings @c of one task's counter opened once per CPU (pid
 * @tid, cpu @cpu[i]), as the sampling recorder opens its events.  Such a
 * counter is enabled whenever its task runs, on any CPU, but runs only
 * on its own: each time_enabled is the task's whole time, and scaling
 * each reading by it would count the task once per CPU.  So the readings
 * are summed as one of the task - values and running times added,
 * enabled time the largest (or the running times' sum, when inherited
 * threads ran on several CPUs at once) - whose share and scale then mean
 * what they mean for a counter of the task alone; per CPU (or node) each
 * reading is exact for its CPU.  Returns as amb_stat_add().
 */
int amb_stat_add_task_cpus(struct amb_stat *st, uint32_t event, uint32_t tid, const uint32_t *cpu,
			   const struct amb_stat_count *c, size_t n);

/* Close the current window, @elapsed_ns of wall time, as one run: every
 * line's scaled sum becomes one sample of its mean and deviation. */
void amb_stat_end_run(struct amb_stat *st, uint64_t elapsed_ns);

/* Forget every run and the current window (the lines stay known). */
void amb_stat_reset(struct amb_stat *st);

/* Runs folded so far; their mean wall time in ns, and its standard
 * deviation (of the mean, as perf stat -r shows it). */
unsigned amb_stat_runs(const struct amb_stat *st);
double amb_stat_elapsed_ns(const struct amb_stat *st);
double amb_stat_elapsed_stddev_ns(const struct amb_stat *st);

/* The name amb_stat_set_comm() gave thread @tid, or NULL. */
const char *amb_stat_comm(const struct amb_stat *st, uint32_t tid);

/* One line of the table as printed: an event at one unit (CPU, thread,
 * node; -1 for the whole) over the runs folded so far. */
struct amb_stat_line {
	uint32_t event;
	int64_t unit;
	uint32_t nr;               /* counters summed into it (per run) */
	enum amb_stat_state state;
	double value;              /* mean scaled count (ns for clocks) */
	double rsd;                /* relative stddev of the mean, %; 0 for one run */
	struct amb_stat_count sum; /* raw readings summed over the runs */
	double share;              /* running share, % of enabled time */
	bool has_metric;           /* the derived figure below exists */
	double metric;
	const char *metric_unit;   /* "CPUs utilized", "GHz", "K/sec", ... (static) */
	bool metric_pct;           /* @metric is a percentage ("5.08% of all branches") */
};

/*
 * The lines in print order (unit by unit, events in table order), into a
 * malloc'ed array *@out of *@n (free() it).  Events never read in a unit
 * are left out, unless unsupported (one line per unit).  Returns 0 or
 * -ENOMEM.
 */
int amb_stat_lines(const struct amb_stat *st, struct amb_stat_line **out, size_t *n);

/* The aggregation amb_stat_new() was given. */
enum amb_stat_aggr amb_stat_aggr(const struct amb_stat *st);

/* The event table as given to amb_stat_new(). */
const struct amb_stat_event *amb_stat_event(const struct amb_stat *st, uint32_t i);
size_t amb_stat_event_count(const struct amb_stat *st);

/* Report every unreliable estimate of the runs folded so far through
 * amb_warn(), once per event, naming the group to shrink. */
void amb_stat_warn_unreliable(const struct amb_stat *st);

/* ---- output (perf_stat_print.c) ------------------------------------------------ */

enum amb_stat_format {
	AMB_STAT_TEXT,           /* perf stat's table */
	AMB_STAT_CSV,            /* perf stat -x SEP */
	AMB_STAT_JSON,           /* perf stat -j: one object per line */
};

struct amb_stat_print_opts {
	enum amb_stat_format format;
	const char *sep;         /* CSV separator (default ",") */
	const char *title;       /* text header "Performance counter stats for TITLE",
				  * NULL for none (intervals) */
	unsigned runs_asked;     /* -r N, for the header ("(N runs)") */
	bool interval;           /* prefix each line with @time_s */
	double time_s;           /* interval end, seconds since the start */
	bool footer;             /* text: "seconds time elapsed" (and user/sys) */
	double user_s, sys_s;    /* footer's user and sys times; < 0: unknown */
};

/* The count of line @l as the table shows it, into @buf: "12.34 msec" for
 * clocks, "1234" for others (the rounded mean over several runs),
 * "<not counted>", "<not supported>". */
void amb_stat_value_text(const struct amb_stat *st, const struct amb_stat_line *l, char *buf,
			 size_t len);

/* The column header of -I text output ("#           time ... events"),
 * with the unit column of @aggr. */
void amb_stat_print_interval_header(FILE *f, enum amb_stat_aggr aggr);

/*
 * Print the table of the runs folded so far to @f as @po says.
 * Returns 0, -ENOMEM, or -EIO when writing failed.
 */
int amb_stat_print(const struct amb_stat *st, FILE *f, const struct amb_stat_print_opts *po);

#endif /* AMB_COMMON_PERF_STAT_H */
