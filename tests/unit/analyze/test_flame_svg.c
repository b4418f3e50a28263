// SPDX-License-Identifier: MIT
/* Unit tests for analyze/flame_svg.c: escaping, layout, colours, options,
 * write errors. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "analyze/view/flame_svg.h"
#include "analyze/view/stacks.h"

static char *escaped(const char *s, size_t max)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	assert_int_equal(ana_fsvg_put_escaped(f, s, max), 0);
	assert_int_equal(fclose(f), 0);
	return buf;
}

#define assert_escaped(in, max, out)                     \
	do {                                             \
		char *e_ = escaped((in), (max));         \
		assert_string_equal(e_, (out));          \
		free(e_);                                \
	} while (0)

static void test_escape(void **state)
{
	(void)state;
	assert_escaped("operator<<(a&b, \"c\", 'd')>", 0,
		       "operator&lt;&lt;(a&amp;b, &quot;c&quot;, &apos;d&apos;)&gt;");
	/* Control characters print as escapes (the rule of every output). */
	assert_escaped("tab\there\x01\x7f", 0, "tab\\x09here\\x01\\x7f");
	assert_escaped("\x1b[31mred\xc2\x9b", 0, "\\x1b[31mred\\xc2\\x9b");
	/* Valid UTF-8 is kept; stray, overlong and surrogate bytes are not. */
	assert_escaped("caf\xc3\xa9", 0, "caf\xc3\xa9");
	assert_escaped("bad\xff\xc3", 0, "bad\\xff\\xc3");
	assert_escaped("\xc0\xaf", 0, "\\xc0\\xaf");
	assert_escaped("\xed\xa0\x80", 0, "\\xed\\xa0\\x80");
	assert_escaped("\xef\xbf\xbf", 0, "\\xef\\xbf\\xbf");
	/* Cuts count characters and end with "..". */
	assert_escaped("abcdefgh", 8, "abcdefgh");
	assert_escaped("abcdefgh", 5, "abc..");
	assert_escaped("\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9xyz", 5, "\xc3\xa9\xc3\xa9\xc3\xa9..");
	assert_escaped("<<<<<<", 4, "&lt;&lt;..");
}

struct frame {
	uint64_t s, w;
	unsigned d;
	double x, width;
	char fill[32];
};

/* Parse the frames of an SVG written by ana_fsvg_write(). */
static size_t parse_frames(const char *svg, struct frame *v, size_t max)
{
	const char *p = svg;
	size_t n = 0;

	while ((p = strstr(p, "<g class=\"f\" ")) && n < max) {
		struct frame *f = &v[n++];
		const char *r;

		assert_int_equal(sscanf(p, "<g class=\"f\" data-s=\"%" SCNu64 "\" data-w=\"%" SCNu64
					"\" data-d=\"%u\">", &f->s, &f->w, &f->d), 3);
		r = strstr(p, "<rect ");
		assert_non_null(r);
		assert_int_equal(sscanf(r, "<rect x=\"%lf\" y=\"%*f\" width=\"%lf\" height=\"%*d\" "
					"fill=\"%31[^\"]\"", &f->x, &f->width, f->fill), 3);
		p = r;
	}
	return n;
}

static char *render(const struct ana_stk_tree *t, const struct ana_fsvg_opts *o)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	assert_int_equal(ana_fsvg_write(f, t, o), 0);
	assert_int_equal(fclose(f), 0);
	return buf;
}

static struct ana_stk_tree *sample_tree(void)
{
	const struct ana_stk_frame s1[] = { { "main", ANA_STK_USER }, { "work", ANA_STK_USER },
					{ "<evil & \"name\">", ANA_STK_INLINE } };
	const struct ana_stk_frame s2[] = { { "main", ANA_STK_USER }, { "sys_read", ANA_STK_KERNEL } };
	const struct ana_stk_frame s3[] = { { "main", ANA_STK_USER }, { "0x1234", ANA_STK_UNKNOWN } };
	struct ana_stk_tree *t = ana_stk_tree_new();

	assert_non_null(t);
	assert_int_equal(ana_stk_tree_add(t, s1, 3, 0, 50), 0);
	assert_int_equal(ana_stk_tree_add(t, s1, 2, 0, 20), 0);
	assert_int_equal(ana_stk_tree_add(t, s2, 2, 0, 25), 0);
	assert_int_equal(ana_stk_tree_add(t, s3, 2, 0, 4), 0);
	assert_int_equal(ana_stk_tree_add(t, s1, 1, 0, 1), 0);
	/* The second slot: work grew, sys_read shrank. */
	assert_int_equal(ana_stk_tree_add(t, s1, 3, 1, 90), 0);
	assert_int_equal(ana_stk_tree_add(t, s2, 2, 1, 10), 0);
	assert_int_equal(ana_stk_tree_sort(t), 0);
	return t;
}

