// SPDX-License-Identifier: MIT
/*
 * record/events/events_pmu.c - perf's "pmu/terms/mods" events in -e
 * specs (and "cycles/period=N/": a generic event with terms): the terms a
 * user writes, put into attr words through the formats and aliases pmu.c
 * reads from sysfs.  The rest of the grammar is events.c's.
 */
#include <amber/common.h>
#include "record/events/events_pmu.h"
#include "record/events/pmu.h"

#include <assert.h>
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Room for the name lists of an unknown-term or unknown-PMU message. */
#define PMU_LIST_MAX 320
/* Alias terms written "name=?" that the user has to give (perf's rule). */
#define PMU_PENDING_MAX 8
#define PMU_KEY_MAX 64

/* perf's fixed terms (parse-events.c config_term_names) that amber-rec does
 * not take, and what to use instead. */
static const struct {
	const char *name;
	const char *why;
} pmu_unsupported_terms[] = {
	{ "inherit", "inheritance follows the target (a command, -p, -t or -a)" },
	{ "no-inherit", "inheritance follows the target (a command, -p, -t or -a)" },
	{ "time", "every sample records its time" },
	{ "call-graph", "use -g or --call-graph" },
	{ "stack-size", "use --call-graph dwarf,SIZE" },
	{ "max-stack", "call chains are recorded whole" },
	{ "branch_type", "use -b (--branch)" },
	{ "overwrite", "the rings are drained, never overwritten" },
	{ "no-overwrite", "the rings are drained, never overwritten" },
	{ "config3", "attr.config3 is beyond the perf_event_attr this build knows" },
	{ "percore", "it only changes how perf stat sums counts" },
	{ "metric-id", "it only names values in perf stat metrics" },
	{ "aux-output", "amber-rec records no AUX area" },
	{ "aux-sample-size", "amber-rec records no AUX area" },
};

/* One pmu/terms/ event being built. */
struct pmu_ctx {
	struct rec_ev_parser *p;
	const char *what;              /* the event as written, for messages */
	const char *pmu_name;
	struct rec_pmu *pmu;
	struct perf_event_attr attr;   /* type and the config words */
	char name[REC_EV_TERM_MAX + 1];    /* the name= term, "" without one */
	uint64_t period, freq;         /* the period= and freq= terms, 0 without */
	size_t nr_pending;
	struct {
		char term[PMU_KEY_MAX + 1];
		char alias[PMU_KEY_MAX + 1];
	} pending[PMU_PENDING_MAX];
};

/* A decimal or 0x-hex number filling all of @s (@n bytes). */
static bool pmu_value(const char *s, size_t n, uint64_t *v)
{
	bool hex = n > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
	unsigned base = hex ? 16 : 10;
	uint64_t x = 0;

	if (hex) {
		s += 2;
		n -= 2;
	}
	if (!n)
		return false;
	for (size_t i = 0; i < n; i++) {
		int c = (unsigned char)s[i];
		unsigned d;

		if (isdigit(c))
			d = (unsigned)(c - '0');
		else if (hex && isxdigit(c))
			d = (unsigned)(tolower(c) - 'a' + 10);
		else
			return false;
		if (x > (UINT64_MAX - d) / base)
			return false;
		x = x * base + d;
	}
	*v = x;
	return true;
}

struct name_rank {
	unsigned dist;
	size_t i;
};

static int name_rank_cmp(const void *a, const void *b)
{
	const struct name_rank *x = a, *y = b;

	if (x->dist != y->dist)
		return x->dist < y->dist ? -1 : 1;
	return x->i < y->i ? -1 : x->i > y->i;
}

/*
 * Write @names (@n of them) into @buf, ", "-separated, the nearest to
 * @query (edit distance) first and equals in their given order; ", ..."
 * ends a list that does not fit.  "none" for an empty list.
 */
