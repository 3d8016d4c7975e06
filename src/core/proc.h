/* SPDX-License-Identifier: GPL-3.0-or-later
   Copyright (C) 2026 The elfpmd authors  */
/* What /proc and the page cache say about memory, for status and prime:
   - /proc/PID/smaps, each mapping's head line ("START-END PERMS OFFSET
     MAJ:MIN INODE [PATH]") and the fields elfpmd reads in it;
   - a process's text by object: its executable mappings grouped by file,
     their whole PMD chunks, FilePmdMapped and AnonHugePages, and from
     /proc/PID/pagemap which chunks it has touched;
   - the file a process maps, opened root-safely;
   - one chunk of a file mapped alone: how many of its pages the page
     cache holds (mincore) and whether the kernel maps it with a PMD.  */
#ifndef ELFPMD_PROC_H
#define ELFPMD_PROC_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "diag.h"

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

/* One object as one process maps it.  */
struct proc_object
{
  char *path;
  dev_t dev;
  ino_t ino;
  uint64_t text;		/* bytes of its executable mappings */
  uint64_t whole;		/* whole PMD chunks in them, address and offset aligned */
  uint64_t pmd_kb;		/* their FilePmdMapped */
  uint64_t anon_kb;		/* their AnonHugePages */
  uint64_t copied_kb;		/* AnonHugePages of its text copied by elfpmd's stub */
  uint64_t map_start, map_end;	/* one of them, for /proc/PID/map_files */
  /* Whole chunks with at least one page in the process's page tables
     (/proc/PID/pagemap): run, or populated and kept, by the program; the
     others it has not used (the stub lets go of chunks it only populated).
     TOUCHED_KNOWN false: pagemap could not be read.  */
  uint64_t touched;
  bool touched_known;
};

/* The text of one process.  */
struct proc_text
{
  long pid;
  char comm[64];
  struct proc_object *objects;
  size_t nobjects;
  uint64_t anon_exec_kb;	/* AnonHugePages of anonymous executable mappings that
				   are no copy of a file's text: JIT code */
};

/* The geometry a process's text is read with: the PMD and page sizes,
   and a buffer of one chunk's pagemap entries (PMD / PAGE * 8 bytes; NULL:
   touched chunks are not read).  */
struct proc_geometry
{
  uint64_t pmd, page;
  unsigned char *pagemap_buf;
};

/* Read the text of process PID from the proc file system PROC into *P:
   its command name (/proc/PID/comm) and its executable mappings
   (/proc/PID/smaps, /proc/PID/pagemap).  Return 0, or the errno that
   stopped it (then *P holds nothing to free).  */
int proc_text_read (struct proc_text *p, const char *proc, long pid,
		    const struct proc_geometry *g);
void proc_text_free (struct proc_text *p);

/* The command name of process PID (PROC/PID/comm) into COMM, "" when
   unreadable.  Return 0, or -1 with errno set when it cannot be opened.  */
int proc_read_comm (const char *proc, long pid, char comm[64]);

/* Every process ID in the proc file system PROC, sorted, into *PIDS.
   Return the count, or -1 with errno set.  */
long proc_list_pids (const char *proc, long **pids);

/* Open the file of O, which process PID maps, read-only: through
   PROC/PID/map_files, else at its path in the process's root; fill *ST.
   Return the descriptor, or -1 with the reason in *WHY.  */
int proc_open_mapped (const char *proc, long pid, const struct proc_object *o, struct stat *st,
		      struct diag *why);

/* One chunk of a file mapped alone: at a PMD-aligned address of a fresh
   reservation, so that no page table covers it yet.  */
struct chunk_map
{
  void *reserved;		/* 2 PMD of PROT_NONE, unmapped with it */
  unsigned char *at;
  uint64_t pmd;
};

/* Map the chunk at file offset OFFSET of FD (PMD bytes) into *M with
   MADV_HUGEPAGE and MADV_RANDOM.  Return 0, or the errno that stopped it.  */
int chunk_map_open (struct chunk_map *m, int fd, uint64_t offset, uint64_t pmd);
void chunk_map_close (struct chunk_map *m);
/* How many pages (of PAGE bytes) of M's chunk the page cache holds, or -1.  */
long chunk_cached_pages (const struct chunk_map *m, long page);
/* Whether M's chunk is mapped with a PMD: the FilePmdMapped of its mapping
   in /proc/self/smaps.  */
bool chunk_pmd_mapped (const struct chunk_map *m);

#endif
