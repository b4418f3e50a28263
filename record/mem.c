// SPDX-License-Identifier: MIT
/*
 * record/mem.c - `amber-rec mem`: perf mem record's preset.
 *
 * perf mem record finds the PMUs that sample memory accesses, writes the
 * events they take into a perf record command line, adds -d (data
 * addresses and their source) and -W (weights, for loads), and runs it.
 * This does the same with amber-rec's command line, so that everything
 * after the rewrite is an ordinary recording.  The events and their terms
 * are perf's (tools/perf/util/mem-events.c, arch/x86/util/mem-events.c,
 * arch/arm64/util/mem-events.c): Intel's load-latency and precise store
 * events, AMD's IBS op sampling (loads and stores in one), Arm's SPE with
 * load and store filters.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <amber/common.h>
#include "record/events/pmu.h"
#include "record/mem.h"
#include "record/options.h"

#define EXIT_REC_FAIL 125

/* The core PMUs perf looks at for mem-loads and mem-stores (hybrid Intel
 * parts have two). */
static const char *const core_pmus[] = { "cpu", "cpu_core", "cpu_atom" };

static bool pmu_has(const char *pmu, const char *rel)
{
	char path[512];

	if (!*rec_pmu_root())
		return false;
	snprintf(path, sizeof(path), "%s/%s/%s", rec_pmu_root(), pmu, rel);
	return !access(path, F_OK);
}

static int probe_one(void *ctx, const char *name)
{
	struct rec_mem_probe *p = ctx;
	struct rec_mem_pmu m = { 0 };
	bool core = false;

	for (size_t i = 0; i < AMB_ARRAY_SIZE(core_pmus); i++)
		core |= !strcmp(name, core_pmus[i]);
	if (core) {
		m.kind = REC_MEM_INTEL;
		m.loads = pmu_has(name, "events/mem-loads");
		m.stores = pmu_has(name, "events/mem-stores");
		m.loads_aux = m.loads && pmu_has(name, "events/mem-loads-aux");
		if (!m.loads && !m.stores)
			return 0;
	} else if (!strcmp(name, "ibs_op")) {
		m.kind = REC_MEM_AMD_IBS;
	} else if (!strncmp(name, "arm_spe_", 8)) {
		m.kind = REC_MEM_ARM_SPE;
	} else {
		return 0;
	}
	if (p->n == REC_MEM_MAX_PMUS || strlen(name) >= sizeof(m.name))
		return 0;
	snprintf(m.name, sizeof(m.name), "%s", name);
	p->pmu[p->n++] = m;
	return 0;
}

int rec_mem_probe(struct rec_mem_probe *p)
{
	int err;

	memset(p, 0, sizeof(*p));
	err = rec_pmu_for_each(probe_one, p);
	return err == -ENOMEM ? err : 0;
}

/* Append one spec (printf-style) with its perf name to @ev. */
static int add_event(struct rec_mem_events *ev, const char *tag, const char *fmt, ...)
	AMB_PRINTF(3, 4);
static int add_event(struct rec_mem_events *ev, const char *tag, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (ev->n == REC_MEM_MAX_EVENTS)
		return -E2BIG;
	va_start(ap, fmt);
	n = vsnprintf(ev->spec[ev->n], REC_MEM_SPEC_MAX, fmt, ap);
	va_end(ap);
	if (n < 0 || n >= REC_MEM_SPEC_MAX)
		return -E2BIG;
	ev->tag[ev->n++] = tag;
	return 0;
}

int rec_mem_events_build(const struct rec_mem_probe *p, const struct rec_mem_opts *o,
			 struct rec_mem_events *ev, char *err, size_t errlen)
{
	/* perf's --all-user and --all-kernel, as the modifiers that do the same. */
	const char *lvl = o->all_user ? "u" : o->all_kernel ? "k" : "";
	bool want_loads = o->load || !o->store, want_stores = o->store || !o->load;
	int ret = 0;

