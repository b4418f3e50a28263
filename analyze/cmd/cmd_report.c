// SPDX-License-Identifier: MIT
/*
 * analyze/cmd/cmd_report.c - `amber-analyze report`: samples aggregated by
 * sort keys into a table sorted by overhead, perf report style.  Here: the
 * command, its options, --off-cpu, and each sample's way to its entries
 * and call graphs; the sort keys and the entries are report_keys.c's, the
 * stack memos report_memo.c's, the output report_print.c's.
 *
 * Samples stream through once and are never kept: each one becomes a key
 * string (the sort keys' values joined by \x1f) that selects a hash-table
 * entry per event; -g adds the sample's stack to a tree under the entry.
 * Symbol results are cached per (DSO, address) by symbols.c.
 *
 * The key string is made only the first time: an entry is found again by
 * its key's identity (ana_report_key_identity()), the pointers and numbers
 * its values come from, and --children counts a sample once per entry with
 * a per-sample stamp rather than by comparing keys.  A sample whose stack
 * was seen before reuses what that one resolved (struct stack_memo).
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "analyze/cmd/cmd.h"
#include "analyze/cmd/report.h"
#include "analyze/cmd/report_memkeys.h"
#include "common/util.h"
#include <amber/common.h>

/* perf's default --parent pattern: system calls and page faults. */
#define DEFAULT_PARENT "^sys_|^do_page_fault"

/* ---- call graphs ----------------------------------------------------------- */

/*
 * The interned call graph name of a frame named @src, a string that
 * outlives the report, with " (inlined)" added for an @inlined frame.
 * NULL on -ENOMEM.
 */
static const char *cg_name(struct report *r, const char *src, bool inlined)
{
	uint64_t key = (uint64_t)(uintptr_t)src << 2 | inlined, hash = amb_hash_u64(key);
	const char *name = amb_hashmap_find_u64(&r->cg_names, hash, key);
	char buf[300];

	if (name)
		return name;
	if (inlined) {
		snprintf(buf, sizeof(buf), "%s (inlined)", src);
		src = buf;
	}
	name = ana_intern(&r->strings, src);
	if (!name || amb_hashmap_add(&r->cg_names, hash, key, (void *)name))
		return NULL;
	return name;
}

/* A call graph name of its own (report.h). */
struct cg_alias {
	struct cg_alias *next;
	char name[];
};

/*
 * The call graph name of a symbol shown as @shown whose ELF name, @raw, is
 * another (a demangled C++ or Rust name): the same text as other symbols
 * shown alike, but a string of its own, since the graph compares names by
 * pointer and perf keeps two overloads apart (ns::work(long) and
 * ns::work(int) are two callers).  One per ELF name, found by @raw's
 * address once it has been seen (the per-frame case), by its text the
 * first time; NULL on -ENOMEM.
 */
static const char *cg_name_sym(struct report *r, const char *shown, const char *raw)
{
	uint64_t key = (uint64_t)(uintptr_t)raw << 2 | 2, hash = amb_hash_u64(key);
	uint64_t ckey, chash;
	const char *name = amb_hashmap_find_u64(&r->cg_names, hash, key), *canon;
	struct cg_alias *a;
	size_t len;

	if (name)
		return name;
	/* Another copy of the same ELF name (another object's) shares it. */
	canon = ana_intern(&r->strings, raw);
	if (!canon)
		return NULL;
	ckey = (uint64_t)(uintptr_t)canon << 2 | 2;
	chash = amb_hash_u64(ckey);
	name = amb_hashmap_find_u64(&r->cg_names, chash, ckey);
	if (!name) {
		len = strlen(shown) + 1;
		a = malloc(sizeof(*a) + len);
		if (!a)
			return NULL;
		memcpy(a->name, shown, len);
		if (amb_hashmap_add(&r->cg_names, chash, ckey, a->name)) {
			free(a);
			return NULL;
		}
		a->next = r->cg_aliases;
		r->cg_aliases = a;
		name = a->name;
	}
	if (raw != canon && amb_hashmap_add(&r->cg_names, hash, key, (void *)name))
		return NULL;
	return name;
}

/*
 * The call graph path of the entry at frame @pos of the stack @steps[0..n)
 * (leaf first) into r->cg_path, returning its length.  --children: the
 * entry and what it called (caller order, perf's default there), or the
 * entry and its callers (callee order).  The sample's own entry, and every
 * entry without --children (@pos UINT_MAX): the whole stack, from the
 * outermost caller down (caller order) or from the leaf up (callee order).
 */
