// SPDX-License-Identifier: MIT
/*
 * record/events/pfm.c - model-specific event names through libpfm4.
 *
 * libpfm4 knows the event tables of each CPU model (INST_RETIRED.ANY,
 * perf::PERF_COUNT_HW_CPU_CYCLES, ...) and encodes a name into the
 * perf_event_attr fields the kernel expects.  Its <perfmon/perf_event.h>
 * steps aside when <linux/perf_event.h> came first (pfm.h), so both
 * sides use the kernel's struct perf_event_attr.
 */
#include <amber/common.h>
#include "record/events/pfm.h"

#include <errno.h>
#include <fnmatch.h>
#include <perfmon/pfmlib_perf_event.h>
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

int rec_pfm_encode(const char *name, struct perf_event_attr *attr)
{
	struct perf_event_attr enc;
	pfm_perf_encode_arg_t arg;
	int ret;

	if (!pfm_ready())
		return -ENOENT;
	memset(&enc, 0, sizeof(enc));
	memset(&arg, 0, sizeof(arg));
	arg.size = sizeof(arg);
	arg.attr = &enc;
	/* Count user and kernel unless the name's own :u/:k say otherwise,
	 * the same default as a perf event without modifiers. */
	ret = pfm_get_os_event_encoding(name, PFM_PLM0 | PFM_PLM3, PFM_OS_PERF_EVENT_EXT, &arg);
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

/* The generic tables perf already names itself (cycles, cpu-clock, ...). */
static bool pfm_pmu_is_generic(pfm_pmu_t pmu)
{
	return pmu == PFM_PMU_PERF_EVENT || pmu == PFM_PMU_PERF_EVENT_RAW;
}

int rec_pfm_list(FILE *out, const char *pattern)
{
	int printed = 0;

	if (!pfm_ready())
		return 0;
	for (int p = PFM_PMU_NONE + 1; p < PFM_PMU_MAX; p++) {
		pfm_pmu_info_t pinfo;

		memset(&pinfo, 0, sizeof(pinfo));
		pinfo.size = sizeof(pinfo);
		if (pfm_get_pmu_info((pfm_pmu_t)p, &pinfo) != PFM_SUCCESS || !pinfo.is_present ||
		    pfm_pmu_is_generic((pfm_pmu_t)p))
			continue;
		for (int i = pinfo.first_event; i != -1; i = pfm_get_event_next(i)) {
			pfm_event_info_t einfo;
			char full[512];

			memset(&einfo, 0, sizeof(einfo));
			einfo.size = sizeof(einfo);
			if (pfm_get_event_info(i, PFM_OS_PERF_EVENT_EXT, &einfo) != PFM_SUCCESS)
				continue;
			if ((size_t)snprintf(full, sizeof(full), "%s::%s", pinfo.name, einfo.name) >=
			    sizeof(full))
				continue;
			if (pattern && fnmatch(pattern, full, FNM_CASEFOLD) &&
			    fnmatch(pattern, einfo.name, FNM_CASEFOLD))
				continue;
			fprintf(out, "  %-50s [%s PMU event]\n", full, pinfo.name);
			printed++;
		}
	}
	return printed;
}
