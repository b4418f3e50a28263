// SPDX-License-Identifier: MIT
/*
 * tests/tools/rec_trim.c - run the recorder's kernel-symbol trim
 * (record/ksyms_trim.c) on an existing recording, as amber-rec runs it
 * after a clean stop.  The CLI tests trim a copy of a `--kallsyms=all`
 * recording and check that every analysis reads the same from both.
 *
 * usage: rec_trim auto|used FILE
 * Prints "kept K of N" (or "not trimmed"); exits 1 with amber-rec's
 * message when the trim fails, 2 on usage errors.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <amber/format.h>
#include "record/ksyms_trim.h"
#include "record/output.h"

/* The sample layout of @path's first event (amber-rec gives all its events
 * one sample_type). */
static int layout_of(const char *path, struct amb_perf_layout *l)
{
	const struct amb_block_filter f = { AMB_BLOCK_EVENT_ATTR, -1, 0, 0 };
	struct amb_reader *r;
	struct amb_payload *pl = amb_payload_new();
	struct perf_event_attr attr;
	struct amb_event_entry e;
	struct amb_cursor c;
	const void *data;
	size_t i, len;
	int err = amb_reader_open(path, 0, &r);

	if (err || !pl)
		goto out;
	i = amb_reader_next(r, &f, 0);
	err = i == SIZE_MAX ? -AMB_E_CORRUPT : amb_reader_load(r, i, pl, &data, &len);
	if (err)
		goto out;
	amb_cursor_init(&c, data, len);
	err = amb_event_next(&c, &e);
	if (err <= 0) {
		err = err ? err : -AMB_E_CORRUPT;
		goto out;
	}
	err = 0;
	memset(&attr, 0, sizeof(attr));
	memcpy(&attr, e.attr, e.attr_size < sizeof(attr) ? e.attr_size : sizeof(attr));
	amb_perf_layout_init(l, &attr);
out:
	amb_payload_free(pl);
	amb_reader_close(r);
	return err;
}

int main(int argc, char **argv)
{
	static volatile sig_atomic_t never;
	struct rec_ksyms_trim_stats st;
	struct rec_output out;
	struct amb_perf_layout l;
	enum rec_ksyms_mode mode;
	char err[1024];
	int e;

	if (argc != 3 || (strcmp(argv[1], "auto") && strcmp(argv[1], "used"))) {
		fprintf(stderr, "usage: rec_trim auto|used FILE\n");
		return 2;
	}
	mode = !strcmp(argv[1], "auto") ? REC_KSYMS_AUTO : REC_KSYMS_USED;
	e = layout_of(argv[2], &l);
	if (e) {
		fprintf(stderr, "rec_trim: %s: no event attributes: %s\n", argv[2], amb_strerror(e));
		return 1;
	}
	e = rec_output_adopt(&out, argv[2]);
	if (e) {
		fprintf(stderr, "rec_trim: %s: %s\n", argv[2], strerror(-e));
		return 1;
	}
	e = rec_ksyms_trim(&out, &l, mode, AMB_DEFAULT_ZSTD_LEVEL, &never, &st, err,
			   sizeof(err));
	rec_output_close(&out);
	if (e) {
		fprintf(stderr, "rec_trim: %s: %s\n", argv[2], err);
		return 1;
	}
	if (st.trimmed)
		printf("kept %" PRIu64 " of %" PRIu64 "\n", st.kept, st.total);
	else
		printf("not trimmed\n");
	return 0;
}
