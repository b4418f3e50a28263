// SPDX-License-Identifier: MIT
/*
 * tests/tools/codecstat.c - what the sample codec (FORMAT.md §4.1) makes of
 * the RING blocks of a recording: every block is decoded, encoded again
 * with codec 2 (the layout of the file's first EVENT_ATTR entry), decoded
 * back and compared byte for byte; then the sizes per column, beside zstd
 * of the same raw bytes, and the speeds (CPU time) are printed.
 *
 *   codecstat [-l LEVEL] [-z ZLEVEL] [-c] FILE...
 *
 * -l: zstd level of the columns (default 3); -z: level of the plain zstd
 * the sizes are compared with (default 3); -c: one line per column;
 * -m BYTES: join consecutive blocks of a stream up to BYTES first (what
 * `archive --compact` does).
 * Exits 1 when a block does not come back identical.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <zstd.h>

#include <amber/common.h>
#include <amber/format.h>
#include "format/format_internal.h"

static const char *const names[AMB_SAMPLE_COLUMNS] = {
	"head", "verbatim", "id", "tid", "time", "cpu", "period", "ip", "chain_ref",
	"chain_nodes", "addr", "fields", "regs", "stack_meta", "stack_data", "bytes",
};

static double cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int layout_of(struct amb_reader *r, struct amb_payload *p, struct amb_sample_layout *l)
{
	const struct amb_block_filter f = { AMB_BLOCK_EVENT_ATTR, -1, 0, 0 };
	const struct amb_file_header *fh = amb_reader_header(r);
	size_t i;

	amb_reader_for_each_block(r, &f, i) {
		struct amb_event_entry e;
		struct amb_cursor c;
		const void *data;
		size_t len;

		if (amb_reader_load(r, i, p, &data, &len))
			continue;
		amb_cursor_init(&c, data, len);
		if (amb_event_next(&c, &e) == 1)
			return amb_sample_layout_from_attr(l, e.attr, e.attr_size, fh->producer_endian);
	}
	return -ENOENT;
}

int main(int argc, char **argv)
{
	int level = 3, zlevel = 3, opt, bad = 0;
	size_t merge = 0;
	bool per_col = false;

	while ((opt = getopt(argc, argv, "l:z:cm:")) != -1) {
		switch (opt) {
		case 'm': merge = strtoull(optarg, NULL, 0); break;
		case 'l': level = atoi(optarg); break;
		case 'z': zlevel = atoi(optarg); break;
		case 'c': per_col = true; break;
		default:
			fprintf(stderr, "usage: codecstat [-l LEVEL] [-z ZLEVEL] [-c] FILE...\n");
			return 2;
		}
	}
	for (int a = optind; a < argc; a++) {
		struct amb_sample_codec *enc = amb_sample_codec_new(), *dec = amb_sample_codec_new();
		struct amb_payload *p = amb_payload_new();
		struct amb_buf out = AMB_BUF_INIT;
		struct amb_sample_layout l;
		struct amb_reader *r;
		size_t col_raw[AMB_SAMPLE_STREAMS] = { 0 }, col_st[AMB_SAMPLE_STREAMS] = { 0 };
		uint64_t raw = 0, coded = 0, zsz = 0, samples = 0, verbatim = 0, blocks = 0;
		uint64_t chains = 0, nodes = 0;
		double t_enc = 0, t_dec = 0, t_z = 0, t_zd = 0;
		uint8_t *back = NULL, *zbuf = NULL;
		ZSTD_CCtx *zc = ZSTD_createCCtx();
		ZSTD_DCtx *zd = ZSTD_createDCtx();
		size_t i;
		int err;

		err = amb_reader_open(argv[a], 0, &r);
		if (err || layout_of(r, p, &l)) {
			fprintf(stderr, "codecstat: %s: cannot read its events\n", argv[a]);
			return 2;
		}
		struct amb_buf joined[256];
		size_t nblk = amb_reader_block_count(r);

		memset(joined, 0, sizeof(joined));
		for (i = 0; i <= nblk; i++) {
			const struct amb_block_info *bi = i < nblk ? amb_reader_block(r, i) : NULL;
			struct amb_sample_stats st;
			const void *data;
			size_t len, zn;
			double t0;
			char why[256];

			if (merge) {
				/* Emit a stream's joined bytes when the next block would
				 * overflow them, and everything at the end. */
				size_t s = bi ? bi->stream % 256 : 0, k;

				if (bi && (bi->type != AMB_BLOCK_RING || amb_reader_load(r, i, p, &data, &len)))
					continue;
				for (k = bi ? s : 0; k < (bi ? s + 1 : 256); k++) {
					if (!joined[k].len || (bi && joined[k].len + len <= merge))
						continue;
					break;
				}
				if (bi && k == s + 1) {
					amb_buf_append(&joined[s], data, len);
					continue;
				}
				if (!bi && k == 256)
					break;
				{
					static struct amb_buf cur;

					amb_buf_reset(&cur);
					amb_buf_append(&cur, joined[k].data, joined[k].len);
					amb_buf_reset(&joined[k]);
					if (bi)
						amb_buf_append(&joined[s], data, len);
					data = cur.data;
					len = cur.len;
					if (!bi)
						i--;  /* more streams to flush */
				}
			} else if (!bi || bi->type != AMB_BLOCK_RING ||
				   amb_reader_load(r, i, p, &data, &len)) {
				continue;
			}
			back = realloc(back, len + 1);
			zbuf = realloc(zbuf, ZSTD_compressBound(len));
			t0 = cpu_now();
			err = amb_sample_encode(enc, &l, level, data, len, &out);
			t_enc += cpu_now() - t0;
			if (err) {
				fprintf(stderr, "codecstat: %s: block %zu: encode: %s\n", argv[a], i,
					amb_strerror(err));
				bad = 1;
				continue;
			}
			t0 = cpu_now();
			err = amb_sample_decode(dec, out.data, out.len, back, len, why, sizeof(why));
			t_dec += cpu_now() - t0;
			if (err || memcmp(back, data, len)) {
				size_t k = 0;

				if (err != -AMB_E_DECOMPRESS)
					while (k < len && back[k] == ((const uint8_t *)data)[k])
						k++;
				fprintf(stderr, "codecstat: %s: block %zu: round trip: %s (first difference at byte %zu)\n",
					argv[a], i, err ? why : "bytes differ", k);
				if (getenv("CODECSTAT_DEBUG") && k < len) {
					const uint8_t *o = data;
					size_t r0 = 0;

					while (r0 + amb_get_le16(o + r0 + 6) <= k)
						r0 += amb_get_le16(o + r0 + 6);
					fprintf(stderr, "  record at %zu type %u size %u, offset %zu in it\n", r0,
						amb_get_le32(o + r0), amb_get_le16(o + r0 + 6), k - r0);
					for (size_t q = r0; q < r0 + amb_get_le16(o + r0 + 6); q += 8)
						fprintf(stderr, "  %4zu %016llx %016llx%s\n", q - r0,
							(unsigned long long)amb_get_le64(o + q),
							(unsigned long long)amb_get_le64(back + q),
							amb_get_le64(o + q) != amb_get_le64(back + q) ? " <" : "");
				}
				bad = 1;
			}
			t0 = cpu_now();
			zn = ZSTD_compressCCtx(zc, zbuf, ZSTD_compressBound(len), data, len, zlevel);
			t_z += cpu_now() - t0;
			t0 = cpu_now();
			ZSTD_decompressDCtx(zd, back, len, zbuf, zn);
			t_zd += cpu_now() - t0;
			amb_sample_codec_stats(enc, &st);
			for (size_t k = 0; k < AMB_SAMPLE_STREAMS; k++) {
				col_raw[k] += st.stream_raw[k];
				col_st[k] += st.stream_stored[k];
			}
			raw += len;
			coded += out.len;
			zsz += zn;
			samples += st.samples;
			verbatim += st.verbatim;
			chains += st.chains_new;
			nodes += st.nodes;
			blocks++;
		}
		printf("%s: %llu blocks, %llu samples, %llu verbatim, %llu new chains, %llu nodes\n",
		       argv[a], (unsigned long long)blocks, (unsigned long long)samples,
		       (unsigned long long)verbatim, (unsigned long long)chains,
		       (unsigned long long)nodes);
		printf("  raw %llu  zstd-%d %llu (%.2f B/sample)  sample-%d %llu (%.2f B/sample)  ratio %.3f\n",
		       (unsigned long long)raw, zlevel, (unsigned long long)zsz,
		       samples ? (double)zsz / (double)samples : 0, level, (unsigned long long)coded,
		       samples ? (double)coded / (double)samples : 0, zsz ? (double)coded / (double)zsz : 0);
		printf("  cpu MB/s: encode %.0f decode %.0f   zstd-%d compress %.0f decompress %.0f\n",
		       raw / 1e6 / (t_enc > 0 ? t_enc : 1e-9), raw / 1e6 / (t_dec > 0 ? t_dec : 1e-9),
		       zlevel, raw / 1e6 / (t_z > 0 ? t_z : 1e-9), raw / 1e6 / (t_zd > 0 ? t_zd : 1e-9));
		if (per_col)
			for (size_t k = 0; k < AMB_SAMPLE_STREAMS; k++)
				if (col_raw[k])
					printf("  %-12s %s raw %10zu stored %10zu  %.3f B/sample\n",
					       names[k / 2], k % 2 ? "hi" : "lo", col_raw[k], col_st[k],
					       samples ? (double)col_st[k] / (double)samples : 0);
		free(back);
		free(zbuf);
		ZSTD_freeCCtx(zc);
		ZSTD_freeDCtx(zd);
		amb_buf_free(&out);
		amb_payload_free(p);
		amb_sample_codec_free(enc);
		amb_sample_codec_free(dec);
		amb_reader_close(r);
	}
	return bad;
}
