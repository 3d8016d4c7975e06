/* SPDX-License-Identifier: GPL-3.0-or-later
   Copyright (C) 2026 The elfpmd authors  */
/* The pieces of a rewrite: growing arrays of copies and patches.  */
#include <config.h>

#include <stdlib.h>

#include "pieces.h"

/* Make room for one more element of SIZE bytes in *ARRAY of *N used and
   *CAP allocated.  */
static int
grow (void **array, size_t n, size_t *cap, size_t size)
{
  if (n < *cap)
    return 0;
  size_t want = *cap != 0 ? 2 * *cap : 16;
  void *p = reallocarray (*array, want, size);
  if (p == NULL)
    return -1;
  *array = p;
  *cap = want;
  return 0;
}

int
pieces_add_copy (struct plan_pieces *p, uint64_t from, uint64_t to, uint64_t len,
		 struct diag *err)
{
  if (len == 0)
    return 0;
  if (grow ((void **) &p->copies, p->ncopies, &p->copies_cap, sizeof *p->copies) != 0)
    return diag_set (err, "out of memory");
  p->copies[p->ncopies++] = (struct plan_copy) { .from = from, .to = to, .len = len };
  return 0;
}

int
pieces_add_patch (struct plan_pieces *p, enum patch_kind kind, uint64_t offset,
		  unsigned char *bytes, size_t len, struct diag *err)
{
  if (grow ((void **) &p->patches, p->npatches, &p->patches_cap, sizeof *p->patches) != 0)
    {
      free (bytes);
      return diag_set (err, "out of memory");
    }
  p->patches[p->npatches++] = (struct plan_patch) {
    .kind = kind, .offset = offset, .len = len, .bytes = bytes,
  };
  return 0;
}

void
pieces_free (struct plan_pieces *p)
{
  for (size_t i = 0; i < p->npatches; i++)
    free (p->patches[i].bytes);
  free (p->patches);
  free (p->copies);
  *p = (struct plan_pieces) { 0 };
}

const char *
patch_kind_name (enum patch_kind kind)
{
  switch (kind)
    {
    case PATCH_EHDR: return "the ELF header";
    case PATCH_PHDRS: return "the program header table";
    case PATCH_SHDRS: return "the section header table";
    case PATCH_DYNAMIC: return "a dynamic entry";
    case PATCH_SYMBOL: return "a symbol";
    case PATCH_STUB: return "the startup stub";
    case PATCH_NAMES: return "the section name table";
    case PATCH_DEBUGDATA: return "the stub's MiniDebugInfo";
    case PATCH_STUB_SYMBOLS: return "the stub's symbols";
    case PATCH_STUB_NAMES: return "the names of the stub's symbols";
    case PATCH_INIT_ARRAY: return "the first DT_INIT_ARRAY entry's relocation";
    case PATCH_BUILD_ID: return "the build-id";
    default: return "the moved objects' old place";
    }
}
