/* SPDX-License-Identifier: MIT */
/*
 * record/options.h - the command line of amber-rec (options.c): struct
 * rec_opts, its defaults, and the ring size chosen when -m is not given.
 */
#ifndef AMB_REC_OPTIONS_H
#define AMB_REC_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "common/perf_stat.h"
#include "common/util.h"

enum rec_callgraph {
	REC_CG_NONE = 0,
	REC_CG_FP,      /* PERF_SAMPLE_CALLCHAIN walked by the kernel */
	REC_CG_DWARF,   /* user registers + stack copy, unwound by analyze */
};

#define REC_DEFAULT_FREQ        4000u
#define REC_DEFAULT_STACK_SIZE  32768u   /* issue 5 measures this choice */
#define REC_DEFAULT_FLUSH_MS    1000u
#define REC_DEFAULT_OUTPUT      AMB_DEFAULT_RECORDING
#define REC_DEFAULT_EVENT       "cycles"

/* --filter EXPR: a tracepoint filter for the events of one -e. */
struct rec_filter_opt {
	size_t spec;               /* index in event_specs of the -e before it */
	const char *expr;
};

/* The command line, as rec_opts_parse() understood it. */
struct rec_opts {
	char **event_specs;        /* -e arguments, in order (not owned strings) */
	size_t nr_event_specs, cap_event_specs;
	const char *output;
	unsigned freq;             /* -F; 0 when -c is used */
	uint64_t period;           /* -c; 0 = use freq */
	enum rec_callgraph callgraph;
	uint32_t stack_size;       /* --call-graph dwarf,SIZE */
	bool data;                 /* -d: ADDR and DATA_SRC, data mappings too */
	bool phys_data;            /* --phys-data: PHYS_ADDR */
	bool data_page_size;       /* --data-page-size: DATA_PAGE_SIZE */
	bool weight;               /* -W/--weight: WEIGHT_STRUCT (x86) or WEIGHT */
	bool branch;               /* --branch */
	unsigned mmap_pages;       /* -m; 0 = chosen from the sampling mode */
	int zstd_level;            /* -z */
	unsigned flush_ms;         /* --flush-interval */
	bool sync;                 /* --sync: fdatasync every block */
	int embed;                 /* --embed[=hit|all]: enum rec_embed_mode */
	int kallsyms;              /* --kallsyms=auto|used|all: enum rec_ksyms_mode */
	double duration;           /* --duration seconds; 0 = until the end */
	pid_t *pids;               /* -p (malloc'ed) */
	size_t nr_pids, cap_pids;
	pid_t *tids;               /* -t (malloc'ed) */
	size_t nr_tids, cap_tids;
	bool system_wide;          /* -a */
	const char *cpulist;       /* -C */
	bool off_cpu;              /* --off-cpu: scheduler events (sched_events.h) */
	bool sched;                /* --sched, `amber-rec sched`: the sched preset */
	bool switch_events;        /* --switch-events: PERF_RECORD_SWITCH records */
	bool list_events;          /* --list-events [PATTERN] */
	const char *list_pattern;
	bool verbose;              /* -v: --list-events with descriptions */
	bool help, version;
	char **argv;               /* the command after the options, or NULL */
	int argc;
	/* Production capture (issue 12). */
	bool switch_signal;        /* --switch-output[=signal]: a new file on SIGUSR2 */
	uint64_t switch_size;      /* --switch-output=SIZE: at this many bytes; 0 = no */
	uint64_t switch_ns;        /* --switch-output=TIME: after this long; 0 = no */
	unsigned switch_max_files; /* --switch-max-files: keep the newest N; 0 = all */
	uint64_t max_size;         /* --max-size: bytes a file may take; 0 = no limit */
	uint64_t flight_bytes;     /* --flight-recorder=SIZE (or --overwrite) */
	uint64_t flight_ns;        /* --flight-recorder=TIME */
	const char *flight_spec;   /* as given, for META */
	const char *cgroup;        /* -G/--cgroup */
	const char *uid;           /* -u/--uid: a user name or number */
	struct rec_filter_opt *filters;  /* --filter, in order (malloc'ed) */
	size_t nr_filters, cap_filters;
};

