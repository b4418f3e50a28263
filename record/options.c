// SPDX-License-Identifier: MIT
/*
 * record/options.c - amber-rec's command line, perf record's spelling
 * where the two share an option.
 */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <amber/common.h>
#include <amber/format.h>
#include "common/util.h"
#include "record/embed_files.h"
#include "record/ksyms_trim.h"
#include "record/options.h"

enum {
	OPT_CALL_GRAPH = 256,
	OPT_BRANCH,
	OPT_FLUSH,
	OPT_SYNC,
	OPT_EMBED,
	OPT_KALLSYMS,
	OPT_DURATION,
	OPT_LIST,
	OPT_VERSION,
	OPT_PHYS_DATA,
	OPT_DATA_PAGE_SIZE,
	OPT_SWITCH_OUTPUT,
	OPT_SWITCH_MAX_FILES,
	OPT_MAX_SIZE,
	OPT_FLIGHT,
	OPT_OVERWRITE,
	OPT_FILTER,
	OPT_OFF_CPU,
	OPT_SCHED,
	OPT_SWITCH_EVENTS,
};

static const struct option long_opts[] = {
	{ "event",             required_argument, NULL, 'e' },
	{ "output",            required_argument, NULL, 'o' },
	{ "freq",              required_argument, NULL, 'F' },
	{ "count",             required_argument, NULL, 'c' },
	{ "call-graph",        required_argument, NULL, OPT_CALL_GRAPH },
	{ "data",              no_argument,       NULL, 'd' },
	{ "phys-data",         no_argument,       NULL, OPT_PHYS_DATA },
	{ "data-page-size",    no_argument,       NULL, OPT_DATA_PAGE_SIZE },
	{ "weight",            no_argument,       NULL, 'W' },
	{ "branch",            no_argument,       NULL, OPT_BRANCH },
	{ "branch-any",        no_argument,       NULL, 'b' },
	{ "mmap-pages",        required_argument, NULL, 'm' },
	{ "compression-level", required_argument, NULL, 'z' },
	{ "flush-interval",    required_argument, NULL, OPT_FLUSH },
	{ "sync",              no_argument,       NULL, OPT_SYNC },
	{ "embed",             optional_argument, NULL, OPT_EMBED },
	{ "kallsyms",          required_argument, NULL, OPT_KALLSYMS },
	{ "duration",          required_argument, NULL, OPT_DURATION },
	{ "pid",               required_argument, NULL, 'p' },
	{ "tid",               required_argument, NULL, 't' },
	{ "all-cpus",          no_argument,       NULL, 'a' },
	{ "cpu",               required_argument, NULL, 'C' },
	{ "list-events",       no_argument,       NULL, OPT_LIST },
	{ "verbose",           no_argument,       NULL, 'v' },
	{ "off-cpu",           no_argument,       NULL, OPT_OFF_CPU },
	{ "sched",             no_argument,       NULL, OPT_SCHED },
	{ "switch-events",     no_argument,       NULL, OPT_SWITCH_EVENTS },
	{ "help",              no_argument,       NULL, 'h' },
	{ "version",           no_argument,       NULL, OPT_VERSION },
	{ "switch-output",     optional_argument, NULL, OPT_SWITCH_OUTPUT },
	{ "switch-max-files",  required_argument, NULL, OPT_SWITCH_MAX_FILES },
	{ "max-size",          required_argument, NULL, OPT_MAX_SIZE },
	{ "flight-recorder",   optional_argument, NULL, OPT_FLIGHT },
	{ "overwrite",         no_argument,       NULL, OPT_OVERWRITE },
	{ "cgroup",            required_argument, NULL, 'G' },
	{ "uid",               required_argument, NULL, 'u' },
	{ "filter",            required_argument, NULL, OPT_FILTER },
	{ NULL, 0, NULL, 0 },
};

/* '+': stop at the first non-option, which starts the command. */
#define REC_SHORT_OPTS "+:e:o:F:c:gdWbm:z:p:t:aC:G:u:vh"

/* Parse an unsigned decimal in [lo, hi]. */
static int parse_u64(const char *s, uint64_t lo, uint64_t hi, uint64_t *out)
{
	char *end;
	unsigned long long v;

	if (!*s || *s == '-')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end || v < lo || v > hi)
		return -EINVAL;
	*out = v;
	return 0;
}

