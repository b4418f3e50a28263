/* SPDX-License-Identifier: MIT */
/*
 * record/stat.h - `amber-rec stat` (stat.c): count events over a command,
 * processes, threads or CPUs, print perf stat's table (common/perf_stat.h),
 * and with -o keep the counts in a .amber file.
 */
#ifndef AMB_REC_STAT_H
#define AMB_REC_STAT_H

/*
 * Run `amber-rec stat`: @argv is amber-rec's whole command line, "stat"
 * at @argv[1].  Prints the table and its own errors on stderr, as perf
 * stat does, and returns the exit status: the command's (128+N when it
 * was killed by signal N, the last run's with -r), 0 without a command,
 * 125 when amber-rec fails, 126/127 when the command cannot be executed
 * / found.
 */
int rec_stat_main(int argc, char **argv);

#endif /* AMB_REC_STAT_H */