	memset(ev, 0, sizeof(*ev));
	for (size_t i = 0; i < p->n && !ret; i++) {
		const struct rec_mem_pmu *m = &p->pmu[i];

		switch (m->kind) {
		case REC_MEM_INTEL:
			if (want_loads && m->loads) {
				if (m->loads_aux)
					ret = add_event(ev, "ldlat-loads",
							"{%s/mem-loads-aux/,%s/mem-loads,ldlat=%u/}:P%s",
							m->name, m->name, o->ldlat, lvl);
				else
					ret = add_event(ev, "ldlat-loads", "%s/mem-loads,ldlat=%u/P%s",
							m->name, o->ldlat, lvl);
				ev->weight = true;
			}
			if (!ret && want_stores && m->stores)
				ret = add_event(ev, "ldlat-stores", "%s/mem-stores/P%s", m->name, lvl);
			break;
		case REC_MEM_AMD_IBS:
			/* IBS op samples loads and stores alike: perf's mem-ldst. */
			ret = add_event(ev, "mem-ldst", "%s//%s", m->name, lvl);
			ev->weight = true;
			break;
		case REC_MEM_ARM_SPE:
			if (want_loads && want_stores)
				ret = add_event(ev, "spe-ldst", "%s/ts_enable=1,pa_enable=1,load_filter=1,"
						"store_filter=1,min_latency=%u/%s", m->name, o->ldlat, lvl);
			else if (want_loads)
				ret = add_event(ev, "spe-load", "%s/ts_enable=1,pa_enable=1,load_filter=1,"
						"store_filter=0,min_latency=%u/%s", m->name, o->ldlat, lvl);
			else
				ret = add_event(ev, "spe-store", "%s/ts_enable=1,pa_enable=1,"
						"load_filter=0,store_filter=1/%s", m->name, lvl);
			ev->weight |= want_loads;
			ev->aux = true;
			break;
		}
	}
	if (ret) {
		snprintf(err, errlen, "too many memory-sampling PMUs on this machine");
		return ret;
	}
	if (!ev->n) {
		const char *what = want_loads && want_stores ? "memory accesses"
				   : want_loads ? "loads" : "stores";

		snprintf(err, errlen,
			 "no PMU of this machine samples %s (what perf mem record uses):\n"
			 "  Intel: no core PMU (cpu, cpu_core, cpu_atom) with %s\n"
			 "  AMD:   no IBS op PMU (ibs_op)\n"
			 "  Arm:   no SPE PMU (arm_spe_*)\n"
			 "  under %s%s.\n"
			 "  Page faults still carry data and physical addresses:\n"
			 "    amber-rec -e page-faults -c 1 -d --phys-data -- COMMAND", what,
			 want_loads && want_stores ? "events/mem-loads or events/mem-stores"
			 : want_loads ? "events/mem-loads" : "events/mem-stores",
			 *rec_pmu_root() ? rec_pmu_root() : "/sys/bus/event_source/devices",
			 *rec_pmu_root() ? "" : " (none here)");
		return -ENOENT;
	}
	return 0;
}

static const char usage_text[] =
	"usage: amber-rec mem [MEM OPTIONS] [OPTIONS] -- COMMAND [ARGS]\n"
	"       amber-rec mem [MEM OPTIONS] [OPTIONS] -a | -C CPUS | --pid PID\n\n"
	"Records memory accesses as perf mem record does: the PMU events this\n"
	"machine samples them with (Intel mem-loads with a latency threshold and\n"
	"mem-stores, AMD IBS op, Arm SPE), with data addresses and their source\n"
	"(-d) and, for loads, their weight (-W).\n\n"
	"  -t, --type load,store    what to sample (default both)\n"
	"  -e, --event NAME         perf's names: ldlat-loads, ldlat-stores, mem-ldst,\n"
	"                           spe-load, spe-store, spe-ldst; \"list\" lists what\n"
	"                           this machine has\n"
	"      --ldlat N            load latency threshold in cycles (default %u)\n"
	"  -p, --phys-data          physical addresses too (so --pid attaches)\n"
	"      --data-page-size     data page sizes too\n"
	"  -U, --all-user           user space only\n"
	"  -K, --all-kernel         kernel only\n"
	"  -h, --help\n\n"
	"Every other option is amber-rec's (amber-rec --help): -o, -F, -c, -g,\n"
	"--call-graph, -a, -C, --tid, --duration, ...\n";

