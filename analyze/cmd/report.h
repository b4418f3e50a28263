/* SPDX-License-Identifier: MIT */
/*
 * analyze/cmd/report.h - what the files of `amber-analyze report` share:
 * cmd_report.c (samples, options, the command), report_keys.c (the sort
 * keys, the entries they select and their call graph trees),
 * report_memo.c (stack memos) and report_print.c (the table, call graphs,
 * JSON): the histogram and its entries, the call graph tree, the sort
 * keys, the memos and the report's state, and the memo lookups each
 * sample makes, inline.
 */
#ifndef AMB_ANALYZE_REPORT_H
#define AMB_ANALYZE_REPORT_H

#include <stdbool.h>
#include <regex.h>
#include <stdint.h>
#include <string.h>

#include "analyze/cmd/cmd.h"
#include "common/hashmap.h"
#include <amber/common.h>

#define KEY_SEP '\x1f'
/* In a symbol's value: what follows (the ELF's name of a demangled symbol)
 * keeps two symbols that show alike apart, and is not shown. */
#define KEY_HIDDEN '\x1e'
#define MAX_FRAMES 1024

enum sort_kind {
	SK_COMM, SK_PID, SK_TID, SK_DSO, SK_SYM, SK_SRCLINE, SK_CPU, SK_EVENT,
	SK_SRCFILE, SK_SYM_SIZE, SK_TIME, SK_PARENT, SK_TRACE,
	SK_FIELD,               /* a tracepoint field (prev_comm, ...) */
	SK_MEM,                 /* a memory key: report_memkeys.c */
};

struct sort_key {
	enum sort_kind kind;
	const char *name;       /* header, or the tracepoint field's name */
	bool per_frame;         /* depends on the frame (dso, sym, srcline ...) */
	int mem;                /* SK_MEM: which one (report_memkeys.c) */
};

/* The sort keys --sort knows, indexed by enum sort_kind (report_keys.c): the
 * name perf gives each (matched without regard to case, as perf does),
 * another it takes, and the column's header. */
struct ana_report_sort_name {
	const char *opt, *alias, *header;
	enum sort_kind kind;
};
extern const struct ana_report_sort_name ana_report_sort_names[SK_FIELD];

/* A node of an entry's call graph: one function on the path. */
struct cg_node {
	const char *name;       /* interned */
	uint64_t order;         /* of branches of equal weight, the higher first */
	uint64_t period;
	struct cg_node *child, *next;
	struct cg_node *parent; /* NULL at the top */
};

struct hist_entry {
	char *key;              /* values joined by KEY_SEP */
	uint64_t samples, period, children;
	uint64_t stamp;         /* the last sample that added to @children */
	struct cg_node *cg;     /* callers (or callees) of the entry */
	unsigned cg_depth;      /* the longest path added to @cg, in perf's entries */
	uint32_t tid;           /* the thread of its first sample, once @tid_set */
	bool tid_set;
};

/*
 * One event's entries.  @by_key finds an entry by its key string; @by_id
 * by its key identity: the values of a (sample, frame) pair's keys, named
 * by numbers and by pointers to strings that stay unchanged while the
 * report runs (command names, DSO names, symbol names: see
 * ana_report_key_identity()).  Equal identities make equal key strings, so
 * a hit needs no key string; the converse need not hold (two DSOs with one
 * short name), which only costs a second identity for the same entry.  An
 * identity is report.id_words words of @ids, found by its index there.
 */
struct hist {
	const struct ana_event *evt;
	struct hist_entry **entries;
	size_t nr, cap;
	struct amb_hashmap by_key;      /* key string -> entry */
	struct amb_hashmap by_id;       /* identity index -> entry */
	uint64_t *ids;
	size_t nr_ids, cap_ids;         /* in identities */
	uint64_t samples, period;
	uint64_t total;                 /* what shares are of: @period, or with
					 * --percentage absolute (the default) the
					 * period of all samples within --time, */
	uint64_t total_samples;         /* which are this many */
};

/*
 * A resolved stack.  What a sample adds to a histogram depends only on its
 * keys' sample values (command, pid, ...), its callchain (without --children
 * and -g: up to its first address), its cpumode and the state of its
 * thread's address space (ana_pipeline_stack_key), so a sample that repeats
 * all of these (most do: a profile has far fewer stacks than samples)
 * reuses the first one's entries and call graph path instead of resolving
 * every frame and finding its entry again.  A memo only counts the samples
 * that reuse it; they reach its entries and call graph paths (walked back
 * up from where they ended) when it is flushed: when memos are dropped,
 * past MEMO_MAX_BYTES, to be collected anew, and when the run is over,
 * before anything reads the entries.
 */
