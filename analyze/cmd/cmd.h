/* SPDX-License-Identifier: MIT */
/*
 * analyze/cmd/cmd.h - the command layer of amber-analyze: one file per
 * command (cmd_*.c), dispatched by amber_analyze.c, and what commands share
 * (cmd_common.c): the options every sample command takes and the one way a
 * command reports an error.
 *
 * cmd/ includes the public headers of the layers below it: view/view.h,
 * resolve/resolve.h, replay/replay.h.
 */
#ifndef AMB_ANALYZE_CMD_H
#define AMB_ANALYZE_CMD_H

#include <getopt.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "analyze/replay/replay.h"
#include "analyze/resolve/resolve.h"
#include "analyze/view/view.h"

/*
 * `amber-analyze NAME ARGS...`: @argv[0] is the command's name.  Each
 * prints its output and its own errors ("amber-analyze: error: ...") and
 * returns the exit status: 0 success, 1 the work failed (or, for verify
 * and dump, problems were found), 2 a usage error or an unreadable file.
 */

int ana_cmd_info(int argc, char **argv);
int ana_cmd_verify(int argc, char **argv);
int ana_cmd_dump(int argc, char **argv);
int ana_cmd_report(int argc, char **argv);
int ana_cmd_script(int argc, char **argv);
int ana_cmd_flame(int argc, char **argv);
int ana_cmd_diff(int argc, char **argv);
int ana_cmd_archive(int argc, char **argv);
int ana_cmd_buildids(int argc, char **argv);
int ana_cmd_export(int argc, char **argv);
int ana_cmd_import(int argc, char **argv);
int ana_cmd_stat(int argc, char **argv);
int ana_cmd_mem(int argc, char **argv);
int ana_cmd_topology(int argc, char **argv);
int ana_cmd_sched(int argc, char **argv);

/* ---- options every sample command takes ---------------------------------- */

/*
 * getopt_long values of ANA_SAMPLE_OPTIONS.  -C, -e and -j keep their
 * letters, which ana_cmd_parse() adds to every sample command's short
 * options; the others lie above any character a command uses for its own.
 */
enum ana_sample_opt {
	ANA_OPT_CPU = 'C',
	ANA_OPT_EVENT = 'e',
	ANA_OPT_PID = 0x1000,
	ANA_OPT_TID,
	ANA_OPT_COMM,
	ANA_OPT_DSO,
	ANA_OPT_SYM,
	ANA_OPT_TIME,
	ANA_OPT_SYMFS,
	ANA_OPT_NO_DEBUGINFOD,
	ANA_OPT_NO_DEMANGLE,
	ANA_OPT_FIELD_FILTER,
	ANA_OPT_JOBS = 'j',
};

/*
 * getopt_long entries of the options report, script, flame and diff share:
 * --pid --tid --comm --cpu --dso(s) --sym(bols) --time --event --symfs
 * --no-debuginfod --no-demangle --field-filter --jobs, into a struct
 * ana_pipeline_opts.  A command puts ANA_SAMPLE_OPTIONS in its option
 * table and ana_cmd_parse() handles them: a new filter is added here and
 * in cmd_common.c only.
 */
#define ANA_SAMPLE_OPTIONS                                                  \
	{ "pid", required_argument, NULL, ANA_OPT_PID },                    \
	{ "tid", required_argument, NULL, ANA_OPT_TID },                    \
	{ "comm", required_argument, NULL, ANA_OPT_COMM },                  \
	{ "cpu", required_argument, NULL, ANA_OPT_CPU },                    \
	{ "dso", required_argument, NULL, ANA_OPT_DSO },                    \
	{ "dsos", required_argument, NULL, ANA_OPT_DSO },                   \
	{ "sym", required_argument, NULL, ANA_OPT_SYM },                    \
	{ "symbols", required_argument, NULL, ANA_OPT_SYM },                \
	{ "time", required_argument, NULL, ANA_OPT_TIME },                  \
	{ "event", required_argument, NULL, ANA_OPT_EVENT },                \
	{ "symfs", required_argument, NULL, ANA_OPT_SYMFS },                \
	{ "no-debuginfod", no_argument, NULL, ANA_OPT_NO_DEBUGINFOD },      \
	{ "no-demangle", no_argument, NULL, ANA_OPT_NO_DEMANGLE },          \
	{ "field-filter", required_argument, NULL, ANA_OPT_FIELD_FILTER },    \
	{ "jobs", required_argument, NULL, ANA_OPT_JOBS }


/* ---- parsing a command line ------------------------------------------------ */

/* What ana_cmd_parse() needs to know of a command. */
struct ana_cmd_desc {
	const char *name;                 /* "report" */
	const char *usage;                /* the whole --help text */
	const char *shortopts;            /* getopt_long's; "h" is added */
	const struct option *longopts;    /* ends with a zero entry; --help is added */
	unsigned min_files, max_files;    /* positional FILE arguments */
	bool default_files;               /* none given: AMB_DEFAULT_RECORDING (two:
					   * its ".old" and it), said on stderr */
};

/* ana_cmd_parse() and the helpers below return this to go on; any other
 * value is the exit status the command returns at once. */
#define ANA_CMD_GO_ON (-1)

/* A command's own option: @c as getopt_long returned it, @arg its
 * optarg.  Returns 0, or a negative errno for a bad value. */
typedef int (*ana_cmd_option_fn)(void *ctx, int c, const char *arg);

/*
 * The one option loop of every command: getopt_long over @argv with @d's
 * options; ANA_SAMPLE_OPTIONS go into @o (NULL: the command takes none),
 * every other option to @fn, and --help prints @d->usage.  A bad value
 * (an error from @fn or from a sample option) is reported naming the
 * option and the value; an unknown option or a missing argument names
 * itself and points to --help.  Then between @d->min_files and
 * @d->max_files positional arguments are stored in @files (an -i FILE the
 * command took counts as the first when @fn stored it in @files[0]); with
 * none and @d->default_files, the recorder's default output, as perf reads
 * perf.data (and diff perf.data.old and perf.data).
 * Returns ANA_CMD_GO_ON, 0 after --help, or 2 for a usage error.
 */
int ana_cmd_parse(const struct ana_cmd_desc *d, int argc, char **argv,
		  struct ana_pipeline_opts *o, ana_cmd_option_fn fn, void *ctx,
		  const char **files);

/* Print "amber-analyze: error: CMD: MESSAGE" on stderr. */
void ana_cmd_error(const char *cmd, const char *fmt, ...) AMB_PRINTF(2, 3);

/*
 * Report that @cmd failed with @err: the detail library code left in
 * amb_errmsg(), else "@what: <amb_strerror(err)>" (@what may be NULL).
 * Returns 1, the exit status of a failed command.
 */
int ana_cmd_fail(const char *cmd, const char *what, int err);

/*
 * Open the recording @path for a sample command: ana_pipeline_open(), with
 * a failure reported through ana_cmd_fail().  Returns 0, or the exit status
 * to return (1).
 */
int ana_cmd_open(const char *cmd, const char *path, struct ana_pipeline_opts *o,
		 struct ana_pipeline **p);

#endif /* AMB_ANALYZE_CMD_H */
