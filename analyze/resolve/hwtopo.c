// SPDX-License-Identifier: MIT
/*
 * analyze/resolve/hwtopo.c - the TOPOLOGY block (docs/FORMAT.md §5.7) as a
 * model of the recorded machine, and node attribution from it.
 *
 * The keys come from a file: every number is checked, every id and count
 * capped (hwtopo.h), and a value that does not parse is left out and
 * counted, never guessed.  Physical ranges of all nodes are merged into
 * one sorted list of disjoint ranges by a sweep over their ends, so that
 * a lookup is a binary search, and what two nodes claim at once (which a
 * real machine never records) belongs to neither.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/resolve/hwtopo.h"
#include "common/util.h"
#include <amber/common.h>

struct ana_hwtopo *ana_hwtopo_new(void)
{
	struct ana_hwtopo *t = calloc(1, sizeof(*t));

	if (!t)
		errno = ENOMEM;
	return t;
}

void ana_hwtopo_free(struct ana_hwtopo *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->nr_nodes; i++) {
		free(t->nodes[i].cpus);
		free(t->nodes[i].distance);
	}
	for (size_t i = 0; i < t->nr_caches; i++)
		free(t->caches[i].shared_cpus);
	free(t->cpus);
	free(t->nodes);
	free(t->ranges);
	free(t->caches);
	free(t);
}

/* ---- numbers ------------------------------------------------------------- */

/* A decimal (@base 10) or hex (16, with or without 0x) number that is all
 * of @s, at most @max. */
static int parse_u64(const char *s, int base, uint64_t max, uint64_t *out)
{
	unsigned long long v;
	char *end;

	if (!s || !*s || *s == '-' || *s == '+' || *s == ' ')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, base);
	if (errno || end == s || *end || v > max)
		return -EINVAL;
	*out = v;
	return 0;
}

/* An int in [-1, INT32_MAX]: sysfs writes -1 for an unknown die. */
static int parse_id(const char *s, int *out)
{
	uint64_t v;

	if (!strcmp(s, "-1")) {
		*out = -1;
		return 0;
	}
	if (parse_u64(s, 10, INT32_MAX, &v))
		return -EINVAL;
	*out = (int)v;
	return 0;
}

/* "32K", "8M", "1024": a sysfs cache size. */
static int parse_size(const char *s, uint64_t *out)
{
	char num[32];
	size_t n = strlen(s);
	unsigned shift = 0;

	if (!n || n >= sizeof(num))
		return -EINVAL;
	memcpy(num, s, n + 1);
	switch (num[n - 1]) {
	case 'K': shift = 10; break;
	case 'M': shift = 20; break;
	case 'G': shift = 30; break;
	default: break;
	}
	if (shift)
		num[n - 1] = '\0';
	if (parse_u64(num, 10, UINT64_MAX >> shift, out))
		return -EINVAL;
	*out <<= shift;
	return 0;
}

/*
 * "PREFIX" then a decimal id below @max then ".": the id in *@id and what
 * follows in *@rest.  False when @key is not shaped so.
 */
static bool key_id(const char *key, const char *prefix, uint32_t max, uint32_t *id,
		   const char **rest)
{
	size_t n = strlen(prefix);
	uint64_t v = 0;
	const char *p;

	if (strncmp(key, prefix, n))
		return false;
	p = key + n;
	if (*p < '0' || *p > '9' || (*p == '0' && p[1] >= '0' && p[1] <= '9'))
		return false;
	for (; *p >= '0' && *p <= '9'; p++) {
		v = v * 10 + (uint64_t)(*p - '0');
		if (v >= max)
			return false;
	}
	if (*p != '.')
		return false;
	*id = (uint32_t)v;
	*rest = p + 1;
	return true;
}

/* ---- growing the tables ------------------------------------------------- */

