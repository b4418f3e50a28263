// SPDX-License-Identifier: MIT
/*
 * record/events/events.c - perf-style event specs (-e) into perf_event_attr
 * templates: the event list, the grammar, modifiers, tracepoints (with
 * globs) and libpfm4 names.
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
 * table built as cache-op-result (both in names.c, with the suggestions
 * for an unknown name), and the modifier rules (the first of
 * u/k/h excludes the other two levels, each further one re-includes its
 * level; p raises precise_ip, at most 3; P asks for the highest precise_ip
 * the PMU takes, tried from 3 down when the event is opened).  Group modifiers apply to the
 * members that have none of their own.  PMU events follow perf's
 * parse-events.c and pmu.c: pmu.c reads the sysfs side (type, format/,
 * events/), events_pmu.c parses the terms.  list.c prints --list-events.
 */
#include <amber/common.h>
#include "common/util.h"
#include "record/events/events_internal.h"
#include "record/events/events_pmu.h"
#include "record/events/pfm.h"
#include "record/events/tracefs.h"

#include <ctype.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

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
		return rec_ev_unknown(p, t, base, false);
	if (colon && !pfm_syntax) {
		const char *c2 = memchr(modstr, ':', modlen);

		return rec_ev_unknown(p, t, c2 ? (size_t)(c2 - t) : len, true);
	}
	return rec_ev_unknown(p, t, len, false);
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
