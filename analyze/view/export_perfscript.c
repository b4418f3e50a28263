// SPDX-License-Identifier: MIT
/*
 * analyze/view/export_perfscript.c - the samples as `perf script` (perf
 * 6.1) prints them with no options, byte for byte, so that what reads
 * perf script text (FlameGraph's stackcollapse-perf.pl, the Firefox
 * Profiler, speedscope) reads an amber recording, and an imported
 * perf.data prints exactly as perf printed it.
 *
 * perf's rules (tools/perf/builtin-script.c, util/evsel_fprintf.c):
 * the fields are comm, tid, [cpu] when samples carry one, time, period
 * (not for tracepoints), the event name padded to the longest one, then
 * a tracepoint's formatted payload, and the ip with "sym+0xoff (dso)":
 * on the same line without a callchain, else one line per frame and an
 * empty line.  The comm is padded to 16 columns unless callchains are
 * shown.  Frames show their ELF address (a kernel frame its address),
 * what has no symbol "[unknown]".  The names are the resolver's: a PLT
 * stub is named after the GOT slot it jumps through, as objdump and perf
 * 6.3 on name it, not after the relocation at its position in .rela.plt
 * as perf 6.1 does (wrong in libc, whose relocations are not in stub
 * order).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/resolve/resolve.h"
#include "analyze/view/export.h"
#include "analyze/view/out.h"
#include "common/util.h"

enum {
	PF_CPU = 1u << 0, PF_PERIOD = 1u << 1, PF_TRACE = 1u << 2, PF_IP = 1u << 3,
	PF_CALLCHAIN = 1u << 4, PF_TIME = 1u << 6, PF_TID = 1u << 7,
};

struct pscript {
	struct ana_pipeline *p;
	struct ana_thread *t;   /* of the sample being printed */
	bool unwound;           /* its user frames come from the DWARF unwinder */
	unsigned user_frames;   /* of them, printed so far */
	struct ana_tp *tp;
	struct ana_out out;
	struct amb_buf tmp;
	unsigned *fields;       /* per event */
	unsigned name_width;
	bool inline_frames;
};

/* Which fields perf script shows by default for event @e. */
static unsigned event_fields(const struct ana_event *e)
{
	uint64_t st = e->attr.sample_type;
	unsigned f = 0;

	if (st & PERF_SAMPLE_CPU)
		f |= PF_CPU;
	if (st & PERF_SAMPLE_TIME)
		f |= PF_TIME;
	if (st & PERF_SAMPLE_TID)
		f |= PF_TID;
	if (e->tracepoint) {
		f |= PF_TRACE;
		if (st & PERF_SAMPLE_CALLCHAIN)
			f |= PF_IP | PF_CALLCHAIN;
		return f;
	}
	/* perf shows a period also when samples carry none (attr's), never
	 * the data address unless asked. */
	f |= PF_PERIOD;
	if (st & PERF_SAMPLE_IP)
		f |= PF_IP;
	if (st & (PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_STACK_USER))
		f |= PF_CALLCHAIN;
	return f;
}

/* The address perf shows for a frame: where it is in its object's file
 * (perf's map_ip(), which is also the ELF address in a shared object's
 * code, but 0x400000 less in a non-PIE executable's), a kernel address or
 * one outside any mapping as it is. */
static uint64_t frame_addr(const struct ana_loc *loc)
{
	if (loc->kernel || !loc->map)
		return loc->addr;
	return ana_map_file_offset(loc->map, loc->addr);
}

/* "sym+0xoff (dso)", or "[unknown] (dso)". */
static void print_sym_dso(struct ana_out *o, const struct ana_loc *loc)
{
	if (loc->kind == ANA_LOC_SYM || loc->kind == ANA_LOC_KERNEL) {
		ana_out_str(o, loc->kind == ANA_LOC_SYM ? loc->sym->name : loc->ksym->name);
		ana_out_write(o, "+0x", 3);
		ana_out_x64(o, loc->offset, 0);
	} else {
		ana_out_str(o, "[unknown]");
	}
	ana_out_write(o, " (", 2);
	if (loc->kernel)
		ana_out_str(o, ana_loc_dso_name(loc));
	else
		ana_out_str(o, loc->dso ? loc->dso->path : "[unknown]");
	ana_out_char(o, ')');
}

