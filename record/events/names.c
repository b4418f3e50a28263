// SPDX-License-Identifier: MIT
/*
 * record/events/names.c - the names -e knows without asking anyone: perf's
 * generic hardware and software events with their aliases, the generic
 * cache table built as cache-op-result, raw "rNNN" events, and the nearest
 * of these (and of the tracepoints) for a name nobody knows.  The tables
 * and spellings are perf's (tools/perf/util/parse-events.c, evsel.c).
 */
#include <amber/common.h>
#include "record/events/events_internal.h"
#include "record/events/tracefs.h"

#include <assert.h>
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#define EV_SUGGEST_MAX 5

const struct rec_ev_alias rec_ev_hw_events[] = {
	{ "cpu-cycles", "cycles", PERF_COUNT_HW_CPU_CYCLES, "CPU cycles: core clock ticks while not halted" },
	{ "instructions", NULL, PERF_COUNT_HW_INSTRUCTIONS, "instructions retired" },
	{ "cache-references", NULL, PERF_COUNT_HW_CACHE_REFERENCES, "cache accesses, usually of the last-level cache" },
	{ "cache-misses", NULL, PERF_COUNT_HW_CACHE_MISSES, "cache misses, usually of the last-level cache" },
	{ "branch-instructions", "branches", PERF_COUNT_HW_BRANCH_INSTRUCTIONS, "branch instructions retired" },
	{ "branch-misses", NULL, PERF_COUNT_HW_BRANCH_MISSES, "mispredicted branch instructions" },
	{ "bus-cycles", NULL, PERF_COUNT_HW_BUS_CYCLES, "bus cycles" },
	{ "stalled-cycles-frontend", "idle-cycles-frontend", PERF_COUNT_HW_STALLED_CYCLES_FRONTEND, "cycles in which the front end issued no instructions" },
	{ "stalled-cycles-backend", "idle-cycles-backend", PERF_COUNT_HW_STALLED_CYCLES_BACKEND, "cycles in which the back end executed no instructions" },
	{ "ref-cycles", NULL, PERF_COUNT_HW_REF_CPU_CYCLES, "reference cycles, at a constant rate whatever the frequency" },
};
const size_t rec_ev_hw_events_n = AMB_ARRAY_SIZE(rec_ev_hw_events);

const struct rec_ev_alias rec_ev_sw_events[] = {
	{ "cpu-clock", NULL, PERF_COUNT_SW_CPU_CLOCK, "a per-CPU high-resolution timer, in ns" },
	{ "task-clock", NULL, PERF_COUNT_SW_TASK_CLOCK, "time the task ran on a CPU, in ns" },
	{ "page-faults", "faults", PERF_COUNT_SW_PAGE_FAULTS, "page faults, minor and major" },
	{ "context-switches", "cs", PERF_COUNT_SW_CONTEXT_SWITCHES, "context switches" },
	{ "cpu-migrations", "migrations", PERF_COUNT_SW_CPU_MIGRATIONS, "moves of a task to another CPU" },
	{ "minor-faults", NULL, PERF_COUNT_SW_PAGE_FAULTS_MIN, "page faults served without I/O" },
	{ "major-faults", NULL, PERF_COUNT_SW_PAGE_FAULTS_MAJ, "page faults that needed I/O" },
	{ "alignment-faults", NULL, PERF_COUNT_SW_ALIGNMENT_FAULTS, "unaligned accesses the kernel fixed up" },
	{ "emulation-faults", NULL, PERF_COUNT_SW_EMULATION_FAULTS, "instructions the kernel emulated" },
	{ "dummy", NULL, PERF_COUNT_SW_DUMMY, "counts nothing; carries side-band records" },
	{ "bpf-output", NULL, PERF_COUNT_SW_BPF_OUTPUT, "output of BPF programs (bpf_perf_event_output)" },
	{ "cgroup-switches", NULL, PERF_COUNT_SW_CGROUP_SWITCHES, "switches between tasks of different cgroups" },
};
const size_t rec_ev_sw_events_n = AMB_ARRAY_SIZE(rec_ev_sw_events);

