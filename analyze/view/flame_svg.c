// SPDX-License-Identifier: MIT
/*
 * analyze/flame_svg.c - the flame graph SVG writer: layout in C, the
 * interaction in a small script embedded as a static string.  Each frame
 * is one line, <g class="f" data-s=START data-w=WEIGHT data-d=DEPTH>, so
 * that the script can redo the layout exactly when zooming.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "analyze/view/flame_svg.h"
#include "common/util.h"
#include <amber/common.h>

#define DEFAULT_WIDTH 1200u
#define PAD 10          /* px left and right of the frames */
#define FRAME_H 16      /* px per stack level */
#define FONT 12         /* px; the script assumes 0.59 em per character */
#define CHAR_W (FONT * 0.59)
#define TOP 48          /* px above the frames: title and buttons */
#define BOTTOM 34       /* px below: the status line */
#define LEGEND_H 22     /* px of a differential graph's legend, above it */

static const char flame_css[] =
	"text { font-family: Verdana, sans-serif; font-size: 12px; fill: rgb(0,0,0); }\n"
	"#title { font-size: 17px; }\n"
	".btn { cursor: pointer; fill: rgb(40,40,160); }\n"
	".btn:hover { text-decoration: underline; }\n"
	"g.f { cursor: pointer; }\n"
	"g.f:hover rect { stroke: rgb(0,0,0); stroke-width: 0.5; }\n"
	"g.f text { pointer-events: none; }\n"
	"g.parent { opacity: 0.6; }\n";