#define REC_DEFAULT_FLIGHT_BYTES (64ull << 20)
#define REC_MIN_SWITCH_NS        (100ull * 1000000)
#define REC_MIN_SWITCH_BYTES     (64ull << 10)

/* Whether @o writes something other than one file: rotated files
 * (--switch-output), a bounded one (--max-size) or flight recorder dumps. */
bool rec_opts_rotating(const struct rec_opts *o);

/* "64M", "1G", "512K", "4096" or "4096B" (perf's units: powers of 1024)
 * into *@bytes.  Returns 0 or -EINVAL (zero, junk, overflow). */
int rec_parse_size(const char *s, uint64_t *bytes);

/* "30s", "5m", "2h", "1d" or "500ms" into *@ns.  Returns 0 or -EINVAL
 * (no unit, zero, junk, overflow). */
int rec_parse_duration(const char *s, uint64_t *ns);

/*
 * Parse the command line into @o (zeroed and filled with defaults first).
 * getopt_long state is reset, so this may be called more than once.
 * Returns 0, or -EINVAL with a message for the user in @err.  Free with
 * rec_opts_free(), also after an error.  Strings point into @argv.
 */
int rec_opts_parse(struct rec_opts *o, int argc, char **argv, char *err, size_t errlen);
/* Free the arrays rec_opts_parse() allocated and zero @o (NULL-safe). */
void rec_opts_free(struct rec_opts *o);

/*
 * How many of the arguments after @arg amber-rec's option @arg takes as
 * its value: 1 for "-o" or "--output" (value in the next argument), 0 for
 * "-oFILE", "--output=FILE", a flag or a cluster of flags ("-ag"), or
 * what is not an option of amber-rec.  For `amber-rec mem`, which passes
 * the options it does not know on to the recorder's command line.
 */
int rec_opts_arg_count(const char *arg);

/* The command line of `amber-rec stat`, perf stat's options. */
struct rec_stat_opts {
	struct rec_opts rec;         /* -e, -o, -p, -t, -a, -C and the command, in the
				      * fields rec_target_init() reads; output NULL
				      * unless -o was given */
	unsigned interval_ms;        /* -I; 0 = no intervals */
	unsigned repeat;             /* -r; at least 1 */
	const char *sep;             /* -x SEP, or NULL */
	bool json;                   /* -j, --json */
	enum amb_stat_aggr aggr;     /* -A/--per-cpu, --per-thread, --per-node */
	bool verbose;                /* -v: the reason of every unsupported event */
};

#define REC_STAT_MIN_INTERVAL_MS 10u

/*
 * Parse the arguments after "stat" (@argv[0] is "stat") into @o, zeroed
 * first.  Returns 0, or -EINVAL with a message for the user in @err.
 * Free with rec_stat_opts_free(), also after an error.
 */
int rec_stat_opts_parse(struct rec_stat_opts *o, int argc, char **argv, char *err,
			size_t errlen);
void rec_stat_opts_free(struct rec_stat_opts *o);

/* Default dwarf rings: REC_RING_HOLD_MS of samples, at least MIN_BYTES and
 * at most MAX_BYTES per CPU, all CPUs' rings together within BUDGET. */
#define REC_RING_HOLD_MS    100u
#define REC_RING_MIN_BYTES  (8ull << 20)
#define REC_RING_MAX_BYTES  (32ull << 20)
#define REC_RING_BUDGET     (256ull << 20)

/* Ring pages (of @page_size bytes) to use when -m is not given, by sampling
 * mode, frequency and stack copy size, for rings on @nr_cpus CPUs. */
unsigned rec_opts_default_pages(const struct rec_opts *o, size_t nr_cpus, size_t page_size);

#endif /* AMB_REC_OPTIONS_H */
