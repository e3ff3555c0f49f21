// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * softhca driver: the tracepoints of softhca_trace.h are defined here.
 */
#define CREATE_TRACE_POINTS
#include "softhca_trace.h"
