// SPDX-License-Identifier: MIT
/*
 * analyze/view/export.c - `export`'s formats by name, and the dispatch to
 * their writers (export_pprof.c, export_speedscope.c, export_chrome.c,
 * export_perfscript.c).
 */
#include <errno.h>
#include <string.h>

#include "analyze/view/export.h"
#include "analyze/view/export_stack.h"
#include "common/util.h"
#include <amber/common.h>

int ana_export_format_parse(const char *name, enum ana_export_format *f)
{
	static const struct { const char *name; enum ana_export_format f; } tab[] = {
		{ "pprof", ANA_EXPORT_PPROF }, { "speedscope", ANA_EXPORT_SPEEDSCOPE },
		{ "chrome", ANA_EXPORT_CHROME }, { "perf-script", ANA_EXPORT_PERF_SCRIPT },
	};

	for (size_t i = 0; i < AMB_ARRAY_SIZE(tab); i++) {
		if (!strcmp(name, tab[i].name)) {
			*f = tab[i].f;
			return 0;
		}
	}
	amb_errmsg_set("formats: pprof, speedscope, chrome, perf-script");
	return -EINVAL;
}

int ana_export_run(struct ana_pipeline *p, const struct ana_export_opts *o, ana_sample_fn fn,
		   ana_record_fn other, void *ctx)
{
	if (o && o->offcpu)
		return ana_offcpu_run(o->offcpu, fn, ctx);
	return ana_pipeline_run(p, fn, other, ctx);
}

bool ana_export_weight_is_ns(const struct ana_export_opts *o, const struct ana_event *e)
{
	if (o && o->offcpu)
		for (size_t i = 0; i < ANA_SCHED_NR_STATES; i++)
			if (e == ana_offcpu_event(o->offcpu, i))
				return true;
	return ana_event_period_is_ns(e);
}

int ana_export(struct ana_pipeline *p, enum ana_export_format f, FILE *out,
	       const struct ana_export_opts *o)
{
	if (o && o->offcpu && f != ANA_EXPORT_PPROF && f != ANA_EXPORT_SPEEDSCOPE) {
		amb_errmsg_set("off-CPU time exports as pprof or speedscope");
		return -EINVAL;
	}
	switch (f) {
	case ANA_EXPORT_PPROF: return ana_export_pprof(p, out, o);
	case ANA_EXPORT_SPEEDSCOPE: return ana_export_speedscope(p, out, o);
	case ANA_EXPORT_CHROME: return ana_export_chrome(p, out, o);
	case ANA_EXPORT_PERF_SCRIPT: return ana_export_perf_script(p, out, o);
	}
	return -EINVAL;
}
