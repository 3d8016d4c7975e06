/* SPDX-License-Identifier: GPL-3.0-or-later
   Copyright (C) 2026 The elfpmd authors  */
/* elfpmd map: which compilation units and functions lie in the whole PMD
   chunks of a file's text, which stay outside them on small pages, and how
   much of a profile's hot code the chunks hold.  */
#ifndef ELFPMD_MAP_H
#define ELFPMD_MAP_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct map_options
{
  bool json;			/* one JSON object instead of the text report */
  uint64_t pmd_size;		/* --pmd-size, 0: the machine's */
  uint64_t page_size;		/* --page-size, 0: the machine's usual one */
  const char *hot;		/* --hot FILE, or NULL */
  const char *debug_root;	/* where separate debug files live ("/usr/lib/debug") */
  bool no_dwarf;		/* read no DWARF, as a build without libdwarf */
  bool demangle;		/* -C: C++ names demangled */
};

/* Map the file NAME under OPTS: the report to OUT, errors and the one
   warning about DWARF that cannot be read to ERRORS, one line each.
   Return 0, or 1 when NAME or the --hot file could not be read.  */
int map_run (const char *name, const struct map_options *opts, FILE *out, FILE *errors);

/* Whether this build can demangle C++ names (configure found libstdc++'s
   __cxa_demangle).  */
bool map_has_demangler (void);

/* The command line "elfpmd map [OPTION...] FILE" (ARGV[0] the verb's name
   for messages): parse it, print the map, return the exit status.  */
int map_command (int argc, char **argv);

#endif
