/* SPDX-License-Identifier: MIT */
/*
 * record/mem.h - `amber-rec mem` (mem.c): perf mem record's preset.  Which
 * PMUs of this host sample memory accesses (Intel mem-loads and
 * mem-stores, AMD IBS op, Arm SPE), the events perf mem record opens on
 * them, and the amber-rec command line that records those events with
 * data addresses (-d), weights (-W) and, on request, physical addresses.
 */
#ifndef AMB_REC_MEM_H
#define AMB_REC_MEM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

enum rec_mem_kind {
	REC_MEM_INTEL = 1,     /* events/mem-loads, events/mem-stores of a core PMU */
	REC_MEM_AMD_IBS,       /* the ibs_op PMU */
	REC_MEM_ARM_SPE,       /* an arm_spe_N PMU */
};

/* One PMU that samples memory accesses. */
struct rec_mem_pmu {
	enum rec_mem_kind kind;
	char name[64];         /* "cpu", "cpu_core", "ibs_op", "arm_spe_0" */
	bool loads, stores;    /* Intel: it has events/mem-loads, events/mem-stores */
	bool loads_aux;        /* Intel: events/mem-loads-aux, the group leader its
				* loads need (Sapphire Rapids and later) */
};

#define REC_MEM_MAX_PMUS 8

/* What rec_mem_probe() found. */
struct rec_mem_probe {
	struct rec_mem_pmu pmu[REC_MEM_MAX_PMUS];
	size_t n;
};

/*
 * Look for memory-sampling PMUs under rec_pmu_root() (events/pmu.h), as
 * perf's mem-events.c does: a core PMU ("cpu", "cpu_core", "cpu_atom")
 * with events/mem-loads or events/mem-stores, "ibs_op", "arm_spe_*".
 * Returns 0 (p->n may be 0) or -ENOMEM.
 */
int rec_mem_probe(struct rec_mem_probe *p);

#define REC_MEM_DEFAULT_LDLAT 30u    /* perf_mem_events__loads_ldlat */

/* perf mem record's choices. */
struct rec_mem_opts {
	bool load, store;      /* -t load,store (default both) */
	unsigned ldlat;        /* --ldlat: load latency threshold, cycles */
	bool all_user;         /* -U: user space only */
	bool all_kernel;       /* -K: kernel only */
};

#define REC_MEM_SPEC_MAX 192
#define REC_MEM_MAX_EVENTS (2 * REC_MEM_MAX_PMUS)

/* The events perf mem record opens on the PMUs found. */
struct rec_mem_events {
	char spec[REC_MEM_MAX_EVENTS][REC_MEM_SPEC_MAX]; /* -e arguments */
	const char *tag[REC_MEM_MAX_EVENTS];   /* perf's names: "ldlat-loads", ... */
	size_t n;
	bool weight;           /* loads are sampled: -W, as perf mem record adds it */
	bool aux;              /* some event writes an AUX area trace (Arm SPE) */
};

/*
 * The -e specs perf mem record (tools/perf/util/mem-events.c and the
 * arch files) would give for @p and @o: on Intel "PMU/mem-loads,ldlat=N/P"
 * ("{PMU/mem-loads-aux/,PMU/mem-loads,ldlat=N/}:P" where the aux event
 * exists) and "PMU/mem-stores/P"; on AMD "ibs_op//", which samples loads
 * and stores; on Arm "PMU/ts_enable=1,pa_enable=1,load_filter=L,
 * store_filter=S,min_latency=N/".  -U and -K add the u or k modifier.
 * Returns 0, or -ENOENT with a message naming what this host lacks when
 * no PMU found can sample what @o asks for.
 */
int rec_mem_events_build(const struct rec_mem_probe *p, const struct rec_mem_opts *o,
			 struct rec_mem_events *ev, char *err, size_t errlen);

/* The command line of a recording: amber-rec's own argv. */
struct rec_mem_cmdline {
	char **argv;           /* malloc'ed, NULL-terminated; points into the
				* original argv and @ev */
	int argc;
	struct rec_mem_events ev;
};

/*
 * Turn `amber-rec mem [MEM OPTIONS] [OPTIONS] [--] COMMAND` (@argv[1] is
 * "mem") into amber-rec's command line, as perf mem record turns its own
 * into perf record's: -d, -W when loads are sampled, --phys-data for -p,
 * --data-page-size, the -e events for this host (from @p), then every
 * other option and the command as given.  The options of perf mem record
 * are -t/--type, -e/--event (perf's event names, or "list"), --ldlat,
 * -p/--phys-data, --data-page-size, -U/--all-user, -K/--all-kernel and
 * -h/--help: so -p is --phys-data here, and --pid attaches.
 *
 * Returns -1 with @out filled (free with rec_mem_cmdline_free()) to go on
 * recording, or the exit status when done: 0 after --help or "-e list"
 * (printed on @out_f), 125 after an error (printed on stderr, naming what
 * this host lacks).
 */
int rec_mem_cmdline(int argc, char **argv, const struct rec_mem_probe *p,
		    struct rec_mem_cmdline *out, FILE *out_f);

/* Free what rec_mem_cmdline() allocated (NULL-safe, zeroes @c). */
void rec_mem_cmdline_free(struct rec_mem_cmdline *c);

#endif /* AMB_REC_MEM_H */