#define MEMO_MAX_BYTES (8u << 20)
#define MEMO_MAX_WORDS 1024          /* longer keys are not memoized */

struct stack_memo {
	uint64_t *key;                  /* nr_key words (ana_report_memo_key()) */
	struct hist_entry *self;        /* the leaf's entry */
	struct hist_entry **children;   /* distinct entries on the stack (--children) */
	struct cg_node **cg_ends;       /* -g: where each path the sample added to a
					 * call graph ended (NULL: an empty path),
					 * one per child with --children, else one */
	uint32_t nr_key, nr_children, nr_cg_ends;
	uint64_t samples, period;       /* added since made, not yet to the entries
					 * (memo_flush(), report_memo.c) */
};

/*
 * A memo found by a sample's chain_key (struct ana_sample: the codec told
 * its call chain apart) rather than by its memo key: the key's other parts
 * are kept beside it and compared, so a sample that matches them all has
 * exactly the memo key of the one that filled the entry, without making
 * and hashing the key.  Only when every sort key's identity comes from the
 * thread, pid, tid, CPU and event (report->chain_memo).
 */
struct chain_memo {
	uint64_t chain_key;             /* 0: empty */
	uint64_t stack_key;
	const struct ana_thread *t;
	const char *comm;
	const struct ana_event *evt;
	uint32_t pid, tid, cpu;
	uint8_t cpumode;
	struct stack_memo *memo;
};
#define CHAIN_MEMOS 4096             /* direct-mapped, a power of two */

struct memo_table {
	struct amb_hashmap map;         /* memo key -> struct stack_memo */
	size_t bytes;
	uint64_t *key;                  /* the current sample's, MEMO_MAX_WORDS */
	uint32_t nr_key;
	uint64_t hash;
	struct chain_memo *by_chain;    /* CHAIN_MEMOS, or NULL when not used */
	size_t by_chain_map;            /* amb_big_free()'s size of @by_chain */
};

/* -T: what one thread's samples add up to, per event. */
struct thread_total {
	uint32_t pid, tid;
	const char *comm;
	uint64_t *period;               /* per event, + 1 for samples of no event */
};

/* --hierarchy: entries grouped by their first keys, level by level. */
struct hier_node {
	const char *key;                /* the entry's key, up to this level */
	size_t len;                     /* its length */
	uint64_t weight, period, samples;
	struct hier_node *child, *next;
};

/* -F/--fields: the columns before the keys, in this order when shown. */
enum {
	COL_CHILDREN = 1u << 0,         /* overhead_children */
	COL_OVERHEAD = 1u << 1,         /* overhead (self) */
	COL_SAMPLES = 1u << 2,          /* sample */
	COL_PERIOD = 1u << 3,           /* period */
};

struct report {
	/* options */
	struct sort_key keys[16];
	size_t nr_keys;
	const char *sort;
	const char *fields;             /* -F, or NULL */
	unsigned columns;               /* COL_* */
	bool children, json, callgraph, caller, inline_frames;
	bool children_set, callgraph_set, order_set; /* said on the command line */
	bool threads, header, header_only, hierarchy, relative, exclude_other;
	unsigned max_stack;             /* frames of a stack used; 0: all */
	uint64_t time_quantum;          /* ns, for the time key */
	regex_t parent_re, ignore_re;
	bool parent_re_set, ignore_re_set;
	const char *parent_pattern, *ignore_pattern;
	double cg_limit, percent_limit;
	struct ana_pipeline_opts opts; /* filters, -e, --symfs, --no-debuginfod */
	enum ana_offcpu_mode time;     /* --off-cpu: waits weighted in ns (view/offcpu.h) */
	/* state */
	struct ana_pipeline *p;
	struct ana_offcpu *oc;         /* --off-cpu: the source of samples, owns @p */
	struct ana_session *s;
	struct ana_tp *tp;
	struct hist *hists;      /* per event, + 1 for samples of no event */
	size_t nr_hists;
	struct ana_intern strings;
	/* Interned call graph names by the address of their source string
	 * (the symbol caches' and KSYMS' names outlive the report), tagged
	 * with whether the frame is an inlined one: each name is interned
	 * once, not per frame. */
	struct amb_hashmap cg_names;    /* source address << 2 | inlined, or an
					 * ELF name's address << 2 | 2 -> name */
	struct cg_alias *cg_aliases;   /* the names cg_name_sym() made */
	struct amb_buf key, val;
	bool fast_keys;          /* every key has an identity (ana_report_key_identity) */
	size_t id_words;         /* 2 per key */
	uint64_t stamp;          /* samples given to --children so far */
	uint64_t samples_seen, filtered; /* the pipeline's counts */
	unsigned want;           /* ANA_SYM_* the keys need */
	struct ana_progress progress;
	/* the stack of the current sample */
	struct frame { struct ana_loc loc; const char *name; bool inlined; } *frames;
	unsigned nr_frames;
	int frame_err;                 /* collect_frame() failed */
	struct cg_step *cg_path;       /* a call graph path, MAX_FRAMES */
	struct cg_step *cg_steps_tmp;  /* the stack's frames as steps, MAX_FRAMES */
	struct hist_entry **stack_entries; /* its distinct entries, MAX_FRAMES */
	unsigned *stack_pos;           /* the frame of each of them */
	struct cg_node **cg_ends;      /* where its call graph paths ended, MAX_FRAMES */
	const char *parent;            /* its parent (--parent), or NULL */
	bool memo_on;                  /* fast_keys: stacks can be memoized */
	struct memo_table memos;
	struct amb_hashmap threads_map; /* -T: tid -> struct thread_total */
	struct ana_report_mem *mem;    /* the memory keys' state (report_memkeys.c) */
};

