// SPDX-License-Identifier: MIT
/*
 * record/synthesize.c - perf records for what existed before the recording
 * started (FORMAT.md §5.6): COMM and FORK for every thread of a target
 * process, MMAP2 with build-id for every executable mapping, the kernel
 * text and modules; and the BUILDID table (§5.3) of everything mapped.
 *
 * Records use the same layout as the kernel's, with the sample_id_all
 * trailer of the first event so that the analyzer parses them alike.
 */
#include <assert.h>
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/sysmacros.h>

#include <amber/common.h>
#include <amber/format.h>
#include "common/kallsyms.h"
#include "common/perf_sample.h"
#include "common/util.h"
#include "record/buildid.h"
#include "record/kernel.h"
#include "record/synthesize.h"
#include "record/target.h"

#define MAPS_MAX (64u << 20)

struct seen_bid {
	struct rec_buildid bid;
	char *path;
};

/* The layout of the first event's records, whose trailer every
 * synthesized record carries. */
static void synth_layout(const struct rec_synth_ctx *x, struct amb_perf_layout *l)
{
	struct perf_event_attr a = { .sample_type = x->sample_type };

	amb_perf_layout_init(l, &a);
}

/* The sample_id_all trailer, in the producer's (host) byte order like the
 * kernel's records. */
static int put_trailer(struct rec_synth_ctx *x, struct amb_buf *out, uint32_t pid, uint32_t tid)
{
	struct amb_perf_sample_id id = {
		.pid = pid, .tid = tid, .time = x->time, .id = x->id, .stream_id = x->id,
		.cpu = x->cpu,
	};
	struct amb_perf_layout l;
	uint8_t t[6 * 8];

	synth_layout(x, &l);
	assert(l.trailer_size <= sizeof(t));
	return amb_buf_append(out, t, amb_perf_sample_id_write(&l, &id, t));
}

static size_t trailer_size(const struct rec_synth_ctx *x)
{
	struct amb_perf_layout l;

	synth_layout(x, &l);
	return l.trailer_size;
}

static int put_header(struct amb_buf *out, uint32_t type, uint16_t misc, size_t size)
{
	struct perf_event_header h = { .type = type, .misc = misc, .size = (uint16_t)size };

	return amb_buf_append(out, &h, sizeof(h));
}

/* A NUL-terminated string padded with zeros to a multiple of 8. */
static int put_padded_str(struct amb_buf *out, const char *s, size_t padded)
{
	size_t n = strlen(s);
	int err = amb_buf_append(out, s, n);

	if (err)
		return err;
	err = amb_buf_reserve(out, padded - n);
	if (err)
		return err;
	memset(out->data + out->len, 0, padded - n);
	out->len += padded - n;
	return 0;
}

int rec_synth_comm(struct rec_synth_ctx *x, struct amb_buf *out, pid_t pid, pid_t tid,
		   const char *comm)
{
	size_t slen = (strlen(comm) + 1 + 7) & ~(size_t)7;
	size_t size = sizeof(struct perf_event_header) + 8 + slen + trailer_size(x);
	size_t start = out->len;
	uint32_t ids[2] = { (uint32_t)pid, (uint32_t)tid };
	int err;

	if (size > UINT16_MAX)
		return -E2BIG;
	err = put_header(out, PERF_RECORD_COMM, 0, size);
	if (!err)
		err = amb_buf_append(out, ids, sizeof(ids));
	if (!err)
		err = put_padded_str(out, comm, slen);
	if (!err)
		err = put_trailer(x, out, (uint32_t)pid, (uint32_t)tid);
	if (err) {
		out->len = start;
		return err;
	}
	x->nr_records++;
	return 0;
}

/* FORK with an explicit parent (the leader's real parent, or the leader
 * itself for its other threads). */
static int synth_fork(struct rec_synth_ctx *x, struct amb_buf *out, pid_t pid, pid_t ppid,
		      pid_t tid, pid_t ptid)
{
	size_t size = sizeof(struct perf_event_header) + 24 + trailer_size(x);
	size_t start = out->len;
	uint32_t ids[4] = { (uint32_t)pid, (uint32_t)ppid, (uint32_t)tid, (uint32_t)ptid };
	int err;

	err = put_header(out, PERF_RECORD_FORK, 0, size);
	if (!err)
		err = amb_buf_append(out, ids, sizeof(ids));
	if (!err)
		err = amb_buf_append(out, &x->time, sizeof(x->time));
	if (!err)
		err = put_trailer(x, out, (uint32_t)pid, (uint32_t)tid);
	if (err) {
		out->len = start;
		return err;
	}
	x->nr_records++;
	return 0;
}