static void test_layout(void **state)
{
	struct ana_stk_tree *t = sample_tree();
	struct ana_fsvg_opts o = { .title = "T&T", .width = 1000, .min_width = -1 };
	struct frame v[32];
	char *svg = render(t, &o);
	size_t n = parse_frames(svg, v, 32), i, j;
	double scale = (1000.0 - 20) / 100;

	(void)state;
	/* Every node is drawn: root, main, work, evil, sys_read, 0x1234. */
	assert_int_equal(n, ana_stk_tree_count(t));
	assert_non_null(strstr(svg, "&lt;evil &amp; &quot;name&quot;&gt;"));
	assert_null(strstr(svg, "<evil"));
	assert_non_null(strstr(svg, ">T&amp;T</text>"));
	assert_non_null(strstr(svg, "<script type=\"text/ecmascript\"><![CDATA["));
	for (i = 0; i < n; i++) {
		uint64_t sum = 0;

		assert_true(fabs(v[i].width - (double)v[i].w * scale) < 0.01);
		assert_true(fabs(v[i].x - (10 + (double)v[i].s * scale)) < 0.01);
		if (!v[i].d) {
			assert_int_equal(v[i].w, 100);
			continue;
		}
		/* Children lie inside their parent, side by side. */
		for (j = 0; j < n; j++)
			if (v[j].d == v[i].d + 1 && v[j].s >= v[i].s && v[j].s < v[i].s + v[i].w) {
				assert_true(v[j].s + v[j].w <= v[i].s + v[i].w);
				sum += v[j].w;
			}
		assert_true(sum <= v[i].w);
	}
	/* all (100) = main (100); main = work (70) + sys_read (25) + 0x1234 (4)
	 * + its own 1, to the right of its children. */
	for (i = 0; i < n; i++) {
		uint64_t sum = 0;

		for (j = 0; j < n; j++)
			if (v[j].d == v[i].d + 1 && v[j].s >= v[i].s && v[j].s < v[i].s + v[i].w)
				sum += v[j].w;
		if (v[i].d == 0)
			assert_int_equal(sum, 100);
		else if (v[i].d == 1)
			assert_int_equal(sum, 99);
	}
	free(svg);

	/* min_width drops what is too narrow: 0x1234 is 4 * 9.8 px. */
	o.min_width = 40;
	svg = render(t, &o);
	assert_int_equal(parse_frames(svg, v, 32), ana_stk_tree_count(t) - 1);
	assert_null(strstr(svg, "0x1234"));
	free(svg);
	o.slot = ANA_STK_SLOTS;
	assert_int_equal(ana_fsvg_write(stdout, t, &o), -EINVAL);
	ana_stk_tree_free(t);
}

static const struct frame *find(const struct frame *v, size_t n, const char *svg,
				const char *name)
{
	const char *p = strstr(svg, name);
	const char *g;
	size_t i = 0;

	assert_non_null(p);
	/* The frame whose <g> precedes the first mention of @name. */
	for (g = svg; (g = strstr(g, "<g class=\"f\" ")) && g < p; g++)
		i++;
	assert_true(i >= 1 && i <= n);
	return &v[i - 1];
}