/* -t's and -e's names into @o. */
static int parse_type(const char *s, struct rec_mem_opts *o, bool events)
{
	char buf[128], *save = NULL;

	if (strlen(s) >= sizeof(buf))
		return -EINVAL;
	strcpy(buf, s);
	for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		bool l, st;

		if (events) {
			l = !strcmp(tok, "ldlat-loads") || !strcmp(tok, "spe-load") ||
			    !strcmp(tok, "mem-ldst") || !strcmp(tok, "spe-ldst");
			st = !strcmp(tok, "ldlat-stores") || !strcmp(tok, "spe-store") ||
			     !strcmp(tok, "mem-ldst") || !strcmp(tok, "spe-ldst");
		} else {
			l = !strcasecmp(tok, "load");
			st = !strcasecmp(tok, "store");
		}
		if (!l && !st)
			return -EINVAL;
		o->load |= l;
		o->store |= st;
	}
	return 0;
}

static void list_events(const struct rec_mem_events *ev, FILE *f)
{
	for (size_t i = 0; i < ev->n; i++)
		fprintf(f, "%-13s %s : available%s\n", ev->tag[i], ev->spec[i],
			ev->aux ? " (an AUX area trace, which amber-rec does not record)" : "");
}

/* The value of option @name at @argv[*i]: "--name=V", "-xV", or the next
 * argument.  NULL when missing. */
static const char *opt_value(int argc, char **argv, int *i, size_t prefix)
{
	const char *a = argv[*i];

	if (a[prefix] == '=')
		return a + prefix + 1;
	if (a[prefix])
		return a[1] != '-' ? a + prefix : NULL;
	if (*i + 1 >= argc)
		return NULL;
	return argv[++*i];
}

static bool is_opt(const char *a, const char *shortopt, const char *longopt)
{
	size_t n = strlen(longopt);

	return (shortopt && !strncmp(a, shortopt, 2)) ||
	       (!strncmp(a, longopt, n) && (!a[n] || a[n] == '='));
}

int rec_mem_cmdline(int argc, char **argv, const struct rec_mem_probe *p,
		    struct rec_mem_cmdline *out, FILE *out_f)
{
	struct rec_mem_opts o = { .ldlat = REC_MEM_DEFAULT_LDLAT };
	bool phys = false, page_size = false, list = false;
	char err[1024], **pass;
	int i, n = 0, npass = 0;

