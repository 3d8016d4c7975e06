/* SPDX-License-Identifier: GPL-3.0-or-later
   Copyright (C) 2026 The elfpmd authors  */
/* elfpmd: align read-only ELF segments so that their text can be mapped with
   PMD-sized pages.  The verb table; each verb owns its command line
   (src/verbs/: rewrite.c the default, status.c, prime.c, map.c).  */
#include <config.h>

#include <argp.h>
#include <stdio.h>
#include <libelf.h>
#include <string.h>
#include <sysexits.h>

#include "diag.h"
#include "manifest.h"
#include "map.h"
#include "prime.h"
#include "rewrite.h"
#include "status.h"

const char *argp_program_bug_address = PACKAGE_BUGREPORT;

/* --version in the GNU shape: what this is, whose, under which licence,
   and (elfpmd copies code into other people's files) what the copied
   code's licence lets them do.  */
static void
print_version (FILE *out, struct argp_state *state)
{
  fputs (PACKAGE_NAME " " PACKAGE_VERSION "\n"
	 "Copyright (C) 2026 The elfpmd authors\n"
	 "License GPLv3+: GNU GPL version 3 or later <https://gnu.org/licenses/gpl.html>.\n"
	 "The startup stub it puts into converted files is under 0BSD: they keep their own\n"
	 "licence.\n"
	 "This is free software: you are free to change and redistribute it.\n"
	 "There is NO WARRANTY, to the extent permitted by law.\n", out);
}

void (*argp_program_version_hook) (FILE *, struct argp_state *) = print_version;

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
	/* argp names the program by argv[0]: "elfpmd status: ...", and so
	   does every other message of the verb.  */
	argv[1] = (char *) verbs[v].usage_name;
	diag_program = verbs[v].usage_name;
	return verbs[v].command (argc - 1, argv + 1);
      }
  /* getopt names the program by argv[0] as given (a path): the one prefix
     of every message is diag_program's.  */
  argv[0] = (char *) diag_program;
  return rewrite_command (argc, argv);
}
