/* SPDX-License-Identifier: MIT */
/*
 * analyze/replay/perfdata.h - perf.data files (perfdata.c) and their
 * conversion to .amber recordings (perfdata_import.c).
 *
 * The reader takes a perf.data written by `perf record` in file mode
 * ("PERFILE2", either byte order): the file header, the attrs with their
 * sample ids, the data section's records (PERF_RECORD_COMPRESSED from
 * `perf record -z` expanded with zstd) and the feature sections perf
 * writes after the data (build-ids, hostname, os release, cmdline, CPU
 * and NUMA topology, event descriptions, tracing data ...).  A perf.data
 * is untrusted input: every offset and length is checked against the
 * file, and a truncated or damaged file gives what is intact with a
 * warning (amb_warn).
 */
#ifndef AMB_ANALYZE_PERFDATA_H
#define AMB_ANALYZE_PERFDATA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <amber/format.h>

/* PERF_RECORD_* types perf writes itself (tools/lib/perf/include/perf/event.h). */
enum ana_perfdata_user_type {
	ANA_PERF_RECORD_USER_TYPE_START = 64,
	ANA_PERF_RECORD_FINISHED_ROUND = 68,
	ANA_PERF_RECORD_AUXTRACE = 71,
	ANA_PERF_RECORD_COMPRESSED = 81,
};

/* One event of the attrs section. */
struct ana_perfdata_attr {
	const uint8_t *attr;     /* perf_event_attr in the file's byte order */
	uint32_t attr_size;      /* bytes of @attr (<= 512) */
	uint64_t *ids;           /* sample ids, host order */
	uint32_t nr_ids;
	char *name;              /* from HEADER_EVENT_DESC, or made from the attr */
};

/* A key/value pair found in the feature sections; both NUL-terminated. */
struct ana_perfdata_kv {
	char *key;
	char *val;
	size_t len;              /* of @val */
};

/* A HEADER_BUILD_ID entry. */
struct ana_perfdata_buildid {
	uint8_t build_id[20];
	uint8_t size;
	uint8_t kind;            /* enum amb_dso_kind */
	char *path;
};

struct ana_perfdata;

/*
 * True when the @len bytes at @head (the start of a file) begin like a
 * perf.data: "PERFILE2" in either byte order, or the pipe-mode header.
 */
bool ana_perfdata_probe(const void *head, size_t len);

/*
 * When the file @path is a perf.data, set amb_errmsg() to a message that
 * says so and how to convert it, and return true; commands call it when
 * a file is no .amber (AMB_E_MAGIC).
 */
bool ana_perfdata_hint(const char *path);

/*
 * Open the perf.data @path (mapped read-only) or the @len bytes at @data
 * (borrowed; they must outlive the object), and read its header, attrs
 * and feature sections.  Errors, with a detail in amb_errmsg():
 * -AMB_E_MAGIC (not a perf.data), -ENOTSUP (pipe mode, or a header this
 * reader does not know), -AMB_E_TRUNCATED (shorter than its header),
 * -AMB_E_CORRUPT (the attrs cannot be read), -errno, -ENOMEM.  Free with
 * ana_perfdata_close() (NULL accepted).
 */
int ana_perfdata_open(const char *path, struct ana_perfdata **out);
int ana_perfdata_open_mem(const void *data, size_t len, struct ana_perfdata **out);
void ana_perfdata_close(struct ana_perfdata *pd);

/* True when the file's byte order is not this host's. */
bool ana_perfdata_swapped(const struct ana_perfdata *pd);

/* The attrs (owned by @pd), *@n set. */
const struct ana_perfdata_attr *ana_perfdata_attrs(const struct ana_perfdata *pd, size_t *n);

/*
 * The feature sections as key/values (owned by @pd), *@n set, for META
 * (@what 0: hostname, uname.release, uname.machine, cpu.model,
 * cpu.cpuid, cmdline, perf.version, nr_cpus.*, time.*, clock.*,
 * page_size), TOPOLOGY (1: cpu.N.core/package/die/node, node.N.*) and
 * TRACEFS (2: header_page, header_event, SYSTEM/EVENT formats).
 */