/* perf's spellings of the generic cache table; the first one is canonical. */
static const char *const cache_names[PERF_COUNT_HW_CACHE_MAX][5] = {
	[PERF_COUNT_HW_CACHE_L1D] = { "L1-dcache", "l1-d", "l1d", "L1-data" },
	[PERF_COUNT_HW_CACHE_L1I] = { "L1-icache", "l1-i", "l1i", "L1-instruction" },
	[PERF_COUNT_HW_CACHE_LL] = { "LLC", "L2" },
	[PERF_COUNT_HW_CACHE_DTLB] = { "dTLB", "d-tlb", "Data-TLB" },
	[PERF_COUNT_HW_CACHE_ITLB] = { "iTLB", "i-tlb", "Instruction-TLB" },
	[PERF_COUNT_HW_CACHE_BPU] = { "branch", "branches", "bpu", "btb", "bpc" },
	[PERF_COUNT_HW_CACHE_NODE] = { "node" },
};

/* [0] is the form used before "-misses", [1] the plural for accesses. */
const char *const rec_ev_cache_ops[PERF_COUNT_HW_CACHE_OP_MAX][5] = {
	[PERF_COUNT_HW_CACHE_OP_READ] = { "load", "loads", "read" },
	[PERF_COUNT_HW_CACHE_OP_WRITE] = { "store", "stores", "write" },
	[PERF_COUNT_HW_CACHE_OP_PREFETCH] = { "prefetch", "prefetches", "speculative-read",
					      "speculative-load" },
};

static const char *const cache_results[PERF_COUNT_HW_CACHE_RESULT_MAX][5] = {
	[PERF_COUNT_HW_CACHE_RESULT_ACCESS] = { "refs", "Reference", "ops", "access" },
	[PERF_COUNT_HW_CACHE_RESULT_MISS] = { "misses", "miss" },
};

#define CACHE_R (1u << PERF_COUNT_HW_CACHE_OP_READ)
#define CACHE_W (1u << PERF_COUNT_HW_CACHE_OP_WRITE)
#define CACHE_P (1u << PERF_COUNT_HW_CACHE_OP_PREFETCH)

/* Which operations each cache supports (perf's evsel__is_cache_op_valid). */
const unsigned rec_ev_cache_valid_ops[PERF_COUNT_HW_CACHE_MAX] = {
	[PERF_COUNT_HW_CACHE_L1D] = CACHE_R | CACHE_W | CACHE_P,
	[PERF_COUNT_HW_CACHE_L1I] = CACHE_R | CACHE_P,
	[PERF_COUNT_HW_CACHE_LL] = CACHE_R | CACHE_W | CACHE_P,
	[PERF_COUNT_HW_CACHE_DTLB] = CACHE_R | CACHE_W | CACHE_P,
	[PERF_COUNT_HW_CACHE_ITLB] = CACHE_R,
	[PERF_COUNT_HW_CACHE_BPU] = CACHE_R,
	[PERF_COUNT_HW_CACHE_NODE] = CACHE_R | CACHE_W | CACHE_P,
};

/* ---- name tables ------------------------------------------------------- */

static const struct rec_ev_alias *alias_find(const struct rec_ev_alias *t, size_t n,
					     const char *s, size_t len, const char **spelling)
{
	for (size_t i = 0; i < n; i++) {
		if (strlen(t[i].name) == len && !memcmp(t[i].name, s, len)) {
			*spelling = t[i].name;
			return &t[i];
		}
		if (t[i].alias && strlen(t[i].alias) == len && !memcmp(t[i].alias, s, len)) {
			*spelling = t[i].alias;
			return &t[i];
		}
	}
	return NULL;
}

/* Match one of the spellings in @names at @s (case-insensitively, as perf
 * does) followed by '-' or the end; returns the length matched or 0. */
static size_t cache_word(const char *const names[5], const char *s, size_t len)
{
	size_t best = 0;

	for (int i = 0; i < 5 && names[i]; i++) {
		size_t n = strlen(names[i]);

		if (n <= len && n > best && !strncasecmp(names[i], s, n) && (n == len || s[n] == '-'))
			best = n;
	}
	return best;
}

/* Parse "cache[-op][-result]" (op and result in either order, as perf
 * accepts) into a PERF_TYPE_HW_CACHE config.  Returns false if @s is not a
 * cache event name; *@valid tells whether the cache supports the op. */