static unsigned cg_path_of(struct report *r, const struct cg_step *steps, unsigned n,
			   unsigned pos)
{
	struct cg_step *path = r->cg_path;
	unsigned len = 0, i;

	if (pos == UINT_MAX) {
		for (i = 0; i < n; i++)
			path[len++] = steps[r->caller ? n - 1 - i : i];
	} else if (r->caller) {
		for (i = pos + 1; i-- > 0;)
			path[len++] = steps[i];
	} else {
		for (i = pos; i < n; i++)
			path[len++] = steps[i];
	}
	return len;
}

/* Raise @e's cg_depth to the perf entries of the path r->cg_path[0..len)
 * (--children only: entry_cmp() breaks ties of children with it). */
static void note_depth(struct report *r, struct hist_entry *e, unsigned len)
{
	unsigned depth = 0;

	for (unsigned i = 0; i < len; i++)
		depth += r->cg_path[i].entries;
	e->cg_depth = AMB_MAX(e->cg_depth, depth);
}

/*
 * Where frame @f sorts among branches of equal weight: perf orders them by
 * the symbol's address, higher first (within one object; across objects
 * its order is that of its objects' addresses in memory, which nothing
 * can reproduce); inlined frames, which perf orders by name, stay in the
 * order they came.
 */
static uint64_t frame_order(const struct frame *f)
{
	if (f->inlined)
		return 0;
	if (f->loc.kind == ANA_LOC_KERNEL)
		return f->loc.ksym->addr;
	if (f->loc.kind == ANA_LOC_SYM)
		return f->loc.sym->sym_start;
	return f->loc.addr;
}

/* Add @period to the call graphs of the sample's entries: each entry of
 * @children at its frame @pos (--children), but @self, and without
 * --children @self alone, with the whole stack (perf's graphs: a sample's
 * own entry shows how it was reached, a caller's entry what it called).
 * Where each path ended goes to r->cg_ends (one per child, or one). */
static int add_callgraphs(struct report *r, const struct cg_step *steps, unsigned n,
			  struct hist_entry *self, struct hist_entry *const *children,
			  const unsigned *pos, unsigned nr_children, uint64_t period)
{
	unsigned i, len;
	int err;

	if (!r->children) {
		len = cg_path_of(r, steps, n, UINT_MAX);
		return ana_report_cg_add(&self->cg, r->cg_path, len, period, &r->cg_ends[0]);
	}
	for (i = 0; i < nr_children; i++) {
		len = cg_path_of(r, steps, n, children[i] == self ? UINT_MAX : pos[i]);
		note_depth(r, children[i], len);
		err = ana_report_cg_add(&children[i]->cg, r->cg_path, len, period, &r->cg_ends[i]);
		if (err)
			return err;
	}
	return 0;
}

/* ---- samples ------------------------------------------------------------------ */

static int collect_frame(void *ctx, const struct ana_loc *loc, unsigned depth)
{
	struct report *r = ctx;
	struct frame *f;
	char buf[128];
	unsigned i;

	(void)depth;
	if (r->nr_frames == MAX_FRAMES)
		return 1;
	/* Inlined functions are frames of their own in the call graph. */
	if (r->callgraph && r->inline_frames && loc->kind == ANA_LOC_SYM) {
		for (i = 0; i < loc->sym->nr_inl && r->nr_frames < MAX_FRAMES - 1; i++) {
			f = &r->frames[r->nr_frames++];
			f->loc = *loc;
			f->inlined = true;
			f->name = cg_name(r, loc->sym->inl[i].name, true);
			if (!f->name) {
				r->frame_err = -ENOMEM;
				return -ENOMEM;
			}
		}
	}
	f = &r->frames[r->nr_frames++];
	f->loc = *loc;
	f->inlined = false;
	f->name = ana_loc_sym_name(loc, buf, sizeof(buf));
	/* The call graph compares names by pointer, and a made-up name lives
	 * in @buf: those are interned; a symbol's name lasts as it is. */
	if (f->name == buf)
		f->name = ana_intern(&r->strings, buf);
	else if (r->callgraph && ana_loc_mangled(loc))
		f->name = cg_name_sym(r, f->name, ana_loc_mangled(loc));
	else if (r->callgraph)
		f->name = cg_name(r, f->name, false);
	if (!f->name) {
		r->frame_err = -ENOMEM;
		return -ENOMEM;
	}
	return 0;
}

/* The name a frame's symbol has, without " (inlined)"; NULL for inlined
 * frames, which --parent and --ignore-callees do not look at. */
static const char *frame_sym(const struct frame *f)
{
	char buf[128];

	if (f->inlined)
		return NULL;
	return f->loc.kind == ANA_LOC_SYM || f->loc.kind == ANA_LOC_KERNEL ?
		       ana_loc_sym_name(&f->loc, buf, sizeof(buf)) : NULL;
}

/*
 * --ignore-callees: the sample belongs to the outermost function matching
 * the pattern, and what it called is left out (perf's rule: each match
 * from the leaf up forgets the frames below it).
 */
