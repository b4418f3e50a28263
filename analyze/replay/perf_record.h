/* SPDX-License-Identifier: MIT */
/*
 * analyze/replay/perf_record.h - the perf record parser (perf_record.c):
 * raw kernel records of one recording, in either byte order, to struct
 * ana_record, samples and sample_id trailers walked by
 * common/perf_sample.c.  Used by the session; declared apart for its
 * tests and fuzzer.
 */
#ifndef AMB_ANALYZE_PERF_RECORD_H
#define AMB_ANALYZE_PERF_RECORD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analyze/replay/replay.h"

struct ana_parser;

/*
 * A parser for the raw records of one recording.  @swap: records are in the
 * other byte order.  @lookup maps a sample id to its event (may be NULL),
 * the same event for the same id while the parser lives (its last answer
 * is kept).
 * @first_event (may be NULL: no sample fields are decoded) supplies the
 * sample_type and sample_id_all that locate PERF_SAMPLE_IDENTIFIER, shared
 * by all events of a recording (FORMAT.md §5.6); the record's own event then
 * decodes the rest.  The events are borrowed and must not change while the
 * parser lives (the layout of the last one met is kept).  Returns NULL
 * with errno = ENOMEM.  Free with ana_parser_free() (NULL accepted).
 */
struct ana_parser *ana_parser_new(bool swap,
				  const struct ana_event *(*lookup)(void *ctx, uint64_t id),
				  void *ctx, const struct ana_event *first_event);
void ana_parser_free(struct ana_parser *p);

/*
 * Let @p rely on its caller for speed (off by default).  With @borrow,
 * the caller promises that the bytes given to ana_parse_record() stay
 * valid and unchanged until the next call on @p, and that nobody else
 * writes into the union of the @rec it passes (the same record may be
 * passed again and again; the fields before the union are rewritten by
 * every call): a record in host byte order and 8-byte aligned is then
 * read in place instead of copied (@rec's pointers point into the
 * caller's bytes), and a sample of the common layouts (the fixed fields
 * IDENTIFIER .. PERIOD and CALLCHAIN) writes only the fields it carries
 * into a @rec the previous call left zero elsewhere.
 */
void ana_parser_set_borrow(struct ana_parser *p, bool borrow);

/*
 * Decode the record at @data (at most @len bytes available) into @rec.
 * Fields a record does not carry are 0, except pid/tid/cpu: UINT32_MAX.
 * Returns the record's size (> 0); -AMB_E_TRUNCATED when @len is shorter
 * than the header or header.size; -AMB_E_CORRUPT when header.size < 8 or a
 * field does not fit in the record (ana_parser_errmsg() says which).  The
 * record is copied into @p, so @data may go away after the call; @rec's
 * pointers stay valid until the next call on @p.
 */
int ana_parse_record(struct ana_parser *p, const uint8_t *data, size_t len,
		     struct ana_record *rec);

/* What was wrong with the record of the last failed ana_parse_record() on
 * @p ("callchain nr 4096 exceeds the record (size 64)"); "" if nothing. */
const char *ana_parser_errmsg(const struct ana_parser *p);

/* Convert an attr of @size bytes in the producer's order to host order. */
void ana_attr_to_host(struct perf_event_attr *dst, const uint8_t *src, uint32_t size, bool swap);

#endif /* AMB_ANALYZE_PERF_RECORD_H */
