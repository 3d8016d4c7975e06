/* SPDX-License-Identifier: GPL-3.0-or-later
   Copyright (C) 2026 The elfpmd authors  */
/* Applying a rewrite plan: the only code that writes.  */
#ifndef ELFPMD_WRITE_H
#define ELFPMD_WRITE_H

#include <stdbool.h>

#include "diag.h"
#include "elf_file.h"
#include "ima.h"
#include "place.h"
#include "plan.h"

struct write_options
{
  bool in_place;		/* TARGET replaces the input: keep owner, mode, xattrs */
  const struct ima_plan *ima;	/* with IN_PLACE: what ima_plan_build decided, or NULL */
  bool sync;			/* fsync the new file and its directory before and after rename */
  bool preserve_dates;		/* the new file keeps the input's atime and mtime */
  const struct place *links;	/* with IN_PLACE: other names of the input's inode, */
  const char *const *link_names;	/* (as the user gave them, for messages) */
  size_t nlinks;		/* to name the new file once it is in place */
  bool hash;			/* --manifest: the SHA-256 of the input and the output */
  bool keep;			/* --keep-originals: a copy of the input goes into */
  int keep_dirfd;		/* this directory, named by its SHA-256 (needs HASH) */
};

/* What the write produced, for the report.  */
struct write_result
{
  uint64_t allocated_before;	/* disk space of the input, in bytes */
  uint64_t allocated_after;	/* disk space of the output */
  size_t relinked;		/* names of OPTS->links that now name the new file */
  char warning[512];		/* what went wrong after the file was replaced, or "" */
  /* With OPTS->hash: the input's and the renamed output's contents.  */
  unsigned char sha256_before[32], sha256_after[32];
  uint64_t size_before, size_after;
  bool kept;			/* with OPTS->keep_dirfd: the input's copy is there */
};

/* Write FILE transformed by PLAN to TARGET, atomically: the new contents go to
   a temporary file beside TARGET, which is verified, then renamed over TARGET;
   every step relative to TARGET's directory descriptor (and each link's),
   never by path.
   In place, the new file keeps the input's extended attributes except
   security.evm (never copied) and security.ima, which per OPTS->ima gets
   the hash of the new contents, computed once they are all written.
   Then each of OPTS->links is replaced, atomically too, by a hard link to
   TARGET, if it still names the input's inode.  Fill *RES.  On failure
   nothing but the temporary file (removed again) was touched; a failure
   after the rename (syncing a directory, replacing a link) is only a warning
   in RES->warning.
   Return 0, or -1 with the reason in *ERR.  */
int write_plan (const struct elf_file *file, const struct rewrite_plan *plan,
		const struct place *target, const struct write_options *opts,
		struct write_result *res, struct diag *err);

/* Give OUT, a new file that is to replace FILE (only its fd and st are
   read), FILE's owner, group, permission bits and extended attributes,
   except IMA's and EVM's, which IMA (from ima_plan_build of FILE) decides
   about once OUT's contents are final.  Return 0, or -1 with the reason in
   *ERR.  */
int keep_metadata (const struct elf_file *file, int out, const struct ima_plan *ima,
		   struct diag *err);

/* Put the kept original ORIG (its status OST) at PL, in the place of the
   file there now, CUR (its status ST), hashing ORIG as it is copied: what
   is put back is what was hashed, and it must be WANT.  The new file gets
   CUR's owner, mode and extended attributes (IMA's hash renewed, a
   signature or EVM refused, as for a rewrite) and ORIG's times (the
   original's, kept with it).  Return 0, or -1 with the reason in *ERR.  */
int write_restore (struct place *pl, int cur, const struct stat *st, int orig, const struct stat *ost,
		   const char *want, struct diag *err);

#endif