/* The header lines: host, kernel, command, duration, samples, events;
 * with --header, perf's fuller header first. */
void ana_report_print_header(struct report *r, struct ana_out *o);

/* -T: each thread's period per event, perf report's --threads table. */
void ana_report_print_threads(struct report *r, struct ana_out *o);

/* One event's table (or JSON object), entries sorted by overhead, each with
 * its call graph when -g was given.  *@first_json tracks the JSON commas. */
void ana_report_print_hist(struct report *r, struct ana_out *o, struct hist *h, bool *first_json);

/* ---- report_keys.c: the sort keys and the entries they select ----------------- */

/* Add the sort key @tok (perf's name in any case, a memory key, else a
 * tracepoint field), unless @r has it already.  0, -E2BIG past 16 keys
 * (amb_errmsg() says so) or -ENOMEM. */
int ana_report_add_key(struct report *r, const char *tok);

/* Add the keys of --sort's comma-separated @arg.  0, -EINVAL when @r then
 * has no key, or an error of ana_report_add_key(). */
int ana_report_parse_sort(struct report *r, const char *arg);

/* Once the recording is open: each tracepoint field key must be a field
 * of a recorded tracepoint.  0, or 2 after reporting the unknown key. */
int ana_report_check_field_keys(struct report *r);

/* The identity of sample @smp's keys at frame @f into @id, r->id_words
 * words (r->fast_keys only); @f NULL: zeros for the frame's keys. */
void ana_report_key_identity(const struct report *r, const struct ana_sample *smp,
			     const struct ana_thread *t, const struct frame *f, uint64_t *id);

/* The entry of @h that sample @smp of @t falls into at frame @f, made when
 * new and owned by @h.  NULL on -ENOMEM. */
struct hist_entry *ana_report_hist_find(struct report *r, struct hist *h,
					const struct ana_sample *smp, struct ana_thread *t,
					const struct frame *f);

/* Free the entries of @h, their call graphs and @h's tables, not @h. */
void ana_report_hist_free(struct hist *h);

/* A frame of a call graph path: its interned name, where it sorts among
 * branches of equal weight (perf: the symbol's address, higher first),
 * and how many of perf's callchain entries it is (0 for an inlined frame,
 * which a frame-pointer chain of perf's lacks; the entries a [broken
 * frame-pointer chain] frame stands for), for hist_entry.cg_depth. */
struct cg_step {
	const char *name;
	uint64_t order;
	unsigned entries;
};

/* Add @period along the path @steps[0..n) below *@root, making the nodes
 * it lacks (owned by the tree); its last node in *@end, NULL for n = 0.
 * 0 or -ENOMEM. */
int ana_report_cg_add(struct cg_node **root, const struct cg_step *steps, unsigned n,
		      uint64_t period, struct cg_node **end);

/* Add @period again along the path ana_report_cg_add() ended at @end. */
void ana_report_cg_add_again(struct cg_node *end, uint64_t period);

/* ---- report_memo.c: stack memos ------------------------------------------------ */

/* Flush every memo of @mt to its entries, then free them all; @mt stays
 * usable, empty. */
void ana_report_memo_clear(struct memo_table *mt);

/* Whether every sort key of @r has its sample identity from what struct
 * chain_memo compares, so that memos can be found by chain_key. */
bool ana_report_chain_memo_usable(const struct report *r);

/* Remember @m as the memo of @smp's chain_key (r->memos.by_chain), after
 * ana_report_memo_key() made @smp's memo key. */
