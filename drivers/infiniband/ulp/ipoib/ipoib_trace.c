// SPDX-License-Identifier: GPL-2.0-only
/*
 * Trace points of IPoIB connected mode.
 */

#define CREATE_TRACE_POINTS

#include "ipoib_trace.h"
