// SPDX-License-Identifier: MIT
/* Unit tests for analyze/tracepoint.c: payloads decoded with the format
 * text of the recording, and formats whose fields lie outside any payload
 * refused before libtraceevent could read there. */
#include <endian.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "analyze/resolve/resolve.h"
#include <amber/common.h>

#define FMT_HEAD                                                                       \
	"name: tiny\n"                                                                 \
	"ID: 7\n"                                                                      \
	"format:\n"                                                                    \
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"         \
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"         \
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n" \
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"                     \
	"\n"

static const char good_fmt[] = FMT_HEAD
	"\tfield:int value;\toffset:8;\tsize:4;\tsigned:1;\n"
	"\n"
	"print fmt: \"value=%d\", REC->value\n";

/* A field a gigabyte into a payload that is never that large. */
static const char far_fmt[] =
	"name: far\n"
	"ID: 9\n"
	"format:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
	"\n"
	"\tfield:int value;\toffset:1073741824;\tsize:4;\tsigned:1;\n"
	"\n"
	"print fmt: \"value=%d\", REC->value\n";

/* A payload of event @id with common_pid 1 and value @v (little-endian). */
static void payload(uint8_t p[12], uint16_t id, int32_t v)
{
	memset(p, 0, 12);
	amb_put_le16(p, id);
	amb_put_le32(p + 4, 1);
	amb_put_le32(p + 8, (uint32_t)v);
}

static char last_warning[256];

static void keep_warning(void *ctx, const char *msg)
{
	(void)ctx;
	snprintf(last_warning, sizeof(last_warning), "%s", msg);
}

static void test_decode(void **state)
{
	struct ana_tp *tp = ana_tp_new(false, 8, 4096);
	struct amb_buf out = { 0 };
	uint8_t p[12];

	(void)state;
	assert_non_null(tp);
	assert_int_equal(ana_tp_add_format(tp, "test", good_fmt, strlen(good_fmt)), 0);
	payload(p, 7, -42);
	assert_int_equal(ana_tp_field(tp, p, sizeof(p), "value", &out), 0);
	assert_string_equal(out.data, "-42");
	out.len = 0;
	assert_int_equal(ana_tp_format(tp, p, sizeof(p), &out), 0);
	assert_string_equal(out.data, "value=-42");
	payload(p, 8, 0);
	assert_int_equal(ana_tp_format(tp, p, sizeof(p), &out), -ENOENT);
	amb_buf_free(&out);
	ana_tp_free(tp);
}

static void test_field_out_of_reach(void **state)
{
	struct ana_tp *tp = ana_tp_new(false, 8, 4096);
	struct amb_buf out = { 0 };
	amb_warn_fn old;
	uint8_t p[12];

	(void)state;
	assert_non_null(tp);
	old = amb_set_warn(keep_warning, NULL);
	assert_int_equal(ana_tp_add_format(tp, "test", far_fmt, strlen(far_fmt)),
			 -AMB_E_CORRUPT);
	amb_set_warn(old, NULL);
	/* Refused for its field, not because libtraceevent could not parse it. */
	assert_non_null(strstr(last_warning, "test/far: field 'value' lies beyond"));
	/* The refused event is unknown; a good one added after it works. */
	payload(p, 9, 5);
	assert_int_equal(ana_tp_field(tp, p, sizeof(p), "value", &out), -ENOENT);
	assert_int_equal(ana_tp_add_format(tp, "test", good_fmt, strlen(good_fmt)), 0);
	payload(p, 7, 5);
	assert_int_equal(ana_tp_field(tp, p, sizeof(p), "value", &out), 0);
	assert_string_equal(out.data, "5");
	amb_buf_free(&out);
	ana_tp_free(tp);
}