static int names_nearest(char *buf, size_t size, const char *query, const char *const *names,
			 size_t n)
{
	size_t qlen = strlen(query), off = 0;
	struct name_rank *r;

	assert(size > 16);
	snprintf(buf, size, "none");
	if (!n)
		return 0;
	r = calloc(n, sizeof(*r));
	if (!r)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		size_t len = strlen(names[i]);

		r[i].i = i;
		r[i].dist = len <= REC_EV_DIST_MAX_LEN && qlen <= REC_EV_DIST_MAX_LEN ?
				    rec_ev_edit_distance(query, qlen, names[i], len) :
				    UINT_MAX;
	}
	qsort(r, n, sizeof(*r), name_rank_cmp);
	for (size_t i = 0; i < n; i++) {
		const char *name = names[r[i].i];
		size_t need = strlen(name) + (i ? 2 : 0);

		/* Keep room for ", ..." unless this is the last name. */
		if (off + need + (i + 1 < n ? 5 : 0) >= size) {
			snprintf(buf + off, size - off, "%s...", i ? ", " : "");
			break;
		}
		off += (size_t)snprintf(buf + off, size - off, "%s%s", i ? ", " : "", name);
	}
	free(r);
	return 0;
}

static int pmu_collect_name(void *ctx, const char *name)
{
	struct amb_buf *b = ctx;
	char *copy = strdup(name);

	if (!copy || amb_buf_append(b, &copy, sizeof(copy))) {
		free(copy);
		return -ENOMEM;
	}
	return 0;
}

static int pmu_unknown(struct rec_ev_parser *p, const char *what, const char *name)
{
	struct amb_buf b = AMB_BUF_INIT;
	char list[PMU_LIST_MAX];
	const char *root = rec_pmu_root();
	char **v;
	size_t n;
	int ret;

	if (!root[0])
		return rec_ev_fail(p, -ENOENT, "event '%s': unknown PMU '%s' (no PMUs are available)", what,
				   name);
	ret = rec_pmu_for_each(pmu_collect_name, &b);
	v = (char **)b.data;
	n = b.len / sizeof(*v);
	if (ret >= 0)
		ret = names_nearest(list, sizeof(list), name, (const char *const *)v, n);
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	amb_buf_free(&b);
	if (ret == -ENOMEM)
		return ret;
	if (ret < 0)
		return rec_ev_fail(p, -ENOENT, "event '%s': unknown PMU '%s' (cannot list %s: %s)", what,
				   name, root, strerror(-ret));
	return rec_ev_fail(p, -ENOENT, "event '%s': unknown PMU '%s' (no %s/%s; PMUs, nearest first: %s)",
			   what, name, root, name, list);
}

/* The format and event names of the PMU, each nearest to @key first. */
static int pmu_unknown_term(struct pmu_ctx *c, const char *key, const char *alias)
{
	char formats[PMU_LIST_MAX], events[PMU_LIST_MAX];
	size_t nf = rec_pmu_nr_formats(c->pmu), ne = rec_pmu_nr_events(c->pmu);
	const char **v = calloc(AMB_MAX(nf, ne) + 1, sizeof(*v));
	int ret;

	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < nf; i++)
		v[i] = rec_pmu_format_name(c->pmu, i);
	ret = names_nearest(formats, sizeof(formats), key, v, nf);
	for (size_t i = 0; i < ne && !ret; i++)
		v[i] = rec_pmu_event_name(c->pmu, i);
	if (!ret)
		ret = names_nearest(events, sizeof(events), key, v, ne);
	free(v);
	if (ret)
		return ret;
	if (alias)
		return rec_ev_fail(c->p, -EINVAL,
				   "event '%s': term '%s' of %s/%s/events/%s is not a format of PMU '%s' (formats: %s)",
				   c->what, key, rec_pmu_root(), c->pmu_name, alias, c->pmu_name, formats);
	return rec_ev_fail(c->p, -ENOENT,
			   "event '%s': PMU '%s' has no term '%s' (formats: %s; events: %s; "
			   "and config, config1, config2, name)",
			   c->what, c->pmu_name, key, formats, events);
}

static int pmu_terms(struct pmu_ctx *c, const char *s, size_t len, const char *alias);

/* Expand event alias @name (events/NAME) in place of the term naming it. */
static int pmu_alias(struct pmu_ctx *c, const char *name, bool *found)
{
	char *text = rec_pmu_event_terms(c->pmu, name);
	int ret;

	*found = text != NULL;
	if (!text) {
		int err = errno;

		if (err == ENOENT)
			return 0;
		if (err == ENOMEM)
			return -ENOMEM;
		return rec_ev_fail(c->p, -err, "event '%s': cannot read %s/%s/events/%s: %s", c->what,
				   rec_pmu_root(), c->pmu_name, name, strerror(err));
	}
	ret = pmu_terms(c, text, strlen(text), name);
	free(text);
	return ret;
}

