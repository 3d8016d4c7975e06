/* SPDX-License-Identifier: GPL-3.0-or-later
   Copyright (C) 2026 The elfpmd authors  */
/* /proc/PID/smaps, read once for status and prime: each mapping's head
   line ("START-END PERMS OFFSET MAJ:MIN INODE [PATH]") and the fields
   elfpmd reads in it.  */
#ifndef ELFPMD_SMAPS_H
#define ELFPMD_SMAPS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct smaps_mapping
{
  uint64_t start, end, offset;
  bool exec;			/* x in PERMS */
  unsigned major, minor;
  unsigned long inode;		/* 0: no file */
  const char *path;		/* "" for none; valid until the next smaps_next */
  uint64_t file_pmd_kb;		/* FilePmdMapped */
  uint64_t anon_huge_kb;	/* AnonHugePages */
};

struct smaps_reader
{
  FILE *f;
  char *line, *head;		/* the line read last; the current mapping's head */
  size_t line_cap, head_cap;
  bool pending;			/* LINE holds the next mapping's head */
};

/* Open the smaps file PATH ("/proc/self/smaps", "/proc/PID/smaps").
   Return 0, or the errno.  */
int smaps_open (struct smaps_reader *r, const char *path);
/* The next mapping into *M: 1; 0 at the end; -1 with errno set when the
   file could not be read or a line not parsed.  */
int smaps_next (struct smaps_reader *r, struct smaps_mapping *m);
void smaps_close (struct smaps_reader *r);

#endif