int rec_synth_fork(struct rec_synth_ctx *x, struct amb_buf *out, pid_t pid, pid_t tid)
{
	return synth_fork(x, out, pid, pid, tid, pid);
}

int rec_synth_mmap2(struct rec_synth_ctx *x, struct amb_buf *out, const struct rec_mmap2 *m)
{
	size_t flen = (strlen(m->filename) + 1 + 7) & ~(size_t)7;
	size_t size = sizeof(struct perf_event_header) + 8 + 24 + 24 + 8 + flen + trailer_size(x);
	bool has_bid = m->bid && m->bid->len && m->bid->len <= REC_BUILDID_MAX;
	uint16_t misc = m->misc | (has_bid ? PERF_RECORD_MISC_MMAP_BUILD_ID : 0);
	size_t start = out->len;
	uint32_t ids[2] = { m->pid, m->tid };
	uint64_t range[3] = { m->addr, m->len, m->pgoff };
	uint8_t u[24] = { 0 };
	uint32_t pf[2] = { m->prot, m->flags };
	int err;

	if (size > UINT16_MAX)
		return -E2BIG;
	if (has_bid) {
		/* u8 build_id_size, u8 + u16 reserved, u8 build_id[20] */
		u[0] = m->bid->len;
		memcpy(u + 4, m->bid->id, m->bid->len);
	} else {
		uint64_t gen = 0;

		memcpy(u, &m->maj, 4);
		memcpy(u + 4, &m->min, 4);
		memcpy(u + 8, &m->ino, 8);
		memcpy(u + 16, &gen, 8);
	}
	err = put_header(out, PERF_RECORD_MMAP2, misc, size);
	if (!err)
		err = amb_buf_append(out, ids, sizeof(ids));
	if (!err)
		err = amb_buf_append(out, range, sizeof(range));
	if (!err)
		err = amb_buf_append(out, u, sizeof(u));
	if (!err)
		err = amb_buf_append(out, pf, sizeof(pf));
	if (!err)
		err = put_padded_str(out, m->filename, flen);
	if (!err)
		err = put_trailer(x, out, m->pid, m->tid);
	if (err) {
		out->len = start;
		return err;
	}
	x->nr_records++;
	return 0;
}

/* List (@bid, @path) in the BUILDID table unless it already is. */
static int note_buildid(struct rec_synth_ctx *x, const struct rec_buildid *bid, uint8_t kind,
			const char *path)
{
	struct seen_bid *seen = x->seen;
	struct amb_buildid_entry e;
	int err;

	if (!bid->len || !x->buildids)
		return 0;
	for (size_t i = 0; i < x->nr_seen; i++)
		if (seen[i].bid.len == bid->len && !memcmp(seen[i].bid.id, bid->id, bid->len) &&
		    !strcmp(seen[i].path, path))
			return 0;
	if (amb_ensure_cap(&x->seen, &x->cap_seen, sizeof(*seen), x->nr_seen + 1))
		return -ENOMEM;
	seen = x->seen;
	seen[x->nr_seen].bid = *bid;
	seen[x->nr_seen].path = strdup(path);
	if (!seen[x->nr_seen].path)
		return -ENOMEM;
	x->nr_seen++;

	memset(&e, 0, sizeof(e));
	e.build_id = bid->id;
	e.build_id_len = bid->len;
	e.kind = kind;
	e.path = path;
	e.path_len = (uint32_t)strlen(path);
	err = amb_buildid_put(x->buildids, &e);
	return err;
}

/* Find the vDSO of this process: the kernel maps the same image into every
 * process, so its build-id is the one of every [vdso] mapping. */
static const struct rec_buildid *vdso_buildid(struct rec_synth_ctx *x)
{
	const void *image;
	size_t len;

	if (x->vdso_done)
		return &x->vdso;
	x->vdso_done = true;
	if (!amb_self_vdso(&image, &len))
		rec_buildid_from_memory(image, len, &x->vdso);
	return &x->vdso;
}