/* "?" in an alias: the user must give this term (an uncore's channel). */
static int pmu_pending_add(struct pmu_ctx *c, const char *key, const char *alias)
{
	if (c->nr_pending == PMU_PENDING_MAX)
		return rec_ev_fail(c->p, -EINVAL, "event '%s': events/%s asks for more than %d terms",
				   c->what, alias, PMU_PENDING_MAX);
	snprintf(c->pending[c->nr_pending].term, sizeof(c->pending[0].term), "%s", key);
	snprintf(c->pending[c->nr_pending].alias, sizeof(c->pending[0].alias), "%s", alias);
	c->nr_pending++;
	return 0;
}

static void pmu_pending_clear(struct pmu_ctx *c, const char *key)
{
	for (size_t i = 0; i < c->nr_pending;) {
		if (strcmp(c->pending[i].term, key)) {
			i++;
			continue;
		}
		memmove(&c->pending[i], &c->pending[i + 1], (c->nr_pending - i - 1) * sizeof(c->pending[0]));
		c->nr_pending--;
	}
}

/* A format term: @val (@vlen bytes, NULL for a bare name, meaning 1). */
static int pmu_format_term(struct pmu_ctx *c, const char *key, const struct rec_pmu_field *f,
			   const char *val, size_t vlen, const char *alias)
{
	uint64_t v = 1;

	if (val && vlen == 1 && *val == '?') {
		if (alias)
			return pmu_pending_add(c, key, alias);
		return rec_ev_fail(c->p, -EINVAL, "event '%s': term '%s' needs a number, not '?'",
				   c->what, key);
	}
	if (val && !pmu_value(val, vlen, &v))
		return rec_ev_fail(c->p, -EINVAL,
				   "event '%s': term '%s': bad value '%.*s' (a decimal or 0x hex number of 64 bits at most)",
				   c->what, key, (int)vlen, val);
	if (rec_pmu_field_set(f, v, &c->attr)) {
		assert(f->width < 64);
		return rec_ev_fail(c->p, -EINVAL,
				   "event '%s': value 0x%" PRIx64 " of term '%s' does not fit its %u bit%s "
				   "(at most 0x%" PRIx64 ")",
				   c->what, v, key, f->width, f->width == 1 ? "" : "s",
				   ((uint64_t)1 << f->width) - 1);
	}
	pmu_pending_clear(c, key);
	return 0;
}

/* One term (@t, @n bytes): a fixed term, a format or an event alias.
 * @alias names the events/ file it comes from, NULL for the user's. */