/* "123,456" appended to the array *@v of *@n pids with room for *@cap. */
static int parse_pids(const char *s, pid_t **v, size_t *n, size_t *cap)
{
	char *dup = strdup(s), *save = NULL;
	int err = 0;

	if (!dup)
		return -ENOMEM;
	for (char *tok = strtok_r(dup, ",", &save); tok && !err; tok = strtok_r(NULL, ",", &save)) {
		uint64_t pid;

		err = parse_u64(tok, 1, INT_MAX, &pid);
		if (err)
			break;
		if (amb_ensure_cap((void **)v, cap, sizeof(**v), *n + 1)) {
			err = -ENOMEM;
			break;
		}
		(*v)[(*n)++] = (pid_t)pid;
	}
	if (!err && !*n)
		err = -EINVAL;
	free(dup);
	return err;
}

/* "fp", "dwarf" or "dwarf,SIZE". */
static int parse_callgraph(struct rec_opts *o, const char *s)
{
	uint64_t size;

	if (!strcmp(s, "fp")) {
		o->callgraph = REC_CG_FP;
		return 0;
	}
	if (strncmp(s, "dwarf", 5) || (s[5] && s[5] != ','))
		return -EINVAL;
	o->callgraph = REC_CG_DWARF;
	if (!s[5])
		return 0;
	/* The kernel takes at most a u16's worth, in multiples of 8. */
	if (parse_u64(s + 6, 8, 65528, &size) || size % 8)
		return -EINVAL;
	o->stack_size = (uint32_t)size;
	return 0;
}

unsigned rec_opts_default_pages(const struct rec_opts *o, size_t nr_cpus, size_t page_size)
{
	/*
	 * The ring must hold what arrives between two drains (100 ms poll,
	 * or the quarter-full watermark) with room to spare.  A plain
	 * sample is ~56 bytes: at 4 kHz that is 220 KB/s per CPU, so 1 MiB
	 * holds seconds.  Frame-pointer chains add up to ~1 KiB per sample:
	 * 2 MiB (perf's -g choice).  A dwarf sample carries a whole user
	 * stack copy: 32 KiB at 10 kHz is 330 MB/s per CPU, and on a busy
	 * machine the drain thread can wait tens of milliseconds for a CPU.
	 * So the ring holds REC_RING_HOLD_MS of samples: 32 MiB there, never
	 * less than 8 MiB, and all rings together at most REC_RING_BUDGET
	 * unless that leaves less than 8 MiB each.
	 */
	uint64_t rate, want, cap, bytes = REC_RING_MIN_BYTES;

	switch (o->callgraph) {
	case REC_CG_DWARF:
		break;
	case REC_CG_FP:
		return 512;
	case REC_CG_NONE:
		return 256;
	}
	if (!page_size || (page_size & (page_size - 1)) || page_size > REC_RING_MIN_BYTES)
		page_size = 4096;
	if (!nr_cpus)
		nr_cpus = 1;
	rate = (uint64_t)(o->period || !o->freq ? REC_DEFAULT_FREQ : o->freq) *
	       ((uint64_t)o->stack_size + 1024);
	want = rate * REC_RING_HOLD_MS / 1000;
	cap = AMB_MIN(REC_RING_BUDGET / nr_cpus, REC_RING_MAX_BYTES);
	while (bytes < want && bytes * 2 <= cap)
		bytes *= 2;
	return (unsigned)(bytes / page_size);
}