int rec_maps_parse_line(char *line, struct rec_maps_line *m)
{
	char perms[5];
	unsigned long long start, end, pgoff, ino;
	unsigned maj, min;
	int pos = 0;

	memset(m, 0, sizeof(*m));
	/* "00400000-00452000 r-xp 00000000 08:02 173521      /usr/bin/dbus-daemon" */
	if (sscanf(line, "%llx-%llx %4s %llx %x:%x %llu%n", &start, &end, perms, &pgoff,
		   &maj, &min, &ino, &pos) != 7 || strlen(perms) != 4 || end < start)
		return -EINVAL;
	m->start = start;
	m->end = end;
	m->pgoff = pgoff;
	m->maj = maj;
	m->min = min;
	m->ino = ino;
	m->prot = (perms[0] == 'r' ? PROT_READ : 0) | (perms[1] == 'w' ? PROT_WRITE : 0) |
		  (perms[2] == 'x' ? PROT_EXEC : 0);
	m->shared = perms[3] == 's';
	line += pos;
	while (*line == ' ' || *line == '\t')
		line++;
	m->path = line;
	return 0;
}

static char *read_comm(pid_t pid, pid_t tid)
{
	char path[64], *s;
	size_t n;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/comm", (int)pid, (int)tid);
	s = amb_read_file(path, 64, &n);
	if (s && n && s[n - 1] == '\n')
		s[n - 1] = '\0';
	return s;
}

static pid_t read_ppid(pid_t pid)
{
	char path[64], *s, *p;
	long ppid = 0;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	s = amb_read_file(path, 1 << 16, NULL);
	if (!s)
		return 0;
	p = strstr(s, "\nPPid:");
	if (p)
		ppid = strtol(p + 6, NULL, 10);
	free(s);
	return (pid_t)ppid;
}

/* The kernel's mark of a mapped file unlinked since it was mapped. */
static bool is_deleted(const char *path)
{
	static const char mark[] = " (deleted)";
	size_t n = strlen(path);

	return n >= sizeof(mark) - 1 && !strcmp(path + n - (sizeof(mark) - 1), mark);
}

static int synth_maps(struct rec_synth_ctx *x, struct amb_buf *out, pid_t pid)
{
	char path[64], *maps;
	int err = 0;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	maps = amb_read_file(path, MAPS_MAX, NULL);
	/* Gone, or not ours to read (another user's process without root):
	 * the process simply gets no mappings. */
	if (!maps)
		return errno == ENOMEM ? -ENOMEM : 0;
	for (char *save = NULL, *line = strtok_r(maps, "\n", &save); line && !err;
	     line = strtok_r(NULL, "\n", &save)) {
		struct rec_maps_line ml;
		struct rec_buildid bid = { 0 };
		struct rec_mmap2 m;
		uint8_t kind = AMB_DSO_USER;

		if (rec_maps_parse_line(line, &ml) || (!(ml.prot & PROT_EXEC) && !x->data))
			continue;
		if (!*ml.path && x->data) {
			ml.path = "//anon";
		} else if (!*ml.path) {
			continue;
		} else if (!strcmp(ml.path, "[heap]") || !strcmp(ml.path, "[stack]")) {
			if (!x->data)
				continue;
		} else if (!strcmp(ml.path, "[vdso]")) {
			bid = *vdso_buildid(x);
			kind = AMB_DSO_VDSO;
		} else if (ml.path[0] == '/') {
			char mf[96];

			/* map_files reaches the very file mapped, even when it was
			 * deleted or lives in another mount namespace. */
			snprintf(mf, sizeof(mf), "/proc/%d/map_files/%" PRIx64 "-%" PRIx64,
				 (int)pid, ml.start, ml.end);
			/* Without map_files (not root) the path is all there is;
			 * but a " (deleted)" one names a file that is gone, and
			 * whatever lives at that name now is another file. */
			if (rec_buildid_cache_get(x->cache, makedev(ml.maj, ml.min), ml.ino, mf,
						  &bid) == -ENOENT && !bid.len && !is_deleted(ml.path))
				rec_buildid_from_file(ml.path, &bid);
		} else {
			continue; /* [vsyscall] and other special mappings */
		}
		memset(&m, 0, sizeof(m));
		m.pid = (uint32_t)pid;
		m.tid = (uint32_t)pid;
		m.addr = ml.start;
		m.len = ml.end - ml.start;
		m.pgoff = ml.pgoff;
		m.maj = ml.maj;
		m.min = ml.min;
		m.ino = ml.ino;
		m.prot = ml.prot;
		m.flags = ml.shared ? MAP_SHARED : MAP_PRIVATE;
		m.misc = PERF_RECORD_MISC_USER;
		m.bid = &bid;
		m.filename = ml.path;
		err = rec_synth_mmap2(x, out, &m);
		if (!err)
			err = note_buildid(x, &bid, kind, ml.path);
	}
	free(maps);
	return err;
}

