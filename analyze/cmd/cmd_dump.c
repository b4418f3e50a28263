// SPDX-License-Identifier: MIT
/*
 * analyze/dump.c - `amber-analyze dump FILE [--json]`: every record, decoded
 * but not symbolised, in delivery order (SYNTH first, then all CPUs merged
 * by time).
 *
 * Text lines look like perf script's:
 *
 *   REL_TIME ABS_TIME [CPU] PID/TID TYPE details
 *           ADDRESS [kernel]            (one line per callchain entry)
 *
 * --json writes one object per line.  Its keys are stable (documented in
 * the --help text below, the one place to update when adding one):
 * addresses and other u64 values that may exceed 2^53 are hex strings.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/cmd/cmd.h"
#include <amber/common.h>
#include "common/util.h"

static const char usage[] =
	"usage: amber-analyze dump [--json] [FILE]\n"
	"\n"
	"Print every record of a recording decoded, without symbols: the\n"
	"synthesized records first, then the records of all CPUs merged by time.\n"
	"Text columns: time relative to the first record (s.ns), absolute time,\n"
	"[cpu], pid/tid, record type, then the record's fields; a sample's\n"
	"callchain follows, one address per line with its context.\n"
	"\n"
	"  -j, --json   one JSON object per line, with these keys:\n"
	"     every record: type, time (ns, 0 if none), cpu, pid, tid (-1 if\n"
	"       unknown), synth (bool), size\n"
	"     SAMPLE: event (name or null), id, ip, period, cpumode (kernel, user,\n"
	"       hv, guest_kernel, guest_user, unknown), callchain (array of\n"
	"       {ctx, addr}); when sampled: addr, data_src, weight, phys_addr,\n"
	"       data_page_size, raw_size,\n"
	"       regs_user (count), stack_user (size), stack_user_dyn\n"
	"     MMAP, MMAP2: addr, len, pgoff, filename; MMAP2: prot, flags and\n"
	"       either build_id (hex) or maj, min, ino, ino_generation\n"
	"     COMM: comm, exec (bool)      FORK, EXIT: ppid, ptid\n"
	"     LOST: lost_id, lost          LOST_SAMPLES: lost\n"
	"     THROTTLE, UNTHROTTLE: id, stream_id\n"
	"     SWITCH, SWITCH_CPU_WIDE: out, preempt (bool); SWITCH_CPU_WIDE:\n"
	"       next_prev_pid, next_prev_tid\n"
	"     KSYMBOL: addr, len, ksym_type, name     CGROUP: cgroup_id, path\n"
	"     AUX: aux_offset, aux_size, aux_flags\n"
	"     addresses and ids are strings \"0x...\"; other numbers are numbers\n"
	"  -h, --help   this help\n"
	"\n"
	"exit status: 0 success; 1 some records could not be decoded (each bad\n"
	"block is reported on stderr); 2 usage error or unreadable file.\n";

struct dump_ctx {
	bool json;
	uint64_t base;  /* time the relative column counts from */
};

static const char *cpumode_name(uint8_t m)
{
	switch (m) {
	case PERF_RECORD_MISC_KERNEL: return "kernel";
	case PERF_RECORD_MISC_USER: return "user";
	case PERF_RECORD_MISC_HYPERVISOR: return "hv";
	case PERF_RECORD_MISC_GUEST_KERNEL: return "guest_kernel";
	case PERF_RECORD_MISC_GUEST_USER: return "guest_user";
	default: return "unknown";
	}
}

/* The context a PERF_CONTEXT_* marker switches to, or NULL for an address. */
static const char *context_name(uint64_t v)
{
	switch (v) {
	case PERF_CONTEXT_HV: return "hv";
	case PERF_CONTEXT_KERNEL: return "kernel";
	case PERF_CONTEXT_USER: return "user";
	case PERF_CONTEXT_GUEST: return "guest";
	case PERF_CONTEXT_GUEST_KERNEL: return "guest_kernel";
	case PERF_CONTEXT_GUEST_USER: return "guest_user";
	default: return v >= (uint64_t)PERF_CONTEXT_MAX ? "marker" : NULL;
	}
}

static int32_t as_int(uint32_t v)
{
	return v == UINT32_MAX ? -1 : (int32_t)v;
}

/* ---- text ------------------------------------------------------------------ */

static void text_callchain(const struct ana_sample *s)
{
	const char *ctx = cpumode_name(s->cpumode);

	for (uint64_t i = 0; i < s->nr_callchain; i++) {
		const char *m = context_name(s->callchain[i]);

		if (m) {
			ctx = m;
			continue;
		}
		printf("\t%16" PRIx64 " [%s]\n", s->callchain[i], ctx);
	}
}

