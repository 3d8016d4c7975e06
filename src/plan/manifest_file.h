/* SPDX-License-Identifier: GPL-3.0-or-later
   Copyright (C) 2026 The elfpmd authors  */
/* The manifest's file format (manifest_file.c): one JSON line per file
   rewritten (--manifest) or put back (elfpmd revert), appended with one
   write, and read back as the last line of each file.  What the verbs do
   with it is in src/verbs/manifest.c.  */
#ifndef ELFPMD_MANIFEST_FILE_H
#define ELFPMD_MANIFEST_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#include "diag.h"
#include "place.h"

/* One line of the manifest.  */
struct manifest_record
{
  bool revert;			/* a file put back, not a file converted */
  char *file;			/* the absolute name, its bytes (file_hex) */
  char before[65], after[65];	/* convert: the SHA-256 before and after, in hexadecimal;
				   revert: AFTER is the one put back */
  uint64_t size_before, size_after; /* convert; size_after 0 when not recorded */
  char **options;		/* convert: as the command line gives them */
  size_t noptions;
  char *originals;		/* convert: where the original was kept (originals_hex), or NULL */
};

/* The longest line read: longer than any elfpmd writes (a name of
   PATH_MAX bytes as text, each byte escaped in 6, and as hexadecimal, an
   originals directory as long, the hashes and every option: 41 KiB).  */
#define MANIFEST_LINE_MAX 65536

/* Whether OPT is one of the options a convert line may hold, exactly as
   elfpmd writes it: the manifest is data, and nothing else in it reaches
   a command line.  */
bool manifest_option_allowed (const char *opt);

/* R as one line, its newline included, into a new buffer *LINE of *LEN
   bytes (not NUL-ended).  Return 0, or -1 when out of memory.  */
int manifest_record_format (const struct manifest_record *r, char **line, size_t *len);

/* Parse LINE (LEN bytes, without its newline; LINE[LEN] is a NUL, and
   LINE may be changed) into *R, if it is exactly what
   manifest_record_format writes (or what elfpmd 0.2.0 wrote): a JSON
   object with the keys of its action, each once, of their types, and no
   other key.  Return 0, or -1 with the reason in *ERR, one line
   ("not an entry elfpmd wrote (a key twice, at byte 208)", "the option
   '--json=x' is not one elfpmd records", "a name that is not absolute").  */
int manifest_parse_line (char *line, size_t len, struct manifest_record *r, struct diag *err);

/* Append LINE (LEN bytes) to the manifest open for appending as FD, with
   one write so that runs at once do not interleave.  Return 0, or -1
   with the reason in *ERR.  */
int manifest_append (int fd, const char *line, size_t len, struct diag *err);

/* Read the manifest PATH, opened once as trust_open_path's rule allows:
   the last record of each file (by its name's bytes), in the order of
   their first lines, into a new array *RECORDS.  Return their number, or
   -1 with the reason in *ERR and, when it is a line's, that line's number
   in *LINENO (else 0).  */
long manifest_read (const char *path, struct manifest_record **records, size_t *lineno,
		    struct diag *err);

/* Free what R holds (not R).  */
void manifest_record_free (struct manifest_record *r);

/* Free the N records of V and V.  */
void manifest_records_free (struct manifest_record *v, long n);

/* The file PATH a record names, as it is now: opened through a held directory without
   following a symbolic link in its last component (PL keeps the place),
   a regular file, its SHA-256 into HEX and its status into *ST.  Return
   0, or -1 with the reason in *ERR (ENOENT in *GONE when it is not
   there).  Not hashed (HEX empty) when its size is not SIZE_WANT (not 0):
   it cannot have the contents wanted.  A file larger than MAX_SIZE (not
   0) is refused: -1.  */
int manifest_file_state (const char *path, struct place *pl, struct stat *st, char hex[65],
			 bool *gone, bool *elf, int *keep, uint64_t size_want, uint64_t max_size,
			 struct diag *err);

#endif
