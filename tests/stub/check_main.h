/* SPDX-License-Identifier: GPL-3.0-or-later
   Copyright (C) 2026 The elfpmd authors  */
/* The end of every Check suite's main (tests/check_*.c and
   tests/stub/check_stub_*.c): run one suite, exit 0 when every check
   passed.  */
#ifndef CHECK_MAIN_H
#define CHECK_MAIN_H

#include <check.h>
#include <stdlib.h>

static inline int
run_suite (Suite *s)
{
  SRunner *sr = srunner_create (s);
  srunner_run_all (sr, CK_NORMAL);
  int failed = srunner_ntests_failed (sr);
  srunner_free (sr);
  return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

#endif
