// SPDX-License-Identifier: MIT
/*
 * analyze/view/export_stack.c - the stacks exporters write: each frame
 * resolved once by the pipeline's walk, expanded into its inline chain,
 * and its functions gathered in one table keyed by (system name, object):
 * two C++ overloads that demangle to the same name without their
 * parameters stay two functions, as they are two symbols.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/resolve/resolve.h"
#include "analyze/view/export.h"
#include "analyze/view/export_stack.h"
#include "common/hashmap.h"
#include "common/util.h"

struct ana_xctx {
	struct ana_pipeline *p;
	unsigned want;
	struct ana_intern strings;
	struct amb_hashmap funcs_by_key;    /* (system name, dso) -> struct ana_xfunc * */
	struct ana_xfunc **funcs;           /* by id - 1 */
	size_t nr_funcs, cap_funcs;
	struct ana_xstack st;
	size_t cap_locs, cap_lines;
	int err;
};

struct func_key {
	const char *system_name, *dso;
};

static bool func_eq(uint64_t stored, const void *key)
{
	const struct ana_xfunc *f = (const struct ana_xfunc *)(uintptr_t)stored;
	const struct func_key *k = key;

	return f->system_name == k->system_name && f->dso == k->dso;
}

struct ana_xctx *ana_xctx_new(struct ana_pipeline *p, bool inline_frames)
{
	struct ana_xctx *x = calloc(1, sizeof(*x));

	if (!x)
		return NULL;
	x->p = p;
	x->want = ANA_SYM_SRCLINE | (inline_frames ? ANA_SYM_INLINE : 0);
	return x;
}

void ana_xctx_free(struct ana_xctx *x)
{
	if (!x)
		return;
	for (size_t i = 0; i < x->nr_funcs; i++)
		free(x->funcs[i]);
	free(x->funcs);
	amb_hashmap_free(&x->funcs_by_key);
	ana_intern_free(&x->strings);
	free(x->st.locs);
	free(x->st.lines);
	free(x);
}

struct ana_intern *ana_xctx_strings(struct ana_xctx *x)
{
	return &x->strings;
}

uint32_t ana_xctx_func_count(const struct ana_xctx *x)
{
	return (uint32_t)x->nr_funcs;
}

const struct ana_xfunc *ana_xctx_func(const struct ana_xctx *x, uint32_t id)
{
	return id && id <= x->nr_funcs ? x->funcs[id - 1] : NULL;
}

bool ana_event_period_is_ns(const struct ana_event *e)
{
	return e && e->attr.type == PERF_TYPE_SOFTWARE &&
	       (e->attr.config == PERF_COUNT_SW_CPU_CLOCK || e->attr.config == PERF_COUNT_SW_TASK_CLOCK);
}

/* The string @s interned (NULL stays NULL); sets x->err on -ENOMEM. */
static const char *str(struct ana_xctx *x, const char *s)
{
	const char *r;

	if (!s)
		return NULL;
	r = ana_intern(&x->strings, s);
	if (!r)
		x->err = -ENOMEM;
	return r;
}

/*
 * The function @name (spelt @system_name in its ELF symbol table, or NULL:
 * @name) of @loc's object; made on first use, with @file and the line of
 * its entry found by @loc's DSO when it has one.
 */
