/* SPDX-License-Identifier: MIT */
/*
 * analyze/tracepoint.h - decode tracepoint payloads (PERF_SAMPLE_RAW) with
 * libtraceevent, from the tracefs format files the recording carries
 * (TRACEFS block, FORMAT.md §5: "header_page" and "SYSTEM/EVENT" keys).
 */
#ifndef AMB_ANALYZE_TRACEPOINT_H
#define AMB_ANALYZE_TRACEPOINT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analyze/replay/replay.h"
#include <amber/common.h>

struct ana_tp;

/*
 * An empty decoder for payloads written by a producer of the given byte
 * order, sizeof(long) and page size.  NULL with errno set on failure.
 * Free with ana_tp_free() (NULL accepted).
 */
struct ana_tp *ana_tp_new(bool big_endian, int long_size, int page_size);
void ana_tp_free(struct ana_tp *tp);

/* Parse the tracefs events/header_page text.  0 or -AMB_E_CORRUPT. */
int ana_tp_add_header_page(struct ana_tp *tp, const char *text, size_t len);

/*
 * Parse one events/SYSTEM/EVENT/format text.  Returns 0, -AMB_E_CORRUPT
 * (the message, naming @system, goes through amb_warn) or -ENOMEM.
 */
int ana_tp_add_format(struct ana_tp *tp, const char *system, const char *text, size_t len);

/*
 * A decoder for every tracepoint event of @s, from its TRACEFS block.
 * Events whose format is missing or unparsable are warned about once and
 * left out.  NULL with errno set on -ENOMEM.
 */
struct ana_tp *ana_tp_from_session(struct ana_session *s);

/*
 * Append to @out the payload @raw of @size bytes formatted as the event's
 * print format says (libtraceevent TEP_PRINT_INFO), NUL-terminated.
 * Returns 0, -ENOENT when no known event has the payload's type, -ENOMEM.
 */
int ana_tp_format(struct ana_tp *tp, const uint8_t *raw, size_t size, struct amb_buf *out);

/*
 * Append to @out the value of field @name (common fields included) of the
 * payload, NUL-terminated: as the event's print format shows it, the text
 * script prints after "@name=" (sched_switch's prev_state "D", not 2),
 * else the field's value as libtraceevent prints it.  Returns 0, -ENOENT
 * when the event or the field is unknown, -ENOMEM.
 */
int ana_tp_field(struct ana_tp *tp, const uint8_t *raw, size_t size, const char *name,
		 struct amb_buf *out);

/* A field of a payload, as ana_tp_for_each_field() hands it over. */
struct ana_tp_value {
	const char *name;
	enum { ANA_TP_UNSIGNED, ANA_TP_SIGNED, ANA_TP_TEXT } kind;
	uint64_t u;             /* the number (a SIGNED one as two's complement) */
	const char *text;       /* TEXT: strings, and arrays as libtraceevent
				 * prints them; valid during the call */
};
typedef int (*ana_tp_field_fn)(void *ctx, const struct ana_tp_value *v);

/*
 * Call @fn for every field of the payload's event (not the common_*
 * ones), in format order: integers as numbers, the rest as text.  Stops
 * at @fn's first nonzero value and returns it; -ENOENT when no known
 * event has the payload's type.
 */
int ana_tp_for_each_field(struct ana_tp *tp, const uint8_t *raw, size_t size,
			  ana_tp_field_fn fn, void *ctx);

/*
 * Append to @out every known event with its fields ("sched:sched_switch:
 * prev_comm, prev_pid, ...; ..."), for messages.  Returns 1 when an event
 * has a field @name (NULL: never), 0 when none has, or -ENOMEM.
 */
int ana_tp_field_names(struct ana_tp *tp, const char *name, struct amb_buf *out);
/*
 * A field of one event, looked up once and then read from many payloads
 * without decoding them whole (the scheduler model reads sched_switch's
 * fields at every switch).  Owned by the decoder.
 */
struct ana_tp_field;

/*
 * The field @name (common fields included) of the event @system:@event, or
 * NULL when the recording has no format for that event or the event no
 * such field.
 */
const struct ana_tp_field *ana_tp_find_field(struct ana_tp *tp, const char *system,
					     const char *event, const char *name);

/*
 * The number in field @f of the payload @raw of @size bytes (an event of
 * @f's), in host byte order, zero-extended to 64 bits.  Returns 0,
 * -ERANGE when the payload ends before the field, -EINVAL when the field
 * is not a number (an array, a string, a __data_loc).
 */
int ana_tp_read_u64(struct ana_tp *tp, const struct ana_tp_field *f, const uint8_t *raw,
		    size_t size, uint64_t *val);

/*
 * The fixed-size char array field @f (prev_comm, comm ...) of the payload
 * @raw of @size bytes, NUL-terminated into @buf of @len bytes (cut to
 * fit).  Returns 0, -ERANGE when the payload ends before the field,
 * -EINVAL when the field is not a char array.
 */
int ana_tp_read_str(const struct ana_tp_field *f, const uint8_t *raw, size_t size, char *buf,
		    size_t len);

struct ana_ksym;

/* The kernel symbol holding @addr, and *@off into it; NULL when none does. */
typedef const struct ana_ksym *(*ana_tp_ksym_fn)(void *ctx, uint64_t addr, uint64_t *off);

/*
 * Name the kernel function pointers that print formats show with %ps, %pS,
 * %pf or %pF (as perf script does) through @fn; NULL, the default, leaves
 * them in hex.  @ctx is passed to @fn and must outlive @tp.
 */
void ana_tp_set_ksym_lookup(struct ana_tp *tp, ana_tp_ksym_fn fn, void *ctx);

/* "system:name" of the payload's event, or NULL. */
const char *ana_tp_event_name(struct ana_tp *tp, const uint8_t *raw, size_t size,
			      char *buf, size_t len);

#endif /* AMB_ANALYZE_TRACEPOINT_H */