static int pmu_term(struct pmu_ctx *c, const char *t, size_t n, const char *alias)
{
	const char *eq, *val = NULL;
	char key[PMU_KEY_MAX + 1];
	struct rec_pmu_field f;
	size_t klen, vlen = 0;
	uint64_t v;
	bool found;
	int ret;

	while (n && isspace((unsigned char)*t)) {
		t++;
		n--;
	}
	while (n && isspace((unsigned char)t[n - 1]))
		n--;
	if (!n)
		return rec_ev_fail(c->p, -EINVAL, "event '%s': empty term%s%s", c->what,
				   alias ? " in events/" : "", alias ? alias : "");
	eq = memchr(t, '=', n);
	klen = eq ? (size_t)(eq - t) : n;
	while (klen && isspace((unsigned char)t[klen - 1]))
		klen--;
	if (eq) {
		val = eq + 1;
		vlen = (size_t)(t + n - val);
		while (vlen && isspace((unsigned char)*val)) {
			val++;
			vlen--;
		}
	}
	if (!klen)
		return rec_ev_fail(c->p, -EINVAL, "event '%s': term '%.*s' has no name before '='", c->what,
				   (int)n, t);
	if (klen > PMU_KEY_MAX)
		return rec_ev_fail(c->p, -EINVAL, "event '%s': term name '%.*s...' longer than %d bytes",
				   c->what, 16, t, PMU_KEY_MAX);
	memcpy(key, t, klen);
	key[klen] = 0;

	/* perf's fixed terms come before the PMU's own names. */
	if (!strcmp(key, "config") || !strcmp(key, "config1") || !strcmp(key, "config2")) {
		if (!val || !pmu_value(val, vlen, &v))
			return rec_ev_fail(c->p, -EINVAL,
					   "event '%s': term '%s' needs a decimal or 0x hex value of 64 bits at most",
					   c->what, key);
		if (!strcmp(key, "config"))
			c->attr.config = v;
		else if (!strcmp(key, "config1"))
			c->attr.config1 = v;
		else
			c->attr.config2 = v;
		return 0;
	}
	if (!strcmp(key, "name")) {
		if (!val || !vlen)
			return rec_ev_fail(c->p, -EINVAL, "event '%s': term 'name' needs a value", c->what);
		snprintf(c->name, sizeof(c->name), "%.*s", (int)vlen, val);
		return 0;
	}
	if (!strcmp(key, "period") || !strcmp(key, "freq")) {
		if (!val || !pmu_value(val, vlen, &v) || !v)
			return rec_ev_fail(c->p, -EINVAL, "event '%s': term '%s' needs a number above 0",
					   c->what, key);
		if (!strcmp(key, "period"))
			c->period = v;
		else
			c->freq = v;
		return 0;
	}
	for (size_t i = 0; i < AMB_ARRAY_SIZE(pmu_unsupported_terms); i++)
		if (!strcmp(key, pmu_unsupported_terms[i].name))
			return rec_ev_fail(c->p, -EINVAL, "event '%s': term '%s' is not supported: %s",
					   c->what, key, pmu_unsupported_terms[i].why);

	/* A generic event with terms (cycles/period=1000/) has no PMU to
	 * give formats or aliases: the fixed terms above are all it takes. */
	if (!c->pmu)
		return rec_ev_fail(c->p, -EINVAL,
				   "event '%s': '%s' takes only the terms config, config1, config2, name, "
				   "period and freq (no term '%s')", c->what, c->pmu_name, key);
	/* perf's event=ALIAS spelling of an alias. */
	if (!alias && val && !strcmp(key, "event") && !pmu_value(val, vlen, &v) &&
	    !(vlen == 1 && *val == '?') && vlen <= PMU_KEY_MAX) {
		char name[PMU_KEY_MAX + 1];

		snprintf(name, sizeof(name), "%.*s", (int)vlen, val);
		ret = pmu_alias(c, name, &found);
		if (ret || found)
			return ret;
	}
	ret = rec_pmu_format(c->pmu, key, &f);
	if (!ret)
		return pmu_format_term(c, key, &f, val, vlen, alias);
	if (ret == -ENOMEM)
		return ret;
	if (ret == -EINVAL)
		return rec_ev_fail(c->p, -EINVAL, "event '%s': malformed format file %s/%s/format/%s",
				   c->what, rec_pmu_root(), c->pmu_name, key);
	if (ret != -ENOENT)
		return rec_ev_fail(c->p, ret, "event '%s': cannot read %s/%s/format/%s: %s", c->what,
				   rec_pmu_root(), c->pmu_name, key, strerror(-ret));
	/* Aliases do not nest: their terms are formats and fixed terms. */
	if (!alias) {
		if (val) {
			for (size_t i = 0; i < rec_pmu_nr_events(c->pmu); i++)
				if (!strcasecmp(rec_pmu_event_name(c->pmu, i), key))
					return rec_ev_fail(c->p, -EINVAL,
							   "event '%s': '%s' is an event of PMU '%s' and takes no value",
							   c->what, key, c->pmu_name);
		} else {
			ret = pmu_alias(c, key, &found);
			if (ret || found)
				return ret;
		}
	}
	return pmu_unknown_term(c, key, alias);
}

/* The comma-separated terms @s (@len bytes), in order: a later term
 * overrides what an earlier one (or an alias's) put in the same bits. */
