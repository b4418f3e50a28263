// SPDX-License-Identifier: MIT
/*
 * analyze/view/export.c - `export`'s formats by name, and the dispatch to
 * their writers (export_pprof.c, export_speedscope.c, export_chrome.c,
 * export_perfscript.c).
 */
#include <errno.h>
#include <string.h>

#include "analyze/view/export.h"
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

int ana_export(struct ana_pipeline *p, enum ana_export_format f, FILE *out,
	       const struct ana_export_opts *o)
{
	switch (f) {
	case ANA_EXPORT_PPROF: return ana_export_pprof(p, out, o);
	case ANA_EXPORT_SPEEDSCOPE: return ana_export_speedscope(p, out, o);
	case ANA_EXPORT_CHROME: return ana_export_chrome(p, out, o);
	case ANA_EXPORT_PERF_SCRIPT: return ana_export_perf_script(p, out, o);
	}
	return -EINVAL;
}