static const char flame_js[] =
	"(function () {\n"
	"  'use strict';\n"
	"  var svg = document.getElementById('amber-flame');\n"
	"  var W = +svg.getAttribute('data-width'), PAD = +svg.getAttribute('data-pad');\n"
	"  var TOTAL = +svg.getAttribute('data-total'), FONT = +svg.getAttribute('data-font');\n"
	"  var AW = W - 2 * PAD, CHAR = FONT * 0.59;\n"
	"  var details = document.getElementById('details');\n"
	"  var matched = document.getElementById('matched');\n"
	"  var unzoomBtn = document.getElementById('unzoom');\n"
	"  var resetBtn = document.getElementById('resetsearch');\n"
	"  var frames = Array.prototype.slice.call(svg.querySelectorAll('g.f'));\n"
	"  var searching = null;\n"
	"\n"
	"  frames.forEach(function (g) {\n"
	"    var t = g.querySelector('title').textContent, nl = t.indexOf('\\n');\n"
	"    g.s = +g.getAttribute('data-s');\n"
	"    g.w = +g.getAttribute('data-w');\n"
	"    g.d = +g.getAttribute('data-d');\n"
	"    g.fname = nl < 0 ? t : t.slice(0, nl);\n"
	"    g.info = t.replace(/\\n/g, ': ');\n"
	"    g.rect = g.querySelector('rect');\n"
	"    g.label = g.querySelector('text');\n"
	"    g.fill = g.rect.getAttribute('fill');\n"
	"  });\n"
	"\n"
	"  /* The name cut to what fits in px pixels, as the SVG was written. */\n"
	"  function fit(g, px) {\n"
	"    var n = Math.floor((px - 6) / CHAR);\n"
	"    if (n < 3)\n"
	"      return '';\n"
	"    return g.fname.length <= n ? g.fname : g.fname.slice(0, n - 2) + '..';\n"
	"  }\n"
	"\n"
	"  /* Place g at x0 with width w, both fractions of the drawing width. */\n"
	"  function place(g, x0, w) {\n"
	"    var x = PAD + x0 * AW, px = w * AW;\n"
	"    g.rect.setAttribute('x', x.toFixed(2));\n"
	"    g.rect.setAttribute('width', px.toFixed(2));\n"
	"    g.label.setAttribute('x', (x + 3).toFixed(2));\n"
	"    g.label.textContent = fit(g, px);\n"
	"  }\n"
	"\n"
	"  function unzoom() {\n"
	"    frames.forEach(function (g) {\n"
	"      place(g, g.s / TOTAL, g.w / TOTAL);\n"
	"      g.style.display = '';\n"
	"      g.classList.remove('parent');\n"
	"    });\n"
	"    unzoomBtn.style.display = 'none';\n"
	"  }\n"
	"\n"
	"  /* Show target at full width with its descendants; its callers stay,\n"
	"   * at full width and faded. */\n"
	"  function zoom(target) {\n"
	"    if (!target || target.d === 0 || !target.w) {\n"
	"      unzoom();\n"
	"      return;\n"
	"    }\n"
	"    var s = target.s, w = target.w;\n"
	"    frames.forEach(function (g) {\n"
	"      var show;\n"
	"      if (g.d < target.d) {\n"
	"        show = g.s <= s && g.s + g.w >= s + w;\n"
	"        if (show)\n"
	"          place(g, 0, 1);\n"
	"        g.classList.toggle('parent', show);\n"
	"      } else {\n"
	"        show = g.s >= s && g.s + g.w <= s + w &&\n"
	"          (g.d > target.d || g === target);\n"
	"        if (show)\n"
	"          place(g, (g.s - s) / w, g.w / w);\n"
	"        g.classList.remove('parent');\n"
	"      }\n"
	"      g.style.display = show ? '' : 'none';\n"
	"    });\n"
	"    unzoomBtn.style.display = '';\n"
	"  }\n"
	"\n"
	"  function resetSearch() {\n"
	"    frames.forEach(function (g) {\n"
	"      g.rect.setAttribute('fill', g.fill);\n"
	"      g.classList.remove('match');\n"
	"    });\n"
	"    matched.textContent = ' ';\n"
	"    resetBtn.style.display = 'none';\n"
	"    searching = null;\n"
	"  }\n"
	"\n"
	"  /* Highlight frames whose name matches term (a regular expression, or\n"
	"   * a substring when it is not one); returns the number of frames and\n"
	"   * the share of all weight under them, each stack counted once. */\n"
	"  function search(term) {\n"
	"    var re = null, hits = [], sum = 0, end = -1, pct;\n"
	"    if (term === null || term === undefined || term === '') {\n"
	"      resetSearch();\n"
	"      return null;\n"
	"    }\n"
	"    try {\n"
	"      re = new RegExp(term);\n"
	"    } catch (e) {\n"
	"      re = null;\n"
	"    }\n"
	"    frames.forEach(function (g) {\n"
	"      var m = g.d > 0 && (re ? re.test(g.fname) : g.fname.indexOf(term) >= 0);\n"
	"      g.rect.setAttribute('fill', m ? 'rgb(230,0,230)' : g.fill);\n"
	"      g.classList.toggle('match', m);\n"
	"      if (m)\n"
	"        hits.push(g);\n"
	"    });\n"
	"    hits.sort(function (a, b) { return a.s - b.s || b.w - a.w; });\n"
	"    hits.forEach(function (g) {\n"
	"      if (g.s >= end) {\n"
	"        sum += g.w;\n"
	"        end = g.s + g.w;\n"
	"      } else if (g.s + g.w > end) {\n"
	"        sum += g.s + g.w - end;\n"
	"        end = g.s + g.w;\n"
	"      }\n"
	"    });\n"
	"    pct = TOTAL ? 100 * sum / TOTAL : 0;\n"
	"    searching = term;\n"
	"    matched.textContent = 'Matched: ' + pct.toFixed(2) + '% (' + hits.length + ' frames)';\n"
	"    resetBtn.style.display = '';\n"
	"    return { frames: hits.length, percent: pct };\n"
	"  }\n"
	"\n"
	"  function askSearch() {\n"
	"    var t = window.prompt('Search (regular expression, or substring)', searching || '');\n"
	"    if (t !== null)\n"
	"      search(t);\n"
	"  }\n"
	"\n"
	"  svg.addEventListener('click', function (e) {\n"
	"    var g = e.target.closest ? e.target.closest('g.f') : null;\n"
	"    if (g)\n"
	"      zoom(g);\n"
	"    else if (e.target.id === 'unzoom')\n"
	"      unzoom();\n"
	"    else if (e.target.id === 'search')\n"
	"      askSearch();\n"
	"    else if (e.target.id === 'resetsearch')\n"
	"      resetSearch();\n"
	"  });\n"
	"  svg.addEventListener('mouseover', function (e) {\n"
	"    var g = e.target.closest ? e.target.closest('g.f') : null;\n"
	"    if (g)\n"
	"      details.textContent = g.info;\n"
	"  });\n"
	"  svg.addEventListener('mouseout', function () {\n"
	"    details.textContent = ' ';\n"
	"  });\n"
	"  window.addEventListener('keydown', function (e) {\n"
	"    if (e.keyCode === 114 || ((e.ctrlKey || e.metaKey) && e.keyCode === 70)) {\n"
	"      e.preventDefault();\n"
	"      askSearch();\n"
	"    }\n"
	"  });\n"
	"  window.amberFlame = { search: search, resetSearch: resetSearch, zoom: zoom,\n"
	"            unzoom: unzoom, frames: frames };\n"
	"})();\n";