const struct ana_perfdata_kv *ana_perfdata_kvs(const struct ana_perfdata *pd, int what, size_t *n);
#define ANA_PERFDATA_META 0
#define ANA_PERFDATA_TOPOLOGY 1
#define ANA_PERFDATA_TRACEFS 2

/* The HEADER_BUILD_ID entries (owned by @pd), *@n set. */
const struct ana_perfdata_buildid *ana_perfdata_buildids(const struct ana_perfdata *pd, size_t *n);

/* e_machine of the recording host (from HEADER_ARCH; the host's when absent),
 * and its word size. */
uint16_t ana_perfdata_machine(const struct ana_perfdata *pd);
uint8_t ana_perfdata_word_size(const struct ana_perfdata *pd);

/*
 * A record of the data section, in the file's byte order: @rec points at
 * its perf_event_header, @len = header.size bytes (valid during the call
 * only), @type its host-order type.  Return nonzero to stop.
 */
typedef int (*ana_perfdata_record_fn)(void *ctx, const uint8_t *rec, size_t len, uint32_t type);

struct ana_perfdata_stats {
	uint64_t records;        /* delivered */
	uint64_t compressed;     /* PERF_RECORD_COMPRESSED records expanded */
	uint64_t bytes;          /* data bytes read, compressed ones as stored */
	bool damaged;            /* the data section ended early or did not parse */
};

/*
 * Deliver every record of the data section in file order, those inside
 * PERF_RECORD_COMPRESSED expanded (the compressed record itself is not
 * delivered); an AUXTRACE record's trailing AUX data is skipped.  Damage
 * (a record size under 8 or past the section, a zstd error) is warned
 * about, and the records before it are what is delivered: returns 0 then
 * too, with @st->damaged set.  Returns 0, the callback's nonzero value,
 * or -ENOMEM.
 */
int ana_perfdata_for_each(struct ana_perfdata *pd, ana_perfdata_record_fn fn, void *ctx,
			  struct ana_perfdata_stats *st);

/* ---- conversion to .amber (perfdata_import.c) ------------------------------ */

struct ana_import_opts {
	const char *kallsyms;    /* a kallsyms text file for the KSYMS block, or NULL */
	bool host_kallsyms;      /* with no @kallsyms: this host's /proc/kallsyms when its
				  * kernel is the recorded one (build-id, else host name
				  * and release) and _text where the recording had it */
	int zstd_level;          /* AMB_DEFAULT_ZSTD_LEVEL */
	uint64_t created_ns;     /* the .amber header's creation time; 0: now */
};

struct ana_import_stats {
	uint64_t records;        /* kernel records written */
	uint64_t samples;
	uint64_t synth;          /* of those, in SYNTH blocks (perf's synthesized records) */
	uint64_t skipped;        /* perf's own records (types >= 64), not kept */
	uint64_t bad;            /* records that did not parse, dropped */
	uint64_t streams;        /* RING streams (CPUs) */
	const char *ksyms_from;  /* where the KSYMS block came from, or NULL */
	const char *ksyms_why;   /* why this host's table was taken, or NULL */
	bool damaged;            /* the data section was cut or damaged */
};

/*
 * Write the perf.data @pd as the new .amber file @path (which must not
 * exist), following FORMAT.md §5 and §9 ("Imported perf.data"): META,
 * EVENT_ATTR, TRACEFS, TOPOLOGY, BUILDID and KSYMS first, then the
 * records, each kernel record copied unchanged into the RING stream of
 * its CPU (0 when the samples carry none) in perf's order (sorted by time
 * at each FINISHED_ROUND), perf's synthesized ones (time 0) into SYNTH.
 * Returns 0, or -errno / an amb error with the detail in amb_errmsg();
 * on error the partial file is removed.
 */
int ana_perfdata_import(struct ana_perfdata *pd, const char *path,
			const struct ana_import_opts *o, struct ana_import_stats *st);

#endif /* AMB_ANALYZE_PERFDATA_H */
