/* SPDX-License-Identifier: MIT */
/*
 * analyze/cmd/report_memkeys.h - the memory sort keys of `amber-analyze
 * report` (report_memkeys.c), kept apart from the table of the other keys:
 * perf mem report's mem, snoop, tlb, locked, blocked, dso_daddr,
 * symbol_daddr, data_page_size, local_weight, weight, phys_daddr, and the
 * NUMA keys node (the node whose recorded physical range holds the
 * address) and remote (whether that is another node than the accessing
 * CPU's).  report_keys.c hands every key it does not know itself to
 * ana_report_memkey_parse() before taking it for a tracepoint field, and a
 * key of kind SK_MEM to the functions below.
 */
#ifndef AMB_ANALYZE_REPORT_MEMKEYS_H
#define AMB_ANALYZE_REPORT_MEMKEYS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analyze/cmd/report.h"

/* If @name is a memory key, make @k that key (kind SK_MEM, its header,
 * its index in k->mem) and return true. */
bool ana_report_memkey_parse(struct sort_key *k, const char *name);

/* The memory keys' --sort names, ", "-separated, into @buf of @len bytes
 * (cut to fit); returns @buf. */
const char *ana_report_memkey_names(char *buf, size_t len);

/* Whether @k's values have a key identity (ana_report_key_identity() in report_keys.c):
 * the data object keys depend on the address space, and have none. */
bool ana_report_memkey_has_identity(const struct sort_key *k);

/* The --sort name of @k, for JSON ("symbol_daddr"). */
const char *ana_report_memkey_opt(const struct sort_key *k);

/* The lines of the report's --help naming the memory keys. */
#define ANA_REPORT_MEMKEYS_HELP \
	"                         memory: mem,snoop,tlb,locked,blocked,dso_daddr,\n" \
	"                         symbol_daddr,data_page_size,local_weight,weight,phys_daddr\n" \
	"                         (perf mem report's), node,remote (the recording's NUMA nodes)\n"

/*
 * Once the recording of @r is open: check that its events record what
 * each memory key of @r needs (PERF_SAMPLE_DATA_SRC, ADDR, PHYS_ADDR,
 * WEIGHT, DATA_PAGE_SIZE), else report which option to record with, and
 * load its topology for node and remote.  Returns 0, or the exit status
 * after an error it reported.
 */
int ana_report_memkeys_open(struct report *r, const char *path);

/* Free what ana_report_memkeys_open() gave @r (none is also fine). */
void ana_report_memkeys_free(struct report *r);

/* Append @k's value for sample @smp of @t and the key separator to
 * r->key.  Returns 0 or -ENOMEM. */
int ana_report_memkey_value(struct report *r, const struct sort_key *k,
			    const struct ana_sample *smp, struct ana_thread *t);

/* @k's two identity words for @smp. */
void ana_report_memkey_identity(const struct report *r, const struct sort_key *k,
				const struct ana_sample *smp, uint64_t id[2]);

/* Turn the stored value @buf of @k into what an entry of @samples samples
 * shows: weight shows the entry's total, perf's weight * samples. */
void ana_report_memkey_show(const struct sort_key *k, uint64_t samples, char *buf, size_t len);

#endif /* AMB_ANALYZE_REPORT_MEMKEYS_H */