/* ---- escaping ------------------------------------------------------------ */

/* Bytes of the UTF-8 character that starts with @c (well-formed: checked
 * by amb_text_safe_prefix() before). */
static size_t char_bytes(unsigned char c)
{
	return c < 0x80 ? 1 : c < 0xe0 ? 2 : c < 0xf0 ? 3 : 4;
}

/* Number of characters ana_fsvg_put_escaped() writes for @s: one per
 * character, four per escaped byte. */
static size_t char_count(const char *s)
{
	size_t len = strlen(s), n = 0;

	while (len) {
		size_t esc, ok = amb_text_safe_prefix(s, len, &esc);

		for (size_t i = 0; i < ok; i += char_bytes((unsigned char)s[i]))
			n++;
		n += esc * AMB_TEXT_ESC_MAX;
		s += ok + esc;
		len -= ok + esc;
	}
	return n;
}

/* The entity that stands for @c in XML character data and attribute
 * values, or NULL when @c may stand for itself. */
static const char *xml_entity(unsigned char c)
{
	switch (c) {
	case '&': return "&amp;";
	case '<': return "&lt;";
	case '>': return "&gt;";
	case '"': return "&quot;";
	case '\'': return "&apos;";
	default: return NULL;
	}
}

int ana_fsvg_put_escaped(FILE *f, const char *s, size_t max_chars)
{
	size_t n = 0, len = strlen(s), total = max_chars ? char_count(s) : 0;
	bool cut = max_chars && total > max_chars;

	if (cut)
		max_chars = max_chars > 2 ? max_chars - 2 : 0;
	/* The text rule of every output (amb_text_safe_prefix()): XML 1.0
	 * allows no control character but tab, CR and LF, and names should
	 * have none of those either; then the five XML entities. */
	while (len) {
		size_t esc, ok = amb_text_safe_prefix(s, len, &esc);

		for (size_t i = 0; i < ok;) {
			size_t k = char_bytes((unsigned char)s[i]);
			const char *entity = k == 1 ? xml_entity((unsigned char)s[i]) : NULL;

			if (max_chars && n >= max_chars)
				goto done;
			if (entity ? fputs(entity, f) == EOF : fwrite(s + i, 1, k, f) != k)
				return -EIO;
			i += k;
			n++;
		}
		for (size_t i = 0; i < esc; i++) {
			if (max_chars && n + AMB_TEXT_ESC_MAX > max_chars)
				goto done;
			if (fprintf(f, "\\x%02x", (unsigned char)s[ok + i]) < 0)
				return -EIO;
			n += AMB_TEXT_ESC_MAX;
		}
		s += ok + esc;
		len -= ok + esc;
	}
done:
	if (cut && fputs("..", f) == EOF)
		return -EIO;
	return 0;
}

/* ---- colours ------------------------------------------------------------- */

struct rgb {
	unsigned r, g, b;
};

/* A shade in [lo, lo + span] picked by byte @i of @h. */
static unsigned shade(uint64_t h, unsigned i, unsigned lo, unsigned span)
{
	return lo + (unsigned)((h >> (8 * i)) & 0xff) * span / 255;
}

static struct rgb kind_colour(enum ana_stk_kind kind, const char *name)
{
	uint64_t h = XXH3_64bits(name, strlen(name));
	unsigned v;

	switch (kind) {
	case ANA_STK_USER:
		return (struct rgb){ shade(h, 0, 200, 55), shade(h, 1, 50, 60), shade(h, 1, 50, 60) };
	case ANA_STK_KERNEL:
		return (struct rgb){ shade(h, 0, 225, 30), shade(h, 1, 135, 55), shade(h, 2, 0, 50) };
	case ANA_STK_INLINE:
		return (struct rgb){ shade(h, 0, 50, 60), shade(h, 1, 190, 40), shade(h, 1, 190, 40) };
	case ANA_STK_UNKNOWN:
		v = shade(h, 0, 160, 40);
		return (struct rgb){ v, v, v };
	case ANA_STK_OTHER:
		break;
	}
	return (struct rgb){ shade(h, 0, 185, 30), shade(h, 0, 190, 30), shade(h, 0, 210, 20) };
}

