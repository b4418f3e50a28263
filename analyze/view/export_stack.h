/* SPDX-License-Identifier: MIT */
/*
 * analyze/view/export_stack.h - a sample's stack as the exporters see it
 * (export_stack.c): frame addresses with their mapping, each expanded to
 * lines (inlined callees first, the function itself last), every line
 * naming a function of a table shared by the whole export.
 */
#ifndef AMB_ANALYZE_EXPORT_STACK_H
#define AMB_ANALYZE_EXPORT_STACK_H

#include <stdbool.h>
#include <stdint.h>

#include "analyze/resolve/resolve.h"
#include "analyze/view/intern.h"

/* One function of one object: a speedscope/Chrome frame, a pprof Function. */
struct ana_xfunc {
	uint32_t id;            /* 1, 2, ... in order of first use */
	const char *name;       /* interned, as report and flame name it */
	const char *system_name;/* interned: a symbol's name as its ELF spells it
				 * (mangled), else @name; with @dso the key */
	const char *file;       /* source file (interned), or NULL */
	int start_line;         /* line of its first instruction, 0 unknown */
	const char *dso;        /* object: path, [kernel.kallsyms], [unknown] (interned) */
	const char *dso_short;  /* its short name (interned) */
	bool kernel;
	bool inlined;           /* seen as an inlined copy */
};

/* One line of a frame: a function and the line in it. */
struct ana_xline {
	const struct ana_xfunc *fn;
	int line;               /* 0 unknown */
};

/* One frame address. */
struct ana_xloc {
	uint64_t addr;          /* as sampled */
	bool kernel;
	bool symbolized;        /* resolved to a symbol (ELF or kallsyms) */
	struct ana_map map;     /* a copy of the user mapping; map.dso NULL when none */
	unsigned first_line, nr_lines;
};

/* A sample's stack, leaf first; valid until the next walk. */
struct ana_xstack {
	struct ana_xloc *locs;
	unsigned nr_locs;
	struct ana_xline *lines;
	unsigned nr_lines;
};

struct ana_xctx;

/*
 * Stack walking for an export of @p (borrowed), with the inline chain
 * when @inline_frames.  NULL with errno = ENOMEM.  Free with
 * ana_xctx_free() (NULL accepted).
 */
struct ana_xctx *ana_xctx_new(struct ana_pipeline *p, bool inline_frames);
void ana_xctx_free(struct ana_xctx *x);

/* The strings of the export (function names, files, objects). */
struct ana_intern *ana_xctx_strings(struct ana_xctx *x);

/*
 * Walk the stack of sample @s of thread @t.  Returns the stack (owned by
 * @x, valid until the next walk), or NULL on -ENOMEM.
 */
const struct ana_xstack *ana_xctx_walk(struct ana_xctx *x, struct ana_thread *t,
				       const struct ana_sample *s);

/* Number of functions seen, and function @id (1-based). */
uint32_t ana_xctx_func_count(const struct ana_xctx *x);
const struct ana_xfunc *ana_xctx_func(const struct ana_xctx *x, uint32_t id);

/* True when event @e's period counts nanoseconds (cpu-clock, task-clock). */
bool ana_event_period_is_ns(const struct ana_event *e);

#endif /* AMB_ANALYZE_EXPORT_STACK_H */
