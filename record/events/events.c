// SPDX-License-Identifier: MIT
/*
 * record/events/events.c - perf-style event specs (-e) into perf_event_attr
 * templates, and the event listing of --list-events.
 *
 * Grammar (whitespace allowed around every token):
 *
 *     spec  := item { "," item }
 *     item  := term | "{" term { "," term } "}" [ ":" mods ]
 *     term  := name [ ":" mods ]            generic, cache, software, rNNNN
 *            | sys ":" event [ ":" mods ]   tracepoint; sys and event may be globs
 *            | pfm-name                     libpfm4, with its own modifiers
 *            | pmu "/" [ pterm { "," pterm } ] "/" [ [ ":" ] mods ]
 *     pterm := key [ "=" value ]            a format, an event alias, or one of
 *                                           config, config1, config2, name
 *     mods  := { "u" | "k" | "h" | "G" | "H" | "I" | "D" | "p" | "P" }
 *
 * The names and their meaning follow perf (tools/perf/util/parse-events.c,
 * evsel.c): the generic hardware and software tables, the generic cache
 * table built as cache-op-result, and the modifier rules (the first of
 * u/k/h excludes the other two levels, each further one re-includes its
 * level; p raises precise_ip, at most 3; P asks for the highest precise_ip
 * the PMU takes, tried from 3 down when the event is opened).  Group modifiers apply to the
 * members that have none of their own.  PMU events follow perf's
 * parse-events.c and pmu.c: pmu.c reads the sysfs side (type, format/,
 * events/), events_pmu.c parses the terms.
 */
#include <amber/common.h>
#include "common/util.h"
#include "record/events/events_internal.h"
#include "record/events/events_pmu.h"
#include "record/events/pfm.h"
#include "record/events/pmu.h"
#include "record/events/probe.h"
#include "record/events/tracefs.h"

#include <assert.h>
#include <ctype.h>
#include <errno.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#define EV_SUGGEST_MAX 5

struct ev_alias {
	const char *name;
	const char *alias; /* NULL when perf knows no second spelling */
	uint64_t config;
	const char *desc;  /* for --list-events -v */
};

