// SPDX-License-Identifier: MIT
/*
 * record/meta.c - the META key/values written before the first RING block
 * (FORMAT.md §5.1): where and how the recording was made.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include <amber/common.h>
#include <amber/format.h>
#include "common/util.h"
#include "record/meta.h"
#include "record/sysutil.h"

/* One instant on both clocks (FORMAT.md §5.1 clock.ref.*). */
static void clock_ref(uint64_t *perf_ns, uint64_t *realtime_ns)
{
	/* Bracket the realtime read by two monotonic reads and take their
	 * middle: the pair is then off by at most half the (tiny) gap. */
	uint64_t m0 = rec_clock_ns(CLOCK_MONOTONIC);
	uint64_t r = rec_clock_ns(CLOCK_REALTIME);
	uint64_t m1 = rec_clock_ns(CLOCK_MONOTONIC);

	*perf_ns = m0 + (m1 - m0) / 2;
	*realtime_ns = r;
}

static int put_u64(struct amb_buf *b, const char *key, uint64_t v)
{
	char s[32];

	snprintf(s, sizeof(s), "%" PRIu64, v);
	return amb_kv_put_str(b, key, s);
}

/* First "key : value" of /proc/cpuinfo for @key, into @out. */
static void cpuinfo_field(const char *info, const char *key, char *out, size_t outlen)
{
	size_t klen = strlen(key);

	out[0] = '\0';
	for (const char *p = info; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
		const char *colon, *nl;

		if (strncmp(p, key, klen))
			continue;
		/* Only blanks between the key and its colon: "model" must not
		 * take the value of "model name". */
		colon = p + klen + strspn(p + klen, " \t");
		if (*colon != ':')
			continue;
		nl = strchr(colon, '\n');
		colon++;
		while (*colon == ' ')
			colon++;
		snprintf(out, outlen, "%.*s", (int)(nl ? nl - colon : (long)strlen(colon)), colon);
		return;
	}
}

int rec_meta_start(struct amb_buf *b, int argc, char **argv, const char *target,
		   const char *cpus_recorded, unsigned ring_pages, uint64_t start_ns)
{
	struct amb_buf cmd = AMB_BUF_INIT;
	struct utsname u;
	char host[256] = "", model[256], cpuid[288], tmp[64];
	char vendor[64], family[16], mod[16], step[16];
	char *info, *online;
	uint64_t perf_ns, real_ns;
	int err = 0;

	for (int i = 0; i < argc && !err; i++)
		err = amb_buf_printf(&cmd, "%s%s", i ? " " : "", argv[i]);
	if (!err)
		err = amb_kv_put(b, "cmdline", cmd.data ? (const char *)cmd.data : "", cmd.len);
	amb_buf_free(&cmd);
	if (!err)
		err = amb_kv_put_str(b, "amber.version", AMB_VERSION);
	gethostname(host, sizeof(host) - 1);
	if (!err)
		err = amb_kv_put_str(b, "hostname", host);
	if (!err && !uname(&u)) {
		err = amb_kv_put_str(b, "uname.sysname", u.sysname);
		if (!err)
			err = amb_kv_put_str(b, "uname.release", u.release);
		if (!err)
			err = amb_kv_put_str(b, "uname.version", u.version);
		if (!err)
			err = amb_kv_put_str(b, "uname.machine", u.machine);
	}

	info = amb_read_file("/proc/cpuinfo", 4u << 20, NULL);
	if (info) {
		cpuinfo_field(info, "model name", model, sizeof(model));
		if (!model[0])
			cpuinfo_field(info, "CPU part", model, sizeof(model)); /* arm64 */
		/* cpuid the way perf names it: vendor,family,model,stepping */
		cpuinfo_field(info, "vendor_id", vendor, sizeof(vendor));
		cpuinfo_field(info, "cpu family", family, sizeof(family));
		cpuinfo_field(info, "model", mod, sizeof(mod));
		cpuinfo_field(info, "stepping", step, sizeof(step));
		cpuid[0] = '\0';
		if (vendor[0] && family[0])
			snprintf(cpuid, sizeof(cpuid), "%s,%s,%s,%s", vendor, family, mod, step);
		free(info);
		if (!err && model[0])
			err = amb_kv_put_str(b, "cpu.model", model);
		if (!err && cpuid[0])
			err = amb_kv_put_str(b, "cpu.cpuid", cpuid);
	}

	if (!err)
		err = put_u64(b, "page_size", (uint64_t)sysconf(_SC_PAGESIZE));
	online = amb_read_file("/sys/devices/system/cpu/online", 4096, NULL);
	if (online) {
		online[strcspn(online, "\n")] = '\0';
		if (!err)
			err = amb_kv_put_str(b, "cpus.online", online);
		free(online);
	}
	if (!err && cpus_recorded)
		err = amb_kv_put_str(b, "cpus.recorded", cpus_recorded);
	if (!err)
		err = amb_kv_put_str(b, "clock", "monotonic");
	clock_ref(&perf_ns, &real_ns);
	if (!err)
		err = put_u64(b, "clock.ref.perf_ns", perf_ns);
	if (!err)
		err = put_u64(b, "clock.ref.realtime_ns", real_ns);
	if (!err)
		err = put_u64(b, "time.start_ns", start_ns);
	if (!err && target)
		err = amb_kv_put_str(b, "target", target);
	if (!err)
		err = put_u64(b, "ring.pages", ring_pages);
	snprintf(tmp, sizeof(tmp), "%ld", rec_proc_sys_long("kptr_restrict", -1));
	if (!err)
		err = amb_kv_put_str(b, "kptr_restrict", tmp);
	snprintf(tmp, sizeof(tmp), "%ld", rec_proc_sys_long("perf_event_paranoid", 2));
	if (!err)
		err = amb_kv_put_str(b, "perf_event_paranoid", tmp);
	return err;
}