static void text_sample(const struct ana_record *rec)
{
	const struct ana_sample *s = &rec->u.sample;
	uint64_t st = rec->evt ? rec->evt->attr.sample_type : 0;

	putchar(' ');
	amb_fput_text(stdout, rec->evt ? rec->evt->name : "?");
	printf(" ip 0x%" PRIx64 " period %" PRIu64 " %s", s->ip, s->period, cpumode_name(s->cpumode));
	if (st & PERF_SAMPLE_ADDR)
		printf(" addr 0x%" PRIx64, s->addr);
	if (st & PERF_SAMPLE_DATA_SRC)
		printf(" data_src 0x%" PRIx64, s->data_src);
	if (st & (PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT))
		printf(" weight %" PRIu64, s->weight);
	if (st & PERF_SAMPLE_PHYS_ADDR)
		printf(" phys_addr 0x%" PRIx64, s->phys_addr);
	if (st & PERF_SAMPLE_DATA_PAGE_SIZE)
		printf(" data_page_size %" PRIu64, s->data_page_size);
	if (st & PERF_SAMPLE_RAW)
		printf(" raw %u bytes", s->raw_size);
	if (st & PERF_SAMPLE_REGS_USER)
		printf(" regs %u", s->user_abi ? (unsigned)__builtin_popcountll(s->user_regs_mask) : 0);
	if (st & PERF_SAMPLE_STACK_USER)
		printf(" stack %" PRIu64 "/%" PRIu64, s->user_stack_dyn_size, s->user_stack_size);
	if (st & PERF_SAMPLE_BRANCH_STACK)
		printf(" branches %" PRIu64, s->nr_branches);
	printf("\n");
	text_callchain(s);
}

static void text_mmap(const struct ana_record *rec)
{
	const __typeof__(rec->u.mmap) *m = &rec->u.mmap;

	printf(" [0x%" PRIx64 "(0x%" PRIx64 ") @ 0x%" PRIx64, m->addr, m->len, m->pgoff);
	if (rec->type == PERF_RECORD_MMAP2) {
		printf(" %c%c%c flags 0x%x", m->prot & 1 ? 'r' : '-', m->prot & 2 ? 'w' : '-',
		       m->prot & 4 ? 'x' : '-', m->flags);
		if (m->build_id_size) {
			printf(" build-id ");
			for (unsigned i = 0; i < m->build_id_size; i++)
				printf("%02x", m->build_id[i]);
		} else {
			printf(" %02x:%02x ino %" PRIu64 " gen %" PRIu64, m->maj, m->min, m->ino,
			       m->ino_generation);
		}
	}
	printf("] ");
	amb_fput_text(stdout, m->filename);
	putchar('\n');
}

static void text_record(const struct dump_ctx *d, const struct ana_record *rec)
{
	if (rec->time) {
		int64_t rel = (int64_t)(rec->time - d->base);
		uint64_t a = rel < 0 ? (uint64_t)-rel : (uint64_t)rel;

		printf("%s%" PRIu64 ".%09" PRIu64 " %" PRIu64 ".%09" PRIu64, rel < 0 ? "-" : " ",
		       a / 1000000000u, a % 1000000000u, rec->time / 1000000000u,
		       rec->time % 1000000000u);
	} else {
		printf(" %11s %20s", "-", "-");
	}
	if (rec->cpu == UINT32_MAX)
		printf(" [---]");
	else
		printf(" [%03u]", rec->cpu);
	printf(" %7d/%-7d %s%s", as_int(rec->pid), as_int(rec->tid),
	       ana_record_type_name(rec->type), rec->synthesized ? "(synth)" : "");

	switch (rec->type) {
	case PERF_RECORD_SAMPLE:
		text_sample(rec);
		return;
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
		text_mmap(rec);
		return;
	case PERF_RECORD_COMM:
		putchar(' ');
		amb_fput_text(stdout, rec->u.comm.comm);
		printf("%s\n", rec->u.comm.exec ? " (exec)" : "");
		return;
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
		printf(" pid %u ppid %u tid %u ptid %u\n", rec->u.fork.pid, rec->u.fork.ppid,
		       rec->u.fork.tid, rec->u.fork.ptid);
		return;
	case PERF_RECORD_LOST:
		printf(" id 0x%" PRIx64 " lost %" PRIu64 "\n", rec->u.lost.id, rec->u.lost.lost);
		return;
	case PERF_RECORD_LOST_SAMPLES:
		printf(" lost %" PRIu64 "\n", rec->u.lost_samples.lost);
		return;
	case PERF_RECORD_THROTTLE:
	case PERF_RECORD_UNTHROTTLE:
		printf(" id 0x%" PRIx64 " stream_id 0x%" PRIx64 "\n", rec->u.throttle.id,
		       rec->u.throttle.stream_id);
		return;
	case PERF_RECORD_SWITCH:
	case PERF_RECORD_SWITCH_CPU_WIDE:
		printf(" %s%s", rec->misc & PERF_RECORD_MISC_SWITCH_OUT ? "out" : "in",
		       rec->misc & PERF_RECORD_MISC_SWITCH_OUT_PREEMPT ? " (preempt)" : "");
		if (rec->type == PERF_RECORD_SWITCH_CPU_WIDE)
			printf(" %s %d/%d", rec->misc & PERF_RECORD_MISC_SWITCH_OUT ? "next" : "prev",
			       as_int(rec->u.switch_cpu.next_prev_pid),
			       as_int(rec->u.switch_cpu.next_prev_tid));
		printf("\n");
		return;
	case PERF_RECORD_KSYMBOL:
		printf(" 0x%" PRIx64 " len %u type %u ", rec->u.ksymbol.addr, rec->u.ksymbol.len,
		       rec->u.ksymbol.ksym_type);
		amb_fput_text(stdout, rec->u.ksymbol.name);
		putchar('\n');
		return;
	case PERF_RECORD_CGROUP:
		printf(" id %" PRIu64 " ", rec->u.cgroup.id);
		amb_fput_text(stdout, rec->u.cgroup.path);
		putchar('\n');
		return;
	case PERF_RECORD_AUX:
		printf(" offset 0x%" PRIx64 " size 0x%" PRIx64 " flags 0x%x\n", rec->u.aux.offset,
		       rec->u.aux.size, rec->u.aux.flags);
		return;
	default:
		printf(" size %u\n", rec->size);
		return;
	}
}