/* Fields shown through symbols and a ternary, as sched_switch's prev_state. */
static const char sym_fmt[] =
	"name: sym\n"
	"ID: 11\n"
	"format:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
	"\n"
	"\tfield:char comm[8];\toffset:8;\tsize:8;\tsigned:0;\n"
	"\tfield:long state;\toffset:16;\tsize:8;\tsigned:1;\n"
	"\tfield:int delta;\toffset:24;\tsize:4;\tsigned:1;\n"
	"\tfield:int xstate;\toffset:28;\tsize:4;\tsigned:1;\n"
	"\n"
	"print fmt: \"comm=%s state=%s%s delta=%d %d%%\", REC->comm, "
	"__print_symbolic(REC->state & 15, { 0, \"R\" }, { 1, \"S\" }, { 2, \"D\" }), "
	"REC->state & 16 ? \"+\" : \"\", REC->delta, REC->xstate\n";

static void sym_payload(uint8_t p[32], const char *comm, int64_t state, int32_t delta)
{
	memset(p, 0, 32);
	amb_put_le16(p, 11);
	amb_put_le32(p + 4, 1);
	memcpy(p + 8, comm, strlen(comm));
	amb_put_le64(p + 16, (uint64_t)state);
	amb_put_le32(p + 24, (uint32_t)delta);
	amb_put_le32(p + 28, 7);
}

struct seen {
	char text[256];
};

static int note_field(void *ctx, const struct ana_tp_value *v)
{
	struct seen *s = ctx;
	size_t n = strlen(s->text);

	if (v->kind == ANA_TP_TEXT)
		snprintf(s->text + n, sizeof(s->text) - n, "%s='%s' ", v->name, v->text);
	else if (v->kind == ANA_TP_SIGNED)
		snprintf(s->text + n, sizeof(s->text) - n, "%s=%lld ", v->name, (long long)v->u);
	else
		snprintf(s->text + n, sizeof(s->text) - n, "%s=%llu ", v->name,
			 (unsigned long long)v->u);
	return 0;
}

static void test_field_as_printed(void **state)
{
	struct ana_tp *tp = ana_tp_new(false, 8, 4096);
	struct amb_buf out = { 0 };
	struct seen seen = { "" };
	uint8_t p[32];

	(void)state;
	assert_non_null(tp);
	assert_int_equal(ana_tp_add_format(tp, "test", sym_fmt, strlen(sym_fmt)), 0);
	sym_payload(p, "a b", 2, -3);
	assert_int_equal(ana_tp_format(tp, p, sizeof(p), &out), 0);
	assert_string_equal(out.data, "comm=a b state=D delta=-3 7%");
	/* As printed: the symbol, not the number; a name with a space whole. */
	out.len = 0;
	assert_int_equal(ana_tp_field(tp, p, sizeof(p), "state", &out), 0);
	assert_string_equal(out.data, "D");
	out.len = 0;
	assert_int_equal(ana_tp_field(tp, p, sizeof(p), "comm", &out), 0);
	assert_string_equal(out.data, "a b");
	out.len = 0;
	assert_int_equal(ana_tp_field(tp, p, sizeof(p), "delta", &out), 0);
	assert_string_equal(out.data, "-3");
	/* Two conversions after one label: the text of both. */
	sym_payload(p, "x", 16, 0);
	out.len = 0;
	assert_int_equal(ana_tp_field(tp, p, sizeof(p), "state", &out), 0);
	assert_string_equal(out.data, "R+");
	/* A field the format shows without a label: its own value. */
	out.len = 0;
	assert_int_equal(ana_tp_field(tp, p, sizeof(p), "xstate", &out), 0);
	assert_string_equal(out.data, "7");
	out.len = 0;
	assert_int_equal(ana_tp_field(tp, p, sizeof(p), "common_pid", &out), 0);
	assert_string_equal(out.data, "1");
	/* Every field with its value, numbers as numbers. */
	sym_payload(p, "a b", 2, -3);
	assert_int_equal(ana_tp_for_each_field(tp, p, sizeof(p), note_field, &seen), 0);
	assert_string_equal(seen.text, "comm='a b' state=2 delta=-3 xstate=7 ");
	/* The fields of the known events, and whether one has a field. */
	assert_int_equal(ana_tp_add_format(tp, "test", good_fmt, strlen(good_fmt)), 0);
	out.len = 0;
	assert_int_equal(ana_tp_field_names(tp, "delta", &out), 1);
	assert_non_null(strstr((const char *)out.data, "test:sym: comm, state, delta, xstate"));
	assert_non_null(strstr((const char *)out.data, "test:tiny: value"));
	out.len = 0;
	assert_int_equal(ana_tp_field_names(tp, "nope", &out), 0);
	amb_buf_free(&out);
	ana_tp_free(tp);
}

