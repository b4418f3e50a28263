// SPDX-License-Identifier: MIT
/*
 * analyze/cmd/cmd_common.c - what the commands share: the option loop with
 * the sample options (filters, --event, --symfs, --no-debuginfod,
 * --no-demangle, --field-filter), and the one way a command reports an
 * error.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analyze/cmd/cmd.h"
#include "common/util.h"

void ana_cmd_error(const char *cmd, const char *fmt, ...)
{
	char msg[2048];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	/* Messages name files and recorded strings: one escaped line. */
	fprintf(stderr, "amber-analyze: error: %s: ", cmd);
	amb_fput_text(stderr, msg);
	fputc('\n', stderr);
}

int ana_cmd_fail(const char *cmd, const char *what, int err)
{
	if (*amb_errmsg())
		ana_cmd_error(cmd, "%s", amb_errmsg());
	else if (what)
		ana_cmd_error(cmd, "%s: %s", what, amb_strerror(err));
	else
		ana_cmd_error(cmd, "%s", amb_strerror(err));
	/* A damaged file header loses no block (FORMAT.md §7, "Salvaging"). */
	if (err <= -AMB_E_BASE && err > -AMB_E_END && err != -AMB_E_VERSION &&
	    strstr(amb_errmsg(), "file header:"))
		fprintf(stderr, "amber-analyze: if the recording is damaged, 'amber-analyze verify "
			"--salvage OUT FILE' copies its intact blocks to OUT\n");
	return 1;
}

int ana_cmd_open(const char *cmd, const char *path, struct ana_pipeline_opts *o,
		 struct ana_pipeline **p)
{
	int err = ana_pipeline_open(path, o, p);

	return err ? ana_cmd_fail(cmd, path, err) : 0;
}

/* Apply a sample option; 1 when @c is none of them. */
static int sample_option(struct ana_pipeline_opts *o, int c, const char *arg)
{
	switch (c) {
	case ANA_OPT_PID:
		return ana_filter_set(&o->filter, ANA_FILTER_PID, arg);
	case ANA_OPT_TID:
		return ana_filter_set(&o->filter, ANA_FILTER_TID, arg);
	case ANA_OPT_COMM:
		return ana_filter_set(&o->filter, ANA_FILTER_COMM, arg);
	case ANA_OPT_CPU:
		return ana_filter_set(&o->filter, ANA_FILTER_CPU, arg);
	case ANA_OPT_DSO:
		return ana_filter_set(&o->filter, ANA_FILTER_DSO, arg);
	case ANA_OPT_SYM:
		return ana_filter_set(&o->filter, ANA_FILTER_SYM, arg);
	case ANA_OPT_TIME:
		return ana_filter_set(&o->filter, ANA_FILTER_TIME, arg);
	case ANA_OPT_FIELD_FILTER:
		return ana_field_filter_add(&o->ff, arg);
	case ANA_OPT_EVENT:
		o->event = arg;
		return 0;
	case ANA_OPT_SYMFS:
		o->dso.symfs = arg;
		return 0;
	case ANA_OPT_NO_DEBUGINFOD:
		o->dso.no_debuginfod = true;
		return 0;
	case ANA_OPT_NO_DEMANGLE:
		o->dso.no_demangle = true;
		return 0;
	case ANA_OPT_JOBS: {
		char *end;
		unsigned long n = strtoul(arg, &end, 10);

		if (!*arg || *end || n < 1 || n > 256)
			return -EINVAL;
		o->jobs = (unsigned)n;
		return 0;
	}
	default:
		return 1;
	}
}

/* The name an option is given by on the command line, for messages. */
static void option_name(const struct option *opts, int c, char *buf, size_t len)
{
	for (; opts && opts->name; opts++) {
		if (opts->val == c && !opts->flag) {
			snprintf(buf, len, "--%s", opts->name);
			return;
		}
	}
	if (c > 0 && c < 128)
		snprintf(buf, len, "-%c", c);
	else
		snprintf(buf, len, "an option");
}

static bool is_sample_option(int c)
{
	return c == ANA_OPT_CPU || c == ANA_OPT_EVENT || c == ANA_OPT_JOBS ||
	       (c >= ANA_OPT_PID && c <= ANA_OPT_FIELD_FILTER);
}

/*
 * No FILE given: the recorder's default output (and, for two, the one it
 * moved aside before), as perf reads perf.data.  Said on stderr, so that
 * nobody analyzes another recording than they think.
 */