static int print_frame(void *ctx, const struct ana_loc *walked, unsigned depth)
{
	struct pscript *ps = ctx;
	struct ana_out *o = &ps->out;
	struct ana_loc l;
	const struct ana_loc *loc = &l;
	uint64_t addr = walked->addr;
	bool inl;

	(void)depth;
	if (walked->kind == ANA_LOC_TRUNCATED)
		return 0;
	/* perf's DWARF unwinder reports a caller's frame at its return
	 * address - 1, the call instruction. */
	if (ps->unwound && !walked->kernel && ps->user_frames++ > 0)
		addr--;
	/* perf names a return address by the symbol at it, not at the call
	 * before it (as the walk does): a call that ends a function shows as
	 * the next function, +0x0. */
	/* perf lists inlined functions for what its DWARF unwinder found,
	 * with the offset of the function they are inlined into. */
	inl = ps->inline_frames || (ps->unwound && !walked->kernel);
	ana_machine_resolve(ana_pipeline_machine(ps->p), ps->t,
			    walked->kernel ? PERF_RECORD_MISC_KERNEL : PERF_RECORD_MISC_USER,
			    addr, addr, inl ? ANA_SYM_INLINE : 0, &l);
	if (inl && loc->kind == ANA_LOC_SYM) {
		for (unsigned i = 0; i < loc->sym->nr_inl; i++) {
			ana_out_char(o, '\t');
			ana_out_x64(o, frame_addr(loc), 16);
			ana_out_char(o, ' ');
			ana_out_str(o, loc->sym->inl[i].name);
			ana_out_write(o, "+0x", 3);
			ana_out_x64(o, loc->offset, 0);
			ana_out_write(o, " (inlined)\n", 11);
		}
	}
	ana_out_char(o, '\t');
	ana_out_x64(o, frame_addr(loc), 16);
	ana_out_char(o, ' ');
	print_sym_dso(o, loc);
	ana_out_char(o, '\n');
	return 0;
}

static int on_sample(void *ctx, const struct ana_sample *s, struct ana_thread *t)
{
	struct pscript *ps = ctx;
	struct ana_out *o = &ps->out;
	unsigned f = s->evt ? ps->fields[s->evt->index] : PF_IP;
	bool chain = (f & PF_CALLCHAIN) && (s->nr_callchain || s->user_stack_size);
	unsigned want = ps->inline_frames ? ANA_SYM_INLINE : 0;

	if ((f & PF_IP) && chain)
		ana_out_str(o, ana_thread_comm(t));
	else
		ana_out_str_right(o, ana_thread_comm(t), 16);
	ana_out_char(o, ' ');
	if (f & PF_TID) {
		ana_out_u64(o, s->tid, 5, ' ');
		ana_out_char(o, ' ');
	}
	if (f & PF_CPU) {
		ana_out_char(o, '[');
		ana_out_u64(o, s->cpu, 3, '0');
		ana_out_write(o, "] ", 2);
	}
	if (f & PF_TIME) {
		char ts[32];
		int n = snprintf(ts, sizeof(ts), "%" PRIu64 ".%06" PRIu64, s->time / 1000000000,
				 s->time % 1000000000 / 1000);

		ana_out_str_right(o, ts, 12);
		(void)n;
		ana_out_write(o, ": ", 2);
	}
	if (f & PF_PERIOD) {
		bool has = s->evt && (s->evt->attr.sample_type & PERF_SAMPLE_PERIOD);

		ana_out_u64(o, has || !s->evt ? s->period : s->evt->attr.sample_period, 10, ' ');
		ana_out_char(o, ' ');
	}
	ana_out_str_right(o, s->evt ? s->evt->name : "[unknown]", ps->name_width);
	ana_out_write(o, ": ", 2);
	if ((f & PF_TRACE) && s->raw_size) {
		ps->tmp.len = 0;
		if (ps->tp && !ana_tp_format(ps->tp, s->raw, s->raw_size, &ps->tmp))
			ana_out_str(o, (const char *)ps->tmp.data);
	}
	if (f & PF_IP) {
		if (chain) {
			ana_out_char(o, '\n');
			ps->t = t;
			ps->unwound = s->user_stack_size && s->user_abi;
			ps->user_frames = 0;
			ana_pipeline_walk(ps->p, t, s, want | ANA_WALK_RAW, 0, print_frame, ps);
		} else {
			struct ana_loc loc;

			ana_out_char(o, ' ');
			ana_machine_resolve(ana_pipeline_machine(ps->p), t, s->cpumode, s->ip, s->ip,
					    0, &loc);
			ana_out_x64(o, s->ip, 16);
			ana_out_char(o, ' ');
			print_sym_dso(o, &loc);
		}
	}
	ana_out_char(o, '\n');
	return 0;
}

int ana_export_perf_script(struct ana_pipeline *p, FILE *out, const struct ana_export_opts *eo)
{
	struct ana_session *s = ana_pipeline_session(p);
	size_t nev = ana_session_event_count(s);
	struct pscript ps = { .p = p, .tp = ana_pipeline_tp(p) };
	int err, werr;

	ps.inline_frames = eo && eo->inline_frames;
	ps.fields = calloc(nev + 1, sizeof(*ps.fields));
	if (!ps.fields)
		return -ENOMEM;
	/* perf pads every event name to the longest of the recording. */
	for (size_t i = 0; i < nev; i++) {
		const struct ana_event *e = ana_session_event(s, i);

		ps.fields[i] = event_fields(e);
		ps.name_width = AMB_MAX(ps.name_width, (unsigned)strlen(e->name));
	}
	ana_out_init(&ps.out, out);
	ana_out_no_cut(&ps.out);
	err = ana_pipeline_run(p, on_sample, NULL, &ps);
	werr = ana_out_finish(&ps.out);
	amb_buf_free(&ps.tmp);
	free(ps.fields);
	return err ? err : werr;
}