static int pmu_terms(struct pmu_ctx *c, const char *s, size_t len, const char *alias)
{
	const char *end = s + len;
	size_t blank = 0;

	while (blank < len && isspace((unsigned char)s[blank]))
		blank++;
	if (blank == len)
		return 0; /* "pmu//": every config word 0 */
	for (;;) {
		const char *comma = memchr(s, ',', (size_t)(end - s));
		const char *te = comma ? comma : end;
		int ret = pmu_term(c, s, (size_t)(te - s), alias);

		if (ret || !comma)
			return ret;
		s = comma + 1;
	}
}

/* "pmu/terms/mods" (perf's event_pmu): @t holds at least one '/'. */
int rec_ev_pmu_parse(struct rec_ev_parser *p, const char *t, size_t len)
{
	char what[REC_EV_TERM_MAX + 1], pmu_name[REC_EV_TERM_MAX + 1];
	const char *open = memchr(t, '/', len), *close, *modstr;
	struct pmu_ctx *c = NULL;
	struct rec_event *e;
	struct rec_ev_mods mods;
	size_t modlen;
	int ret;

	assert(open);
	snprintf(what, sizeof(what), "%.*s", (int)len, t);
	if (open == t)
		return rec_ev_fail(p, -EINVAL, "event '%s': empty PMU name before '/'", what);
	close = memchr(open + 1, '/', (size_t)(t + len - open - 1));
	if (!close)
		return rec_ev_fail(p, -EINVAL, "event '%s': missing closing '/' after the terms", what);
	modstr = close + 1;
	modlen = (size_t)(t + len - modstr);
	/* perf writes "cpu/.../u"; "cpu/.../:u" reads as amber's other names. */
	if (modlen && *modstr == ':') {
		modstr++;
		if (!--modlen)
			return rec_ev_fail(p, -EINVAL, "event '%s': empty modifier after ':'", what);
	}
	ret = rec_ev_mods_parse(p, modstr, modlen, what, &mods);
	if (ret)
		return ret;
	snprintf(pmu_name, sizeof(pmu_name), "%.*s", (int)(open - t), t);

	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	c->p = p;
	c->what = what;
	c->pmu_name = pmu_name;
	ret = rec_pmu_open(pmu_name, &c->pmu);
	if (ret == -ENOENT) {
		/* perf's "cycles/period=1000/": a generic event with terms. */
		const char *spelling;
		uint64_t config;
		uint32_t type;

		ret = rec_ev_builtin_find(p, pmu_name, strlen(pmu_name), &type, &config, &spelling);
		if (ret > 0) {
			c->attr.type = type;
			c->attr.config = config;
			ret = 0;
		} else if (!ret) {
			ret = pmu_unknown(p, what, pmu_name);
		}
	}
	else if (ret == -EINVAL)
		ret = rec_ev_fail(p, ret, "event '%s': malformed %s/%s/type (not a 32-bit number)", what,
				  rec_pmu_root(), pmu_name);
	else if (ret && ret != -ENOMEM)
		ret = rec_ev_fail(p, ret, "event '%s': cannot read PMU %s/%s: %s", what, rec_pmu_root(),
				  pmu_name, strerror(-ret));
	if (ret)
		goto out;
	if (c->pmu)
		c->attr.type = rec_pmu_type(c->pmu);
	ret = pmu_terms(c, open + 1, (size_t)(close - open - 1), NULL);
	if (ret)
		goto out;
	if (c->period && c->freq) {
		ret = rec_ev_fail(p, -EINVAL, "event '%s': period= and freq= exclude each other", what);
		goto out;
	}
	if (c->nr_pending) {
		ret = rec_ev_fail(p, -EINVAL, "event '%s': term '%s' needs a value (events/%s has %s=?)",
				  what, c->pending[0].term, c->pending[0].alias, c->pending[0].term);
		goto out;
	}
	/* The name is the spec as written, or name= with the modifiers. */
	e = c->name[0] ? rec_ev_add(p, c->name, strlen(c->name), modstr, modlen) : rec_ev_add(p, t, len, "", 0);
	if (!e) {
		ret = -ENOMEM;
		goto out;
	}
	e->attr.type = c->attr.type;
	e->attr.config = c->attr.config;
	e->attr.config1 = c->attr.config1;
	e->attr.config2 = c->attr.config2;
	e->period = c->period;
	e->freq = c->freq;
	rec_ev_mods_apply(&mods, e);
out:
	rec_pmu_free(c->pmu);
	free(c);
	return ret;
}