static int default_files(const struct ana_cmd_desc *d, const char **files)
{
	static const char *const two[] = { AMB_DEFAULT_RECORDING ".old", AMB_DEFAULT_RECORDING };
	unsigned n = d->min_files == 2 ? 2 : 1, i;

	for (i = 0; i < n; i++) {
		files[i] = n == 2 ? two[i] : AMB_DEFAULT_RECORDING;
		if (access(files[i], F_OK)) {
			ana_cmd_error(d->name, "no file given, and no %s here (%s; see "
				      "'amber-analyze %s --help')", files[i],
				      n == 2 && !i ? "amber-rec moves the last recording there when it "
						     "makes a new one" :
						     "what amber-rec writes without -o",
				      d->name);
			return 2;
		}
	}
	if (n == 2)
		fprintf(stderr, "amber-analyze: %s: comparing %s (the recording before) with %s\n",
			d->name, files[0], files[1]);
	else
		fprintf(stderr, "amber-analyze: %s: reading %s (no file given)\n", d->name, files[0]);
	return ANA_CMD_GO_ON;
}

int ana_cmd_parse(const struct ana_cmd_desc *d, int argc, char **argv,
		  struct ana_pipeline_opts *o, ana_cmd_option_fn fn, void *ctx,
		  const char **files)
{
	static const struct option sample_opts[] = { ANA_SAMPLE_OPTIONS, { NULL, 0, NULL, 0 } };
	struct option *all = NULL;
	char shortopts[128], name[64];
	size_t n = 0, i, nfiles;
	int c, err, rc = ANA_CMD_GO_ON;

	/* The command's options, the sample ones, --help: one table. */
	while (d->longopts && d->longopts[n].name)
		n++;
	all = calloc(n + AMB_ARRAY_SIZE(sample_opts) + 1, sizeof(*all));
	if (!all) {
		ana_cmd_error(d->name, "%s", strerror(ENOMEM));
		return 1;
	}
	memcpy(all, d->longopts, n * sizeof(*all));
	if (o) {
		memcpy(all + n, sample_opts, (AMB_ARRAY_SIZE(sample_opts) - 1) * sizeof(*all));
		n += AMB_ARRAY_SIZE(sample_opts) - 1;
	}
	all[n++] = (struct option){ "help", no_argument, NULL, 'h' };
	snprintf(shortopts, sizeof(shortopts), ":%s%sh", d->shortopts ? d->shortopts : "",
		 o ? "C:e:j:" : "");

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, shortopts, all, NULL)) != -1) {
		if (c == 'h') {
			fputs(d->usage, stdout);
			if (d->default_files)
				printf(d->min_files == 2 ?
				       "\nWithout files: %s.old (the recording before, which amber-rec\n"
				       "moves aside) and %s, as perf diff reads perf.data.old and perf.data.\n" :
				       "\nWithout FILE: %s%s, what amber-rec writes without -o.\n",
				       AMB_DEFAULT_RECORDING, d->min_files == 2 ? AMB_DEFAULT_RECORDING : "");
			rc = 0;
			goto out;
		}
		if (c == '?' || c == ':') {
			const char *what = argv[optind - 1];
			char opt[3] = { '-', (char)optopt, 0 };

			if (optopt && (optopt < 0x100))
				what = opt;
			else if (optopt)
				option_name(all, optopt, name, sizeof(name)), what = name;
			ana_cmd_error(d->name, c == ':' ? "%s needs a value (see 'amber-analyze %s --help')"
						      : "unknown option '%s' (see 'amber-analyze %s --help')",
				      what, d->name);
			rc = 2;
			goto out;
		}
		amb_errmsg_clear();
		err = o && is_sample_option(c) ? sample_option(o, c, optarg)
					       : fn ? fn(ctx, c, optarg) : 1;
		if (err > 0) {
			/* Listed in the table but handled by nobody: a bug, said as such. */
			ana_cmd_error(d->name, "option %c not handled", c);
			rc = 2;
			goto out;
		}
		if (err) {
			option_name(all, c, name, sizeof(name));
			ana_cmd_error(d->name, "bad value '%s' for %s: %s", optarg ? optarg : "", name,
				      *amb_errmsg() ? amb_errmsg() : strerror(-err));
			rc = 2;
			goto out;
		}
	}
	nfiles = files && files[0] ? 1 : 0;
	for (i = (size_t)optind; i < (size_t)argc; i++) {
		if (nfiles == d->max_files) {
			if (nfiles == 1)
				ana_cmd_error(d->name, "unexpected argument '%s': one FILE is read, and "
					      "that is '%s' (see 'amber-analyze %s --help')", argv[i],
					      files[0], d->name);
			else
				ana_cmd_error(d->name, "unexpected argument '%s' (see 'amber-analyze %s --help')",
					      argv[i], d->name);
			rc = 2;
			goto out;
		}
		files[nfiles++] = argv[i];
	}
	if (!nfiles && d->default_files && d->min_files)
		rc = default_files(d, files);
	else if (nfiles < d->min_files) {
		fputs(d->usage, stderr);
		rc = 2;
	}
out:
	free(all);
	return rc;
}
