/* SPDX-License-Identifier: 0BSD
   Copyright (C) 2026 The elfpmd authors  */
/* The contract between elfpmd's injector (src/inject/) and the startup stub's
   runtime (stub/): the parameters elfpmd writes into an injected stub.  All fields are 64-bit words in the
   target's byte order; addresses are relative to the stub's entry point, so
   the stub needs no relocation.  */
#ifndef ELFPMD_STUB_PARAMS_H
#define ELFPMD_STUB_PARAMS_H

#include <stdint.h>

#define STUB_MAGIC 0x31444d5046504c45ULL	/* "ELPFPMD1" read as little-endian */
#define STUB_MAX_RANGES 4

/* --populate-max: its default, and its largest value (the stub handles
   ranges of at most 4096 chunks).  */
#define STUB_POPULATE_DEFAULT 64
#define STUB_POPULATE_LIMIT 4096

/* Whether the stub samples a range of N chunks instead of populating it
   whole: a sample takes eight chunks, so a range of four or fewer is
   always populated whole.  Shared by the stub and the report.  */
static inline int
stub_range_sampled (uint64_t n, uint64_t populate_max)
{
  return n > populate_max && n > 4;
}

/* The stub finds the object's file through /proc/self/exe (programs) or
   through /proc/self/maps (shared objects).  */
#define STUB_FLAG_EXE 1u
/* --madvise=copy: where the kernel cannot give the file PMD-sized page
   cache folios, copy the text into anonymous huge pages.  */
#define STUB_FLAG_COPY 2u

struct stub_range
{
  int64_t start;		/* PMD-aligned start, relative to stub_entry */
  uint64_t length;		/* a multiple of the PMD size */
  uint64_t file_offset;		/* file offset of START */
};

struct stub_params
{
  int64_t target;		/* where to continue, relative to stub_entry; 0: return */
  uint64_t magic;		/* STUB_MAGIC: marks a file that already has the stub */
  uint64_t flags;		/* STUB_FLAG_* */
  uint64_t pmd;			/* PMD size */
  uint64_t nranges;
  struct stub_range range[STUB_MAX_RANGES];
  /* Ranges of at most this many chunks are populated whole at startup;
     larger ones are sampled first (see stub/populate.c).  */
  uint64_t populate_max;
  /* With STUB_FLAG_COPY: the stub copies at most this many bytes of text
     (whole chunks) into anonymous huge pages (--copy-max).  */
  uint64_t copy_max;
};

#endif
