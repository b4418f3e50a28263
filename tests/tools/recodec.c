// SPDX-License-Identifier: MIT
/*
 * tests/tools/recodec.c - copy a recording with every block decoded and
 * encoded again: RING blocks with the sample codec or with plain zstd
 * (what files were before codec 2), at a chosen zstd level.  Benchmarks
 * use it to compare the two codecs on the same records.
 *
 *   recodec [-c zstd|sample] [-l LEVEL] IN OUT
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <amber/common.h>
#include <amber/format.h>

int main(int argc, char **argv)
{
	AMB_OPTS(amb_writer_opts, o, .zstd_level = AMB_DEFAULT_ZSTD_LEVEL);
	struct amb_payload *p = amb_payload_new();
	struct amb_reader *r;
	struct amb_writer *w;
	int opt, err;

	while ((opt = getopt(argc, argv, "c:l:")) != -1) {
		switch (opt) {
		case 'c':
			o.ring_codec = !strcmp(optarg, "sample") ? AMB_CODEC_SAMPLE : AMB_CODEC_ZSTD;
			break;
		case 'l':
			o.zstd_level = atoi(optarg);
			break;
		default:
			fprintf(stderr, "usage: recodec [-c zstd|sample] [-l LEVEL] IN OUT\n");
			return 2;
		}
	}
	if (argc - optind != 2 || !p) {
		fprintf(stderr, "usage: recodec [-c zstd|sample] [-l LEVEL] IN OUT\n");
		return 2;
	}
	err = amb_reader_open(argv[optind], 0, &r);
	if (!err)
		err = amb_writer_opts_from(&o, r);
	if (!err)
		err = amb_writer_open(argv[optind + 1], &o, &w);
	if (err) {
		fprintf(stderr, "recodec: %s\n", amb_strerror(err));
		return 1;
	}
	for (size_t i = 0; i < amb_reader_block_count(r) && !err; i++) {
		const struct amb_block_info *bi = amb_reader_block(r, i);
		struct amb_block_desc d = { bi->type, bi->stream, bi->record_count, bi->first_time,
					    bi->last_time };
		const void *data;
		size_t len;

		if (bi->type == AMB_BLOCK_INDEX || bi->type == AMB_BLOCK_TRAILER)
			continue;
		err = amb_reader_load(r, i, p, &data, &len);
		if (!err)
			err = amb_writer_append(w, &d, data, len);
	}
	if (!err)
		err = amb_writer_close(w);
	else
		amb_writer_close(w);
	amb_reader_close(r);
	amb_payload_free(p);
	if (err) {
		fprintf(stderr, "recodec: %s\n", amb_strerror(err));
		return 1;
	}
	return 0;
}