static bool cache_parse(const char *s, size_t len, uint64_t *config, bool *valid)
{
	int cache = -1, op = -1, res = -1;
	size_t n = 0;

	for (int c = 0; c < PERF_COUNT_HW_CACHE_MAX; c++) {
		size_t m = cache_word(cache_names[c], s, len);

		if (m > n) {
			n = m;
			cache = c;
		}
	}
	if (cache < 0)
		return false;
	while (n < len) {
		size_t m = 0;

		assert(s[n] == '-');
		n++;
		for (int o = 0; o < PERF_COUNT_HW_CACHE_OP_MAX && op < 0 && !m; o++)
			if ((m = cache_word(rec_ev_cache_ops[o], s + n, len - n)))
				op = o;
		for (int r = 0; r < PERF_COUNT_HW_CACHE_RESULT_MAX && res < 0 && !m; r++)
			if ((m = cache_word(cache_results[r], s + n, len - n)))
				res = r;
		if (!m)
			return false;
		n += m;
	}
	if (op < 0)
		op = PERF_COUNT_HW_CACHE_OP_READ;
	if (res < 0)
		res = PERF_COUNT_HW_CACHE_RESULT_ACCESS;
	*config = (uint64_t)cache | (uint64_t)op << 8 | (uint64_t)res << 16;
	*valid = rec_ev_cache_valid_ops[cache] & (1u << op);
	return true;
}

/* perf's canonical spelling: "L1-dcache-loads", "L1-dcache-load-misses". */
void rec_ev_cache_canonical(char *buf, size_t size, int cache, int op, int res)
{
	if (res == PERF_COUNT_HW_CACHE_RESULT_ACCESS)
		snprintf(buf, size, "%s-%s", cache_names[cache][0], rec_ev_cache_ops[op][1]);
	else
		snprintf(buf, size, "%s-%s-%s", cache_names[cache][0], rec_ev_cache_ops[op][0],
			 cache_results[res][0]);
}

/* "r" followed by 1-16 hex digits. */
static bool raw_parse(const char *s, size_t len, uint64_t *config)
{
	uint64_t v = 0;

	if (len < 2 || len > 17 || s[0] != 'r')
		return false;
	for (size_t i = 1; i < len; i++) {
		int c = (unsigned char)s[i];

		if (!isxdigit(c))
			return false;
		v = v << 4 | (uint64_t)(isdigit(c) ? c - '0' : tolower(c) - 'a' + 10);
	}
	*config = v;
	return true;
}

/*
 * Resolve a generic hardware, software, cache or raw name.  Returns 1 and
 * fills type/config/spelling, 0 if @s is none of these, or -EINVAL for a
 * cache operation the cache does not have.
 */
int rec_ev_builtin_find(struct rec_ev_parser *p, const char *s, size_t len, uint32_t *type,
			uint64_t *config, const char **spelling)
{
	const struct rec_ev_alias *a;
	bool valid;

	*spelling = NULL;
	if ((a = alias_find(rec_ev_hw_events, AMB_ARRAY_SIZE(rec_ev_hw_events), s, len, spelling))) {
		*type = PERF_TYPE_HARDWARE;
		*config = a->config;
		return 1;
	}
	if ((a = alias_find(rec_ev_sw_events, AMB_ARRAY_SIZE(rec_ev_sw_events), s, len, spelling))) {
		*type = PERF_TYPE_SOFTWARE;
		*config = a->config;
		return 1;
	}
	if (cache_parse(s, len, config, &valid)) {
		if (!valid)
			return rec_ev_fail(p, -EINVAL, "cache event '%.*s': this cache has no such operation",
					   (int)len, s);
		*type = PERF_TYPE_HW_CACHE;
		return 1;
	}
	if (raw_parse(s, len, config)) {
		*type = PERF_TYPE_RAW;
		return 1;
	}
	return 0;
}

/* ---- did you mean ------------------------------------------------------- */

struct ev_suggest {
	const char *query;
	size_t qlen;
	unsigned limit;
	size_t n;
	struct {
		unsigned dist;
		char name[REC_EV_DIST_MAX_LEN + 1];
	} best[EV_SUGGEST_MAX];
};

/* Optimal string alignment distance (Levenshtein plus adjacent
 * transpositions), case-insensitive; both lengths <= REC_EV_DIST_MAX_LEN. */
unsigned rec_ev_edit_distance(const char *a, size_t la, const char *b, size_t lb)
{
	unsigned rows[3][REC_EV_DIST_MAX_LEN + 1];
	unsigned *prev2 = rows[0], *prev = rows[1], *cur = rows[2];

	for (size_t j = 0; j <= lb; j++)
		prev[j] = (unsigned)j;
	for (size_t i = 1; i <= la; i++) {
		cur[0] = (unsigned)i;
		for (size_t j = 1; j <= lb; j++) {
			int ca = tolower((unsigned char)a[i - 1]), cb = tolower((unsigned char)b[j - 1]);
			unsigned d = prev[j - 1] + (ca != cb);

			d = AMB_MIN(d, prev[j] + 1);
			d = AMB_MIN(d, cur[j - 1] + 1);
			if (i > 1 && j > 1 && ca == tolower((unsigned char)b[j - 2]) &&
			    tolower((unsigned char)a[i - 2]) == cb)
				d = AMB_MIN(d, prev2[j - 2] + 1);
			cur[j] = d;
		}
		unsigned *t = prev2;
		prev2 = prev;
		prev = cur;
		cur = t;
	}
	return prev[lb];
}

