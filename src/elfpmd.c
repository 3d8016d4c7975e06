/* SPDX-License-Identifier: GPL-3.0-or-later
   Copyright (C) 2026 The elfpmd authors  */
/* elfpmd: align read-only ELF segments so that their text can be mapped with
   PMD-sized pages.  The verb table; each verb owns its command line
   (src/verbs/: rewrite.c the default, status.c, prime.c, map.c).  */
#include <config.h>

#include <argp.h>
#include <libelf.h>
#include <string.h>
#include <sysexits.h>

#include "manifest.h"
#include "map.h"
#include "prime.h"
#include "rewrite.h"
#include "status.h"

const char *argp_program_version = PACKAGE_NAME " " PACKAGE_VERSION;

int
main (int argc, char **argv)
{
  argp_err_exit_status = EX_USAGE;
  elf_version (EV_CURRENT);
  /* A verb first; a file of that name is still ./status.  */
  static const struct
  {
    const char *name, *usage_name;
    int (*command) (int argc, char **argv);
  } verbs[] = {
    { "status", "elfpmd status", status_command },
    { "prime", "elfpmd prime", prime_command },
    { "map", "elfpmd map", map_command },
    { "reapply", "elfpmd reapply", reapply_command },
    { "revert", "elfpmd revert", revert_command },
  };
  for (size_t v = 0; argc >= 2 && v < sizeof verbs / sizeof verbs[0]; v++)
    if (strcmp (argv[1], verbs[v].name) == 0)
      {
	/* argp names the program by argv[0]: "elfpmd status: ...".  */
	argv[1] = (char *) verbs[v].usage_name;
	return verbs[v].command (argc - 1, argv + 1);
      }
  return rewrite_command (argc, argv);
}