static void test_colours(void **state)
{
	struct ana_stk_tree *t = sample_tree();
	struct ana_fsvg_opts o = { .min_width = -1 };
	struct frame v[32];
	char *svg = render(t, &o);
	size_t n = parse_frames(svg, v, 32);
	unsigned r, g, b;

	(void)state;
	/* Kernel orange, inlined aqua, unknown grey, user red. */
	assert_int_equal(sscanf(find(v, n, svg, "sys_read")->fill, "rgb(%u,%u,%u)", &r, &g, &b), 3);
	assert_true(r >= 225 && g >= 135 && g <= 190 && b <= 50);
	assert_int_equal(sscanf(find(v, n, svg, "&lt;evil")->fill, "rgb(%u,%u,%u)", &r, &g, &b), 3);
	assert_true(r <= 110 && g >= 190 && b >= 190);
	assert_int_equal(sscanf(find(v, n, svg, "0x1234")->fill, "rgb(%u,%u,%u)", &r, &g, &b), 3);
	assert_true(r == g && g == b && r >= 160 && r <= 200);
	assert_int_equal(sscanf(find(v, n, svg, "work")->fill, "rgb(%u,%u,%u)", &r, &g, &b), 3);
	assert_true(r >= 200 && g <= 110 && b <= 110);
	free(svg);

	/* Differential: widths from slot 1; work grew (red), sys_read shrank (blue). */
	o = (struct ana_fsvg_opts){ .min_width = -1, .slot = 1, .diff = true, .base_slot = 0,
				.new_slot = 1 };
	svg = render(t, &o);
	n = parse_frames(svg, v, 32);
	assert_int_equal(v[0].w, 100);
	assert_int_equal(sscanf(find(v, n, svg, "work")->fill, "rgb(%u,%u,%u)", &r, &g, &b), 3);
	assert_true(r == 255 && g < 200 && g == b);
	assert_int_equal(sscanf(find(v, n, svg, "sys_read")->fill, "rgb(%u,%u,%u)", &r, &g, &b), 3);
	assert_true(b == 255 && r < 255 && r == g);
	/* 0x1234 is absent from slot 1: not drawn. */
	assert_null(strstr(svg, "0x1234"));
	free(svg);

	/* Coloured by significance: what is not significant is neutral and
	 * outlined, whatever its change; the legend says so. */
	{
		size_t nr = ana_stk_tree_count(t);
		double *p = calloc(nr, sizeof(*p));

		assert_non_null(p);
		for (size_t i = 0; i < nr; i++)
			p[i] = strcmp(ana_stk_tree_node(t, (uint32_t)i)->name, "work") ? 0.5 : 0.001;
		o.p_holm = p;
		o.alpha = 0.05;
		o.nr_tests = nr - 1;
		svg = render(t, &o);
		n = parse_frames(svg, v, 32);
		assert_int_equal(sscanf(find(v, n, svg, "work")->fill, "rgb(%u,%u,%u)", &r, &g, &b), 3);
		assert_true(r == 255 && g < 200 && g == b);
		assert_string_equal(find(v, n, svg, "sys_read")->fill, "rgb(224,224,218)");
		assert_non_null(strstr(svg, "stroke=\"rgb(150,150,150)\""));
		assert_non_null(strstr(svg, "not significant (p 0.5, Holm)"));
		assert_non_null(strstr(svg, ">no significant change</text>"));
		assert_non_null(strstr(svg, "Holm-adjusted p below 0.05 over"));
		free(svg);
		free(p);
	}
	ana_stk_tree_free(t);
}

static void test_option(void **state)
{
	struct ana_fsvg_opts o = { .min_width = ANA_FSVG_MIN_WIDTH_DEFAULT };

	(void)state;
	assert_int_equal(ana_fsvg_option(&o, ANA_FSVG_OPT_TITLE, "T"), 0);
	assert_string_equal(o.title, "T");
	assert_int_equal(ana_fsvg_option(&o, ANA_FSVG_OPT_WIDTH, "800"), 0);
	assert_int_equal(o.width, 800);
	assert_int_equal(ana_fsvg_option(&o, ANA_FSVG_OPT_MINWIDTH, "2.5"), 0);
	assert_true(o.min_width == 2.5);
	/* Out of range or malformed: -EINVAL, and @o keeps its values. */
	assert_int_equal(ana_fsvg_option(&o, ANA_FSVG_OPT_WIDTH, "99"), -EINVAL);
	assert_int_equal(ana_fsvg_option(&o, ANA_FSVG_OPT_WIDTH, "100001"), -EINVAL);
	assert_int_equal(ana_fsvg_option(&o, ANA_FSVG_OPT_WIDTH, "8x"), -EINVAL);
	assert_int_equal(ana_fsvg_option(&o, ANA_FSVG_OPT_WIDTH, ""), -EINVAL);
	assert_int_equal(o.width, 800);
	assert_int_equal(ana_fsvg_option(&o, ANA_FSVG_OPT_MINWIDTH, "-1"), -EINVAL);
	assert_int_equal(ana_fsvg_option(&o, ANA_FSVG_OPT_MINWIDTH, "nan"), -EINVAL);
	assert_true(o.min_width == 2.5);
	/* Not an SVG option: 1, for the next handler. */
	assert_int_equal(ana_fsvg_option(&o, 'o', "x"), 1);
}

static void test_write_error(void **state)
{
	struct ana_stk_tree *t = sample_tree();
	struct ana_fsvg_opts o = { .min_width = -1 };
	FILE *f = fopen("/dev/full", "w");

	(void)state;
	if (!f) {
		ana_stk_tree_free(t);
		skip();
	}
	/* A full device: the cause, not just "failed". */
	assert_int_equal(ana_fsvg_write(f, t, &o), -ENOSPC);
	fclose(f);
	ana_stk_tree_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_escape),
		cmocka_unit_test(test_layout),
		cmocka_unit_test(test_colours),
		cmocka_unit_test(test_option),
		cmocka_unit_test(test_write_error),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
