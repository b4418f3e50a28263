/* SPDX-License-Identifier: MIT */
/*
 * record/events/pmu.h - the PMUs of /sys/bus/event_source/devices
 * (pmu.c): type, format fields and event aliases, for pmu/terms/ events.
 */
#ifndef AMB_REC_PMU_H
#define AMB_REC_PMU_H

#include <linux/perf_event.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Read PMUs from @path (a directory of PMU directories) instead of
 * /sys/bus/event_source/devices: tests and fuzzers point it at a fake
 * tree, "" means no PMUs at all, NULL restores the default.  @path is
 * copied.  Returns 0 or -ENAMETOOLONG.
 */
int rec_pmu_set_root(const char *path);

/* The directory PMUs are read from (static string; "" when none). */
const char *rec_pmu_root(void);

/* One PMU's type, format names and event names, read once. */
struct rec_pmu;

/*
 * Read PMU @name (a directory of the root): its type file and the names
 * under format/ and events/ (sorted; events without the .scale, .unit,
 * .per-pkg and .snapshot files).  On success *@out is the caller's, to
 * free with rec_pmu_free().  Returns 0, -ENOENT when there is no such
 * PMU (or @name is not a plain directory name), -EINVAL for a malformed
 * type file, -ENOMEM, or -errno of a directory that cannot be read.
 */
int rec_pmu_open(const char *name, struct rec_pmu **out);

/* Free @pmu (NULL-safe). */
void rec_pmu_free(struct rec_pmu *pmu);

/* The perf_event_attr.type of @pmu's events. */
uint32_t rec_pmu_type(const struct rec_pmu *pmu);

/* The names of format/ and events/, by index < the count (borrowed from
 * @pmu, valid until rec_pmu_free()). */
size_t rec_pmu_nr_formats(const struct rec_pmu *pmu);
const char *rec_pmu_format_name(const struct rec_pmu *pmu, size_t i);
size_t rec_pmu_nr_events(const struct rec_pmu *pmu);
const char *rec_pmu_event_name(const struct rec_pmu *pmu, size_t i);

/* Where a format term's value goes: bits @mask of attr word @word. */
struct rec_pmu_field {
	unsigned word;             /* 0 config, 1 config1, 2 config2 */
	uint64_t mask;             /* the field's bits in that word */
	unsigned width;            /* bits in @mask: the value's width */
};

/*
 * Decode format text @text ("config:0-7", "config1:0-3,8,32-35") into @f.
 * Returns 0, or -EINVAL when it names another word or a bit range that is
 * empty, reversed or beyond bit 63.
 */
int rec_pmu_format_parse(const char *text, struct rec_pmu_field *f);

/*
 * Read and decode format/@name of @pmu into @f.  Returns 0, -ENOENT when
 * @pmu has no such format, -EINVAL when the file is malformed, or -errno
 * when it cannot be read.
 */
int rec_pmu_format(const struct rec_pmu *pmu, const char *name, struct rec_pmu_field *f);

/*
 * Put @value into field @f of @attr: its low bit into the field's lowest
 * bit and so on upwards; the field's other bits are cleared, the rest of
 * the word is kept.  Returns 0, or -ERANGE (@attr untouched) when @value
 * has bits set at or above f->width.
 */
int rec_pmu_field_set(const struct rec_pmu_field *f, uint64_t value, struct perf_event_attr *attr);

/*
 * The terms of event @name of @pmu (events/NAME, the name matched
 * ignoring case as perf does), e.g. "event=0xcd,umask=0x1", as a heap
 * string without trailing white space (caller frees).  NULL with errno
 * ENOENT when @pmu has no such event, other errno when it cannot be read.
 */
char *rec_pmu_event_terms(const struct rec_pmu *pmu, const char *name);

/*
 * Call @fn(@ctx, name) for every entry of the PMU root, in sorted order.
 * A non-zero return from @fn stops the walk and is returned.  Returns 0
 * (also when the root does not exist), the callback's value, or -errno.
 */
int rec_pmu_for_each(int (*fn)(void *ctx, const char *pmu), void *ctx);

/*
 * Call @fn(@ctx, pmu, event) for every event under every PMU's events/
 * (not the .scale/.unit/.per-pkg/.snapshot files), PMUs and events in
 * sorted order; unreadable PMUs are skipped.  Returns as
 * rec_pmu_for_each().
 */
int rec_pmu_for_each_event(int (*fn)(void *ctx, const char *pmu, const char *event), void *ctx);

#endif /* AMB_REC_PMU_H */
