/* SPDX-License-Identifier: MIT */
/*
 * analyze/view/view.h - the view layer's public interface: command output,
 * interned strings, stack trees and the flame graphs drawn from them, and
 * the statistics of `diff`, the stored counts as stat tables.  The command
 * layer includes this header only.
 */
#ifndef AMB_ANALYZE_VIEW_H
#define AMB_ANALYZE_VIEW_H

#include "analyze/view/flame_load.h"
#include "analyze/view/flame_svg.h"
#include "analyze/view/offcpu.h"
#include "analyze/view/intern.h"
#include "analyze/view/out.h"
#include "analyze/view/stacks.h"
#include "analyze/view/counts_table.h"
#include "analyze/view/header_text.h"
#include "analyze/view/stats.h"
#include "analyze/view/export.h"

#endif /* AMB_ANALYZE_VIEW_H */
