// SPDX-License-Identifier: MIT
/*
 * analyze/tracepoint.c - tracepoint payloads decoded with libtraceevent from
 * the format files stored in the recording (never the analysing host's).
 *
 * libtraceevent trusts the payload: fields are read at the offsets the
 * format gives, and __data_loc fields at offsets the payload itself holds
 * (16-bit offset and length).  A payload is therefore decoded from a
 * scratch copy followed by enough zeroed bytes that no such read leaves it.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <traceevent/event-parse.h>
#include <traceevent/trace-seq.h>

#include "analyze/resolve/ksyms.h"
#include "analyze/resolve/tracepoint.h"

/* Largest offset + length a __data_loc word can express. */
#define DATA_LOC_REACH (2u * 65536u)
/* Payloads above this are not decoded (the kernel caps them far lower). */
#define RAW_MAX (1u << 20)

struct ana_tp {
	struct tep_handle *tep;
	int long_size;
	uint8_t *scratch;       /* RAW_MAX + DATA_LOC_REACH bytes, zero past use */
	struct trace_seq seq;
	ana_tp_ksym_fn ksym;    /* names %ps pointers; see ana_tp_set_ksym_lookup() */
	void *ksym_ctx;
};

struct ana_tp *ana_tp_new(bool big_endian, int long_size, int page_size)
{
	struct ana_tp *tp = calloc(1, sizeof(*tp));

	if (!tp)
		return NULL;
	/* libtraceevent prints nothing itself: recorded format text would
	 * reach the terminal raw; this file warns through amb_warn(). */
	tep_set_loglevel(TEP_LOG_NONE);
	tp->tep = tep_alloc();
	tp->scratch = calloc(1, RAW_MAX + DATA_LOC_REACH);
	if (!tp->tep || !tp->scratch) {
		ana_tp_free(tp);
		errno = ENOMEM;
		return NULL;
	}
	tp->long_size = long_size == 4 ? 4 : 8;
	tep_set_file_bigendian(tp->tep, big_endian ? TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
	tep_set_local_bigendian(tp->tep, amb_host_is_le() ? TEP_LITTLE_ENDIAN : TEP_BIG_ENDIAN);
	tep_set_long_size(tp->tep, tp->long_size);
	tep_set_page_size(tp->tep, page_size > 0 ? page_size : 4096);
	trace_seq_init(&tp->seq);
	return tp;
}

void ana_tp_free(struct ana_tp *tp)
{
	if (!tp)
		return;
	if (tp->tep)
		tep_free(tp->tep);
	trace_seq_destroy(&tp->seq);
	free(tp->scratch);
	free(tp);
}

int ana_tp_add_header_page(struct ana_tp *tp, const char *text, size_t len)
{
	char *copy = malloc(len + 1);
	int err;

	if (!copy)
		return -ENOMEM;
	memcpy(copy, text, len);
	copy[len] = '\0';
	err = tep_parse_header_page(tp->tep, copy, len, tp->long_size);
	free(copy);
	return err ? -AMB_E_CORRUPT : 0;
}

/*
 * True when every field of @ev lies within RAW_MAX bytes of the payload's
 * start.  The offsets come from the recording's format text, and
 * libtraceevent reads at them without knowing the payload's size.  A
 * __rel_loc field reaches at most 2 * 65535 bytes past its end, within the
 * scratch area's DATA_LOC_REACH.
 */
static bool fields_in_reach(const struct tep_format_field *f, const char **bad)
{
	for (; f; f = f->next) {
		if (f->offset < 0 || f->size < 0 ||
		    (unsigned)f->offset + (unsigned)f->size > RAW_MAX) {
			*bad = f->name;
			return false;
		}
	}
	return true;
}

/* A handle configured as @tp's, for trying a format before @tp takes it. */
static struct tep_handle *tep_like(const struct ana_tp *tp)
{
	struct tep_handle *t = tep_alloc();