static const char comm_fmt[] = FMT_HEAD
	"\tfield:char comm[16];\toffset:8;\tsize:16;\tsigned:0;\n"
	"\tfield:long state;\toffset:24;\tsize:8;\tsigned:1;\n"
	"\n"
	"print fmt: \"comm=%s state=%ld\", REC->comm, REC->state\n";

/* Fields found once, read from payloads of either byte order. */
static void test_field_handles(void **state)
{
	struct ana_tp *tp = ana_tp_new(false, 8, 4096), *be = ana_tp_new(true, 8, 4096);
	const struct ana_tp_field *comm, *st, *pid;
	uint8_t p[32] = { 0 };
	uint64_t v, be2 = htobe64(2);
	char buf[8];

	(void)state;
	assert_non_null(tp);
	assert_non_null(be);
	assert_null(ana_tp_find_field(tp, "test", "tiny", "comm"));
	assert_int_equal(ana_tp_add_format(tp, "test", comm_fmt, strlen(comm_fmt)), 0);
	assert_int_equal(ana_tp_add_format(be, "test", comm_fmt, strlen(comm_fmt)), 0);
	assert_null(ana_tp_find_field(tp, "test", "nosuch", "comm"));
	assert_null(ana_tp_find_field(tp, "test", "tiny", "nosuch"));
	comm = ana_tp_find_field(tp, "test", "tiny", "comm");
	st = ana_tp_find_field(tp, "test", "tiny", "state");
	pid = ana_tp_find_field(tp, "test", "tiny", "common_pid");
	assert_non_null(comm);
	assert_non_null(st);
	assert_non_null(pid);
	memcpy(p + 8, "worker-12345678", 16);
	amb_put_le64(p + 24, 0x102);
	amb_put_le32(p + 4, 77);
	assert_int_equal(ana_tp_read_u64(tp, st, p, sizeof(p), &v), 0);
	assert_int_equal(v, 0x102);
	assert_int_equal(ana_tp_read_u64(tp, pid, p, sizeof(p), &v), 0);
	assert_int_equal(v, 77);
	/* A short payload; a string read as a number. */
	assert_int_equal(ana_tp_read_u64(tp, st, p, 31, &v), -ERANGE);
	assert_int_equal(ana_tp_read_u64(tp, comm, p, sizeof(p), &v), -EINVAL);
	/* Strings are cut to the buffer and to the field. */
	assert_int_equal(ana_tp_read_str(comm, p, sizeof(p), buf, sizeof(buf)), 0);
	assert_string_equal(buf, "worker-");
	assert_int_equal(ana_tp_read_str(comm, p, 20, buf, sizeof(buf)), -ERANGE);
	assert_int_equal(ana_tp_read_str(st, p, sizeof(p), buf, sizeof(buf)), -EINVAL);
	/* A big-endian producer's payload. */
	st = ana_tp_find_field(be, "test", "tiny", "state");
	assert_non_null(st);
	memcpy(p + 24, &be2, 8);
	assert_int_equal(ana_tp_read_u64(be, st, p, sizeof(p), &v), 0);
	assert_int_equal(v, 2);
	ana_tp_free(tp);
	ana_tp_free(be);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_decode),
		cmocka_unit_test(test_field_handles),
		cmocka_unit_test(test_field_out_of_reach),
		cmocka_unit_test(test_field_as_printed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