/* ---- JSON ------------------------------------------------------------------- */

static void jhex(const char *key, uint64_t v)
{
	printf(",\"%s\":\"0x%" PRIx64 "\"", key, v);
}

static void jnum(const char *key, uint64_t v)
{
	printf(",\"%s\":%" PRIu64, key, v);
}

static void jstr(const char *key, const char *s)
{
	printf(",\"%s\":", key);
	amb_json_str(stdout, s);
}

static void json_sample(const struct ana_record *rec)
{
	const struct ana_sample *s = &rec->u.sample;
	uint64_t st = rec->evt ? rec->evt->attr.sample_type : 0;
	const char *ctx = cpumode_name(s->cpumode), *sep = "";

	if (rec->evt)
		jstr("event", rec->evt->name);
	else
		printf(",\"event\":null");
	jhex("id", s->id);
	jhex("ip", s->ip);
	jnum("period", s->period);
	jstr("cpumode", cpumode_name(s->cpumode));
	printf(",\"callchain\":[");
	for (uint64_t i = 0; i < s->nr_callchain; i++) {
		const char *m = context_name(s->callchain[i]);

		if (m) {
			ctx = m;
			continue;
		}
		printf("%s{\"ctx\":\"%s\",\"addr\":\"0x%" PRIx64 "\"}", sep, ctx, s->callchain[i]);
		sep = ",";
	}
	printf("]");
	if (st & PERF_SAMPLE_ADDR)
		jhex("addr", s->addr);
	if (st & PERF_SAMPLE_DATA_SRC)
		jhex("data_src", s->data_src);
	if (st & (PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT))
		jnum("weight", s->weight);
	if (st & PERF_SAMPLE_PHYS_ADDR)
		jhex("phys_addr", s->phys_addr);
	if (st & PERF_SAMPLE_DATA_PAGE_SIZE)
		jnum("data_page_size", s->data_page_size);
	if (st & PERF_SAMPLE_RAW)
		jnum("raw_size", s->raw_size);
	if (st & PERF_SAMPLE_REGS_USER)
		jnum("regs_user", s->user_abi ? (unsigned)__builtin_popcountll(s->user_regs_mask) : 0);
	if (st & PERF_SAMPLE_STACK_USER) {
		jnum("stack_user", s->user_stack_size);
		jnum("stack_user_dyn", s->user_stack_dyn_size);
	}
}