static void ignore_callees(struct report *r)
{
	unsigned i, cut = 0;

	for (i = 0; i < r->nr_frames; i++) {
		const char *sym = frame_sym(&r->frames[i]);

		if (sym && !regexec(&r->ignore_re, sym, 0, NULL, 0))
			cut = i;
	}
	if (cut) {
		memmove(r->frames, r->frames + cut, (r->nr_frames - cut) * sizeof(*r->frames));
		r->nr_frames -= cut;
	}
}

/* --parent, the parent sort key: the first caller, from the leaf up,
 * matching the pattern, or NULL. */
static const char *find_parent(struct report *r)
{
	for (unsigned i = 0; i < r->nr_frames; i++) {
		const char *sym = frame_sym(&r->frames[i]);

		if (sym && !regexec(&r->parent_re, sym, 0, NULL, 0))
			return r->frames[i].name;
	}
	return NULL;
}

/* -T: add @smp to its thread's total for its event. */
static int add_thread_total(struct report *r, const struct ana_sample *smp, struct ana_thread *t)
{
	uint64_t key = smp->tid, hash = amb_hash_u64(key);
	struct thread_total *tt = amb_hashmap_find_u64(&r->threads_map, hash, key);

	if (!tt) {
		tt = calloc(1, sizeof(*tt));
		if (!tt)
			return -ENOMEM;
		tt->period = calloc(r->nr_hists, sizeof(*tt->period));
		if (!tt->period || amb_hashmap_add(&r->threads_map, hash, key, tt)) {
			free(tt->period);
			free(tt);
			return -ENOMEM;
		}
		tt->pid = smp->pid;
		tt->tid = smp->tid;
	}
	/* The thread's name at its last sample, as perf shows it. */
	tt->comm = ana_thread_comm(t);
	tt->period[smp->evt ? smp->evt->index : r->nr_hists - 1] += smp->period;
	return 0;
}

static int process_sample(void *ctx, const struct ana_sample *smp, struct ana_thread *t)
{
	struct report *r = ctx;
	struct hist_entry *e, *self;
	struct stack_memo *memo;
	struct hist *h;
	unsigned i, leaf, nr_children = 0;
	bool memoize, by_chain;
	int err;

	if (r->threads && (err = add_thread_total(r, smp, t)))
		return err;
	h = &r->hists[smp->evt ? smp->evt->index : r->nr_hists - 1];
	by_chain = r->memos.by_chain && smp->chain_key;
	if (by_chain && (memo = ana_report_chain_memo_find(r, smp, t)))
		return ana_report_memo_apply(h, memo, smp->period);
	memoize = r->memo_on && ana_report_memo_key(r, smp, t, h);
	if (memoize && (memo = ana_report_memo_find(&r->memos))) {
		if (by_chain)
			ana_report_chain_memo_set(r, smp, t, memo);
		return ana_report_memo_apply(h, memo, smp->period);
	}
	r->nr_frames = 0;
	r->frame_err = 0;
	ana_pipeline_walk(r->p, t, smp, r->want, ana_report_full_stack(r) ? r->max_stack : 1,
			  collect_frame, r);
	if (r->frame_err)
		return r->frame_err;
	if (r->ignore_re_set)
		ignore_callees(r);
	if (!r->nr_frames)
		return 0;
	r->parent = r->parent_re_set ? find_parent(r) : NULL;
	if (r->exclude_other && !r->parent)
		return 0;
	/* The entry's symbol is the ELF symbol, as perf shows it; the inlined
	 * functions before it are call graph frames only. */
	for (leaf = 0; leaf + 1 < r->nr_frames && r->frames[leaf].inlined; leaf++)
		;
	h->samples++;
	h->period += smp->period;
	self = ana_report_hist_find(r, h, smp, t, &r->frames[leaf]);
	if (!self)
		return -ENOMEM;
	self->samples++;
	self->period += smp->period;
	if (r->children) {
		/*
		 * Children: every entry on the stack once, whatever the
		 * recursion: the sample's own first, then (as perf takes them)
		 * from the outermost caller in caller order, from the leaf in
		 * callee order, so that a recursive function's graph starts at
		 * the same one of its frames as perf's.
		 */
		r->stamp++;
		for (unsigned k = leaf; k < r->nr_frames; k++) {
			i = k == leaf || !r->caller ? k : r->nr_frames - (k - leaf);
			if (r->frames[i].inlined)
				continue;
			e = ana_report_hist_find(r, h, smp, t, &r->frames[i]);
			if (!e)
				return -ENOMEM;
			if (e->stamp == r->stamp)
				continue;
			e->stamp = r->stamp;
			e->children += smp->period;
			r->stack_pos[nr_children] = i;
			r->stack_entries[nr_children++] = e;
		}
	}
	if (r->callgraph) {
		struct cg_step *steps = r->cg_steps_tmp;

		for (i = 0; i < r->nr_frames; i++) {
			const struct frame *f = &r->frames[i];

			steps[i].name = f->name;
			steps[i].order = frame_order(f);
			steps[i].entries = f->inlined ? 0 :
					   f->loc.kind == ANA_LOC_BROKEN_FP ? f->loc.dropped : 1;
		}
		err = add_callgraphs(r, steps, r->nr_frames, self, r->stack_entries, r->stack_pos,
				     nr_children, smp->period);
		if (err)
			return err;
	}
	if (!memoize)
		return 0;
	err = ana_report_memo_add(r, self, nr_children, &memo);
	if (!err && by_chain)
		ana_report_chain_memo_set(r, smp, t, memo);
	return err;
}