int rec_parse_size(const char *s, uint64_t *bytes)
{
	char *end;
	unsigned long long v;
	unsigned shift = 0;

	if (!*s || *s == '-' || *s == '+' || isspace((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s)
		return -EINVAL;
	switch (toupper((unsigned char)*end)) {
	case '\0':
	case 'B':
		break;
	case 'K':
		shift = 10;
		break;
	case 'M':
		shift = 20;
		break;
	case 'G':
		shift = 30;
		break;
	case 'T':
		shift = 40;
		break;
	default:
		return -EINVAL;
	}
	if (*end && end[1] && !(shift && toupper((unsigned char)end[1]) == 'B' && !end[2]))
		return -EINVAL;
	if (!v || v > (UINT64_MAX >> shift))
		return -EINVAL;
	*bytes = (uint64_t)v << shift;
	return 0;
}

int rec_parse_duration(const char *s, uint64_t *ns)
{
	char *end;
	double v, unit;

	if (!*s || *s == '-' || *s == '+' || isspace((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || !(v > 0))
		return -EINVAL;
	if (!strcmp(end, "ms"))
		unit = 1e6;
	else if (!strcmp(end, "s"))
		unit = 1e9;
	else if (!strcmp(end, "m"))
		unit = 60e9;
	else if (!strcmp(end, "h"))
		unit = 3600e9;
	else if (!strcmp(end, "d"))
		unit = 86400e9;
	else
		return -EINVAL;
	if (v * unit >= 1.8e19 || v * unit < 1)
		return -EINVAL;
	*ns = (uint64_t)(v * unit);
	return 0;
}

bool rec_opts_rotating(const struct rec_opts *o)
{
	return o->switch_signal || o->switch_size || o->switch_ns || o->max_size ||
	       o->flight_bytes || o->flight_ns;
}

static int fail(char *err, size_t errlen, const char *fmt, ...) AMB_PRINTF(3, 4);
static int fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/*
 * The option getopt_long() just refused, for the message.  In a cluster
 * such as "-xa" optind has not moved past the cluster yet, so argv[optind
 * - 1] may be an earlier argument (even argv[0]): name a short option by
 * its letter, @buf holding "-x".
 */
static const char *bad_option(char **argv, int ind, int optopt_, char buf[3])
{
	const char *arg = ind > 0 ? argv[ind - 1] : "";

	if (!strncmp(arg, "--", 2) || optopt_ <= 0 || optopt_ > UCHAR_MAX ||
	    !isgraph(optopt_))
		return arg;
	buf[0] = '-';
	buf[1] = (char)optopt_;
	buf[2] = '\0';
	return buf;
}

/* The options that decide how many files a recording writes, together. */
static int check_output_modes(const struct rec_opts *o, char *err, size_t errlen)
{
	bool flight = o->flight_bytes || o->flight_ns;

	if (flight && (o->switch_size || o->switch_ns))
		return fail(err, errlen, "the flight recorder writes what it keeps on SIGUSR2 and "
			    "at the end: --switch-output takes no size or time with it");
	if (flight && o->max_size)
		return fail(err, errlen, "--max-size bounds files on disk: the flight recorder "
			    "keeps what --flight-recorder=SIZE says");
	if (o->switch_max_files && !flight && !o->switch_signal && !o->switch_size &&
	    !o->switch_ns)
		return fail(err, errlen, "--switch-max-files needs --switch-output or "
			    "--flight-recorder");
	if (o->embed && rec_opts_rotating(o))
		return fail(err, errlen, "--embed is for one file: with --switch-output, "
			    "--max-size or --flight-recorder, run 'amber-analyze archive' on the "
			    "files you keep");
	if (rec_opts_rotating(o) && (!strcmp(o->output, "-") || !strncmp(o->output, "/dev/", 5)))
		return fail(err, errlen, "-o %s: --switch-output, --max-size and "
			    "--flight-recorder write files named after it", o->output);
	return 0;
}

int rec_opts_parse(struct rec_opts *o, int argc, char **argv, char *err, size_t errlen)
{
	char opt[3];
	int c;

	memset(o, 0, sizeof(*o));
	o->output = REC_DEFAULT_OUTPUT;
	o->freq = REC_DEFAULT_FREQ;
	o->stack_size = REC_DEFAULT_STACK_SIZE;
	o->zstd_level = AMB_DEFAULT_ZSTD_LEVEL;
	o->flush_ms = REC_DEFAULT_FLUSH_MS;
	optind = 0;  /* full reset of getopt's state, also for tests */
	opterr = 0;

	while ((c = getopt_long(argc, argv, REC_SHORT_OPTS, long_opts, NULL)) != -1) {
		uint64_t v;

		switch (c) {
		case 'e': {
			if (amb_ensure_cap((void **)&o->event_specs, &o->cap_event_specs,
					   sizeof(*o->event_specs), o->nr_event_specs + 1)) {
				snprintf(err, errlen, "-e '%s': out of memory", optarg);
				return -ENOMEM;
			}
			o->event_specs[o->nr_event_specs++] = optarg;
			break;
		}
		case 'o':
			if (!*optarg)
				return fail(err, errlen, "-o needs a file name");
			o->output = optarg;
			break;
		case 'F':
			if (parse_u64(optarg, 1, 1000000, &v))
				return fail(err, errlen, "invalid frequency '%s' (1..1000000 Hz)", optarg);
			o->freq = (unsigned)v;
			o->period = 0;
			break;
		case 'c':
			if (parse_u64(optarg, 1, UINT64_MAX >> 1, &v))
				return fail(err, errlen, "invalid sample period '%s'", optarg);
			o->period = v;
			break;
		case 'g':
			o->callgraph = REC_CG_FP;
			break;
		case OPT_CALL_GRAPH:
			if (parse_callgraph(o, optarg))
				return fail(err, errlen, "invalid --call-graph '%s' "
					    "(fp, dwarf or dwarf,SIZE with SIZE a multiple of 8 below 65536)",
					    optarg);
			break;
		case 'd':
			o->data = true;
			break;
		case OPT_PHYS_DATA:
			o->phys_data = true;
			break;
		case OPT_DATA_PAGE_SIZE:
			o->data_page_size = true;
			break;
		case 'W':
			o->weight = true;
			break;
		case 'b':
		case OPT_BRANCH:
			o->branch = true;
			break;
		case 'm':
			if (parse_u64(optarg, 1, 1u << 20, &v) || (v & (v - 1)))
				return fail(err, errlen, "invalid -m '%s': the ring size is a power "
					    "of two number of pages", optarg);
			o->mmap_pages = (unsigned)v;
			break;
		case 'z':
			if (parse_u64(optarg, 0, 22, &v))
				return fail(err, errlen, "invalid zstd level '%s' (0..22, 0 = store)", optarg);
			o->zstd_level = (int)v;
			break;
		case OPT_FLUSH:
			if (parse_u64(optarg, 1, 3600 * 1000, &v))
				return fail(err, errlen, "invalid --flush-interval '%s' (milliseconds)", optarg);
			o->flush_ms = (unsigned)v;
			break;
		case OPT_SYNC:
			o->sync = true;
			break;
		case OPT_EMBED:
			if (!optarg || !strcmp(optarg, "hit"))
				o->embed = REC_EMBED_HIT;
			else if (!strcmp(optarg, "all"))
				o->embed = REC_EMBED_ALL;
			else
				return fail(err, errlen, "invalid --embed '%s' (hit or all)", optarg);
			break;
		case OPT_KALLSYMS:
			if (!strcmp(optarg, "auto"))
				o->kallsyms = REC_KSYMS_AUTO;
			else if (!strcmp(optarg, "used"))
				o->kallsyms = REC_KSYMS_USED;
			else if (!strcmp(optarg, "all"))
				o->kallsyms = REC_KSYMS_ALL;
			else
				return fail(err, errlen, "invalid --kallsyms '%s' (auto, used or all)",
					    optarg);
			break;
		case OPT_DURATION: {
			char *end;

			o->duration = strtod(optarg, &end);
			if (*end || end == optarg || !(o->duration > 0) || o->duration > 1e9)
				return fail(err, errlen, "invalid --duration '%s' (seconds)", optarg);
			break;
		}
		case 'p':
			if (parse_pids(optarg, &o->pids, &o->nr_pids, &o->cap_pids))
				return fail(err, errlen, "invalid process list '%s'", optarg);
			break;
		case 't':
			if (parse_pids(optarg, &o->tids, &o->nr_tids, &o->cap_tids))
				return fail(err, errlen, "invalid thread list '%s'", optarg);
			break;
		case 'a':
			o->system_wide = true;
			break;
		case 'C':
			o->cpulist = optarg;
			break;
		case OPT_LIST:
			o->list_events = true;
			break;
		case 'v':
			o->verbose = true;
			break;
		case OPT_OFF_CPU:
			o->off_cpu = true;
			break;
		case OPT_SCHED:
			o->sched = true;
			break;
		case OPT_SWITCH_EVENTS:
			o->switch_events = true;
			break;
		case 'h':
			o->help = true;
			break;
		case OPT_VERSION:
			o->version = true;
			break;
		case OPT_SWITCH_OUTPUT:
			if (!optarg || !strcmp(optarg, "signal"))
				o->switch_signal = true;
			else if (!rec_parse_duration(optarg, &v))
				o->switch_ns = v;
			else if (!rec_parse_size(optarg, &v))
				o->switch_size = v;
			else
				return fail(err, errlen, "invalid --switch-output '%s' (signal, a size "
					    "such as 100M, or a time such as 30s or 10m)", optarg);
			if (o->switch_ns && o->switch_ns < REC_MIN_SWITCH_NS)
				return fail(err, errlen, "--switch-output=%s: a file must cover at "
					    "least 100ms", optarg);
			if (o->switch_size && o->switch_size < REC_MIN_SWITCH_BYTES)
				return fail(err, errlen, "--switch-output=%s: a file must hold at "
					    "least 64K", optarg);
			break;
		case OPT_SWITCH_MAX_FILES:
			if (parse_u64(optarg, 1, 1000000, &v))
				return fail(err, errlen, "invalid --switch-max-files '%s' (1 or more)",
					    optarg);
			o->switch_max_files = (unsigned)v;
			break;
		case OPT_MAX_SIZE:
			if (rec_parse_size(optarg, &v))
				return fail(err, errlen, "invalid --max-size '%s' (a size such as 500M "
					    "or 2G)", optarg);
			o->max_size = v;
			break;
		case OPT_FLIGHT:
		case OPT_OVERWRITE:
			o->flight_spec = optarg ? optarg : "64M";
			o->flight_bytes = o->flight_ns = 0;
			if (!optarg)
				o->flight_bytes = REC_DEFAULT_FLIGHT_BYTES;
			else if (!rec_parse_duration(optarg, &v))
				o->flight_ns = v;
			else if (!rec_parse_size(optarg, &v))
				o->flight_bytes = v;
			else
				return fail(err, errlen, "invalid --flight-recorder '%s' (what to keep: "
					    "a size such as 64M, or a time such as 30s)", optarg);
			if (o->flight_ns && o->flight_ns < 1000000000ull)
				return fail(err, errlen, "--flight-recorder=%s: keep at least 1s", optarg);
			if (o->flight_bytes && o->flight_bytes < (1u << 20))
				return fail(err, errlen, "--flight-recorder=%s: keep at least 1M", optarg);
			break;
		case 'G':
			if (!*optarg)
				return fail(err, errlen, "-G needs a cgroup");
			o->cgroup = optarg;
			break;
		case 'u':
			if (!*optarg)
				return fail(err, errlen, "-u needs a user name or id");
			o->uid = optarg;
			break;
		case OPT_FILTER:
			if (!o->nr_event_specs)
				return fail(err, errlen, "--filter '%s' follows the -e tracepoint it "
					    "applies to", optarg);
			if (amb_ensure_cap((void **)&o->filters, &o->cap_filters, sizeof(*o->filters),
					   o->nr_filters + 1)) {
				snprintf(err, errlen, "--filter '%s': out of memory", optarg);
				return -ENOMEM;
			}
			if (o->nr_filters &&
			    o->filters[o->nr_filters - 1].spec == o->nr_event_specs - 1)
				return fail(err, errlen, "--filter '%s': one --filter per -e (join "
					    "the conditions with && or ||)", optarg);
			o->filters[o->nr_filters].spec = o->nr_event_specs - 1;
			o->filters[o->nr_filters++].expr = optarg;
			break;
		case ':':
			return fail(err, errlen, "option '%s' needs an argument",
				    bad_option(argv, optind, optopt, opt));
		default:
			return fail(err, errlen, "unknown option '%s'",
				    bad_option(argv, optind, optopt, opt));
		}
	}
	if (optind < argc) {
		o->argv = argv + optind;
		o->argc = argc - optind;
	}
	if (o->help || o->version)
		return 0;
	if (o->list_events) {
		/* "--list-events 'perf::*' -v": -v after the pattern too. */
		if (o->argc == 2 && (!strcmp(o->argv[1], "-v") || !strcmp(o->argv[1], "--verbose"))) {
			o->verbose = true;
			o->argc = 1;
		}
		if (o->argc > 1)
			return fail(err, errlen, "--list-events takes one pattern");
		o->list_pattern = o->argc ? o->argv[0] : NULL;
		o->argv = NULL;
		o->argc = 0;
		return 0;
	}
	if ((o->nr_pids || o->nr_tids) && (o->argc || o->system_wide))
		return fail(err, errlen, "-p/-t attach to running tasks: give no command and no -a");
	if (o->nr_pids && o->nr_tids)
		return fail(err, errlen, "use either -p or -t");
	if (o->uid && (o->nr_pids || o->nr_tids || o->argc || o->system_wide || o->cpulist ||
		       o->cgroup))
		return fail(err, errlen, "-u records the running processes of a user: give no "
			    "command, -p, -t, -a, -C or -G");
	if (o->cgroup && (o->nr_pids || o->nr_tids))
		return fail(err, errlen, "-G records a cgroup on every CPU: give no -p or -t");
	/* The sched preset is system-wide by default (sched_events.c). */
	if (!o->argc && !o->nr_pids && !o->nr_tids && !o->system_wide && !o->cpulist &&
	    !o->cgroup && !o->uid && !o->sched)
		return fail(err, errlen, "nothing to record: give a command, -p PID, -t TID, "
			    "-u USER, -G CGROUP or -a");
	return check_output_modes(o, err, errlen);
}

int rec_opts_arg_count(const char *arg)
{
	const char *eq;

	if (!arg || arg[0] != '-' || !arg[1] || !strcmp(arg, "--"))
		return 0;
	if (arg[1] == '-') {
		size_t n;

		arg += 2;
		eq = strchr(arg, '=');
		n = eq ? (size_t)(eq - arg) : strlen(arg);
		for (const struct option *lo = long_opts; lo->name; lo++)
			if (strlen(lo->name) == n && !strncmp(lo->name, arg, n))
				return !eq && lo->has_arg == required_argument;
		return 0;
	}
	/* A cluster: the first letter that takes a value takes the rest. */
	for (const char *c = arg + 1; *c; c++) {
		const char *s = *c != ':' && *c != '+' ? strchr(REC_SHORT_OPTS, *c) : NULL;

		if (!s)
			return 0;
		if (s[1] == ':')
			return !c[1];
	}
	return 0;
}

void rec_opts_free(struct rec_opts *o)
{
	if (!o)
		return;
	free(o->filters);
	free(o->event_specs);
	free(o->pids);
	free(o->tids);
	memset(o, 0, sizeof(*o));
}

/* ---- amber-rec stat -------------------------------------------------------- */

enum {
	OPT_STAT_PER_THREAD = 256,
	OPT_STAT_PER_NODE,
	OPT_STAT_VERSION,
};

static const struct option stat_long_opts[] = {
	{ "event",             required_argument, NULL, 'e' },
	{ "output",            required_argument, NULL, 'o' },
	{ "pid",               required_argument, NULL, 'p' },
	{ "tid",               required_argument, NULL, 't' },
	{ "all-cpus",          no_argument,       NULL, 'a' },
	{ "cpu",               required_argument, NULL, 'C' },
	{ "interval-print",    required_argument, NULL, 'I' },
	{ "repeat",            required_argument, NULL, 'r' },
	{ "field-separator",   required_argument, NULL, 'x' },
	{ "json",              no_argument,       NULL, 'j' },
	{ "no-aggr",           no_argument,       NULL, 'A' },
	{ "per-cpu",           no_argument,       NULL, 'A' },
	{ "per-thread",        no_argument,       NULL, OPT_STAT_PER_THREAD },
	{ "per-node",          no_argument,       NULL, OPT_STAT_PER_NODE },
	{ "verbose",           no_argument,       NULL, 'v' },
	{ "help",              no_argument,       NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static int stat_set_aggr(struct rec_stat_opts *o, enum amb_stat_aggr a, char *err, size_t errlen)
{
	if (o->aggr != AMB_STAT_AGGR_GLOBAL && o->aggr != a)
		return fail(err, errlen, "use one of -A/--per-cpu, --per-thread and --per-node");
	o->aggr = a;
	return 0;
}

int rec_stat_opts_parse(struct rec_stat_opts *o, int argc, char **argv, char *err, size_t errlen)
{
	struct rec_opts *r = &o->rec;
	char opt[3];
	int c;

	memset(o, 0, sizeof(*o));
	o->repeat = 1;
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:e:o:p:t:aC:I:r:x:jAvh", stat_long_opts, NULL)) != -1) {
		uint64_t v;

		switch (c) {
		case 'e':
			if (amb_ensure_cap((void **)&r->event_specs, &r->cap_event_specs,
					   sizeof(*r->event_specs), r->nr_event_specs + 1)) {
				snprintf(err, errlen, "-e '%s': out of memory", optarg);
				return -ENOMEM;
			}
			r->event_specs[r->nr_event_specs++] = optarg;
			break;
		case 'o':
			if (!*optarg)
				return fail(err, errlen, "-o needs a file name");
			r->output = optarg;
			break;
		case 'p':
			if (parse_pids(optarg, &r->pids, &r->nr_pids, &r->cap_pids))
				return fail(err, errlen, "invalid process list '%s'", optarg);
			break;
		case 't':
			if (parse_pids(optarg, &r->tids, &r->nr_tids, &r->cap_tids))
				return fail(err, errlen, "invalid thread list '%s'", optarg);
			break;
		case 'a':
			r->system_wide = true;
			break;
		case 'C':
			r->cpulist = optarg;
			break;
		case 'I':
			if (parse_u64(optarg, REC_STAT_MIN_INTERVAL_MS, 3600 * 1000, &v))
				return fail(err, errlen, "invalid -I '%s': the interval is in milliseconds, "
					    "%u to 3600000", optarg, REC_STAT_MIN_INTERVAL_MS);
			o->interval_ms = (unsigned)v;
			break;
		case 'r':
			if (parse_u64(optarg, 1, 1000000, &v))
				return fail(err, errlen, "invalid -r '%s': the number of runs is 1 to "
					    "1000000", optarg);
			o->repeat = (unsigned)v;
			break;
		case 'x':
			if (!*optarg)
				return fail(err, errlen, "-x needs a separator");
			o->sep = optarg;
			break;
		case 'j':
			o->json = true;
			break;
		case 'A':
			if (stat_set_aggr(o, AMB_STAT_AGGR_CPU, err, errlen))
				return -EINVAL;
			break;
		case OPT_STAT_PER_THREAD:
			if (stat_set_aggr(o, AMB_STAT_AGGR_THREAD, err, errlen))
				return -EINVAL;
			break;
		case OPT_STAT_PER_NODE:
			if (stat_set_aggr(o, AMB_STAT_AGGR_NODE, err, errlen))
				return -EINVAL;
			break;
		case 'v':
			o->verbose = true;
			break;
		case 'h':
			r->help = true;
			break;
		case ':':
			return fail(err, errlen, "option '%s' needs an argument",
				    bad_option(argv, optind, optopt, opt));
		default:
			return fail(err, errlen, "unknown option '%s'",
				    bad_option(argv, optind, optopt, opt));
		}
	}
	if (optind < argc) {
		r->argv = argv + optind;
		r->argc = argc - optind;
	}
	if (r->help)
		return 0;
	if (o->sep && o->json)
		return fail(err, errlen, "-x and --json are two output formats: choose one");
	if ((r->nr_pids || r->nr_tids) && (r->argc || r->system_wide || r->cpulist))
		return fail(err, errlen, "-p/-t count running tasks: give no command, -a or -C");
	if (r->nr_pids && r->nr_tids)
		return fail(err, errlen, "use either -p or -t");
	if (!r->argc && !r->nr_pids && !r->nr_tids && !r->system_wide && !r->cpulist)
		return fail(err, errlen, "nothing to count: give a command, -p PID, -t TID or -a");
	if (o->repeat > 1 && !r->argc)
		return fail(err, errlen, "-r repeats a command: give one");
	if (o->aggr == AMB_STAT_AGGR_THREAD && !r->nr_pids && !r->nr_tids)
		return fail(err, errlen, "--per-thread needs -p or -t (a command's counters "
			    "include the threads it starts)");
	if ((o->aggr == AMB_STAT_AGGR_CPU || o->aggr == AMB_STAT_AGGR_NODE) &&
	    !r->system_wide && !r->cpulist)
		return fail(err, errlen, "%s needs -a or -C (a command's counters follow its "
			    "threads from CPU to CPU)",
			    o->aggr == AMB_STAT_AGGR_CPU ? "-A/--per-cpu" : "--per-node");
	return 0;
}

void rec_stat_opts_free(struct rec_stat_opts *o)
{
	if (!o)
		return;
	rec_opts_free(&o->rec);
	memset(o, 0, sizeof(*o));
}
