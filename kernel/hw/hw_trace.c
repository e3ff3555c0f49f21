// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * softhca device model: the tracepoints of hw_trace.h are defined here.
 */
#define CREATE_TRACE_POINTS
#include "hw_trace.h"