/* A frame whose change is not significant (struct ana_fsvg_opts). */
#define NEUTRAL_FILL "rgb(224,224,218)"
#define NEUTRAL_STROKE "rgb(150,150,150)"

/* White for 0, red towards +1 (grew), blue towards -1 (shrank). */
static struct rgb diff_colour(double d)
{
	unsigned fade = (unsigned)lround(255 - 200 * fmin(1.0, fabs(d)));

	if (d > 0)
		return (struct rgb){ 255, fade, fade };
	return (struct rgb){ fade, fade, 255 };
}

/* ---- layout ------------------------------------------------------------------ */

struct layout {
	const struct ana_stk_tree *t;
	const struct ana_fsvg_opts *o;
	unsigned slot;
	uint64_t total;          /* the root's weight */
	double scale;            /* px per unit of weight */
	uint64_t *start;         /* per node, in weight units */
	bool *drawn;
	uint32_t max_depth;
	double max_change;       /* diff: largest |change| drawn */
};

/* True when node @id's change is to be coloured. */
static bool significant(const struct layout *l, uint32_t id)
{
	return !l->o->p_holm || l->o->p_holm[id] < l->o->alpha;
}

/* The change of node @n from base to new, for colours and tooltips. */
static double node_change(const struct layout *l, const struct ana_stk_node *n)
{
	const struct ana_stk_node *root = ana_stk_tree_node(l->t, ANA_STK_ROOT);
	uint64_t bt = root->total[l->o->base_slot], nt = root->total[l->o->new_slot];
	double b = (double)n->total[l->o->base_slot], v = (double)n->total[l->o->new_slot];

	if (l->o->absolute) {
		double big = (double)AMB_MAX(bt, nt);

		return big > 0 ? (v - b) / big : 0;
	}
	return (nt ? v / (double)nt : 0) - (bt ? b / (double)bt : 0);
}

/* Starts follow from parents (always earlier in the node array) and the
 * sorted sibling lists; a frame is drawn when it and its caller are. */
static void layout_compute(struct layout *l)
{
	size_t nr = ana_stk_tree_count(l->t), i;
	double min_w = l->o->min_width;

	l->drawn[ANA_STK_ROOT] = l->total > 0;
	for (i = 0; i < nr; i++) {
		const struct ana_stk_node *n = ana_stk_tree_node(l->t, (uint32_t)i);
		uint64_t at = l->start[i];

		if (!l->drawn[i])
			continue;
		if (n->depth > l->max_depth)
			l->max_depth = n->depth;
		if (l->o->diff && i != ANA_STK_ROOT && significant(l, (uint32_t)i))
			l->max_change = fmax(l->max_change, fabs(node_change(l, n)));
		for (uint32_t c = n->first_child; c != ANA_STK_NONE;) {
			const struct ana_stk_node *cn = ana_stk_tree_node(l->t, c);
			uint64_t w = cn->total[l->slot];

			l->start[c] = at;
			l->drawn[c] = w > 0 && (min_w < 0 || (double)w * l->scale >= min_w);
			at += w;
			c = cn->next_sibling;
		}
	}
}

/* ---- output -------------------------------------------------------------------- */

static double pct(uint64_t part, uint64_t total)
{
	return total ? 100.0 * (double)part / (double)total : 0.0;
}

static void put_tooltip(FILE *f, const struct layout *l, const struct ana_stk_node *n, uint32_t id)
{
	const char *unit = l->o->unit ? l->o->unit : "samples";
	const struct ana_stk_node *root = ana_stk_tree_node(l->t, ANA_STK_ROOT);
	unsigned bs = l->o->base_slot, ns = l->o->new_slot;

	ana_fsvg_put_escaped(f, id == ANA_STK_ROOT ? "all" : n->name, 0);
	if (!l->o->diff) {
		fprintf(f, "\n%" PRIu64 " %s (%.2f%%)", n->total[l->slot], unit,
			pct(n->total[l->slot], l->total));
		return;
	}
	fprintf(f, "\nnew %" PRIu64 " %s (%.2f%%), base %" PRIu64 " %s (%.2f%%), ", n->total[ns],
		unit, pct(n->total[ns], root->total[ns]), n->total[bs], unit,
		pct(n->total[bs], root->total[bs]));
	if (l->o->absolute)
		fprintf(f, "%+" PRId64 " %s", (int64_t)(n->total[ns] - n->total[bs]), unit);
	else
		fprintf(f, "%+.2f points", 100.0 * node_change(l, n));
	if (l->o->p_holm && id != ANA_STK_ROOT)
		fprintf(f, significant(l, id) ? ", p %.2g (Holm)" : ", not significant (p %.2g, Holm)",
			l->o->p_holm[id]);
}