static void json_record(const struct ana_record *rec)
{
	printf("{\"type\":\"%s\"", ana_record_type_name(rec->type));
	jnum("time", rec->time);
	printf(",\"cpu\":%d,\"pid\":%d,\"tid\":%d,\"synth\":%s", as_int(rec->cpu),
	       as_int(rec->pid), as_int(rec->tid), rec->synthesized ? "true" : "false");
	jnum("size", rec->size);

	switch (rec->type) {
	case PERF_RECORD_SAMPLE:
		json_sample(rec);
		break;
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2: {
		const __typeof__(rec->u.mmap) *m = &rec->u.mmap;

		jhex("addr", m->addr);
		jhex("len", m->len);
		jhex("pgoff", m->pgoff);
		if (rec->type == PERF_RECORD_MMAP2) {
			jnum("prot", m->prot);
			jnum("flags", m->flags);
			if (m->build_id_size) {
				printf(",\"build_id\":\"");
				for (unsigned i = 0; i < m->build_id_size; i++)
					printf("%02x", m->build_id[i]);
				printf("\"");
			} else {
				jnum("maj", m->maj);
				jnum("min", m->min);
				jnum("ino", m->ino);
				jnum("ino_generation", m->ino_generation);
			}
		}
		jstr("filename", m->filename);
		break;
	}
	case PERF_RECORD_COMM:
		jstr("comm", rec->u.comm.comm);
		printf(",\"exec\":%s", rec->u.comm.exec ? "true" : "false");
		break;
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
		jnum("ppid", rec->u.fork.ppid);
		jnum("ptid", rec->u.fork.ptid);
		break;
	case PERF_RECORD_LOST:
		jhex("lost_id", rec->u.lost.id);
		jnum("lost", rec->u.lost.lost);
		break;
	case PERF_RECORD_LOST_SAMPLES:
		jnum("lost", rec->u.lost_samples.lost);
		break;
	case PERF_RECORD_THROTTLE:
	case PERF_RECORD_UNTHROTTLE:
		jhex("id", rec->u.throttle.id);
		jhex("stream_id", rec->u.throttle.stream_id);
		break;
	case PERF_RECORD_SWITCH:
	case PERF_RECORD_SWITCH_CPU_WIDE:
		printf(",\"out\":%s,\"preempt\":%s",
		       rec->misc & PERF_RECORD_MISC_SWITCH_OUT ? "true" : "false",
		       rec->misc & PERF_RECORD_MISC_SWITCH_OUT_PREEMPT ? "true" : "false");
		if (rec->type == PERF_RECORD_SWITCH_CPU_WIDE)
			printf(",\"next_prev_pid\":%d,\"next_prev_tid\":%d",
			       as_int(rec->u.switch_cpu.next_prev_pid),
			       as_int(rec->u.switch_cpu.next_prev_tid));
		break;
	case PERF_RECORD_KSYMBOL:
		jhex("addr", rec->u.ksymbol.addr);
		jnum("len", rec->u.ksymbol.len);
		jnum("ksym_type", rec->u.ksymbol.ksym_type);
		jstr("name", rec->u.ksymbol.name);
		break;
	case PERF_RECORD_CGROUP:
		jnum("cgroup_id", rec->u.cgroup.id);
		jstr("path", rec->u.cgroup.path);
		break;
	case PERF_RECORD_AUX:
		jhex("aux_offset", rec->u.aux.offset);
		jhex("aux_size", rec->u.aux.size);
		jnum("aux_flags", rec->u.aux.flags);
		break;
	default:
		break;
	}
	printf("}\n");
}

static int dump_one(void *ctx, const struct ana_record *rec)
{
	const struct dump_ctx *d = ctx;

	if (d->json)
		json_record(rec);
	else
		text_record(d, rec);
	return 0;
}

/* The earliest timestamp any SYNTH or RING block announces. */
static uint64_t first_time(struct amb_reader *r)
{
	uint64_t t = 0;

	for (size_t i = 0; i < amb_reader_block_count(r); i++) {
		const struct amb_block_info *bi = amb_reader_block(r, i);

		if ((bi->type == AMB_BLOCK_RING || bi->type == AMB_BLOCK_SYNTH) && bi->first_time &&
		    (!t || bi->first_time < t))
			t = bi->first_time;
	}
	return t;
}

static int dump_option(void *ctx, int c, const char *arg)
{
	if (c != 'j')
		return 1;
	((struct dump_ctx *)ctx)->json = true;
	return 0;
}

int ana_cmd_dump(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ NULL, 0, NULL, 0 },
	};
	static const struct ana_cmd_desc desc = { "dump", usage, "j", opts, 1, 1, true };
	static char obuf[1 << 20];
	struct ana_session_stats st;
	struct ana_session *s = NULL;
	struct dump_ctx d = { 0 };
	const char *path = NULL;
	int c, err;

	c = ana_cmd_parse(&desc, argc, argv, NULL, dump_option, &d, &path);
	if (c != ANA_CMD_GO_ON)
		return c;
	amb_errmsg_clear();
	err = ana_session_open(path, &s);
	if (err) {
		ana_cmd_fail("dump", path, err);
		return 2;
	}
	setvbuf(stdout, obuf, _IOFBF, sizeof(obuf));
	d.base = first_time(ana_session_reader(s));
	err = ana_session_for_each(s, dump_one, &d);
	fflush(stdout);
	ana_session_get_stats(s, &st);
	ana_session_close(s);
	if (err) {
		ana_cmd_error("dump", "%s: %s", path, amb_strerror(err));
		return 2;
	}
	if (ferror(stdout)) {
		ana_cmd_error("dump", "writing the dump of %s failed", path);
		return 2;
	}
	return st.bad_records ? 1 : 0;
}