static const struct ev_alias hw_events[] = {
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

static const struct ev_alias sw_events[] = {
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
static const char *const cache_ops[PERF_COUNT_HW_CACHE_OP_MAX][5] = {
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
static const unsigned cache_valid_ops[PERF_COUNT_HW_CACHE_MAX] = {
	[PERF_COUNT_HW_CACHE_L1D] = CACHE_R | CACHE_W | CACHE_P,
	[PERF_COUNT_HW_CACHE_L1I] = CACHE_R | CACHE_P,
	[PERF_COUNT_HW_CACHE_LL] = CACHE_R | CACHE_W | CACHE_P,
	[PERF_COUNT_HW_CACHE_DTLB] = CACHE_R | CACHE_W | CACHE_P,
	[PERF_COUNT_HW_CACHE_ITLB] = CACHE_R,
	[PERF_COUNT_HW_CACHE_BPU] = CACHE_R,
	[PERF_COUNT_HW_CACHE_NODE] = CACHE_R | CACHE_W | CACHE_P,
};

int rec_ev_fail(struct rec_ev_parser *p, int ret, const char *fmt, ...)
{
	va_list ap;

	if (p->err && p->errlen) {
		va_start(ap, fmt);
		vsnprintf(p->err, p->errlen, fmt, ap);
		va_end(ap);
	}
	return ret;
}

/* ---- the list ------------------------------------------------------------- */

/* A new zeroed event at the end of @l, or NULL when out of memory. */
static struct rec_event *ev_append(struct rec_event_list *l)
{
	struct rec_event *e;

	if (amb_ensure_cap((void **)&l->v, &l->cap, sizeof(*l->v), l->n + 1))
		return NULL;
	e = &l->v[l->n++];
	memset(e, 0, sizeof(*e));
	e->attr.size = sizeof(e->attr);
	e->leader = -1;
	return e;
}

static void ev_clear(struct rec_event *e)
{
	free(e->name);
	free(e->tp_system);
	free(e->tp_event);
	free(e->glob);
	e->name = e->tp_system = e->tp_event = e->glob = NULL;
}

static void ev_truncate(struct rec_event_list *l, size_t n)
{
	while (l->n > n)
		ev_clear(&l->v[--l->n]);
	if (!l->n) {
		free(l->v);
		l->v = NULL;
		l->cap = 0;
	}
}

int rec_events_remove(struct rec_event_list *l, size_t i)
{
	if (!l || i >= l->n)
		return -EINVAL;
	for (size_t k = 0; k < l->n; k++)
		if (k != i && l->v[k].leader == (int)i)
			return -EINVAL;
	ev_clear(&l->v[i]);
	memmove(&l->v[i], &l->v[i + 1], (l->n - i - 1) * sizeof(*l->v));
	l->n--;
	for (size_t k = 0; k < l->n; k++)
		if (l->v[k].leader > (int)i)
			l->v[k].leader--;
		else if (l->v[k].leader == (int)i)
			l->v[k].leader = (int)k;   /* it led itself: it was i */
	return 0;
}

void rec_events_free(struct rec_event_list *l)
{
	if (l)
		ev_truncate(l, 0);
}

/* ---- modifiers -------------------------------------------------------- */

static bool mods_char_ok(char c)
{
	return c && strchr("ukhGHIDpP", c);
}

/* True when all @n bytes of @s are modifier letters. */
static bool mods_all_ok(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!mods_char_ok(s[i]))
			return false;
	return n > 0;
}

int rec_ev_mods_parse(struct rec_ev_parser *p, const char *s, size_t n, const char *what,
		      struct rec_ev_mods *m)
{
	memset(m, 0, sizeof(*m));
	for (size_t i = 0; i < n; i++) {
		switch (s[i]) {
		case 'u': m->u = true; break;
		case 'k': m->k = true; break;
		case 'h': m->h = true; break;
		case 'G': m->guest = true; break;
		case 'H': m->host = true; break;
		case 'I': m->idle = true; break;
		case 'D': m->pinned = true; break;
		case 'p':
			if (++m->precise > 3)
				return rec_ev_fail(p, -EINVAL, "event '%s': at most 3 'p' modifiers (precise_ip 0-3)",
						   what);
			break;
		case 'P':
			m->precise_max = true;
			break;
		default:
			return rec_ev_fail(p, -EINVAL,
					   "event '%s': invalid modifier '%c' (valid: u k h G H I D p P)",
					   what, isprint((unsigned char)s[i]) ? s[i] : '?');
		}
	}
	return 0;
}

static bool mods_has_level(const struct rec_ev_mods *m)
{
	return m->u || m->k || m->h;
}

void rec_ev_mods_apply(const struct rec_ev_mods *m, struct rec_event *e)
{
	struct perf_event_attr *a = &e->attr;

	if (mods_has_level(m)) {
		a->exclude_user = !m->u;
		a->exclude_kernel = !m->k;
		a->exclude_hv = !m->h;
		e->user_modifiers = true;
	}
	if (m->guest || m->host) {
		a->exclude_guest = !m->guest;
		a->exclude_host = !m->host;
	}
	if (m->idle)
		a->exclude_idle = 1;
	if (m->pinned)
		a->pinned = 1;
	if (m->precise)
		a->precise_ip = m->precise & 3;
	if (m->precise_max) {
		a->precise_ip = 3;
		e->precise_max = true;
	}
}

/* ---- name tables ------------------------------------------------------- */

static const struct ev_alias *alias_find(const struct ev_alias *t, size_t n, const char *s,
					 size_t len, const char **spelling)
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
			if ((m = cache_word(cache_ops[o], s + n, len - n)))
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
	*valid = cache_valid_ops[cache] & (1u << op);
	return true;
}

/* perf's canonical spelling: "L1-dcache-loads", "L1-dcache-load-misses". */
static void cache_canonical(char *buf, size_t size, int cache, int op, int res)
{
	if (res == PERF_COUNT_HW_CACHE_RESULT_ACCESS)
		snprintf(buf, size, "%s-%s", cache_names[cache][0], cache_ops[op][1]);
	else
		snprintf(buf, size, "%s-%s-%s", cache_names[cache][0], cache_ops[op][0],
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
	const struct ev_alias *a;
	bool valid;

	*spelling = NULL;
	if ((a = alias_find(hw_events, AMB_ARRAY_SIZE(hw_events), s, len, spelling))) {
		*type = PERF_TYPE_HARDWARE;
		*config = a->config;
		return 1;
	}
	if ((a = alias_find(sw_events, AMB_ARRAY_SIZE(sw_events), s, len, spelling))) {
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

	for (size_t i = 0; i < AMB_ARRAY_SIZE(hw_events); i++) {
		suggest_add(s, hw_events[i].name);
		if (hw_events[i].alias)
			suggest_add(s, hw_events[i].alias);
	}
	for (size_t i = 0; i < AMB_ARRAY_SIZE(sw_events); i++) {
		suggest_add(s, sw_events[i].name);
		if (sw_events[i].alias)
			suggest_add(s, sw_events[i].alias);
	}
	for (int c = 0; c < PERF_COUNT_HW_CACHE_MAX; c++)
		for (int o = 0; o < PERF_COUNT_HW_CACHE_OP_MAX; o++)
			for (int r = 0; r < PERF_COUNT_HW_CACHE_RESULT_MAX; r++) {
				if (!(cache_valid_ops[c] & (1u << o)))
					continue;
				cache_canonical(buf, sizeof(buf), c, o, r);
				suggest_add(s, buf);
			}
	if (tracepoints)
		rec_tracefs_for_each_event(suggest_tracepoint, s);
}

static int ev_unknown(struct rec_ev_parser *p, const char *name, size_t len, bool tp_syntax)
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

/* ---- adding events ---------------------------------------------------- */

struct rec_event *rec_ev_add(struct rec_ev_parser *p, const char *name, size_t len,
			     const char *mods, size_t modlen)
{
	struct rec_event *e = ev_append(p->l);

	if (!e)
		return NULL;
	e->leader = p->leader;
	if (modlen) {
		if (asprintf(&e->name, "%.*s:%.*s", (int)len, name, (int)modlen, mods) < 0)
			e->name = NULL;
	} else {
		e->name = strndup(name, len);
	}
	if (!e->name) {
		ev_truncate(p->l, p->l->n - 1);
		return NULL;
	}
	return e;
}

static bool has_glob(const char *s)
{
	return strpbrk(s, "*?[") != NULL;
}

struct tp_match {
	struct rec_ev_parser *p;
	const char *sys_pat, *ev_pat;
	const struct rec_ev_mods *mods;
	const char *modstr;
	size_t modlen;
	const char *glob;   /* the spec as written, for the events' @glob */
	size_t matched;
	size_t no_id;       /* matches without an id file: not perf events */
	char first_no_id[256];
	bool failed; /* tp_add failed and set the message */
};

static int tp_add(struct rec_ev_parser *p, const char *sys, const char *event,
		  const struct rec_ev_mods *mods, const char *modstr, size_t modlen, bool quiet)
{
	char rel[512], full[512], *text, *end;
	unsigned long long id;
	struct rec_event *e;
	int n;

	if ((size_t)snprintf(rel, sizeof(rel), "events/%s/%s/id", sys, event) >= sizeof(rel))
		return rec_ev_fail(p, -EINVAL, "tracepoint '%s:%s': name too long", sys, event);
	text = rec_tracefs_read(rel, NULL);
	if (!text) {
		int err = errno;

		if (quiet || err == ENOENT)
			return 1;
		return rec_ev_fail(p, -err, "tracepoint '%s:%s': cannot read %s/%s: %s", sys, event,
				   rec_tracefs_root() ? rec_tracefs_root() : "tracefs", rel, strerror(err));
	}
	errno = 0;
	id = strtoull(text, &end, 10);
	if (errno || end == text || (*end && *end != '\n') || id > UINT32_MAX) {
		free(text);
		return rec_ev_fail(p, -EINVAL, "tracepoint '%s:%s': malformed id file %s", sys, event, rel);
	}
	free(text);
	n = snprintf(full, sizeof(full), "%s:%s", sys, event);
	if (n < 0 || (size_t)n >= sizeof(full))
		return rec_ev_fail(p, -EINVAL, "tracepoint '%s:%s': name too long", sys, event);
	e = rec_ev_add(p, full, (size_t)n, modstr, modlen);
	if (!e)
		return -ENOMEM;
	e->attr.type = PERF_TYPE_TRACEPOINT;
	e->attr.config = id;
	e->tracepoint = true;
	e->tp_system = strdup(sys);
	e->tp_event = strdup(event);
	if (!e->tp_system || !e->tp_event) {
		ev_truncate(p->l, p->l->n - 1);
		return -ENOMEM;
	}
	rec_ev_mods_apply(mods, e);
	return 0;
}

static int tp_match_one(void *ctx, const char *sys, const char *event)
{
	struct tp_match *m = ctx;
	int ret;

	if (fnmatch(m->sys_pat, sys, 0) || fnmatch(m->ev_pat, event, 0))
		return 0;
	/* Entries without an id (e.g. ftrace's internal ones) cannot be opened. */
	ret = tp_add(m->p, sys, event, m->mods, m->modstr, m->modlen, true);
	if (ret < 0) {
		m->failed = true;
		return ret;
	}
	if (ret) {
		if (!m->no_id++)
			snprintf(m->first_no_id, sizeof(m->first_no_id), "%s:%s", sys, event);
		return 0;
	}
	m->p->l->v[m->p->l->n - 1].glob = strdup(m->glob);
	if (!m->p->l->v[m->p->l->n - 1].glob) {
		m->failed = true;
		return -ENOMEM;
	}
	m->matched++;
	return 0;
}

/*
 * "sys:event[:mods]" with @t at sys, @colon at the first ':'.  Returns 0,
 * 1 when no such tracepoint exists (the caller tries other kinds), or
 * a negative errno with the message set.
 */
static int tp_parse(struct rec_ev_parser *p, const char *t, size_t len, size_t colon)
{
	char sys[256], event[256], what[REC_EV_TERM_MAX + 1];
	const char *ev = t + colon + 1, *modstr = "";
	size_t evlen = len - colon - 1, modlen = 0;
	const char *c2 = memchr(ev, ':', evlen);
	struct rec_ev_mods mods;
	int ret;

	if (c2) {
		modstr = c2 + 1;
		modlen = (size_t)(t + len - modstr);
		evlen = (size_t)(c2 - ev);
	}
	if (!colon || !evlen)
		return rec_ev_fail(p, -EINVAL, "tracepoint '%.*s': expected system:event", (int)len, t);
	if (c2 && !modlen)
		return rec_ev_fail(p, -EINVAL, "tracepoint '%.*s': empty modifier after ':'", (int)len, t);
	if (colon >= sizeof(sys) || evlen >= sizeof(event))
		return rec_ev_fail(p, -EINVAL, "tracepoint '%.*s': name too long", (int)len, t);
	memcpy(sys, t, colon);
	sys[colon] = 0;
	memcpy(event, ev, evlen);
	event[evlen] = 0;
	if (strchr(sys, '/') || strchr(event, '/') || !strcmp(sys, "..") || !strcmp(event, "..") ||
	    !strcmp(sys, ".") || !strcmp(event, "."))
		return rec_ev_fail(p, -EINVAL, "tracepoint '%.*s': invalid name", (int)len, t);
	if (!rec_tracefs_root())
		return 1;
	snprintf(what, sizeof(what), "%.*s", (int)len, t);
	ret = rec_ev_mods_parse(p, modstr, modlen, what, &mods);
	if (ret)
		return ret;
	if (has_glob(sys) || has_glob(event)) {
		struct tp_match m = { p, sys, event, &mods, modstr, modlen, what, 0, 0, "", false };
		size_t before = p->l->n;

		ret = rec_tracefs_for_each_event(tp_match_one, &m);
		if (ret < 0) {
			/* The events added before the failure go too. */
			ev_truncate(p->l, before);
			return m.failed || ret == -ENOMEM ? ret :
			       rec_ev_fail(p, ret, "tracepoints '%.*s': cannot list %s/events: %s", (int)len,
					   t, rec_tracefs_root(), strerror(-ret));
		}
		if (!m.matched && m.no_id)
			return rec_ev_fail(p, -ENOENT, "no tracepoint that can be recorded matches '%s': "
					   "%zu match%s no perf event (no id file, e.g. %s)", what,
					   m.no_id, m.no_id == 1 ? "es" : "", m.first_no_id);
		if (!m.matched)
			return rec_ev_fail(p, -ENOENT, "no tracepoint matches '%s:%s'", sys, event);
		return 0;
	}
	return tp_add(p, sys, event, &mods, modstr, modlen, false);
}

/* libpfm4: the whole term first (its own modifiers), then the term less
 * a trailing perf modifier suffix ("...:upp") with perf's rules.  Returns
 * 1 when libpfm4 does not know the name (the caller says "unknown"), or
 * an error naming libpfm4's reason when it knows the event but not the
 * rest (a unit mask). */
static int pfm_parse(struct rec_ev_parser *p, const char *t, size_t len)
{
	char name[REC_EV_TERM_MAX + 1], why[1024], why2[8];
	struct perf_event_attr attr;
	struct rec_event *e;
	char *last;
	struct rec_ev_mods mods = { 0 };
	size_t base = len, modlen = 0;
	int ret, first;

	memcpy(name, t, len);
	name[len] = 0;
	memset(&attr, 0, sizeof(attr));
	ret = first = rec_pfm_encode(name, &attr, why, sizeof(why));
	if (ret == -ENOMEM)
		return ret;
	last = strrchr(name, ':');
	if (ret && last && last > name && last[-1] != ':' &&
	    mods_all_ok(last + 1, strlen(last + 1))) {
		base = (size_t)(last - name);
		modlen = len - base - 1;
		*last = 0;
		ret = rec_pfm_encode(name, &attr, why2, sizeof(why2));
		if (ret == -ENOMEM)
			return ret;
		if (!ret) {
			/* Only too many 'p's can fail here: the letters are valid. */
			ret = rec_ev_mods_parse(p, t + base + 1, modlen, name, &mods);
			if (ret)
				return ret;
		}
	}
	if (ret && first == -EINVAL)
		return rec_ev_fail(p, -EINVAL, "event '%.*s': libpfm4: %s", (int)len, t, why);
	if (ret && memmem(t, len, "::", 2)) {
		const char *sep = memmem(t, len, "::", 2);

		return rec_ev_fail(p, -ENOENT, "unknown event '%.*s': libpfm4 knows no such event "
				   "here (--list-events '%.*s::*' lists the ones it knows)", (int)len, t,
				   (int)(sep - t), t);
	}
	if (ret)
		return 1;
	e = rec_ev_add(p, t, base, modlen ? t + base + 1 : "", modlen);
	if (!e)
		return -ENOMEM;
	e->attr.type = attr.type;
	e->attr.config = attr.config;
	e->attr.config1 = attr.config1;
	e->attr.config2 = attr.config2;
	e->attr.exclude_user = attr.exclude_user;
	e->attr.exclude_kernel = attr.exclude_kernel;
	e->attr.exclude_hv = attr.exclude_hv;
	e->attr.exclude_guest = attr.exclude_guest;
	e->attr.exclude_host = attr.exclude_host;
	e->attr.precise_ip = attr.precise_ip;
	/* pfm's own :u/:k count as explicit too: its default is user+kernel. */
	e->user_modifiers = attr.exclude_user || attr.exclude_kernel;
	rec_ev_mods_apply(&mods, e);
	return 0;
}

/* The first ':' not part of a "::" (libpfm4's pmu::event separator). */
static const char *single_colon(const char *t, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		if (t[i] != ':')
			continue;
		if (i + 1 < len && t[i + 1] == ':') {
			i++;
			continue;
		}
		return t + i;
	}
	return NULL;
}

/* One term (trimmed, 1..REC_EV_TERM_MAX bytes): append its events. */
static int term_parse(struct rec_ev_parser *p, const char *t, size_t len)
{
	const char *colon = single_colon(t, len), *spelling;
	const char *modstr = colon ? colon + 1 : "";
	size_t base = colon ? (size_t)(colon - t) : len;
	size_t modlen = colon ? len - base - 1 : 0;
	bool pfm_syntax = memmem(t, len, "::", 2) != NULL;
	struct rec_event *e;
	struct rec_ev_mods mods;
	uint64_t config;
	uint32_t type;
	int ret;

	if (memchr(t, '/', len))
		return rec_ev_pmu_parse(p, t, len);
	if (!base)
		return rec_ev_fail(p, -EINVAL, "event '%.*s': empty name before ':'", (int)len, t);
	if (colon && !modlen)
		return rec_ev_fail(p, -EINVAL, "event '%.*s': empty modifier after ':'", (int)len, t);
	if (!pfm_syntax) {
		ret = rec_ev_builtin_find(p, t, base, &type, &config, &spelling);
		if (ret < 0)
			return ret;
		if (ret) {
			char what[REC_EV_TERM_MAX + 1];

			snprintf(what, sizeof(what), "%.*s", (int)len, t);
			ret = rec_ev_mods_parse(p, modstr, modlen, what, &mods);
			if (ret)
				return ret;
			e = spelling ? rec_ev_add(p, spelling, strlen(spelling), modstr, modlen)
				     : rec_ev_add(p, t, base, modstr, modlen);
			if (!e)
				return -ENOMEM;
			e->attr.type = type;
			e->attr.config = config;
			rec_ev_mods_apply(&mods, e);
			return 0;
		}
		if (colon && !mods_all_ok(modstr, modlen)) {
			ret = tp_parse(p, t, len, base);
			if (ret <= 0)
				return ret;
		}
	}
	ret = pfm_parse(p, t, len);
	if (ret <= 0)
		return ret;
	/* Suggest on the name without perf modifiers. */
	if (colon && !pfm_syntax && mods_all_ok(modstr, modlen))
		return ev_unknown(p, t, base, false);
	if (colon && !pfm_syntax) {
		const char *c2 = memchr(modstr, ':', modlen);

		return ev_unknown(p, t, c2 ? (size_t)(c2 - t) : len, true);
	}
	return ev_unknown(p, t, len, false);
}

/* The perf modifier suffix of an event's name ("up" of "cycles:up"), or
 * NULL.  Tracepoint names have two colons of their own. */
static const char *name_mods(const struct rec_event *e)
{
	const char *last;

	if (e->tracepoint) {
		size_t base = strlen(e->tp_system) + 1 + strlen(e->tp_event);

		return strlen(e->name) > base && e->name[base] == ':' ? e->name + base + 1 : NULL;
	}
	/* "pmu/terms/" has its (maybe empty) modifiers after the last '/'. */
	last = strrchr(e->name, '/');
	if (last && (!last[1] || mods_all_ok(last + 1, strlen(last + 1))))
		return last + 1;
	last = strrchr(e->name, ':');
	if (last && last > e->name && last[-1] != ':' && mods_all_ok(last + 1, strlen(last + 1)))
		return last + 1;
	return NULL;
}

/* ---- the spec grammar ------------------------------------------------- */

static const char *skip_ws(const char *s)
{
	while (isspace((unsigned char)*s))
		s++;
	return s;
}

/* Scan a term from *@sp up to ',', '{', '}' or the end, skipping over
 * the "/terms/" of a PMU event (its commas separate terms); trims it. */
static int term_next(struct rec_ev_parser *p, const char **sp)
{
	const char *s = skip_ws(*sp), *start = s, *end;

	while (*s && !strchr(",{}", *s)) {
		if (*s == '/') {
			const char *close = strchr(s + 1, '/');

			/* Unclosed: the term runs to the end and pmu_parse says so. */
			s = close ? close + 1 : s + strlen(s);
			continue;
		}
		s++;
	}
	end = s;
	while (end > start && isspace((unsigned char)end[-1]))
		end--;
	*sp = s;
	if (end == start)
		return rec_ev_fail(p, -EINVAL, "empty event name at offset %zu of '%s'",
				   (size_t)(start - p->spec), p->spec);
	if ((size_t)(end - start) > REC_EV_TERM_MAX)
		return rec_ev_fail(p, -EINVAL, "event name at offset %zu longer than %d bytes",
				   (size_t)(start - p->spec), REC_EV_TERM_MAX);
	return term_parse(p, start, (size_t)(end - start));
}

/* Group modifiers apply to members without their own level modifiers;
 * precise and the rest apply to every member. */
static int group_mods(struct rec_ev_parser *p, const char *s, size_t n)
{
	char what[64], all[REC_EV_TERM_MAX + 1], rest[REC_EV_TERM_MAX + 1];
	struct rec_ev_mods m, m_rest;
	size_t nrest = 0;

	snprintf(what, sizeof(what), "group at offset %zu", (size_t)(s - p->spec));
	if (!n)
		return rec_ev_fail(p, -EINVAL, "%s: empty modifier after ':'", what);
	if (n > REC_EV_TERM_MAX)
		return rec_ev_fail(p, -EINVAL, "%s: modifier longer than %d bytes", what, REC_EV_TERM_MAX);
	if (rec_ev_mods_parse(p, s, n, what, &m))
		return -EINVAL;
	memcpy(all, s, n);
	all[n] = 0;
	for (size_t i = 0; i < n; i++)
		if (!strchr("ukh", s[i]))
			rest[nrest++] = s[i];
	rest[nrest] = 0;
	m_rest = m;
	m_rest.u = m_rest.k = m_rest.h = false;
	for (size_t i = p->group_start; i < p->l->n; i++) {
		struct rec_event *e = &p->l->v[i];
		bool own = e->user_modifiers;
		const char *add = own ? rest : all;
		char *name;

		rec_ev_mods_apply(own ? &m_rest : &m, e);
		if (!*add)
			continue;
		/* The name shows the modifiers in effect: "cycles:u" + "k". */
		if (asprintf(&name, "%s%s%s", e->name, name_mods(e) ? "" : ":", add) < 0)
			return -ENOMEM;
		free(e->name);
		e->name = name;
	}
	return 0;
}

static int group_parse(struct rec_ev_parser *p, const char **sp)
{
	const char *s = *sp + 1, *open = *sp;
	int ret;

	p->group_start = p->l->n;
	p->leader = (int)p->l->n;
	for (;;) {
		s = skip_ws(s);
		if (*s == '{')
			return rec_ev_fail(p, -EINVAL, "nested '{' at offset %zu: groups cannot nest",
					   (size_t)(s - p->spec));
		if (*s == '}' && s == skip_ws(open + 1))
			return rec_ev_fail(p, -EINVAL, "empty group '{}' at offset %zu of '%s': a group "
					   "holds at least one event", (size_t)(open - p->spec), p->spec);
		ret = term_next(p, &s);
		if (ret)
			return ret;
		s = skip_ws(s);
		if (*s == '}')
			break;
		if (!*s)
			return rec_ev_fail(p, -EINVAL, "unbalanced '{' at offset %zu: missing '}'",
					   (size_t)(open - p->spec));
		s++; /* ',' */
	}
	p->leader = -1;
	s = skip_ws(s + 1);
	if (*s == ':') {
		const char *m = s = skip_ws(s + 1);

		while (*s && *s != ',' && !isspace((unsigned char)*s))
			s++;
		ret = group_mods(p, m, (size_t)(s - m));
		if (ret)
			return ret;
	}
	*sp = s;
	return 0;
}

int rec_events_parse(struct rec_event_list *l, const char *spec, char *err, size_t errlen)
{
	struct rec_ev_parser p = { l, spec, err, errlen, -1, 0 };
	const char *s = spec;
	size_t start_n;
	int ret;

	if (err && errlen)
		err[0] = 0;
	if (!l || !spec)
		return -EINVAL;
	start_n = l->n;
	if (!*skip_ws(spec)) {
		ret = rec_ev_fail(&p, -EINVAL, "empty event list");
		goto out;
	}
	for (;;) {
		s = skip_ws(s);
		if (*s == '{')
			ret = group_parse(&p, &s);
		else if (*s == '}')
			ret = rec_ev_fail(&p, -EINVAL, "unbalanced '}' at offset %zu of '%s'",
					  (size_t)(s - spec), spec);
		else
			ret = term_next(&p, &s);
		if (ret)
			goto out;
		s = skip_ws(s);
		if (!*s)
			break;
		if (*s != ',') {
			ret = rec_ev_fail(&p, -EINVAL, "expected ',' at offset %zu of '%s'",
					  (size_t)(s - spec), spec);
			goto out;
		}
		s++;
	}
	ret = 0;
out:
	if (ret == -ENOMEM)
		rec_ev_fail(&p, ret, "out of memory parsing events '%s'", spec);
	if (ret)
		ev_truncate(l, start_n);
	return ret;
}

/* ---- fallback --------------------------------------------------------- */

int rec_events_fallback_cpu_clock(struct rec_event_list *l, size_t i)
{
	struct rec_event *e;
	const char *last;
	char *name;
	size_t n;

	if (!l || i >= l->n)
		return -EINVAL;
	e = &l->v[i];
	if (e->tracepoint)
		return -EINVAL;
	/* Keep the level modifiers; precise_ip means nothing to a timer. */
	last = name_mods(e);
	if (last) {
		char mods[REC_EV_TERM_MAX + 1];

		n = 0;
		for (const char *c = last; *c && n < REC_EV_TERM_MAX; c++)
			if (*c != 'p' && *c != 'P')
				mods[n++] = *c;
		mods[n] = 0;
		if (asprintf(&name, "cpu-clock%s%s", n ? ":" : "", mods) < 0)
			return -ENOMEM;
	} else {
		name = strdup("cpu-clock");
		if (!name)
			return -ENOMEM;
	}
	free(e->name);
	e->name = name;
	e->attr.type = PERF_TYPE_SOFTWARE;
	e->attr.config = PERF_COUNT_SW_CPU_CLOCK;
	e->attr.config1 = 0;
	e->attr.config2 = 0;
	e->attr.bp_type = 0;
	e->attr.precise_ip = 0;
	e->precise_max = false;
	e->fallback = true;
	return 0;
}

/* ---- listing ---------------------------------------------------------- */

static bool list_match(const char *pattern, const char *a, const char *b)
{
	return !pattern || !fnmatch(pattern, a, 0) || (b && !fnmatch(pattern, b, 0));
}

static void list_attr(struct perf_event_attr *a, uint32_t type, uint64_t config)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->type = type;
	a->config = config;
}

static void list_aliases(FILE *out, const char *pattern, bool verbose, const struct ev_alias *t,
			 size_t n, uint32_t type, const char *kind)
{
	struct perf_event_attr a;
	char buf[128];

	for (size_t i = 0; i < n; i++) {
		if (!list_match(pattern, t[i].name, t[i].alias))
			continue;
		if (t[i].alias)
			snprintf(buf, sizeof(buf), "%s OR %s", t[i].name, t[i].alias);
		else
			snprintf(buf, sizeof(buf), "%s", t[i].name);
		list_attr(&a, type, t[i].config);
		rec_probe_list_line(out, buf, kind, &a, false, t[i].desc, verbose);
	}
}

static const char *const cache_descs[PERF_COUNT_HW_CACHE_MAX] = {
	[PERF_COUNT_HW_CACHE_L1D] = "L1 data cache",
	[PERF_COUNT_HW_CACHE_L1I] = "L1 instruction cache",
	[PERF_COUNT_HW_CACHE_LL] = "last-level cache",
	[PERF_COUNT_HW_CACHE_DTLB] = "data TLB",
	[PERF_COUNT_HW_CACHE_ITLB] = "instruction TLB",
	[PERF_COUNT_HW_CACHE_BPU] = "branch prediction unit",
	[PERF_COUNT_HW_CACHE_NODE] = "local memory node",
};

static void list_cache(FILE *out, const char *pattern, bool verbose)
{
	struct perf_event_attr a;
	char name[64], desc[128];

	for (int c = 0; c < PERF_COUNT_HW_CACHE_MAX; c++)
		for (int o = 0; o < PERF_COUNT_HW_CACHE_OP_MAX; o++)
			for (int r = 0; r < PERF_COUNT_HW_CACHE_RESULT_MAX; r++) {
				if (!(cache_valid_ops[c] & (1u << o)))
					continue;
				cache_canonical(name, sizeof(name), c, o, r);
				if (!list_match(pattern, name, NULL))
					continue;
				snprintf(desc, sizeof(desc), "%s %s %s", cache_descs[c],
					 cache_ops[o][0], r == PERF_COUNT_HW_CACHE_RESULT_MISS
					 ? "misses" : "accesses");
				list_attr(&a, PERF_TYPE_HW_CACHE,
					  (uint64_t)c | (uint64_t)o << 8 | (uint64_t)r << 16);
				rec_probe_list_line(out, name, "Hardware cache event", &a, false, desc,
						    verbose);
			}
}

struct list_ctx {
	FILE *out;
	const char *pattern;
	bool verbose;
	const char *root;
};

static int list_tracepoint(void *ctx, const char *sys, const char *event)
{
	struct list_ctx *lc = ctx;
	char name[512], id[PATH_MAX];

	if ((size_t)snprintf(name, sizeof(name), "%s:%s", sys, event) >= sizeof(name))
		return 0;
	if (!list_match(lc->pattern, name, NULL))
		return 0;
	/* Without an id perf_event_open cannot name it (ftrace internals). */
	if ((size_t)snprintf(id, sizeof(id), "%s/events/%s/%s/id", lc->root, sys, event) >=
		    sizeof(id) ||
	    access(id, F_OK))
		return 0;
	fprintf(lc->out, "  %-50s [Tracepoint event]\n", name);
	return 0;
}

/* A PMU event is listed as the parser reads it, and probed as parsed: what
 * the listing says opens is what -e opens. */
static int list_pmu_event(void *ctx, const char *pmu, const char *event)
{
	struct list_ctx *lc = ctx;
	struct rec_event_list l = { 0 };
	struct rec_pmu *p = NULL;
	char name[512], err[256], *terms = NULL;

	if ((size_t)snprintf(name, sizeof(name), "%s/%s/", pmu, event) >= sizeof(name))
		return 0;
	if (!list_match(lc->pattern, name, NULL))
		return 0;
	if (lc->verbose && !rec_pmu_open(pmu, &p))
		terms = rec_pmu_event_terms(p, event);
	if (rec_events_parse(&l, name, err, sizeof(err)) || l.n != 1)
		fprintf(lc->out, "  %-50s [Kernel PMU event; unavailable: %s]\n", name, err);
	else
		rec_probe_list_line(lc->out, name, "Kernel PMU event", &l.v[0].attr, true, terms,
				    lc->verbose);
	rec_events_free(&l);
	free(terms);
	rec_pmu_free(p);
	return 0;
}

int rec_events_list(FILE *out, const char *pattern, bool verbose)
{
	struct list_ctx lc = { out, pattern, verbose, NULL };
	int ret;

	fprintf(out, "\nList of pre-defined events (to be used in -e):\n\n");
	list_aliases(out, pattern, verbose, hw_events, AMB_ARRAY_SIZE(hw_events),
		     PERF_TYPE_HARDWARE, "Hardware event");
	list_aliases(out, pattern, verbose, sw_events, AMB_ARRAY_SIZE(sw_events),
		     PERF_TYPE_SOFTWARE, "Software event");
	list_cache(out, pattern, verbose);
	if (list_match(pattern, "rNNN", NULL)) {
		if (rec_probe_have_cpu_pmu())
			fprintf(out, "  %-50s [Raw hardware event descriptor]\n", "rNNN");
		else
			fprintf(out, "  %-50s [Raw hardware event descriptor; unavailable: "
				"no hardware PMU on this machine]\n", "rNNN");
		if (verbose)
			fprintf(out, "%8s%s\n", "", "a raw PMU event: NNN is its config in hex");
	}
	ret = rec_pmu_for_each_event(list_pmu_event, &lc);
	if (ret < 0)
		return ret;
	ret = rec_pfm_list(out, pattern, verbose);
	if (ret < 0)
		return ret;
	lc.root = rec_tracefs_root();
	if (!lc.root)
		return ferror(out) ? -EIO : 0;
	ret = rec_tracefs_for_each_event(list_tracepoint, &lc);
	if (ret < 0)
		return ret;
	return ferror(out) ? -EIO : 0;
}
