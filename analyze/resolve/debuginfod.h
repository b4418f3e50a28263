/* SPDX-License-Identifier: MIT */
/*
 * analyze/resolve/debuginfod.h - a bounded debuginfod client (debuginfod.c),
 * libdebuginfod loaded with dlopen.
 */
#ifndef AMB_ANALYZE_DEBUGINFOD_H
#define AMB_ANALYZE_DEBUGINFOD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ana_debuginfod;

/*
 * A debuginfod client for the servers in $DEBUGINFOD_URLS, through
 * libdebuginfod.so.1 loaded with dlopen (the analyzer does not need it
 * to run).  A query waits $DEBUGINFOD_TIMEOUT when set, else
 * ANA_DEBUGINFOD_TIMEOUT seconds, for a silent server; the client, which
 * a run makes once, spends at most ANA_DEBUGINFOD_TOTAL seconds
 * ($AMBER_DEBUGINFOD_BUDGET when set) on all its queries together, and
 * asks nothing more once the budget is spent or a query timed out (a
 * server that did not answer for one DSO would make every later one wait
 * as long), saying so once through amb_warn().  NULL (with a warning
 * when the library is missing) when DEBUGINFOD_URLS is unset or empty,
 * or the client cannot be made.  Free with ana_debuginfod_free() (NULL
 * accepted).
 */
#define ANA_DEBUGINFOD_TIMEOUT 10
#define ANA_DEBUGINFOD_TOTAL   60
#define ANA_DEBUGINFOD_BUDGET_ENV "AMBER_DEBUGINFOD_BUDGET"
struct ana_debuginfod *ana_debuginfod_new(void);
void ana_debuginfod_free(struct ana_debuginfod *c);

/*
 * Ask the servers for the executable (@debuginfo false) or the separate
 * debug info of @build_id.  Returns a malloc'ed path in the client's
 * cache, which the caller frees and must still check (the server's
 * answer is not trusted), or NULL when no server has it or on error.
 */
char *ana_debuginfod_find(struct ana_debuginfod *c, const uint8_t *build_id, size_t len,
			  bool debuginfo);

#endif /* AMB_ANALYZE_DEBUGINFOD_H */