static void tick(void *ctx, uint64_t records)
{
	ana_progress_show(ctx, records);
}

/* ---- options ------------------------------------------------------------------ */

/* -F/--fields: the columns perf calls overhead, overhead_children, sample
 * and period, and sort keys. */
static int parse_fields(struct report *r, const char *arg)
{
	static const struct { const char *name; unsigned col; } cols[] = {
		{ "overhead", COL_OVERHEAD }, { "overhead_children", COL_CHILDREN },
		{ "sample", COL_SAMPLES }, { "samples", COL_SAMPLES }, { "period", COL_PERIOD },
	};
	char *copy = strdup(arg), *tok, *save = NULL;
	int err = 0;

	if (!copy)
		return -ENOMEM;
	r->columns = 0;
	for (tok = strtok_r(copy, ",", &save); tok && !err; tok = strtok_r(NULL, ",", &save)) {
		size_t i;

		for (i = 0; i < AMB_ARRAY_SIZE(cols) && strcasecmp(tok, cols[i].name); i++)
			;
		if (i < AMB_ARRAY_SIZE(cols))
			r->columns |= cols[i].col;
		else
			err = ana_report_add_key(r, tok);
	}
	free(copy);
	return err;
}

/* "100ms", "1s", "500us", or nanoseconds, as perf's --time-quantum. */
static int parse_quantum(struct report *r, const char *arg)
{
	static const struct { const char *unit; uint64_t ns; } units[] = {
		{ "", 1 }, { "ns", 1 }, { "us", 1000 }, { "ms", 1000000 }, { "s", 1000000000 },
	};
	char *end;
	unsigned long long v = strtoull(arg, &end, 10);

	for (size_t i = 0; end != arg && *arg != '-' && v && i < AMB_ARRAY_SIZE(units); i++) {
		if (!strcmp(end, units[i].unit) && v <= UINT64_MAX / units[i].ns) {
			r->time_quantum = v * units[i].ns;
			return 0;
		}
	}
	amb_errmsg_set("not a time above 0 in ns, us, ms or s (100ms)");
	return -EINVAL;
}

/*
 * perf's --call-graph: comma-separated, in any order, the print type
 * (graph, or none), the threshold in percent, the order (caller or
 * callee), and the sort key and value perf takes (function, percent).
 */
static int parse_callgraph(struct report *r, const char *arg)
{
	char *copy = arg ? strdup(arg) : NULL, *tok, *save = NULL;
	bool limit = false;
	int err = 0;

	r->callgraph = true;
	r->callgraph_set = true;
	if (!arg)
		return 0;
	if (!copy)
		return -ENOMEM;
	for (tok = strtok_r(copy, ",", &save); tok && !err; tok = strtok_r(NULL, ",", &save)) {
		char *end;
		double v;

		if (!strcmp(tok, "caller") || !strcmp(tok, "callee")) {
			r->caller = tok[5] == 'r';
			r->order_set = true;
		} else if (!strcmp(tok, "none")) {
			r->callgraph = false;
		} else if (!strcmp(tok, "graph") || !strcmp(tok, "function") ||
			   !strcmp(tok, "percent")) {
			continue;
		} else if ((v = strtod(tok, &end)), end != tok && !*end && !limit) {
			if (!(v >= 0 && v <= 100))
				err = -EINVAL;
			r->cg_limit = v;
			limit = true;
		} else {
			err = -EINVAL;
		}
	}
	free(copy);
	if (err)
		amb_errmsg_set("not caller, callee, graph or none, with a threshold in percent "
			       "(caller,5: callers first, branches of 5%% or more)");
	return err;
}

static bool is_callgraph_spec(const char *arg)
{
	static const char *const words[] = { "caller", "callee", "graph", "none" };
	size_t i;

	for (i = 0; i < AMB_ARRAY_SIZE(words); i++)
		if (!strncmp(arg, words[i], strlen(words[i])) &&
		    (!arg[strlen(words[i])] || arg[strlen(words[i])] == ','))
			return true;
	return false;
}