static void put_frame(FILE *f, const struct layout *l, uint32_t id)
{
	const struct ana_stk_node *n = ana_stk_tree_node(l->t, id);
	double x = PAD + (double)l->start[id] * l->scale;
	double w = (double)n->total[l->slot] * l->scale;
	double y = TOP + (double)(l->max_depth - n->depth) * FRAME_H;
	long chars = lround(floor((w - 6) / CHAR_W));
	const char *name = id == ANA_STK_ROOT ? "all" : n->name;
	bool neutral = l->o->diff && !significant(l, id);
	char fill[32];
	struct rgb c;

	if (l->o->diff)
		c = diff_colour(l->max_change > 0 ? node_change(l, n) / l->max_change : 0);
	else
		c = kind_colour(id == ANA_STK_ROOT ? ANA_STK_OTHER : n->kind, name);
	snprintf(fill, sizeof(fill), "rgb(%u,%u,%u)", c.r, c.g, c.b);
	fprintf(f, "<g class=\"f\" data-s=\"%" PRIu64 "\" data-w=\"%" PRIu64 "\" data-d=\"%u\">"
		"<title>", l->start[id], n->total[l->slot], n->depth);
	put_tooltip(f, l, n, id);
	fprintf(f, "</title><rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%d\" "
		"fill=\"%s\"%s rx=\"2\"/><text x=\"%.2f\" y=\"%.1f\">",
		x, y, w, FRAME_H - 1, neutral ? NEUTRAL_FILL : fill,
		neutral ? " stroke=\"" NEUTRAL_STROKE "\" stroke-width=\"0.5\"" : "", x + 3,
		y + FRAME_H - 4.5);
	/* The same cut as the script's fit(). */
	if (chars >= 3)
		ana_fsvg_put_escaped(f, name, (size_t)chars);
	fputs("</text></g>\n", f);
}

/* A differential graph's legend: what red, blue and grey say, at @y. */
static void put_legend(FILE *f, const struct ana_fsvg_opts *o, unsigned y)
{
	static const struct { const char *fill, *stroke, *text; } keys[] = {
		{ "rgb(255,55,55)", NULL, "grew" },
		{ "rgb(55,55,255)", NULL, "shrank" },
		{ NEUTRAL_FILL, NEUTRAL_STROKE, "no significant change" },
	};
	unsigned x = PAD;

	fputs("<g id=\"legend\">\n", f);
	for (size_t i = 0; i < AMB_ARRAY_SIZE(keys) - !o->p_holm; i++) {
		fprintf(f, "<rect x=\"%u\" y=\"%u\" width=\"14\" height=\"12\" fill=\"%s\"%s%s%s rx=\"2\"/>"
			"<text x=\"%u\" y=\"%u\">%s</text>\n", x, y - 10, keys[i].fill,
			keys[i].stroke ? " stroke=\"" : "", keys[i].stroke ? keys[i].stroke : "",
			keys[i].stroke ? "\" stroke-width=\"0.5\"" : "", x + 18, y, keys[i].text);
		x += 18 + (unsigned)(strlen(keys[i].text) * CHAR_W) + 20;
	}
	if (o->p_holm)
		fprintf(f, "<text x=\"%u\" y=\"%u\">(deeper colour: larger change; significant: "
			"Holm-adjusted p below %g over %zu frames; %s)</text>\n", x, y, o->alpha,
			o->nr_tests, o->absolute ? "sample counts" : "shares");
	else
		fprintf(f, "<text x=\"%u\" y=\"%u\">(deeper colour: larger change)</text>\n", x, y);
	fputs("</g>\n", f);
}

