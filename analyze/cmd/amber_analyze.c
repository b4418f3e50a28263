// SPDX-License-Identifier: MIT
/* analyze/cmd/amber_analyze.c - amber-analyze: dispatch to a subcommand. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/cmd/cmd.h"
#include "common/util.h"
#include <amber/common.h>

/* Warnings name recorded paths, commands and symbols: one escaped line
 * each (amb_fput_text(), common/util.h). */
static void print_warning(void *ctx, const char *msg)
{
	(void)ctx;
	fputs("amber-analyze: warning: ", stderr);
	amb_fput_text(stderr, msg);
	fputc('\n', stderr);
}

/*
 * The signals that end a run (Ctrl-C, kill, a closed terminal or pipe):
 * the embedded-file cache goes first (ana_embed_remove_all() is
 * async-signal-safe), then the signal takes its course, so the exit
 * status still says what ended the run.
 */
static void on_fatal_signal(int sig)
{
	ana_embed_remove_all();
	signal(sig, SIG_DFL);
	raise(sig);
}

static void catch_fatal_signals(void)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGPIPE, SIGQUIT };
	struct sigaction sa, old;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_fatal_signal;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < AMB_ARRAY_SIZE(sigs); i++)
		sigaddset(&sa.sa_mask, sigs[i]);
	for (size_t i = 0; i < AMB_ARRAY_SIZE(sigs); i++) {
		/* A signal ignored on purpose (nohup) stays ignored. */
		if (!sigaction(sigs[i], NULL, &old) && old.sa_handler == SIG_IGN)
			continue;
		sigaction(sigs[i], &sa, NULL);
	}
}

static const struct {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *help;
} commands[] = {
	{ "info",   ana_cmd_info,   "summarise a recording: header, metadata, blocks, warnings" },
	{ "verify", ana_cmd_verify, "check every checksum and rule; --salvage OUT rescues intact blocks" },
	{ "dump",   ana_cmd_dump,   "print every record decoded, without symbols (--json)" },
	{ "report", ana_cmd_report, "samples by command, shared object and symbol, sorted by overhead" },
	{ "script", ana_cmd_script, "one line per sample with symbols and callchains (--json)" },
	{ "flame",  ana_cmd_flame,  "flame graph of the stacks: interactive SVG, or --folded" },
	{ "diff",   ana_cmd_diff,   "compare two recordings per symbol, with significance tests" },
	{ "archive", ana_cmd_archive, "copy a recording with the ELF files it needs embedded" },
	{ "buildids", ana_cmd_buildids, "every DSO with its build-id, hits and where its ELF is found" },
	{ "export", ana_cmd_export, "write the samples as pprof, speedscope, Chrome trace or perf script" },
	{ "import", ana_cmd_import, "convert a perf.data file into an .amber recording" },
	{ "stat",   ana_cmd_stat,   "the stored counts as perf stat's table (amber-rec stat -o)" },
	{ "mem",    ana_cmd_mem,    "memory accesses per NUMA node, level and data object (-d)" },
	{ "topology", ana_cmd_topology, "the recorded machine: packages, cores, nodes, memory, caches" },
	{ "sched",  ana_cmd_sched,  "scheduler latency, timehist, and who woke the longest waits" },
};

static void usage(FILE *f)
{
	fprintf(f, "usage: amber-analyze COMMAND [OPTIONS] FILE\n\ncommands:\n");
	for (size_t i = 0; i < AMB_ARRAY_SIZE(commands); i++)
		fprintf(f, "  %-8s %s\n", commands[i].name, commands[i].help);
	fprintf(f, "\n'amber-analyze COMMAND --help' describes a command's options.\n");
}

int main(int argc, char **argv)
{
	amb_set_warn(print_warning, NULL);
	catch_fatal_signals();
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "help") && argc > 2) {
		/* `amber-analyze help report` is `amber-analyze report --help`,
		 * `help sched latency` is `sched latency --help`. */
		char *args[] = { argv[2], argc > 3 ? argv[3] : "--help", "--help", NULL };

		for (size_t i = 0; i < AMB_ARRAY_SIZE(commands); i++)
			if (!strcmp(argv[2], commands[i].name))
				return commands[i].fn(argc > 3 ? 3 : 2, args);
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--version")) {
		printf("amber-analyze %s (format %d.%d)\n", AMB_VERSION, AMB_FORMAT_MAJOR,
		       AMB_FORMAT_MINOR);
		return 0;
	}
	for (size_t i = 0; i < AMB_ARRAY_SIZE(commands); i++)
		if (!strcmp(argv[1], commands[i].name))
			return commands[i].fn(argc - 1, argv + 1);
	fprintf(stderr, "amber-analyze: error: unknown command '%s'\n", argv[1]);
	usage(stderr);
	return 2;
}