static const char usage[] =
"usage: amber-analyze report [OPTIONS] [FILE]\n"
"\n"
"Samples aggregated by sort keys, sorted by overhead.  On a recording with\n"
"call chains (-g, --call-graph dwarf), children overhead and call graphs are\n"
"shown, as perf does (--no-children, -g none for self overhead alone).\n"
"\n"
"  -s, --sort KEYS        comm,pid,tid,dso,sym (symbol),srcline,srcfile,sym_size,\n"
"                         cpu,event,time,parent,trace, or tracepoint fields\n"
"                         (prev_comm, ...); default comm,dso,sym\n"
"  -F, --fields LIST      columns: overhead, overhead_children, sample, period,\n"
"                         and sort keys (--sort adds its keys after them)\n"
ANA_REPORT_MEMKEYS_HELP
"      --children         accumulate callers' overhead over callchains\n"
"      --no-children      self overhead only\n"
"  -g, --call-graph[=caller|callee|none[,PCT]]\n"
"                         call graph under each entry (default caller,0.5 with\n"
"                         children, callee,0.5 without)\n"
"      --max-stack N      use at most N frames of a stack (default 127)\n"
"      --no-inline        no inlined functions in call graphs\n"
"  -p, --parent REGEX     the parent key: the first caller matching REGEX\n"
"                         (default ^sys_|^do_page_fault); adds --sort parent\n"
"  -x, --exclude-other    only samples with a parent\n"
"      --ignore-callees REGEX  a sample belongs to the outermost function\n"
"                         matching REGEX; what it called is left out\n"
"      --time-quantum T   the time key's buckets: 100ms (default), 1s, 500us\n"
"      --hierarchy        entries grouped by their keys, level by level\n"
"                         (self overhead)\n"
"      --percentage absolute|relative\n"
"                         shares of all samples within --time (default), or\n"
"                         of those the other filters kept\n"
"  -T, --threads          also each thread's period per event\n"
"      --header           the recording's full header first\n"
"      --header-only      only the header\n"
"      --off-cpu          time off CPU instead of samples: each wait (switch-out\n"
"                         to switch-in) is a sample of its stack at switch-out\n"
"                         weighted in ns, in one table per state (R, S, D ...);\n"
"                         needs a recording made with amber-rec --off-cpu\n"
"      --pid/--tid LIST   only these processes/threads\n"
"      --comm LIST        only these commands\n"
"  -C, --cpu LIST         only these CPUs (0-3,7)\n"
"      --dso LIST         only these shared objects\n"
"  -S, --sym LIST         only these symbols (also --symbols)\n"
"      --time RANGES      START,END with times as script prints them (309.76,\n"
"                         309.8), +SECONDS from the start (+0.1,+0.5) or\n"
"                         HH:MM:SS[.frac]; ranges separated by spaces; or\n"
"                         percentages of the span: 10%/2 (the 2nd tenth),\n"
"                         0%-10%,90%-100%\n"
"  -e, --event NAME       only this event (default: each event in turn)\n"
"      --percent-limit P  hide entries below P%\n"
"      --field-filter NAME=VALUE[,...]  only tracepoint samples whose fields print so\n"
"      --symfs DIR        look for files under DIR\n"
"      --no-debuginfod    never ask debuginfod (DEBUGINFOD_URLS) for files\n"
"      --no-demangle      C++ and Rust symbols as the ELF spells them\n"
"  -j, --jobs N           N threads: main + N-1 decoding (default: one per CPU)\n"
"      --json             JSON instead of text\n"
"      --stdio            text output (the only mode)\n";

enum {
	O_CHILDREN = 256, O_NO_CHILDREN, O_PLIMIT, O_JSON, O_STDIO, O_NO_INLINE, O_MAX_STACK,
	O_HEADER, O_HEADER_ONLY, O_HIERARCHY, O_PERCENTAGE, O_IGNORE_CALLEES, O_QUANTUM, O_OFF_CPU,
};

struct report_args {
	struct report *r;
	int argc;
	char **argv;
	const char **files;
};

/* Compile @pattern into @re; -EINVAL with regerror()'s words. */
static int compile_re(regex_t *re, bool *set, const char *pattern)
{
	char why[128];
	int err;

	if (*set)
		regfree(re);
	*set = false;
	err = regcomp(re, pattern, REG_EXTENDED | REG_NOSUB);
	if (err) {
		regerror(err, re, why, sizeof(why));
		regfree(re);
		amb_errmsg_set("not a regular expression: %s", why);
		return -EINVAL;
	}
	*set = true;
	return 0;
}