static struct ana_hwtopo_cpu *cpu_get(struct ana_hwtopo *t, uint32_t id)
{
	if (id >= t->nr_cpus) {
		if (amb_ensure_cap((void **)&t->cpus, &t->cap_cpus, sizeof(*t->cpus), (size_t)id + 1))
			return NULL;
		for (size_t i = t->nr_cpus; i <= id; i++)
			t->cpus[i] = (struct ana_hwtopo_cpu){ false, -1, -1, -1, -1, -1 };
		t->nr_cpus = (size_t)id + 1;
	}
	t->cpus[id].present = true;
	return &t->cpus[id];
}

static struct ana_hwtopo_node *node_get(struct ana_hwtopo *t, uint32_t id)
{
	if (id >= t->nr_nodes) {
		if (amb_ensure_cap((void **)&t->nodes, &t->cap_nodes, sizeof(*t->nodes), (size_t)id + 1))
			return NULL;
		memset(&t->nodes[t->nr_nodes], 0, ((size_t)id + 1 - t->nr_nodes) * sizeof(*t->nodes));
		t->nr_nodes = (size_t)id + 1;
	}
	t->nodes[id].present = true;
	return &t->nodes[id];
}

static struct ana_hwtopo_cache *cache_get(struct ana_hwtopo *t, uint32_t cpu, uint32_t index)
{
	struct ana_hwtopo_cache *c;

	/* The keys of one cache come together: look at the last one first. */
	for (size_t i = t->nr_caches; i-- > 0;) {
		if (t->caches[i].cpu == cpu && t->caches[i].index == index)
			return &t->caches[i];
		if (t->nr_caches - i > 8)
			break;
	}
	if (t->nr_caches >= ANA_HWTOPO_MAX_CACHES)
		return NULL;
	if (amb_ensure_cap((void **)&t->caches, &t->cap_caches, sizeof(*t->caches), t->nr_caches + 1))
		return NULL;
	c = &t->caches[t->nr_caches++];
	memset(c, 0, sizeof(*c));
	c->cpu = cpu;
	c->index = index;
	c->level = -1;
	return c;
}

/* ---- keys ---------------------------------------------------------------- */

static int add_cpu(struct ana_hwtopo *t, uint32_t id, const char *field, const char *val)
{
	struct ana_hwtopo_cpu *c;
	int v, *dst;

	if (!strcmp(field, "core") || !strcmp(field, "package") || !strcmp(field, "die") ||
	    !strcmp(field, "node") || !strcmp(field, "online")) {
		if (parse_id(val, &v) || (!strcmp(field, "online") && v != 0 && v != 1))
			return -EINVAL;
	} else {
		return 0;
	}
	c = cpu_get(t, id);
	if (!c)
		return -ENOMEM;
	dst = field[0] == 'c' ? &c->core : field[0] == 'p' ? &c->package : field[0] == 'd' ? &c->die
	      : field[0] == 'n' ? &c->node : &c->online;
	/* A node number beyond the limit is no node at all. */
	*dst = dst == &c->node && v >= (int)ANA_HWTOPO_MAX_NODES ? -1 : v;
	return 0;
}

/* "start-end,start-end" in hex, end exclusive: appended to t->ranges,
 * all or nothing. */
