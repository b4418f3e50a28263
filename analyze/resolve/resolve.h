/* SPDX-License-Identifier: MIT */
/*
 * analyze/resolve/resolve.h - the resolve layer's public interface: the
 * traced machine (threads, address spaces), DSOs and their ELF files,
 * symbols, kernel symbols, DWARF unwinding, tracepoint decoding, the
 * sample filters, and for memory samples their data source, data objects
 * and the recorded hardware topology that places them on nodes.  Layers above include this header only.
 */
#ifndef AMB_ANALYZE_RESOLVE_H
#define AMB_ANALYZE_RESOLVE_H

#include "analyze/resolve/dataobj.h"
#include "analyze/resolve/datasrc.h"
#include "analyze/resolve/dso.h"
#include "analyze/resolve/elfmini.h"
#include "analyze/resolve/embedded.h"
#include "analyze/resolve/fieldfilter.h"
#include "analyze/resolve/filter.h"
#include "analyze/resolve/hits.h"
#include "analyze/resolve/hwtopo.h"
#include "analyze/resolve/ksyms.h"
#include "analyze/resolve/machine.h"
#include "analyze/resolve/pipeline.h"
#include "analyze/resolve/sched.h"
#include "analyze/resolve/stackwalk.h"
#include "analyze/resolve/symbols.h"
#include "analyze/resolve/tracepoint.h"
#include "analyze/resolve/unwind.h"

#endif /* AMB_ANALYZE_RESOLVE_H */