static int report_option(void *ctx, int c, const char *arg)
{
	struct report_args *a = ctx;
	struct report *r = a->r;
	unsigned long v;
	char *end;

	switch (c) {
	case 's': r->sort = arg; return 0;
	case 'F': r->fields = arg; return 0;
	case O_CHILDREN: r->children = true; r->children_set = true; return 0;
	case O_NO_CHILDREN: r->children = false; r->children_set = true; return 0;
	case 'g':
		/* perf accepts "-g caller" as well as "-gcaller". */
		if (!arg && optind < a->argc && is_callgraph_spec(a->argv[optind]))
			arg = a->argv[optind++];
		return parse_callgraph(r, arg);
	case O_NO_INLINE: r->inline_frames = false; return 0;
	case O_MAX_STACK:
		v = strtoul(arg, &end, 10);
		if (end == arg || *end || !v || v > MAX_FRAMES || *arg == '-')
			return amb_errmsg_set("not a number of frames from 1 to %d", MAX_FRAMES),
			       -EINVAL;
		r->max_stack = (unsigned)v;
		return 0;
	case O_PLIMIT:
		r->percent_limit = strtod(arg, &end);
		if (end == arg || *end || !(r->percent_limit >= 0 && r->percent_limit <= 100)) {
			amb_errmsg_set("not a percentage from 0 to 100");
			return -EINVAL;
		}
		return 0;
	case O_PERCENTAGE:
		if (strcmp(arg, "relative") && strcmp(arg, "absolute"))
			return amb_errmsg_set("neither absolute nor relative"), -EINVAL;
		r->relative = !strcmp(arg, "relative");
		return 0;
	case 'p':
		r->parent_pattern = arg;
		return compile_re(&r->parent_re, &r->parent_re_set, arg);
	case 'x': r->exclude_other = true; return 0;
	case O_IGNORE_CALLEES:
		r->ignore_pattern = arg;
		return compile_re(&r->ignore_re, &r->ignore_re_set, arg);
	case O_QUANTUM: return parse_quantum(r, arg);
	case O_HIERARCHY: r->hierarchy = true; return 0;
	case 'T': r->threads = true; return 0;
	case O_HEADER: r->header = true; return 0;
	case O_HEADER_ONLY: r->header = r->header_only = true; return 0;
	case 'S': return ana_filter_set(&r->opts.filter, ANA_FILTER_SYM, arg);
	case O_JSON: r->json = true; return 0;
	case O_STDIO: return 0;
	case O_OFF_CPU: r->time = ANA_OFFCPU_WAITS; return 0;
	case 'i': a->files[0] = arg; return 0;
	default: return 1;
	}
}

/* ---- --off-cpu: waits as samples (view/offcpu.h) --------------------------------- */

/* Open the recording with the waits as the source of samples: 0, or 1
 * after reporting the error. */
static int open_offcpu(struct report *r, const char *path)
{
	int err = ana_offcpu_open(path, &r->opts, r->time, &r->oc);

	if (err)
		return ana_cmd_fail("report", path, err);
	r->p = ana_offcpu_pipeline(r->oc);
	return 0;
}

/* The waits stand for the samples in the closing counts. */
static void offcpu_counts(struct report *r)
{
	struct ana_offcpu_stats ws;

	ana_offcpu_get_stats(r->oc, &ws);
	r->samples_seen = ws.waits;
	r->filtered = 0;
}

static int free_report(struct report *r, int rc)
{
	struct amb_hashmap_slot *slot;
	size_t i;

	for (i = 0; r->hists && i < r->nr_hists; i++)
		ana_report_hist_free(&r->hists[i]);
	free(r->hists);
	free(r->frames);
	free(r->cg_path);
	free(r->cg_steps_tmp);
	free(r->stack_entries);
	free(r->stack_pos);
	free(r->cg_ends);
	ana_report_memo_clear(&r->memos);
	amb_hashmap_free(&r->memos.map);
	free(r->memos.key);
	amb_big_free(r->memos.by_chain, r->memos.by_chain_map);
	ana_report_memkeys_free(r);
	amb_hashmap_for_each(&r->threads_map, slot) {
		struct thread_total *tt = slot->value;

		free(tt->period);
		free(tt);
	}
	amb_hashmap_free(&r->threads_map);
	if (r->parent_re_set)
		regfree(&r->parent_re);
	if (r->ignore_re_set)
		regfree(&r->ignore_re);
	if (r->oc)
		ana_offcpu_close(r->oc);    /* and its pipeline */
	else
		ana_pipeline_close(r->p);
	ana_intern_free(&r->strings);
	amb_hashmap_free(&r->cg_names);
	while (r->cg_aliases) {
		struct cg_alias *next = r->cg_aliases->next;

		free(r->cg_aliases);
		r->cg_aliases = next;
	}
	ana_pipeline_opts_free(&r->opts);
	amb_buf_free(&r->key);
	amb_buf_free(&r->val);
	return rc;
}

