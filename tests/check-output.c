/* SPDX-License-Identifier: GPL-3.0-or-later
   Copyright (C) 2026 The elfpmd authors  */
/* check-output: run elfpmd's independent checker on a file that claims to
   be IN rewritten, as elfpmd would read its own output back.  The tests
   damage good outputs and expect this to refuse each kind of damage.

   Usage: check-output [--madvise] IN OUT
   IN is planned as elfpmd plans it by default (relaxed rule, the machine's
   PMD and page size, padding allowed, the stub with --madvise); OUT is then
   checked against that plan.  Exit status 0: OUT passes; 1: it does not
   (the reason on stderr); 2: usage or IN cannot be planned.  */
#include <config.h>

#include <libelf.h>
#include <stdio.h>
#include <string.h>

#include "checker.h"
#include "elf_file.h"
#include "machine.h"
#include "phdr_align.h"
#include "plan.h"
#include "stub_params.h"

int
main (int argc, char **argv)
{
  bool madvise = argc > 1 && strcmp (argv[1], "--madvise") == 0;
  if (argc != 3 + madvise)
    {
      fputs ("usage: check-output [--madvise] IN OUT\n", stderr);
      return 2;
    }
  const char *in_path = argv[1 + madvise], *out_path = argv[2 + madvise];
  elf_version (EV_CURRENT);
  struct diag err = { "" };
  struct elf_file in, out;
  if (elf_file_open (&in, in_path, &err) != 0)
    {
      fprintf (stderr, "check-output: %s: %s\n", in_path, err.msg);
      return 2;
    }
  struct machine_info info;
  const char *why = machine_pmd_size (in.ehdr.e_machine, in.elfclass, 0, &info);
  struct rewrite_plan plan;
  struct plan_options po = {
    .layout = { .rule = ALIGN_RULE_RELAXED, .pmd = why == NULL ? info.pmd : 0,
		.page = why == NULL ? info.page : 0, .pad = true },
    .stub = { .wanted = madvise, .populate_max = STUB_POPULATE_DEFAULT },
  };
  if (why != NULL || rewrite_plan_build (&plan, &in, &po, &err) != 0)
    {
      fprintf (stderr, "check-output: %s: %s\n", in_path, why != NULL ? why : err.msg);
      return 2;
    }
  int status = 0;
  if (elf_file_open (&out, out_path, &err) != 0)
    status = 1;
  else
    {
      if (check_output (&plan, &in, &out, &err) != 0)
	status = 1;
      elf_file_close (&out);
    }
  if (status != 0)
    fprintf (stderr, "check-output: %s: %s\n", out_path, err.msg);
  rewrite_plan_free (&plan);
  elf_file_close (&in);
  return status;
}
