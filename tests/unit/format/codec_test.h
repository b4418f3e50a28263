// SPDX-License-Identifier: MIT
/*
 * What the codec tests (test_codec.c, test_codec_hostile.c) share: the
 * bits of perf_event_attr's sample_type and read_format and the context
 * markers of call chains, written out as FORMAT.md §4.1 lists them.
 */
#ifndef AMB_CODEC_TEST_H
#define AMB_CODEC_TEST_H

#include <stdint.h>

enum {
	S_IP = 1 << 0, S_TID = 1 << 1, S_TIME = 1 << 2, S_ADDR = 1 << 3, S_READ = 1 << 4,
	S_CALLCHAIN = 1 << 5, S_ID = 1 << 6, S_CPU = 1 << 7, S_PERIOD = 1 << 8,
	S_STREAM_ID = 1 << 9, S_RAW = 1 << 10, S_BRANCH = 1 << 11, S_REGS_USER = 1 << 12,
	S_STACK_USER = 1 << 13, S_WEIGHT = 1 << 14, S_DATA_SRC = 1 << 15,
	S_IDENTIFIER = 1 << 16, S_TRANSACTION = 1 << 17, S_REGS_INTR = 1 << 18,
	S_PHYS_ADDR = 1 << 19, S_AUX = 1 << 20, S_CGROUP = 1 << 21,
	S_DATA_PAGE_SIZE = 1 << 22, S_CODE_PAGE_SIZE = 1 << 23, S_WEIGHT_STRUCT = 1 << 24,
};
enum { RF_ENABLED = 1, RF_RUNNING = 2, RF_ID = 4, RF_GROUP = 8, RF_LOST = 16 };
#define CTX_KERNEL ((uint64_t)-128)
#define CTX_USER   ((uint64_t)-512)

#endif /* AMB_CODEC_TEST_H */