int rec_synth_process(struct rec_synth_ctx *x, struct amb_buf *out, pid_t pid)
{
	pid_t *tids = NULL;
	int n, err = 0;

	n = rec_proc_threads(pid, &tids);
	if (n < 0)
		return n == -ENOMEM ? n : 0; /* exited meanwhile, or unreadable */
	/* The leader first, so that its other threads fork from a thread the
	 * analyzer knows. */
	for (int i = 1; i < n; i++)
		if (tids[i] == pid) {
			tids[i] = tids[0];
			tids[0] = pid;
		}
	/*
	 * FORK before COMM, as perf synthesizes and as the kernel reports a
	 * clone: a FORK gives the new thread its parent's name, so a COMM
	 * written before it would be overwritten, and every process would
	 * carry the name of its oldest synthesized ancestor.
	 */
	for (int i = 0; i < n && !err; i++) {
		char *comm = read_comm(pid, tids[i]);

		if (!comm)
			continue; /* the thread exited meanwhile */
		if (tids[i] == pid) {
			pid_t ppid = read_ppid(pid);

			err = synth_fork(x, out, pid, ppid, pid, ppid);
		} else {
			err = rec_synth_fork(x, out, pid, tids[i]);
		}
		if (!err)
			err = rec_synth_comm(x, out, pid, tids[i], comm);
		free(comm);
	}
	free(tids);
	if (!err)
		err = synth_maps(x, out, pid);
	return err;
}

int rec_synth_all(struct rec_synth_ctx *x, struct amb_buf *out)
{
	DIR *d = opendir("/proc");
	struct dirent *de;
	int err = 0;

	if (!d)
		return -errno;
	while (!err && (de = readdir(d))) {
		char *end;
		long pid = strtol(de->d_name, &end, 10);

		if (*end || pid <= 0)
			continue;
		err = rec_synth_process(x, out, (pid_t)pid);
	}
	closedir(d);
	return err;
}

/* The parent of process @pid from /proc/PID/stat ("PID (COMM) S PPID ..."),
 * 0 when it cannot be read.  COMM may hold any byte but NUL, ')' too. */
static pid_t stat_ppid(long pid)
{
	char path[64], *s, *p;
	long ppid = 0;

	snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
	s = amb_read_file(path, 4096, NULL);
	if (!s)
		return 0;
	p = strrchr(s, ')');
	if (p && p[1] == ' ' && p[2] && p[3] == ' ')
		ppid = strtol(p + 4, NULL, 10);
	free(s);
	return (pid_t)ppid;
}

struct pid_pair {
	pid_t pid, ppid;
};

static bool pid_listed(const pid_t *v, size_t n, pid_t p)
{
	for (size_t i = 0; i < n; i++)
		if (v[i] == p)
			return true;
	return false;
}