/* True when the samples report reads carry call chains: -g or a stack
 * copy to unwind (--call-graph dwarf). */
static bool has_callchains(const struct report *r)
{
	for (size_t i = 0; i + 1 < r->nr_hists; i++) {
		const struct ana_event *e = r->hists[i].evt;

		if ((!r->opts.event || !strcmp(e->name, r->opts.event)) &&
		    (e->attr.sample_type & (PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_STACK_USER)))
			return true;
	}
	return false;
}

/* What the options leave open once the recording is known: children and
 * call graphs where it has call chains, as perf decides. */
static int settle_defaults(struct report *r)
{
	bool chains = has_callchains(r);

	if (r->hierarchy && r->children && r->children_set) {
		ana_cmd_error("report", "--hierarchy shows self overhead: not with --children");
		return 2;
	}
	if (!r->children_set)
		r->children = chains && !r->hierarchy;
	if (!r->callgraph_set)
		r->callgraph = chains;
	if (!r->order_set)
		r->caller = r->children;
	if (!r->columns)
		r->columns = (r->children ? COL_CHILDREN : 0) | COL_OVERHEAD | COL_SAMPLES |
			     COL_PERIOD;
	if ((r->columns & COL_CHILDREN) && !r->children) {
		ana_cmd_error("report", "-F overhead_children: only with --children");
		return 2;
	}
	if (r->callgraph && r->inline_frames)
		r->want |= ANA_SYM_INLINE;
	return ana_report_check_field_keys(r);
}

