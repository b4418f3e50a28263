/* SPDX-License-Identifier: MIT */
/*
 * analyze/fieldfilter.h - keep only tracepoint samples whose fields have
 * given values: `--field-filter prev_comm=worker-0,next_pid=0`.
 *
 * A field's value is compared as libtraceevent prints it (ana_tp_field), so
 * what `script --fields trace` or `report --sort FIELD` shows is what a
 * filter matches.  Several NAME=VALUE terms must all hold; repeating the
 * option adds terms.  A sample without a payload, or whose event has no
 * such field, does not pass.
 */
#ifndef AMB_ANALYZE_FIELDFILTER_H
#define AMB_ANALYZE_FIELDFILTER_H

#include <stdbool.h>
#include <stddef.h>

#include "analyze/replay/replay.h"
#include "analyze/resolve/tracepoint.h"
#include <amber/common.h>

struct ana_field_term {
	char *name;
	char *value;
};

struct ana_field_filter {
	struct ana_field_term *terms;
	size_t nr;
	struct amb_buf scratch;
};

/* Add the terms of @arg ("NAME=VALUE[,NAME=VALUE...]").  Returns 0,
 * -EINVAL for a term without '=' or with an empty name, -ENOMEM. */
int ana_field_filter_add(struct ana_field_filter *f, const char *arg);

/* True when @f has terms (the caller then needs an ana_tp). */
static inline bool ana_field_filter_active(const struct ana_field_filter *f)
{
	return f->nr != 0;
}

/* True when every term holds for @s's raw payload, decoded with @tp. */
bool ana_field_filter_pass(struct ana_field_filter *f, struct ana_tp *tp,
			   const struct ana_sample *s);

/* Free the terms; @f is left empty (and may be zero-initialised before). */
void ana_field_filter_free(struct ana_field_filter *f);

#endif /* AMB_ANALYZE_FIELDFILTER_H */