int ana_fsvg_write(FILE *f, const struct ana_stk_tree *t, const struct ana_fsvg_opts *o)
{
	struct layout l = { .t = t, .o = o, .slot = o->slot };
	unsigned width = o->width ? o->width : DEFAULT_WIDTH;
	size_t nr = ana_stk_tree_count(t), i;
	unsigned height, top = TOP;
	int err = 0;

	if (o->slot >= ANA_STK_SLOTS || (o->diff && (o->base_slot >= ANA_STK_SLOTS ||
						 o->new_slot >= ANA_STK_SLOTS)))
		return -EINVAL;
	if (width < 4 * PAD)
		width = 4 * PAD;
	l.total = ana_stk_tree_node(t, ANA_STK_ROOT)->total[l.slot];
	l.scale = l.total ? (double)(width - 2 * PAD) / (double)l.total : 0;
	l.start = calloc(nr, sizeof(*l.start));
	l.drawn = calloc(nr, sizeof(*l.drawn));
	if (!l.start || !l.drawn) {
		err = -ENOMEM;
		goto out;
	}
	layout_compute(&l);
	height = top + (l.max_depth + 1) * FRAME_H + BOTTOM + (o->diff ? LEGEND_H : 0);
	errno = 0;  /* what a failed write sets is the error (below) */

	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n"
		"<svg version=\"1.1\" xmlns=\"http://www.w3.org/2000/svg\" id=\"amber-flame\" "
		"width=\"%u\" height=\"%u\" viewBox=\"0 0 %u %u\" data-width=\"%u\" "
		"data-pad=\"%d\" data-font=\"%d\" data-total=\"%" PRIu64 "\">\n",
		width, height, width, height, width, PAD, FONT, l.total);
	fprintf(f, "<style type=\"text/css\"><![CDATA[\n%s]]></style>\n", flame_css);
	fprintf(f, "<rect x=\"0\" y=\"0\" width=\"%u\" height=\"%u\" fill=\"rgb(250,250,245)\"/>\n",
		width, height);
	fprintf(f, "<text id=\"title\" x=\"%u\" y=\"22\" text-anchor=\"middle\">", width / 2);
	ana_fsvg_put_escaped(f, o->title ? o->title : "Flame Graph", 0);
	fputs("</text>\n", f);
	if (o->subtitle) {
		fprintf(f, "<text id=\"subtitle\" x=\"%u\" y=\"38\" text-anchor=\"middle\">",
			width / 2);
		ana_fsvg_put_escaped(f, o->subtitle, 0);
		fputs("</text>\n", f);
	}
	fprintf(f, "<text id=\"unzoom\" class=\"btn\" x=\"%d\" y=\"22\" style=\"display:none\">"
		"Reset zoom</text>\n", PAD);
	fprintf(f, "<text id=\"search\" class=\"btn\" x=\"%u\" y=\"22\" text-anchor=\"end\">"
		"Search</text>\n", width - PAD);
	fprintf(f, "<text id=\"resetsearch\" class=\"btn\" x=\"%u\" y=\"22\" text-anchor=\"end\" "
		"style=\"display:none\">Reset search</text>\n", width - PAD - 60);
	fprintf(f, "<text id=\"matched\" x=\"%u\" y=\"%u\" text-anchor=\"end\"> </text>\n",
		width - PAD, height - 12);
	fprintf(f, "<text id=\"details\" x=\"%d\" y=\"%u\"> </text>\n", PAD, height - 12);
	if (o->diff)
		put_legend(f, o, height - BOTTOM - LEGEND_H + 14);
	fputs("<g id=\"frames\">\n", f);
	/* The frames are most of the document: stop at the first failed
	 * write (a full disk), while errno still says why. */
	for (i = 0; i < nr && !ferror(f); i++)
		if (l.drawn[i])
			put_frame(f, &l, (uint32_t)i);
	if (!ferror(f)) {
		fputs("</g>\n", f);
		fprintf(f, "<script type=\"text/ecmascript\"><![CDATA[\n%s]]></script>\n</svg>\n",
			flame_js);
	}
	if (ferror(f))
		err = errno > 0 ? -errno : -EIO;
out:
	free(l.start);
	free(l.drawn);
	return err;
}

/* ---- options -------------------------------------------------------------- */

int ana_fsvg_option(struct ana_fsvg_opts *o, int c, const char *arg)
{
	unsigned long width;
	double min_width;
	char *end;

	switch (c) {
	case ANA_FSVG_OPT_TITLE:
		o->title = arg;
		return 0;
	case ANA_FSVG_OPT_WIDTH:
		width = strtoul(arg, &end, 10);
		if (end == arg || *end || width < 100 || width > 100000 || *arg == '-')
			return amb_errmsg_set("not a width from 100 to 100000 pixels"), -EINVAL;
		o->width = (unsigned)width;
		return 0;
	case ANA_FSVG_OPT_MINWIDTH:
		min_width = strtod(arg, &end);
		if (end == arg || *end || !(min_width >= 0))
			return amb_errmsg_set("not a width in pixels, 0 or more"), -EINVAL;
		o->min_width = min_width;
		return 0;
	default:
		return 1;
	}
}