int ana_cmd_report(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "sort", required_argument, NULL, 's' },
		{ "fields", required_argument, NULL, 'F' },
		{ "children", no_argument, NULL, O_CHILDREN },
		{ "no-children", no_argument, NULL, O_NO_CHILDREN },
		{ "call-graph", optional_argument, NULL, 'g' },
		{ "max-stack", required_argument, NULL, O_MAX_STACK },
		{ "no-inline", no_argument, NULL, O_NO_INLINE },
		{ "parent", required_argument, NULL, 'p' },
		{ "exclude-other", no_argument, NULL, 'x' },
		{ "ignore-callees", required_argument, NULL, O_IGNORE_CALLEES },
		{ "time-quantum", required_argument, NULL, O_QUANTUM },
		{ "hierarchy", no_argument, NULL, O_HIERARCHY },
		{ "percentage", required_argument, NULL, O_PERCENTAGE },
		{ "threads", no_argument, NULL, 'T' },
		{ "header", no_argument, NULL, O_HEADER },
		{ "header-only", no_argument, NULL, O_HEADER_ONLY },
		{ "percent-limit", required_argument, NULL, O_PLIMIT },
		{ "json", no_argument, NULL, O_JSON },
		{ "stdio", no_argument, NULL, O_STDIO },
		{ "off-cpu", no_argument, NULL, O_OFF_CPU },
		{ "input", required_argument, NULL, 'i' },
		{ NULL, 0, NULL, 0 },
	};
	static const struct ana_cmd_desc desc = { "report", usage, "s:F:g::i:p:xTS:", opts, 1, 1,
						  true };
	struct report r = {
		.cg_limit = 0.5, .inline_frames = true, .max_stack = 127,
		.time_quantum = 100000000, .fast_keys = true,
	};
	const char *path = NULL;
	struct report_args a = { &r, argc, argv, &path };
	struct ana_pipeline_stats st;
	struct ana_out out;
	bool first_json = true;
	int err, rc;
	size_t i;

	ana_pipeline_opts_init(&r.opts);
	rc = ana_cmd_parse(&desc, argc, argv, &r.opts, report_option, &a, &path);
	if (rc != ANA_CMD_GO_ON)
		return free_report(&r, rc);
	amb_errmsg_clear();
	err = (r.fields ? parse_fields(&r, r.fields) : 0);
	if (!err && (r.sort || !r.nr_keys))
		err = ana_report_parse_sort(&r, r.sort ? r.sort : "comm,dso,sym");
	/* perf: --parent adds the parent key; -x needs one. */
	if (!err && (r.parent_pattern || r.exclude_other))
		err = ana_report_add_key(&r, "parent");
	if (err) {
		ana_cmd_error("report", "bad --%s '%s': %s", r.fields && !r.sort ? "fields" : "sort",
			      r.fields && !r.sort ? r.fields : r.sort ? r.sort : "",
			      *amb_errmsg() ? amb_errmsg() : strerror(-err));
		return free_report(&r, 2);
	}
	for (i = 0; i < r.nr_keys; i++) {
		if (r.keys[i].kind == SK_FIELD || r.keys[i].kind == SK_TRACE)
			r.opts.tracepoints = true;
		if (r.keys[i].kind == SK_PARENT && !r.parent_re_set &&
		    compile_re(&r.parent_re, &r.parent_re_set, DEFAULT_PARENT))
			return free_report(&r, ana_cmd_fail("report", path, -EINVAL));
	}
	r.frames = malloc(MAX_FRAMES * sizeof(*r.frames));
	r.cg_path = malloc(MAX_FRAMES * sizeof(*r.cg_path));
	r.cg_steps_tmp = malloc(MAX_FRAMES * sizeof(*r.cg_steps_tmp));
	r.stack_entries = malloc(MAX_FRAMES * sizeof(*r.stack_entries));
	r.stack_pos = malloc(MAX_FRAMES * sizeof(*r.stack_pos));
	r.cg_ends = malloc(MAX_FRAMES * sizeof(*r.cg_ends));
	r.memos.key = malloc(MEMO_MAX_WORDS * sizeof(*r.memos.key));
	r.memo_on = r.fast_keys;
	/* A cache in front of the memos: without memory, samples go without. */
	if (r.memo_on && ana_report_chain_memo_usable(&r))
		r.memos.by_chain = amb_big_zalloc(CHAIN_MEMOS * sizeof(*r.memos.by_chain),
						  &r.memos.by_chain_map);
	if (!r.frames || !r.cg_path || !r.cg_steps_tmp || !r.stack_entries || !r.stack_pos ||
	    !r.cg_ends || !r.memos.key)
		return free_report(&r, ana_cmd_fail("report", path, -ENOMEM));
	if (r.time ? open_offcpu(&r, path) : ana_cmd_open("report", path, &r.opts, &r.p))
		return free_report(&r, 1);
	r.s = ana_pipeline_session(r.p);
	r.tp = ana_pipeline_tp(r.p);
	rc = ana_report_memkeys_open(&r, path);
	if (rc)
		return free_report(&r, rc);
	r.nr_hists = (r.time ? ANA_SCHED_NR_STATES : ana_session_event_count(r.s)) + 1;
	r.hists = calloc(r.nr_hists, sizeof(*r.hists));
	if (!r.hists)
		return free_report(&r, ana_cmd_fail("report", path, -ENOMEM));
	for (i = 0; i + 1 < r.nr_hists; i++)
		r.hists[i].evt = r.time ? ana_offcpu_event(r.oc, i) : ana_session_event(r.s, i);
	rc = settle_defaults(&r);
	if (rc)
		return free_report(&r, rc);
	ana_out_init(&out, stdout);
	if (r.json)
		ana_out_no_cut(&out);
	if (!r.header_only) {
		ana_progress_init(&r.progress, "report");
		ana_pipeline_set_progress(r.p, tick, &r.progress);
		if (r.time)
			err = ana_offcpu_run(r.oc, process_sample, &r);
		else
			err = ana_pipeline_run(r.p, process_sample, NULL, &r);
		/* What the memos hold goes to the entries before anything reads them. */
		ana_report_memo_clear(&r.memos);
		ana_progress_done(&r.progress);
		if (err < 0)
			return free_report(&r, ana_cmd_fail("report", path, err));
		ana_pipeline_get_stats(r.p, &st);
		r.samples_seen = st.samples;
		r.filtered = st.filtered;
		if (r.time)
			offcpu_counts(&r);
		for (i = 0; i < r.nr_hists; i++) {
			struct hist *h = &r.hists[i];

			h->total = ana_pipeline_event_period(r.p, h->evt, &h->total_samples);
			if (r.relative || h->total < h->period) {
				h->total = h->period;
				h->total_samples = h->samples;
			}
		}
	}
	ana_report_print_header(&r, &out);
	if (r.header_only) {
		if (r.json)
			ana_out_printf(&out, "}\n");
	} else {
		if (r.json)
			ana_out_printf(&out, ",\"events\":[");
		for (i = 0; i < r.nr_hists; i++)
			ana_report_print_hist(&r, &out, &r.hists[i], &first_json);
		if (r.json)
			ana_out_printf(&out, "]");
		if (r.threads)
			ana_report_print_threads(&r, &out);
		if (r.json)
			ana_out_printf(&out, "}\n");
		else if (!r.samples_seen)
			ana_out_printf(&out, "# no samples\n");
		else if (r.samples_seen == r.filtered)
			ana_out_printf(&out, "# all %" PRIu64 " samples were filtered out\n",
				       r.samples_seen);
	}
	err = ana_out_finish(&out);
	if (err) {
		ana_cmd_error("report", "writing the output: %s", strerror(-err));
		return free_report(&r, 1);
	}
	return free_report(&r, 0);
}