static struct ana_xfunc *func_get(struct ana_xctx *x, const char *name, const char *system_name,
				  const struct ana_loc *loc, const char *file, bool inlined)
{
	struct func_key k = { str(x, system_name ? system_name : name),
			      str(x, loc->kernel || !loc->dso ? ana_loc_dso_name(loc)
							       : loc->dso->path) };
	uint64_t h = amb_hash_u64((uintptr_t)k.system_name ^ amb_hash_u64((uintptr_t)k.dso));
	struct ana_xfunc *f;

	if (x->err)
		return NULL;
	f = amb_hashmap_find(&x->funcs_by_key, h, func_eq, &k);
	if (f) {
		f->inlined |= inlined;
		return f;
	}
	if (amb_ensure_cap((void **)&x->funcs, &x->cap_funcs, sizeof(*x->funcs), x->nr_funcs + 1))
		goto nomem;
	f = calloc(1, sizeof(*f));
	if (!f)
		goto nomem;
	f->system_name = k.system_name;
	f->name = system_name ? str(x, name) : k.system_name;
	f->dso = k.dso;
	f->dso_short = str(x, ana_loc_dso_name(loc));
	f->kernel = loc->kernel;
	f->inlined = inlined;
	f->file = str(x, file);
	if (!inlined && loc->kind == ANA_LOC_SYM && loc->dso) {
		const struct ana_sym_info *entry;

		/* The line of the function's first instruction, its "start line". */
		if (!ana_sym_lookup(loc->dso, loc->vaddr - loc->offset, ANA_SYM_SRCLINE, &entry) &&
		    entry->file) {
			f->start_line = entry->line;
			if (!f->file)
				f->file = str(x, entry->file);
		}
	}
	if (amb_hashmap_add(&x->funcs_by_key, h, (uintptr_t)f, f)) {
		free(f);
		goto nomem;
	}
	x->funcs[x->nr_funcs++] = f;
	f->id = (uint32_t)x->nr_funcs;
	return x->err ? NULL : f;
nomem:
	x->err = -ENOMEM;
	return NULL;
}

static int add_line(struct ana_xctx *x, struct ana_xfunc *f, int line)
{
	if (!f)
		return 1;
	if (amb_ensure_cap((void **)&x->st.lines, &x->cap_lines, sizeof(*x->st.lines),
			   x->st.nr_lines + 1)) {
		x->err = -ENOMEM;
		return 1;
	}
	x->st.lines[x->st.nr_lines++] = (struct ana_xline){ f, line };
	return 0;
}

static int on_frame(void *ctx, const struct ana_loc *loc, unsigned depth)
{
	struct ana_xctx *x = ctx;
	struct ana_xloc *l;
	char buf[512];
	const struct ana_sym_info *si = loc->kind == ANA_LOC_SYM ? loc->sym : NULL;

	(void)depth;
	if (amb_ensure_cap((void **)&x->st.locs, &x->cap_locs, sizeof(*x->st.locs),
			   x->st.nr_locs + 1)) {
		x->err = -ENOMEM;
		return 1;
	}
	l = &x->st.locs[x->st.nr_locs++];
	memset(l, 0, sizeof(*l));
	l->addr = loc->addr;
	l->kernel = loc->kernel;
	l->symbolized = loc->kind == ANA_LOC_SYM || loc->kind == ANA_LOC_KERNEL;
	if (loc->map && !loc->kernel)
		l->map = *loc->map;
	l->first_line = x->st.nr_lines;
	if (si && si->nr_inl && (x->want & ANA_SYM_INLINE)) {
		/* The address's own line is in the innermost inlined function;
		 * each inline entry's line is its call site in the next one. */
		for (unsigned i = 0; i < si->nr_inl; i++) {
			const char *file = i ? si->inl[i - 1].file : si->file;
			int line = i ? si->inl[i - 1].line : si->line;

			if (add_line(x, func_get(x, si->inl[i].name, NULL, loc, file, true), line))
				return 1;
		}
		if (add_line(x, func_get(x, si->name, si->raw_name, loc,
					 si->inl[si->nr_inl - 1].file, false),
			     si->inl[si->nr_inl - 1].line))
			return 1;
	} else if (add_line(x, func_get(x, ana_loc_frame_name(loc, buf, sizeof(buf)),
					si ? si->raw_name : NULL, loc, si ? si->file : NULL, false),
			    si ? si->line : 0)) {
		return 1;
	}
	l->nr_lines = x->st.nr_lines - l->first_line;
	return 0;
}

const struct ana_xstack *ana_xctx_walk(struct ana_xctx *x, struct ana_thread *t,
				       const struct ana_sample *s)
{
	x->st.nr_locs = x->st.nr_lines = 0;
	ana_pipeline_walk(x->p, t, s, x->want, 0, on_frame, x);
	return x->err ? NULL : &x->st;
}
