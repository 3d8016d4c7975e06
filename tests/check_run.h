/* SPDX-License-Identifier: GPL-3.0-or-later
   Copyright (C) 2026 The elfpmd authors  */
/* The end of every Check suite's main: run S, free it, and exit 0 when
   every test passed.  */
#ifndef ELFPMD_TESTS_CHECK_RUN_H
#define ELFPMD_TESTS_CHECK_RUN_H

#include <check.h>
#include <stdlib.h>

static inline int
check_run (Suite *s)
{
  SRunner *sr = srunner_create (s);
  srunner_run_all (sr, CK_NORMAL);
  int failed = srunner_ntests_failed (sr);
  srunner_free (sr);
  return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

#endif