static void suggest_add(struct ev_suggest *s, const char *name)
{
	size_t len = strlen(name), at;
	unsigned d;

	if (len > REC_EV_DIST_MAX_LEN || s->qlen > REC_EV_DIST_MAX_LEN)
		return;
	if ((len > s->qlen ? len - s->qlen : s->qlen - len) > s->limit)
		return;
	d = rec_ev_edit_distance(s->query, s->qlen, name, len);
	if (d > s->limit)
		return;
	for (size_t i = 0; i < s->n; i++)
		if (!strcmp(s->best[i].name, name))
			return;
	/* Keep the best few, stable for equal distances (table order). */
	for (at = s->n; at > 0 && s->best[at - 1].dist > d; at--)
		;
	if (at >= EV_SUGGEST_MAX)
		return;
	if (s->n < EV_SUGGEST_MAX)
		s->n++;
	memmove(&s->best[at + 1], &s->best[at], (s->n - 1 - at) * sizeof(s->best[0]));
	s->best[at].dist = d;
	memcpy(s->best[at].name, name, len + 1);
}

static int suggest_tracepoint(void *ctx, const char *sys, const char *event)
{
	char name[2 * REC_EV_DIST_MAX_LEN];

	if ((size_t)snprintf(name, sizeof(name), "%s:%s", sys, event) < sizeof(name))
		suggest_add(ctx, name);
	return 0;
}

/* Every name this parser knows, for suggestions: the generic tables,
 * canonical cache names and (when tracefs is there) every tracepoint. */
static void suggest_collect(struct ev_suggest *s, bool tracepoints)
{
	char buf[64];

	for (size_t i = 0; i < AMB_ARRAY_SIZE(rec_ev_hw_events); i++) {
		suggest_add(s, rec_ev_hw_events[i].name);
		if (rec_ev_hw_events[i].alias)
			suggest_add(s, rec_ev_hw_events[i].alias);
	}
	for (size_t i = 0; i < AMB_ARRAY_SIZE(rec_ev_sw_events); i++) {
		suggest_add(s, rec_ev_sw_events[i].name);
		if (rec_ev_sw_events[i].alias)
			suggest_add(s, rec_ev_sw_events[i].alias);
	}
	for (int c = 0; c < PERF_COUNT_HW_CACHE_MAX; c++)
		for (int o = 0; o < PERF_COUNT_HW_CACHE_OP_MAX; o++)
			for (int r = 0; r < PERF_COUNT_HW_CACHE_RESULT_MAX; r++) {
				if (!(rec_ev_cache_valid_ops[c] & (1u << o)))
					continue;
				rec_ev_cache_canonical(buf, sizeof(buf), c, o, r);
				suggest_add(s, buf);
			}
	if (tracepoints)
		rec_tracefs_for_each_event(suggest_tracepoint, s);
}

int rec_ev_unknown(struct rec_ev_parser *p, const char *name, size_t len, bool tp_syntax)
{
	struct ev_suggest s = { .query = name, .qlen = len };
	bool have_tracefs = rec_tracefs_root() != NULL;
	int tracefs_err = errno;
	char list[EV_SUGGEST_MAX * (REC_EV_DIST_MAX_LEN + 2) + 1];
	size_t off = 0;

	s.limit = len <= 4 ? 1 : len <= 12 ? 2 : 3;
	suggest_collect(&s, have_tracefs);
	list[0] = 0;
	for (size_t i = 0; i < s.n; i++)
		off += (size_t)snprintf(list + off, sizeof(list) - off, "%s%s", i ? ", " : "",
					s.best[i].name);
	if (tp_syntax && !have_tracefs)
		return rec_ev_fail(p, -ENOENT, "unknown event '%.*s' (tracefs is not available for tracepoints: %s)",
				   (int)len, name, strerror(tracefs_err));
	if (s.n)
		return rec_ev_fail(p, -ENOENT, "unknown event '%.*s'; did you mean: %s?", (int)len, name,
				   list);
	return rec_ev_fail(p, -ENOENT, "unknown event '%.*s' (nothing similar; --list-events shows them all)",
			   (int)len, name);
}
