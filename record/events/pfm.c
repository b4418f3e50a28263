// SPDX-License-Identifier: MIT
/*
 * record/events/pfm.c - model-specific event names through libpfm4.
 *
 * libpfm4 knows the event tables of each CPU model (INST_RETIRED.ANY,
 * icl::MEM_LOAD_RETIRED:L1_HIT, perf::CPU-CLOCK, ...) and encodes a name
 * into the perf_event_attr fields the kernel expects.  Its
 * <perfmon/perf_event.h> steps aside when <linux/perf_event.h> came first
 * (pfm.h), so both sides use the kernel's struct perf_event_attr.
 *
 * libpfm4 detects a model from CPUID even where the kernel exposes no PMU
 * (a VM): its names then encode but do not open, which the listing says
 * (probe.c).
 */
#include <amber/common.h>
#include "record/events/pfm.h"
#include "record/events/probe.h"

#include <errno.h>
#include <fnmatch.h>
#include <perfmon/pfmlib_perf_event.h>
#include <stdio.h>
#include <string.h>

/* 0 = not tried, 1 = usable, -1 = pfm_initialize() failed. */
static int pfm_state;

static bool pfm_ready(void)
{
	if (!pfm_state) {
		int ret = pfm_initialize();

		pfm_state = ret == PFM_SUCCESS ? 1 : -1;
		if (pfm_state < 0)
			amb_warn("libpfm4: initialisation failed: %s; model-specific event names are unavailable",
				 pfm_strerror(ret));
	}
	return pfm_state > 0;
}

static int encode(const char *name, struct perf_event_attr *enc)
{
	pfm_perf_encode_arg_t arg;

	memset(enc, 0, sizeof(*enc));
	memset(&arg, 0, sizeof(arg));
	arg.size = sizeof(arg);
	arg.attr = enc;
	/* Count user and kernel unless the name's own :u/:k say otherwise,
	 * the same default as a perf event without modifiers. */
	return pfm_get_os_event_encoding(name, PFM_PLM0 | PFM_PLM3, PFM_OS_PERF_EVENT_EXT, &arg);
}

/* The libpfm4 index of the event @name names, without its unit masks and
 * modifiers ("icl::MEM_LOAD_RETIRED" of "icl::MEM_LOAD_RETIRED:L1_HIT:u"),
 * or a negative PFM_ERR_*. */
static int event_index(const char *name)
{
	const char *pmu_sep = strstr(name, "::");
	const char *attrs = strchr(pmu_sep ? pmu_sep + 2 : name, ':');
	char base[512];

	if ((size_t)snprintf(base, sizeof(base), "%.*s", attrs ? (int)(attrs - name) : (int)strlen(name),
			     name) >= sizeof(base))
		return PFM_ERR_TOOMANY;
	return pfm_find_event(base);
}

/* ", one of: A, B, C" - the unit masks of event @idx - appended to @buf. */
static void umask_list(int idx, char *buf, size_t len)
{
	pfm_event_info_t ei;
	size_t off = strlen(buf);
	int n = 0;

	memset(&ei, 0, sizeof(ei));
	ei.size = sizeof(ei);
	if (pfm_get_event_info(idx, PFM_OS_PERF_EVENT_EXT, &ei) != PFM_SUCCESS)
		return;
	for (int k = 0; k < ei.nattrs && off < len; k++) {
		pfm_event_attr_info_t ai;

		memset(&ai, 0, sizeof(ai));
		ai.size = sizeof(ai);
		if (pfm_get_event_attr_info(idx, k, PFM_OS_PERF_EVENT_EXT, &ai) != PFM_SUCCESS ||
		    ai.type != PFM_ATTR_UMASK)
			continue;
		off += (size_t)snprintf(buf + off, len - off, "%s%s", n++ ? ", " : "; unit masks: ",
					ai.name);
	}
}

int rec_pfm_encode(const char *name, struct perf_event_attr *attr, char *why, size_t whylen)
{
	struct perf_event_attr enc;
	int ret, idx;

	if (why && whylen)
		why[0] = 0;
	if (!pfm_ready())
		return -ENOENT;
	ret = encode(name, &enc);
	switch (ret) {
	case PFM_SUCCESS:
		break;
	case PFM_ERR_NOTFOUND:
	case PFM_ERR_NOTSUPP:
	case PFM_ERR_NOINIT:
		return -ENOENT;
	case PFM_ERR_NOMEM:
		return -ENOMEM;
	default:
		/* The name is no event of libpfm4's at all. */
		idx = event_index(name);
		if (idx < 0)
			return -ENOENT;
		if (why && whylen) {
			snprintf(why, whylen, "%s", pfm_strerror(ret));
			if (ret == PFM_ERR_UMASK || ret == PFM_ERR_ATTR)
				umask_list(idx, why, whylen);
		}
		return -EINVAL;
	}
	attr->type = enc.type;
	attr->config = enc.config;
	attr->config1 = enc.config1;
	attr->config2 = enc.config2;
	attr->exclude_user = enc.exclude_user;
	attr->exclude_kernel = enc.exclude_kernel;
	attr->exclude_hv = enc.exclude_hv;
	attr->exclude_guest = enc.exclude_guest;
	attr->exclude_host = enc.exclude_host;
	attr->precise_ip = enc.precise_ip;
	return 0;
}