static int add_ranges(struct ana_hwtopo *t, struct ana_hwtopo_node *nd, uint32_t node,
		      const char *val)
{
	size_t before = t->nr_ranges, added_bytes = 0;
	const char *p = val;

	while (*p) {
		const char *comma = strchr(p, ','), *dash;
		char a[24], b[24];
		uint64_t start, end;
		size_t n = comma ? (size_t)(comma - p) : strlen(p);

		dash = memchr(p, '-', n);
		if (!dash || (size_t)(dash - p) >= sizeof(a) || n - (size_t)(dash - p) - 1 >= sizeof(b))
			goto bad;
		memcpy(a, p, (size_t)(dash - p));
		a[dash - p] = '\0';
		memcpy(b, dash + 1, n - (size_t)(dash - p) - 1);
		b[n - (size_t)(dash - p) - 1] = '\0';
		if (parse_u64(a, 16, UINT64_MAX, &start) || parse_u64(b, 16, UINT64_MAX, &end) ||
		    end <= start || t->nr_ranges >= ANA_HWTOPO_MAX_RANGES)
			goto bad;
		if (amb_ensure_cap((void **)&t->ranges, &t->cap_ranges, sizeof(*t->ranges),
				   t->nr_ranges + 1))
			return -ENOMEM;
		t->ranges[t->nr_ranges++] = (struct ana_hwtopo_range){ start, end, (int)node };
		added_bytes += end - start;
		if (!comma)
			break;
		p = comma + 1;
		if (!*p)
			goto bad;
	}
	nd->nr_ranges += t->nr_ranges - before;
	nd->range_bytes += added_bytes;
	return 0;
bad:
	t->nr_ranges = before;
	return -EINVAL;
}

/* "10 21 21": distances to nodes 0, 1, ... */
static int add_distance(struct ana_hwtopo_node *nd, const char *val)
{
	uint32_t *d = NULL;
	size_t n = 0, cap = 0;
	const char *p = val;

	while (*p) {
		char num[16];
		uint64_t v;
		size_t len = strcspn(p, " ");

		if (!len || len >= sizeof(num) || n >= ANA_HWTOPO_MAX_NODES)
			goto bad;
		memcpy(num, p, len);
		num[len] = '\0';
		if (parse_u64(num, 10, UINT32_MAX, &v))
			goto bad;
		if (amb_ensure_cap((void **)&d, &cap, sizeof(*d), n + 1)) {
			free(d);
			return -ENOMEM;
		}
		d[n++] = (uint32_t)v;
		p += len;
		if (*p == ' ' && !*++p)
			goto bad;
	}
	if (!n)
		goto bad;
	free(nd->distance);
	nd->distance = d;
	nd->nr_distance = n;
	return 0;
bad:
	free(d);
	return -EINVAL;
}

/* "hugepages.2048kB.total" = "12" */
static int add_hugepages(struct ana_hwtopo_node *nd, const char *field, const char *val)
{
	unsigned long long kb;
	char what[8];
	int pos = 0;
	uint64_t v;
	size_t i;

	if (sscanf(field, "hugepages.%llukB.%7[a-z]%n", &kb, what, &pos) != 2 || field[pos] ||
	    field[10] < '1' || field[10] > '9' || (strcmp(what, "total") && strcmp(what, "free")) ||
	    parse_u64(val, 10, UINT64_MAX, &v))
		return -EINVAL;
	for (i = 0; i < nd->nr_hp && nd->hp[i].size_kb != kb; i++)
		;
	if (i == nd->nr_hp) {
		if (nd->nr_hp == ANA_HWTOPO_MAX_HP_SIZES)
			return -EINVAL;
		nd->hp[nd->nr_hp++] = (struct ana_hwtopo_hugepages){ .size_kb = kb };
	}
	if (what[0] == 't') {
		nd->hp[i].total = v;
		nd->hp[i].have_total = true;
	} else {
		nd->hp[i].free = v;
		nd->hp[i].have_free = true;
	}
	return 0;
}

static unsigned count_cpus(const char *list)
{
	uint64_t *set = calloc(ANA_HWTOPO_MAX_CPUS / 64, sizeof(*set));
	int n;

	if (!set)
		return 0;
	n = *list ? amb_cpulist_parse(list, set, ANA_HWTOPO_MAX_CPUS) : 0;
	free(set);
	return n < 0 ? UINT32_MAX : (unsigned)n;
}