void ana_report_chain_memo_set(struct report *r, const struct ana_sample *smp,
			       const struct ana_thread *t, struct stack_memo *m);

/* A memo, owned by r->memos, of what the current sample resolved to under
 * the key ana_report_memo_key() made, into *@made.  0 or -ENOMEM. */
int ana_report_memo_add(struct report *r, struct hist_entry *self, unsigned nr_children,
			struct stack_memo **made);

/* ---- the memo lookups of every sample: inline, for process_sample() ------------ */

/* True when a sample's whole stack is walked, not its first frame only. */
static inline bool ana_report_full_stack(const struct report *r)
{
	return r->children || r->callgraph || r->parent_re_set || r->ignore_re_set;
}

/*
 * Make the memo key of sample @smp of @t in @h: the stack key, cpumode,
 * histogram, the keys' sample values and the callchain (or ip).  False
 * when the sample is not to be memoized (it is unwound, or its callchain
 * is too long).
 */
static inline bool ana_report_memo_key(struct report *r, const struct ana_sample *smp,
				       struct ana_thread *t, const struct hist *h)
{
	struct memo_table *mt = &r->memos;
	bool chain = smp->nr_callchain && smp->callchain;
	uint64_t nr_chain = chain ? smp->nr_callchain : 0, n;
	uint64_t *k = mt->key;

	/* A walk of one frame reads the callchain up to its first address. */
	if (chain && !ana_report_full_stack(r))
		for (nr_chain = 1; nr_chain < smp->nr_callchain &&
				   smp->callchain[nr_chain - 1] >= PERF_CONTEXT_MAX; nr_chain++)
			;
	n = 4 + r->id_words + (chain ? nr_chain : 1);

	if (n > MEMO_MAX_WORDS)
		return false;
	k[0] = ana_pipeline_stack_key(r->p, t, smp);
	if (!k[0])
		return false;
	k[1] = smp->cpumode;
	k[2] = (uint64_t)(h - r->hists);
	k[3] = nr_chain;
	ana_report_key_identity(r, smp, t, NULL, k + 4);
	if (chain)
		memcpy(k + 4 + r->id_words, smp->callchain, nr_chain * sizeof(*k));
	else
		k[4 + r->id_words] = smp->ip;
	mt->nr_key = (uint32_t)n;
	mt->hash = amb_hash_words(k, n);
	return true;
}

static inline bool ana_report_memo_eq(uint64_t stored, const void *key)
{
	const struct stack_memo *m = (const struct stack_memo *)(uintptr_t)stored;
	const struct memo_table *mt = key;

	if (m->nr_key != mt->nr_key)
		return false;
	/* A few words, mostly equal: no call to memcmp. */
	for (uint32_t i = 0; i < m->nr_key; i++)
		if (m->key[i] != mt->key[i])
			return false;
	return true;
}

/* The memo of the key ana_report_memo_key() made, or NULL. */
static inline struct stack_memo *ana_report_memo_find(const struct memo_table *mt)
{
	return amb_hashmap_find(&mt->map, mt->hash, ana_report_memo_eq, mt);
}

/* The slot of the chain memo cache for @chain_key. */
static inline struct chain_memo *ana_report_chain_memo_slot(const struct memo_table *mt,
							    uint64_t chain_key)
{
	return &mt->by_chain[amb_hash_u64(chain_key) & (CHAIN_MEMOS - 1)];
}

/* The memo of sample @smp of @t when its chain_key's slot holds one whose
 * memo key the sample shares (struct chain_memo), else NULL. */
static inline struct stack_memo *ana_report_chain_memo_find(struct report *r,
							    const struct ana_sample *smp,
							    const struct ana_thread *t)
{
	const struct chain_memo *cm = ana_report_chain_memo_slot(&r->memos, smp->chain_key);
	bool same_thread;

	if (cm->chain_key != smp->chain_key)
		return NULL;
	same_thread = cm->t == t && cm->pid == smp->pid && cm->tid == smp->tid &&
		      cm->comm == ana_thread_comm(t);
	if (!same_thread || cm->cpu != smp->cpu || cm->evt != smp->evt ||
	    cm->cpumode != smp->cpumode || cm->stack_key != ana_pipeline_stack_key(r->p, t, smp))
		return NULL;
	return cm->memo;
}

/* Add a sample of @period with memo @m to @h, as process_sample() would
 * (its entries and call graphs when the memo is flushed). */
static inline int ana_report_memo_apply(struct hist *h, struct stack_memo *m, uint64_t period)
{
	h->samples++;
	h->period += period;
	/* The entries get it at memo_flush(). */
	m->samples++;
	m->period += period;
	return 0;
}

#endif /* AMB_ANALYZE_REPORT_H */