	if (!t)
		return NULL;
	tep_set_file_bigendian(t, tep_is_file_bigendian(tp->tep) ? TEP_BIG_ENDIAN
								 : TEP_LITTLE_ENDIAN);
	tep_set_local_bigendian(t, tep_is_local_bigendian(tp->tep) ? TEP_BIG_ENDIAN
								   : TEP_LITTLE_ENDIAN);
	tep_set_long_size(t, tp->long_size);
	tep_set_page_size(t, tep_get_page_size(tp->tep));
	return t;
}

int ana_tp_add_format(struct ana_tp *tp, const char *system, const char *text, size_t len)
{
	struct tep_handle *trial = tep_like(tp);
	struct tep_event *ev = NULL;
	const char *bad = NULL;
	enum tep_errno terr;
	char msg[128];
	int err = 0;

	if (!trial)
		return -ENOMEM;
	/*
	 * An event, once parsed, cannot be taken out of a tep_handle: the
	 * format is checked in a trial handle first, so that only formats
	 * whose fields stay in the payload reach @tp.
	 */
	terr = tep_parse_format(trial, &ev, text, len, system);
	if (ev && (!fields_in_reach(ev->format.common_fields, &bad) ||
		   !fields_in_reach(ev->format.fields, &bad))) {
		amb_warn("tracefs format of %s/%s: field '%s' lies beyond %u bytes of the "
			 "payload; ignored", system, ev->name, bad, RAW_MAX);
		err = -AMB_E_CORRUPT;
		goto out;
	}
	if (terr != TEP_ERRNO__MEM_ALLOC_FAILED)
		terr = tep_parse_event(tp->tep, text, len, system);
	if (terr == TEP_ERRNO__MEM_ALLOC_FAILED) {
		err = -ENOMEM;
	} else if (terr) {
		tep_strerror(tp->tep, terr, msg, sizeof(msg));
		amb_warn("tracefs format of %s/...: %s", system, msg);
		err = -AMB_E_CORRUPT;
	}
out:
	tep_free(trial);
	return err;
}

struct ana_tp *ana_tp_from_session(struct ana_session *s)
{
	const struct amb_file_header *fh = amb_reader_header(ana_session_reader(s));
	const char *ps = ana_session_meta(s, "page_size");
	const char *text;
	struct ana_tp *tp;
	size_t i, len;

	tp = ana_tp_new(fh->producer_endian == AMB_ENDIAN_BIG, fh->producer_word_size,
			ps ? atoi(ps) : 4096);
	if (!tp)
		return NULL;
	text = ana_session_tracefs(s, "header_page", &len);
	if (text && ana_tp_add_header_page(tp, text, len))
		amb_warn("tracefs header_page: cannot be parsed; using defaults");
	for (i = 0; i < ana_session_event_count(s); i++) {
		const struct ana_event *e = ana_session_event(s, i);
		char key[256], sys[128];
		const char *colon;

		if (!e->tracepoint || !e->name)
			continue;
		colon = strchr(e->name, ':');
		if (!colon || (size_t)(colon - e->name) >= sizeof(sys) ||
		    snprintf(key, sizeof(key), "%.*s/%s", (int)(colon - e->name), e->name,
			     colon + 1) >= (int)sizeof(key)) {
			amb_warn("event %u '%s': not a SYSTEM:EVENT tracepoint name", e->index, e->name);
			continue;
		}
		memcpy(sys, e->name, (size_t)(colon - e->name));
		sys[colon - e->name] = '\0';
		text = ana_session_tracefs(s, key, &len);
		if (!text) {
			amb_warn("event %u '%s': no tracefs format recorded; payloads not decoded",
				 e->index, e->name);
			continue;
		}
		if (ana_tp_add_format(tp, sys, text, len) == -ENOMEM) {
			ana_tp_free(tp);
			errno = ENOMEM;
			return NULL;
		}
	}
	return tp;
}

/* Copy @raw into the scratch area and find its event; NULL if none. */
static struct tep_event *tp_prepare(struct ana_tp *tp, const uint8_t *raw, size_t size,
				    struct tep_record *rec)
{
	struct tep_event *ev;