static int add_node(struct ana_hwtopo *t, uint32_t id, const char *field, const char *val)
{
	struct ana_hwtopo_node *nd;
	uint64_t v;

	if (strcmp(field, "cpus") && strcmp(field, "mem_total") && strcmp(field, "ranges") &&
	    strcmp(field, "distance") && strncmp(field, "hugepages.", 10))
		return 0;
	nd = node_get(t, id);
	if (!nd)
		return -ENOMEM;
	if (!strcmp(field, "cpus")) {
		unsigned n = count_cpus(val);
		char *dup;

		if (n == UINT32_MAX)
			return -EINVAL;
		dup = strdup(val);
		if (!dup)
			return -ENOMEM;
		free(nd->cpus);
		nd->cpus = dup;
		nd->nr_cpus = n;
		return 0;
	}
	if (!strcmp(field, "mem_total")) {
		if (parse_u64(val, 10, UINT64_MAX, &v))
			return -EINVAL;
		nd->mem_total = v;
		nd->have_mem_total = true;
		return 0;
	}
	if (!strcmp(field, "ranges"))
		return add_ranges(t, nd, id, val);
	if (!strcmp(field, "distance"))
		return add_distance(nd, val);
	return add_hugepages(nd, field, val);
}

/* cache.CPU.INDEX.FIELD: @rest is "INDEX.FIELD". */
static int add_cache_of(struct ana_hwtopo *t, uint32_t cpu, const char *rest, const char *val)
{
	struct ana_hwtopo_cache *c;
	const char *field;
	uint32_t index;
	uint64_t v = 0;

	if (!key_id(rest, "", 64, &index, &field))
		return -EINVAL;
	if (!strcmp(field, "level") || !strcmp(field, "line") || !strcmp(field, "ways")) {
		if (parse_u64(val, 10, INT32_MAX, &v))
			return -EINVAL;
	} else if (!strcmp(field, "size")) {
		if (parse_size(val, &v))
			return -EINVAL;
	} else if (!strcmp(field, "type")) {
		if (strlen(val) >= sizeof(c->type))
			return -EINVAL;
	} else if (strcmp(field, "shared_cpus")) {
		return 0;
	}
	c = cache_get(t, cpu, index);
	if (!c)
		return t->nr_caches >= ANA_HWTOPO_MAX_CACHES ? -EINVAL : -ENOMEM;
	switch (field[0]) {
	case 'l':
		if (field[1] == 'e')
			c->level = (int)v;
		else
			c->line = (unsigned)v;
		break;
	case 'w':
		c->ways = (unsigned)v;
		break;
	case 's':
		if (field[1] == 'i') {
			c->size = v;
		} else {
			char *dup = strdup(val);

			if (!dup)
				return -ENOMEM;
			free(c->shared_cpus);
			c->shared_cpus = dup;
		}
		break;
	case 't':
		snprintf(c->type, sizeof(c->type), "%s", val);
		break;
	}
	return 0;
}

int ana_hwtopo_add(struct ana_hwtopo *t, const char *key, const char *val)
{
	const char *rest;
	uint32_t id;
	int err = 0;

	if (t->finished)
		return -EINVAL;
	if (key_id(key, "cpu.", ANA_HWTOPO_MAX_CPUS, &id, &rest))
		err = add_cpu(t, id, rest, val);
	else if (key_id(key, "node.", ANA_HWTOPO_MAX_NODES, &id, &rest))
		err = add_node(t, id, rest, val);
	else if (key_id(key, "cache.", ANA_HWTOPO_MAX_CPUS, &id, &rest))
		err = add_cache_of(t, id, rest, val);
	else if (!strcmp(key, "memory.block_size"))
		err = parse_u64(val, 10, UINT64_MAX, &t->block_size) ? -EINVAL : 0;
	else if (!strncmp(key, "cpu.", 4) || !strncmp(key, "node.", 5) || !strncmp(key, "cache.", 6))
		err = -EINVAL;    /* an id that does not parse, or beyond the limits */
	if (err == -EINVAL) {
		t->bad_keys++;
		err = 0;
	}
	return err;
}

/* ---- ranges ----------------------------------------------------------------- */

/* One end of a recorded range, for the sweep. */
struct range_edge {
	uint64_t pos;
	int node;
	int delta;     /* +1 at the start, -1 at the end */
};

