// SPDX-License-Identifier: MIT
/* analyze/fieldfilter.c - tracepoint field filters (see fieldfilter.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/resolve/fieldfilter.h"

int ana_field_filter_add(struct ana_field_filter *f, const char *arg)
{
	char *copy = strdup(arg), *save = NULL, *term;
	int err = 0;

	if (!copy)
		return -ENOMEM;
	for (term = strtok_r(copy, ",", &save); term; term = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(term, '=');
		struct ana_field_term *t;

		if (!eq || eq == term) {
			err = -EINVAL;
			break;
		}
		t = realloc(f->terms, (f->nr + 1) * sizeof(*t));
		if (!t) {
			err = -ENOMEM;
			break;
		}
		f->terms = t;
		t = &f->terms[f->nr];
		*eq = '\0';
		t->name = strdup(term);
		t->value = strdup(eq + 1);
		if (!t->name || !t->value) {
			free(t->name);
			free(t->value);
			err = -ENOMEM;
			break;
		}
		f->nr++;
	}
	if (!err && !f->nr)
		err = -EINVAL;         /* "" or "," */
	free(copy);
	return err;
}

bool ana_field_filter_pass(struct ana_field_filter *f, struct ana_tp *tp,
			   const struct ana_sample *s)
{
	if (!f->nr)
		return true;
	if (!tp || !s->raw_size)
		return false;
	for (size_t i = 0; i < f->nr; i++) {
		amb_buf_reset(&f->scratch);
		if (ana_tp_field(tp, s->raw, s->raw_size, f->terms[i].name, &f->scratch))
			return false;
		/* ana_tp_field NUL-terminates what it appends. */
		if (strcmp((const char *)f->scratch.data, f->terms[i].value))
			return false;
	}
	return true;
}

void ana_field_filter_free(struct ana_field_filter *f)
{
	for (size_t i = 0; i < f->nr; i++) {
		free(f->terms[i].name);
		free(f->terms[i].value);
	}
	free(f->terms);
	amb_buf_free(&f->scratch);
	f->terms = NULL;
	f->nr = 0;
}
