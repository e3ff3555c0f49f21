// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * softhca_kunit.ko: the softhca KUnit suites. Each suite registers itself
 * with kunit_test_suite() in its own file; KUnit runs them all when the
 * module loads (scripts/kunit.sh).
 */
#include <linux/module.h>

MODULE_DESCRIPTION("softhca KUnit test suites");
MODULE_LICENSE("Dual BSD/GPL");