static int edge_cmp(const void *a, const void *b)
{
	const struct range_edge *x = a, *y = b;

	return x->pos < y->pos ? -1 : x->pos > y->pos;
}

int ana_hwtopo_finish(struct ana_hwtopo *t)
{
	struct ana_hwtopo_range *res;
	struct range_edge *edges;
	uint32_t *count;
	size_t n = t->nr_ranges, out = 0, distinct = 0;
	uint64_t idsum = 0;

	if (t->finished)
		return 0;
	t->finished = true;
	if (!n)
		return 0;
	edges = malloc(2 * n * sizeof(*edges));
	res = malloc(2 * n * sizeof(*res));
	count = calloc(t->nr_nodes ? t->nr_nodes : 1, sizeof(*count));
	if (!edges || !res || !count) {
		free(edges);
		free(res);
		free(count);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		edges[2 * i] = (struct range_edge){ t->ranges[i].start, t->ranges[i].node, 1 };
		edges[2 * i + 1] = (struct range_edge){ t->ranges[i].end, t->ranges[i].node, -1 };
	}
	qsort(edges, 2 * n, sizeof(*edges), edge_cmp);
	/*
	 * Between two consecutive edge positions the same nodes claim every
	 * address: one node makes a range of its own, several make a range
	 * of none.  @idsum is the sum of the claiming nodes' numbers, which
	 * is the node itself when only one claims.  There is at most one
	 * range per gap between the 2n edges.
	 */
	for (size_t i = 0; i < 2 * n;) {
		uint64_t pos = edges[i].pos;

		for (; i < 2 * n && edges[i].pos == pos; i++) {
			uint32_t *c = &count[edges[i].node];

			if (edges[i].delta > 0) {
				if (!(*c)++) {
					distinct++;
					idsum += (uint64_t)edges[i].node;
				}
			} else if (!--(*c)) {
				distinct--;
				idsum -= (uint64_t)edges[i].node;
			}
		}
		if (i == 2 * n || !distinct)
			continue;
		{
			int node = distinct == 1 ? (int)idsum : -1;
			uint64_t end = edges[i].pos;
			struct ana_hwtopo_range *last = out ? &res[out - 1] : NULL;

			if (last && last->end == pos && last->node == node)
				last->end = end;
			else
				res[out++] = (struct ana_hwtopo_range){ pos, end, node };
		}
	}
	free(t->ranges);
	t->ranges = res;
	t->nr_ranges = out;
	t->cap_ranges = 2 * n;
	free(edges);
	free(count);
	return 0;
}

int ana_hwtopo_node_of_phys(const struct ana_hwtopo *t, uint64_t phys)
{
	size_t lo = 0, hi = t->nr_ranges;

	if (!phys || !t->finished)
		return -1;
	/* Invariant: ranges[0..lo) start at or below @phys, ranges[hi..) above. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->ranges[mid].start <= phys)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo && phys < t->ranges[lo - 1].end)
		return t->ranges[lo - 1].node;
	return -1;
}

int ana_hwtopo_node_of_cpu(const struct ana_hwtopo *t, uint32_t cpu)
{
	return cpu < t->nr_cpus ? t->cpus[cpu].node : -1;
}

bool ana_hwtopo_has_ranges(const struct ana_hwtopo *t)
{
	return t->nr_ranges > 0;
}

int ana_hwtopo_load(const struct ana_session *s, struct ana_hwtopo **out)
{
	struct ana_hwtopo *t = ana_hwtopo_new();
	const char *key, *val;
	int err = 0;

	*out = NULL;
	if (!t)
		return -ENOMEM;
	for (size_t i = 0; !err && (key = ana_session_topology_at(s, i, &val)); i++)
		err = ana_hwtopo_add(t, key, val);
	if (!err)
		err = ana_hwtopo_finish(t);
	if (err) {
		ana_hwtopo_free(t);
		return err;
	}
	*out = t;
	return 0;
}