	memset(out, 0, sizeof(*out));
	/* argv[0], then at most -d -W --phys-data --data-page-size and two
	 * words per event before what was given. */
	out->argv = calloc((size_t)argc + 5 + 2 * REC_MEM_MAX_EVENTS, sizeof(*out->argv));
	if (!out->argv) {
		fprintf(stderr, "amber-rec mem: error: out of memory\n");
		return EXIT_REC_FAIL;
	}
	out->argv[n++] = argv[0];
	/* The passed-on options wait for the events: they come after them. */
	pass = calloc((size_t)argc + 1, sizeof(*pass));
	if (!pass) {
		rec_mem_cmdline_free(out);
		fprintf(stderr, "amber-rec mem: error: out of memory\n");
		return EXIT_REC_FAIL;
	}
	for (i = 2; i < argc; i++) {
		const char *a = argv[i], *v;

		if (a[0] != '-' || !a[1]) {
			break;          /* the command */
		} else if (!strcmp(a, "--")) {
			break;
		} else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			fprintf(out_f, usage_text, REC_MEM_DEFAULT_LDLAT);
			free(pass);
			rec_mem_cmdline_free(out);
			return 0;
		} else if (is_opt(a, "-t", "--type") || is_opt(a, "-e", "--event")) {
			bool events = a[1] == 'e' || !strncmp(a, "--event", 7);

			v = opt_value(argc, argv, &i, a[1] == '-' ? (events ? 7 : 6) : 2);
			if (v && events && !strcmp(v, "list")) {
				list = true;
			} else if (!v || parse_type(v, &o, events)) {
				fprintf(stderr, "amber-rec mem: error: invalid %s '%s' (%s)\n",
					events ? "event" : "type", v ? v : "",
					events ? "ldlat-loads, ldlat-stores, mem-ldst, spe-load, "
						 "spe-store, spe-ldst or list" : "load, store or load,store");
				goto fail;
			}
		} else if (is_opt(a, NULL, "--ldlat")) {
			char *end;
			unsigned long l;

			v = opt_value(argc, argv, &i, 7);
			l = v ? strtoul(v, &end, 10) : 0;
			if (!v || !*v || *end || !l || l > 65535) {
				fprintf(stderr, "amber-rec mem: error: invalid --ldlat '%s' "
					"(cycles, 1 to 65535)\n", v ? v : "");
				goto fail;
			}
			o.ldlat = (unsigned)l;
		} else if (!strcmp(a, "--phys-data")) {
			phys = true;
		} else if (!strcmp(a, "--data-page-size")) {
			page_size = true;
		} else if (!strcmp(a, "--all-user")) {
			o.all_user = true;
		} else if (!strcmp(a, "--all-kernel")) {
			o.all_kernel = true;
		} else if (a[1] != '-' && strspn(a + 1, "pUK") == strlen(a + 1)) {
			/* A cluster of perf mem's own flags: "-p", "-pU". */
			phys |= strchr(a, 'p') != NULL;
			o.all_user |= strchr(a, 'U') != NULL;
			o.all_kernel |= strchr(a, 'K') != NULL;
		} else {
			/* amber-rec's own, with its value if it takes one. */
			pass[npass++] = argv[i];
			if (rec_opts_arg_count(a) && i + 1 < argc)
				pass[npass++] = argv[++i];
		}
	}
	if (o.all_user && o.all_kernel) {
		fprintf(stderr, "amber-rec mem: error: -U and -K exclude each other\n");
		goto fail;
	}
	if (rec_mem_events_build(p, &o, &out->ev, err, sizeof(err))) {
		fprintf(stderr, "amber-rec mem: error: %s\n", err);
		goto fail;
	}
	if (list) {
		list_events(&out->ev, out_f);
		free(pass);
		rec_mem_cmdline_free(out);
		return 0;
	}
	if (out->ev.aux) {
		fprintf(stderr, "amber-rec mem: error: this machine samples memory accesses with "
			"Arm SPE (%s), which writes them\n  into an AUX area trace; amber-rec "
			"records perf samples only, not AUX area traces\n", out->ev.spec[0]);
		goto fail;
	}
	/* perf mem record's order: -W (loads), -d, --phys-data,
	 * --data-page-size, the events, then the rest. */
	if (out->ev.weight)
		out->argv[n++] = (char *)"-W";
	out->argv[n++] = (char *)"-d";
	if (phys)
		out->argv[n++] = (char *)"--phys-data";
	if (page_size)
		out->argv[n++] = (char *)"--data-page-size";
	for (size_t e = 0; e < out->ev.n; e++) {
		out->argv[n++] = (char *)"-e";
		out->argv[n++] = out->ev.spec[e];
	}
	for (int k = 0; k < npass; k++)
		out->argv[n++] = pass[k];
	for (; i < argc; i++)
		out->argv[n++] = argv[i];
	out->argv[n] = NULL;
	out->argc = n;
	free(pass);
	return -1;
fail:
	free(pass);
	rec_mem_cmdline_free(out);
	return EXIT_REC_FAIL;
}

void rec_mem_cmdline_free(struct rec_mem_cmdline *c)
{
	if (!c)
		return;
	free(c->argv);
	memset(c, 0, sizeof(*c));
}