	if (!size || size > RAW_MAX)
		return NULL;
	memcpy(tp->scratch, raw, size);
	memset(rec, 0, sizeof(*rec));
	rec->data = tp->scratch;
	rec->size = (int)size;
	ev = tep_find_event_by_record(tp->tep, rec);
	if (!ev)
		memset(tp->scratch, 0, size);
	return ev;
}

static int seq_to_buf(struct trace_seq *seq, struct amb_buf *out)
{
	int err;

	trace_seq_terminate(seq);
	err = amb_buf_append(out, seq->buffer, seq->len + 1);
	if (!err)
		out->len--;   /* keep the NUL outside len, like amb_buf_printf */
	trace_seq_reset(seq);
	return err;
}

int ana_tp_format(struct ana_tp *tp, const uint8_t *raw, size_t size, struct amb_buf *out)
{
	struct tep_record rec;
	struct tep_event *ev = tp_prepare(tp, raw, size, &rec);

	if (!ev)
		return -ENOENT;
	tep_print_event(tp->tep, &tp->seq, &rec, "%s", TEP_PRINT_INFO);
	memset(tp->scratch, 0, size);
	return seq_to_buf(&tp->seq, out);
}

/* The length of the conversion at @f ('%'), as libtraceevent reads print
 * formats; 0 for "%%", which prints a literal '%'. */
static size_t conversion_len(const char *f)
{
	size_t i = 1;

	if (f[1] == '%')
		return 0;
	while (f[i] && strchr("-+ #0123456789.*hlLzjt", f[i]))
		i++;
	if (!f[i])
		return i;
	/* %p takes letters that select a printer: %pS, %ps, %pM, %pI4 ... */
	if (f[i] == 'p')
		while (f[i + 1] && strchr("FfSsMmIiUx46hnbl", f[i + 1]))
			i++;
	return i + 1;
}

/*
 * Where field @name's value lies in @out, the event's payload as its print
 * format printed it: after "@name=" in the format, up to the format's next
 * literal text.  The literal pieces of the format are found in @out in
 * order (a conversion's text runs up to the next piece).  Returns false
 * when the format does not label the field or @out does not follow it.
 */
static bool labelled_value(const char *fmt, const char *name, const char *out, size_t *at,
			   size_t *len)
{
	size_t nlen = strlen(name), opos = 0;
	const char *f = fmt;
	bool after_conv = false, in_value = false;
	char lit[256];
	size_t nlit = 0;

	for (;;) {
		size_t clen = *f == '%' ? conversion_len(f) : 0;

		if (*f && !(*f == '%' && clen)) {
			/* Literal text ("%%" is a '%'). */
			if (nlit + 1 < sizeof(lit))
				lit[nlit++] = *f;
			f += *f == '%' ? 2 : 1;
			continue;
		}
		/* A literal piece ends here: find it in @out. */
		lit[nlit] = '\0';
		if (nlit) {
			const char *hit = after_conv ? strstr(out + opos, lit)
						     : (!strncmp(out + opos, lit, nlit) ? out + opos : NULL);

			if (!hit)
				return false;
			if (in_value) {
				*len = (size_t)(hit - out) - *at;
				return true;
			}
			opos = (size_t)(hit - out) + nlit;
		}
		if (!*f)
			break;
		/* A conversion: is the literal before it "... @name="? */
		if (!in_value && nlit > nlen && lit[nlit - 1] == '=' &&
		    !strncmp(lit + nlit - 1 - nlen, name, nlen) &&
		    (nlit == nlen + 1 || !(isalnum((unsigned char)lit[nlit - 2 - nlen]) ||
					   lit[nlit - 2 - nlen] == '_'))) {
			in_value = true;
			*at = opos;
		}
		nlit = 0;
		after_conv = true;
		f += clen;
	}
	if (in_value) {
		*len = strlen(out) - *at;
		return true;
	}
	return false;
}

/* "@name=VALUE" as a word of @out (perf's way, for formats that do not
 * follow the rule above): VALUE up to the next space. */
static bool word_value(const char *out, const char *name, size_t *at, size_t *len)
{
	size_t nlen = strlen(name);

	for (const char *p = out; (p = strstr(p, name)); p++) {
		if ((p == out || p[-1] == ' ') && p[nlen] == '=') {
			*at = (size_t)(p + nlen + 1 - out);
			*len = strcspn(out + *at, " ");
			return true;
		}
	}
	return false;
}

int ana_tp_field(struct ana_tp *tp, const uint8_t *raw, size_t size, const char *name,
		 struct amb_buf *out)
{
	struct tep_record rec;
	struct tep_event *ev = tp_prepare(tp, raw, size, &rec);
	struct tep_format_field *f;
	size_t at = 0, len = 0;
	int err;