int rec_synth_tree(struct rec_synth_ctx *x, struct amb_buf *out, const pid_t *roots, size_t n)
{
	struct pid_pair *all = NULL;
	size_t nall = 0, cap = 0, ntree = 0, tcap = 0;
	pid_t *tree = NULL;
	DIR *d = opendir("/proc");
	struct dirent *de;
	int err = 0;

	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		char *end;
		long pid = strtol(de->d_name, &end, 10);

		if (*end || pid <= 0)
			continue;
		if (amb_ensure_cap((void **)&all, &cap, sizeof(*all), nall + 1)) {
			err = -ENOMEM;
			break;
		}
		all[nall].pid = (pid_t)pid;
		all[nall].ppid = stat_ppid(pid);
		nall++;
	}
	closedir(d);
	/* Breadth first from the roots: parents before their children. */
	for (size_t i = 0; i < n && !err; i++) {
		if (pid_listed(tree, ntree, roots[i]))
			continue;
		if (amb_ensure_cap((void **)&tree, &tcap, sizeof(*tree), ntree + 1))
			err = -ENOMEM;
		else
			tree[ntree++] = roots[i];
	}
	for (size_t k = 0; k < ntree && !err; k++) {
		for (size_t i = 0; i < nall && !err; i++) {
			if (all[i].ppid != tree[k] || pid_listed(tree, ntree, all[i].pid))
				continue;
			if (amb_ensure_cap((void **)&tree, &tcap, sizeof(*tree), ntree + 1))
				err = -ENOMEM;
			else
				tree[ntree++] = all[i].pid;
		}
	}
	for (size_t k = 0; k < ntree && !err; k++)
		err = rec_synth_process(x, out, tree[k]);
	free(all);
	free(tree);
	return err;
}

static int synth_kernel_map(struct rec_synth_ctx *x, struct amb_buf *out, const char *name,
			    uint64_t addr, uint64_t len, const struct rec_buildid *bid)
{
	struct rec_mmap2 m;

	memset(&m, 0, sizeof(m));
	m.pid = UINT32_MAX;  /* perf's convention for kernel maps: pid -1 */
	m.tid = 0;
	m.addr = addr;
	m.len = len;
	m.pgoff = addr;
	m.prot = PROT_READ | PROT_EXEC;
	m.flags = MAP_PRIVATE;
	m.misc = PERF_RECORD_MISC_KERNEL;
	m.bid = bid;
	m.filename = name;
	return rec_synth_mmap2(x, out, &m);
}

int rec_synth_kernel(struct rec_synth_ctx *x, struct amb_buf *out,
		     const char *kallsyms, size_t kallsyms_len)
{
	struct rec_module *mods = NULL;
	struct rec_buildid kbid = { 0 };
	uint64_t stext, etext;
	char *text;
	size_t len;
	int n, err = 0;

	text = amb_read_file("/sys/kernel/notes", 1 << 16, &len);
	if (text)
		rec_buildid_from_notes(text, len, &kbid);
	free(text);
	err = note_buildid(x, &kbid, AMB_DSO_KERNEL, "[kernel.kallsyms]");
	if (err)
		return err;
	if (kallsyms && !amb_kallsyms_find(kallsyms, kallsyms_len, "_stext", &stext) &&
	    !amb_kallsyms_find(kallsyms, kallsyms_len, "_etext", &etext) && etext > stext) {
		err = synth_kernel_map(x, out, "[kernel.kallsyms]_text", stext, etext - stext, &kbid);
		if (err)
			return err;
	}

	text = amb_read_file("/proc/modules", 16u << 20, &len);
	n = text ? rec_modules_parse(text, len, &mods) : 0;
	free(text);
	for (int i = 0; i < n && !err; i++) {
		char path[160], name[80];
		struct rec_buildid mbid = { 0 };

		snprintf(path, sizeof(path), "/sys/module/%s/notes/.note.gnu.build-id", mods[i].name);
		text = amb_read_file(path, 4096, &len);
		if (text)
			rec_buildid_from_notes(text, len, &mbid);
		free(text);
		snprintf(name, sizeof(name), "[%s]", mods[i].name);
		err = synth_kernel_map(x, out, name, mods[i].addr, mods[i].size, &mbid);
		if (!err)
			err = note_buildid(x, &mbid, AMB_DSO_MODULE, mods[i].name);
	}
	free(mods);
	if (!err)
		err = note_buildid(x, vdso_buildid(x), AMB_DSO_VDSO, "[vdso]");
	return err < 0 ? err : 0;
}

void rec_synth_ctx_free(struct rec_synth_ctx *x)
{
	struct seen_bid *seen = x->seen;

	for (size_t i = 0; i < x->nr_seen; i++)
		free(seen[i].path);
	free(seen);
	x->seen = NULL;
	x->nr_seen = x->cap_seen = 0;
}
