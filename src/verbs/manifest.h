/* SPDX-License-Identifier: GPL-3.0-or-later
   Copyright (C) 2026 The elfpmd authors  */
/* The manifest of a conversion (--manifest=FILE): one JSON line per file
   rewritten, with the SHA-256 of its contents before and after and the
   options that made it, appended in the order of the names; and the verbs
   that read it: "elfpmd reapply" converts again, with the same options,
   the files that something else (a package upgrade) replaced since, and
   "elfpmd revert" puts back the originals kept by --keep-originals.  */
#ifndef ELFPMD_MANIFEST_H
#define ELFPMD_MANIFEST_H

#include <stdio.h>

#include "process.h"

/* The manifest elfpmd reapply and revert read when none is named, and the
   directory beside it where --keep-originals is put by the packaging
   hooks.  */
#define MANIFEST_DEFAULT "/var/lib/elfpmd/manifest"

/* Append to M the entry of NAME (as the run names it: made absolute here)
   rewritten with the outcome OUT under RO; KEEP_DIR (absolute) is where
   the original was kept, or NULL.  */
void manifest_entry (FILE *m, const char *name, const struct file_outcome *out,
		     const struct run_options *ro, const char *keep_dir);

/* "elfpmd reapply [OPTION...]" and "elfpmd revert [OPTION...] [FILE...]":
   parse, act, return the exit status.  */
int reapply_command (int argc, char **argv);
int revert_command (int argc, char **argv);

#endif