	if (!ev)
		return -ENOENT;
	f = tep_find_any_field(ev, name);
	if (!f) {
		memset(tp->scratch, 0, size);
		return -ENOENT;
	}
	/* As the event's print format shows it (prev_state=D, not 1), the
	 * way script prints the payload; else the field's own value. */
	if (f->name && strncmp(f->name, "common_", 7) && ev->print_fmt.format) {
		tep_print_event(tp->tep, &tp->seq, &rec, "%s", TEP_PRINT_INFO);
		trace_seq_terminate(&tp->seq);
		if (labelled_value(ev->print_fmt.format, name, tp->seq.buffer, &at, &len) ||
		    word_value(tp->seq.buffer, name, &at, &len)) {
			err = amb_buf_append(out, tp->seq.buffer + at, len);
			if (!err)
				err = amb_buf_append(out, "", 1);
			if (!err)
				out->len--;
			trace_seq_reset(&tp->seq);
			memset(tp->scratch, 0, size);
			return err;
		}
		trace_seq_reset(&tp->seq);
	}
	tep_print_field_content(&tp->seq, rec.data, rec.size, f);
	memset(tp->scratch, 0, size);
	return seq_to_buf(&tp->seq, out);
}

int ana_tp_for_each_field(struct ana_tp *tp, const uint8_t *raw, size_t size,
			  ana_tp_field_fn fn, void *ctx)
{
	struct tep_record rec;
	struct tep_event *ev = tp_prepare(tp, raw, size, &rec);
	struct tep_format_field *f;
	int ret = 0;

	if (!ev)
		return -ENOENT;
	for (f = ev->format.fields; f && !ret; f = f->next) {
		struct ana_tp_value v = { .name = f->name };
		unsigned long long n;

		if (!(f->flags & (TEP_FIELD_IS_ARRAY | TEP_FIELD_IS_STRING | TEP_FIELD_IS_DYNAMIC)) &&
		    (f->size == 1 || f->size == 2 || f->size == 4 || f->size == 8) &&
		    !tep_read_number_field(f, rec.data, &n)) {
			v.kind = f->flags & TEP_FIELD_IS_SIGNED ? ANA_TP_SIGNED : ANA_TP_UNSIGNED;
			v.u = n;
			/* Sign-extend from the field's width. */
			if (v.kind == ANA_TP_SIGNED && f->size < 8 && (n >> (8 * f->size - 1) & 1))
				v.u = n | ~0ull << (8 * f->size);
		} else {
			tep_print_field_content(&tp->seq, rec.data, rec.size, f);
			trace_seq_terminate(&tp->seq);
			v.kind = ANA_TP_TEXT;
			v.text = tp->seq.buffer;
		}
		ret = fn(ctx, &v);
		trace_seq_reset(&tp->seq);
	}
	memset(tp->scratch, 0, size);
	return ret;
}

int ana_tp_field_names(struct ana_tp *tp, const char *name, struct amb_buf *out)
{
	struct tep_event **evs = tep_list_events(tp->tep, TEP_EVENT_SORT_SYSTEM);
	bool found = false;

	for (size_t i = 0; evs && evs[i]; i++) {
		struct tep_format_field *f;
		const char *sep = ": ";

		if (name && tep_find_field(evs[i], name))
			found = true;
		if (amb_buf_printf(out, "%s%s:%s", out->len ? "; " : "", evs[i]->system,
				   evs[i]->name))
			return -ENOMEM;
		for (f = evs[i]->format.fields; f; f = f->next, sep = ", ")
			if (amb_buf_printf(out, "%s%s", sep, f->name))
				return -ENOMEM;
	}
	return found ? 1 : 0;
}

/* The handle is libtraceevent's own field: it lives as long as the tep. */
static const struct tep_format_field *tep_field(const struct ana_tp_field *f)
{
	return (const struct tep_format_field *)f;
}

const struct ana_tp_field *ana_tp_find_field(struct ana_tp *tp, const char *system,
					     const char *event, const char *name)
{
	struct tep_event *ev = tep_find_event_by_name(tp->tep, system, event);

	return ev ? (const struct ana_tp_field *)tep_find_any_field(ev, name) : NULL;
}

/* The field lies inside a payload of @size bytes. */
static bool field_fits(const struct tep_format_field *f, size_t size)
{
	return f->offset >= 0 && f->size > 0 && (size_t)f->offset + (size_t)f->size <= size;
}

int ana_tp_read_u64(struct ana_tp *tp, const struct ana_tp_field *fld, const uint8_t *raw,
		    size_t size, uint64_t *val)
{
	const struct tep_format_field *f = tep_field(fld);

	if (f->flags & (TEP_FIELD_IS_ARRAY | TEP_FIELD_IS_STRING | TEP_FIELD_IS_DYNAMIC |
			TEP_FIELD_IS_RELATIVE) ||
	    (f->size != 1 && f->size != 2 && f->size != 4 && f->size != 8))
		return -EINVAL;
	if (!field_fits(f, size))
		return -ERANGE;
	/* Swaps the producer's byte order as the tep was told (ana_tp_new). */
	*val = tep_read_number(tp->tep, raw + f->offset, f->size);
	return 0;
}

int ana_tp_read_str(const struct ana_tp_field *fld, const uint8_t *raw, size_t size, char *buf,
		    size_t len)
{
	const struct tep_format_field *f = tep_field(fld);
	size_t n;

	if (!(f->flags & TEP_FIELD_IS_ARRAY) || (f->flags & TEP_FIELD_IS_DYNAMIC) || !len)
		return -EINVAL;
	if (!field_fits(f, size))
		return -ERANGE;
	n = strnlen((const char *)raw + f->offset, (size_t)f->size);
	n = n < len - 1 ? n : len - 1;
	memcpy(buf, raw + f->offset, n);
	buf[n] = '\0';
	return 0;
}

/* tep_func_resolver_t: libtraceevent prints the name it returns, and the
 * offset from *@addrp (moved to the symbol's start) for %pS. */
static char *resolve_ksym(void *priv, unsigned long long *addrp, char **modp)
{
	struct ana_tp *tp = priv;
	const struct ana_ksym *k;
	uint64_t off;

	k = tp->ksym(tp->ksym_ctx, *addrp, &off);
	if (!k)
		return NULL;
	*addrp -= off;
	*modp = (char *)k->module;      /* libtraceevent only reads them */
	return (char *)k->name;
}

void ana_tp_set_ksym_lookup(struct ana_tp *tp, ana_tp_ksym_fn fn, void *ctx)
{
	tp->ksym = fn;
	tp->ksym_ctx = ctx;
	if (fn)
		tep_set_function_resolver(tp->tep, resolve_ksym, tp);
	else
		tep_reset_function_resolver(tp->tep);
}

const char *ana_tp_event_name(struct ana_tp *tp, const uint8_t *raw, size_t size,
			      char *buf, size_t len)
{
	struct tep_record rec;
	struct tep_event *ev = tp_prepare(tp, raw, size, &rec);

	if (!ev)
		return NULL;
	memset(tp->scratch, 0, size);
	snprintf(buf, len, "%s:%s", ev->system, ev->name);
	return buf;
}
