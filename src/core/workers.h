/* SPDX-License-Identifier: GPL-3.0-or-later
   Copyright (C) 2026 The elfpmd authors  */
/* Units of work done in worker processes: N workers forked, each taking
   the next unit from a shared counter and sending its result back through
   a pipe (a fixed head and up to WORK_OUTPUTS byte strings), received in
   whatever order they finish.  What a unit is, the caller says.  */
#ifndef ELFPMD_WORKERS_H
#define ELFPMD_WORKERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#define WORK_OUTPUTS 3

/* The result of one unit.  */
struct work_result
{
  bool done;			/* it arrived (a unit whose worker died has not) */
  int rc;
  void *head;			/* HEAD_LEN bytes of the caller's, sent as they are */
  char *out[WORK_OUTPUTS];	/* LEN[i] bytes each, malloc'd; NULL for none */
  size_t len[WORK_OUTPUTS];
};

/* Do unit UNIT into RES: its rc, its outputs and the bytes at RES->head;
   ARG is workers_run's.  */
typedef void work_fn (size_t unit, struct work_result *res, void *arg);
/* The result of unit UNIT, RES, has arrived.  */
typedef void work_arrived_fn (size_t unit, const struct work_result *res, void *arg);

/* The number of CPUs this process may run on (at least 1).  */
unsigned workers_cpus (void);

/* Do the NUNITS units with FN in NWORKERS worker processes into
   RESULTS[0..NUNITS-1] (each with its head pointing at HEAD_LEN bytes of
   the caller's), calling ARRIVED as each arrives; in this process when no
   worker can be started.  Say on ERRORS when none can for want of memory.
   Results that never arrive stay not done.  */
void workers_run (size_t nunits, unsigned nworkers, struct work_result **results, size_t head_len,
		  work_fn *fn, work_arrived_fn *arrived, void *arg, FILE *errors);

/* Free the outputs of RES.  */
void work_result_clear (struct work_result *res);

#endif