static bool match(const char *pattern, const char *full, const char *event)
{
	return !pattern || !fnmatch(pattern, full, FNM_CASEFOLD) ||
	       !fnmatch(pattern, event, FNM_CASEFOLD);
}

/* One name: probed and printed.  Returns 1 when printed. */
static int list_one(FILE *out, const char *pattern, bool verbose, const char *full,
		    const char *event, const char *kind, const char *desc)
{
	struct perf_event_attr a;

	if (!match(pattern, full, event))
		return 0;
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	if (encode(full, &a) != PFM_SUCCESS)
		return 0;
	rec_probe_list_line(out, full, kind, &a, false, desc, verbose);
	return 1;
}

/* An event that does not encode alone: a line per unit mask that does. */
static int list_umasks(FILE *out, const char *pattern, bool verbose, int idx,
		       const pfm_event_info_t *ei, const char *full, const char *kind)
{
	int printed = 0;

	for (int k = 0; k < ei->nattrs; k++) {
		pfm_event_attr_info_t ai;
		char name[640], desc[1024];

		memset(&ai, 0, sizeof(ai));
		ai.size = sizeof(ai);
		if (pfm_get_event_attr_info(idx, k, PFM_OS_PERF_EVENT_EXT, &ai) != PFM_SUCCESS ||
		    ai.type != PFM_ATTR_UMASK)
			continue;
		if ((size_t)snprintf(name, sizeof(name), "%s:%s", full, ai.name) >= sizeof(name))
			continue;
		snprintf(desc, sizeof(desc), "%s: %s", ei->desc ? ei->desc : "",
			 ai.desc ? ai.desc : "");
		printed += list_one(out, pattern, verbose, name, ei->name, kind, desc);
	}
	return printed;
}

int rec_pfm_list(FILE *out, const char *pattern, bool verbose)
{
	int printed = 0;

	if (!pfm_ready())
		return 0;
	for (int p = PFM_PMU_NONE + 1; p < PFM_PMU_MAX; p++) {
		pfm_pmu_info_t pinfo;
		char kind[128];

		memset(&pinfo, 0, sizeof(pinfo));
		pinfo.size = sizeof(pinfo);
		/* perf_raw's one "event" is the rNNN syntax, listed already. */
		if (pfm_get_pmu_info((pfm_pmu_t)p, &pinfo) != PFM_SUCCESS || !pinfo.is_present ||
		    p == PFM_PMU_PERF_EVENT_RAW)
			continue;
		snprintf(kind, sizeof(kind), "%s PMU event", pinfo.name);
		for (int i = pinfo.first_event; i != -1; i = pfm_get_event_next(i)) {
			pfm_event_info_t einfo;
			struct perf_event_attr a;
			char full[512];
			int n;

			memset(&einfo, 0, sizeof(einfo));
			einfo.size = sizeof(einfo);
			if (pfm_get_event_info(i, PFM_OS_PERF_EVENT_EXT, &einfo) != PFM_SUCCESS)
				continue;
			if ((size_t)snprintf(full, sizeof(full), "%s::%s", pinfo.name, einfo.name) >=
			    sizeof(full))
				continue;
			if (encode(full, &a) == PFM_SUCCESS) {
				printed += list_one(out, pattern, verbose, full, einfo.name, kind,
						    einfo.desc);
				continue;
			}
			n = list_umasks(out, pattern, verbose, i, &einfo, full, kind);
			/* Unit masks that only encode together (one of each group). */
			if (!n && match(pattern, full, einfo.name)) {
				fprintf(out, "  %-50s [%s; unavailable: needs unit masks that "
					"encode together%s]\n", full, kind, verbose ? "" : ", see -v");
				if (verbose) {
					char why[2048] = "";

					umask_list(i, why, sizeof(why));
					fprintf(out, "%8s%s%s\n", "", einfo.desc ? einfo.desc : "", why);
				}
				n = 1;
			}
			printed += n;
		}
	}
	return printed;
}
