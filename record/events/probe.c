// SPDX-License-Identifier: MIT
/*
 * record/events/probe.c - whether an event opens here, and the reason in
 * words when it does not.  The kernel says ENOENT both for "no such
 * event" and for "no PMU takes this type", so a hardware event on a VM
 * without a virtual PMU needs the sysfs PMU list to be explained.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "record/events/pmu.h"
#include "record/events/probe.h"
#include "record/sysutil.h"

static int try_open(struct perf_event_attr *a)
{
	long fd = syscall(SYS_perf_event_open, a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);

	if (fd < 0)
		return -errno;
	close((int)fd);
	return 0;
}

int rec_probe_open(const struct perf_event_attr *a)
{
	struct perf_event_attr t;
	int ret;

	memset(&t, 0, sizeof(t));
	t.size = sizeof(t);
	t.type = a->type;
	t.config = a->config;
	t.config1 = a->config1;
	t.config2 = a->config2;
	t.bp_type = a->bp_type;
	t.exclude_user = a->exclude_user;
	t.exclude_kernel = a->exclude_kernel;
	t.exclude_hv = a->exclude_hv;
	t.exclude_guest = a->exclude_guest;
	t.exclude_host = a->exclude_host;
	t.exclude_idle = a->exclude_idle;
	t.disabled = 1;
	ret = try_open(&t);
	if ((ret == -EACCES || ret == -EPERM) && !t.exclude_kernel) {
		t.exclude_kernel = 1;
		t.exclude_hv = 1;
		ret = try_open(&t);
	}
	return ret;
}

bool rec_probe_unsupported(int err)
{
	return err == ENOENT || err == ENODEV || err == EOPNOTSUPP;
}

/* Can @a be sampled (it opens for counting)? */
static bool can_sample(const struct perf_event_attr *a)
{
	struct perf_event_attr t = *a;
	int ret;

	t.size = sizeof(t);
	t.disabled = 1;
	t.sample_period = 1000000;
	t.sample_type = PERF_SAMPLE_IP;
	ret = try_open(&t);
	if (ret == -EACCES || ret == -EPERM) {
		t.exclude_kernel = 1;
		t.exclude_hv = 1;
		ret = try_open(&t);
	}
	return !ret;
}

static int find_cpu_pmu(void *ctx, const char *pmu)
{
	(void)ctx;
	/* x86 "cpu" (hybrid "cpu_core", "cpu_atom"), arm "armv8_pmuv3_0",
	 * s390 "cpum_cf": the PMUs that take PERF_TYPE_HARDWARE. */
	return !strcmp(pmu, "cpu") || !strncmp(pmu, "cpu_", 4) || !strncmp(pmu, "armv", 4) ||
	       !strncmp(pmu, "cpum_", 5);
}

static bool is_hardware(const struct perf_event_attr *a)
{
	return a->type == PERF_TYPE_HARDWARE || a->type == PERF_TYPE_HW_CACHE ||
	       a->type == PERF_TYPE_RAW;
}

bool rec_probe_have_cpu_pmu(void)
{
	return rec_pmu_for_each(find_cpu_pmu, NULL) > 0;
}

void rec_probe_why(const struct perf_event_attr *a, int err, bool detail, char *buf, size_t len)
{
	long paranoid;

	switch (err) {
	case ENOENT:
	case ENODEV:
	case EOPNOTSUPP:
		if (is_hardware(a) && !rec_probe_have_cpu_pmu()) {
			snprintf(buf, len, "no hardware PMU on this machine%s", detail
				 ? " (the kernel lists no CPU PMU under /sys/bus/event_source/devices; "
				   "on a VM, give the guest a virtual PMU)" : "");
		} else if (err == ENOENT) {
			snprintf(buf, len, "the kernel knows no such event%s", detail
				 ? " (no PMU takes this type and config)" : "");
		} else if (err == ENODEV) {
			snprintf(buf, len, "not available on this CPU%s", detail
				 ? " (its PMU is not there, or not on every CPU)" : "");
		} else {
			snprintf(buf, len, "not supported by its PMU%s", detail
				 ? " (a modifier or feature it does not have)" : "");
		}
		return;
	case EACCES:
	case EPERM:
		paranoid = rec_proc_sys_long("perf_event_paranoid", 2);
		snprintf(buf, len, "not permitted (kernel.perf_event_paranoid is %ld)%s", paranoid,
			 detail ? ": run as root, or lower it with "
				  "sysctl kernel.perf_event_paranoid=-1" : "");
		return;
	case EINVAL:
		snprintf(buf, len, "invalid for this kernel or PMU%s", detail
			 ? " (a config, modifier or attribute it does not accept)" : "");
		return;
	case EBUSY:
		snprintf(buf, len, "its PMU is busy%s", detail
			 ? " (another user holds it exclusively)" : "");
		return;
	case EMFILE:
		snprintf(buf, len, "too many open files%s", detail ? ": raise 'ulimit -n'" : "");
		return;
	default:
		snprintf(buf, len, "%s", strerror(err));
		return;
	}
}

void rec_probe_list_line(FILE *out, const char *name, const char *kind,
			 const struct perf_event_attr *attr, bool sampling, const char *desc,
			 bool verbose)
{
	char why[256] = "";
	int ret = attr ? rec_probe_open(attr) : 0;

	if (ret) {
		rec_probe_why(attr, -ret, false, why, sizeof(why));
		fprintf(out, "  %-50s [%s; unavailable: %s]\n", name, kind, why);
	} else if (attr && sampling && !can_sample(attr)) {
		fprintf(out, "  %-50s [%s; counts only]\n", name, kind);
	} else {
		fprintf(out, "  %-50s [%s]\n", name, kind);
	}
	if (!verbose)
		return;
	if (ret) {
		rec_probe_why(attr, -ret, true, why, sizeof(why));
		fprintf(out, "%8sunavailable: %s\n", "", why);
	}
	if (desc && *desc)
		fprintf(out, "%8s%s\n", "", desc);
}
