// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The shared library is softhca-provider-core linked whole; CMake wants at
 * least one source of its own.
 */
