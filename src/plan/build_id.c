/* SPDX-License-Identifier: GPL-3.0-or-later
   Copyright (C) 2026 The elfpmd authors  */
/* The build-id of a rewritten file (build_id.h): its notes found through
   the input's SHT_NOTE sections and PT_NOTE segments (libelf parses them),
   each followed to its place in the output, and a new build-id derived
   from the plan.  The checker finds the notes again in the output on its
   own (checker.c, check_build_id_patch).  */
#include <config.h>

#include <elf.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "build_id.h"
#include "plan.h"
#include "sha256.h"

#ifndef NT_GNU_BUILD_ID
# define NT_GNU_BUILD_ID 3
#endif

/* One build-id note: its desc at input offset IN, LEN bytes.  */
struct found
{
  uint64_t in;
  size_t len;
};

struct search
{
  struct found notes[BUILD_ID_NOTES_MAX];
  size_t n;			/* distinct notes found, also beyond the array */
};

/* Record the build-id notes of DATA, which lies at input offset AT, into
   S; a note found before (through a section and its segment) once.  */
static void
scan_notes (Elf_Data *data, uint64_t at, struct search *s)
{
  GElf_Nhdr nh;
  size_t off = 0, name_off, desc_off, next;
  while (off < data->d_size && (next = gelf_getnote (data, off, &nh, &name_off, &desc_off)) > 0)
    {
      off = next;
      if (nh.n_type != NT_GNU_BUILD_ID || nh.n_namesz != 4 || nh.n_descsz == 0
	  || memcmp ((const char *) data->d_buf + name_off, "GNU", 4) != 0)
	continue;
      uint64_t in = at + desc_off;
      bool seen = false;
      for (size_t k = 0; k < s->n && k < BUILD_ID_NOTES_MAX && !seen; k++)
	seen = s->notes[k].in == in;
      if (seen)
	continue;
      if (s->n < BUILD_ID_NOTES_MAX)
	s->notes[s->n] = (struct found) { in, nh.n_descsz };
      s->n++;
    }
}

/* The build-id notes of FILE into S: in its SHT_NOTE sections, in section
   order, then in its PT_NOTE segments (a file without section headers has
   only those).  */
static void
find_notes (const struct elf_file *file, struct search *s)
{
  for (size_t i = 1; i < file->shnum; i++)
    {
      const GElf_Shdr *sh = &file->shdrs[i];
      if (sh->sh_type != SHT_NOTE)
	continue;
      Elf_Data *d = elf_file_section_data (file, i, sh->sh_addralign == 8 ? ELF_T_NHDR8 : ELF_T_NHDR);
      if (d != NULL)
	scan_notes (d, sh->sh_offset, s);
    }
  for (size_t i = 0; i < file->phnum; i++)
    {
      const GElf_Phdr *ph = &file->phdrs[i];
      if (ph->p_type != PT_NOTE || ph->p_filesz == 0
	  || ph->p_offset > (uint64_t) file->st.st_size
	  || ph->p_filesz > (uint64_t) file->st.st_size - ph->p_offset)
	continue;
      Elf_Data *d = elf_getdata_rawchunk (file->elf, (int64_t) ph->p_offset, ph->p_filesz,
					  ph->p_align == 8 ? ELF_T_NHDR8 : ELF_T_NHDR);
      if (d != NULL)
	scan_notes (d, ph->p_offset, s);
    }
}

/* Where the LEN input bytes at IN land in the output of PLAN: with the
   objects that make room for the stub's program header, if among them,
   else where the layout maps them.  */
static uint64_t
output_offset (const struct rewrite_plan *plan, uint64_t in, size_t len)
{
  const struct phdr_room *r = &plan->stub.room;
  if (plan->stub.enabled && room_is_moved (r, in, len))
    return r->moved_offset + (in - r->moved_start);
  return layout_map_offset (&plan->layout, in);
}

/* V into CTX as 8 bytes, least significant first.  */
static void
hash_u64 (struct sha256_ctx *ctx, uint64_t v)
{
  uint8_t b[8];
  for (int i = 0; i < 8; i++)
    b[i] = (uint8_t) (v >> (8 * i));
  sha256_update (ctx, sizeof b, b);
}

/* Start CTX over every piece of P: each copy's source, destination and
   length, each patch's kind, offset, length and bytes, in their order.  */
static void
hash_pieces (struct sha256_ctx *ctx, const struct plan_pieces *p)
{
  static const char tag[] = "elfpmd build-id 1";
  sha256_init (ctx);
  sha256_update (ctx, sizeof tag, (const uint8_t *) tag);
  hash_u64 (ctx, p->ncopies);
  for (size_t k = 0; k < p->ncopies; k++)
    {
      hash_u64 (ctx, p->copies[k].from);
      hash_u64 (ctx, p->copies[k].to);
      hash_u64 (ctx, p->copies[k].len);
    }
  hash_u64 (ctx, p->npatches);
  for (size_t k = 0; k < p->npatches; k++)
    {
      const struct plan_patch *pt = &p->patches[k];
      hash_u64 (ctx, (uint64_t) pt->kind);
      hash_u64 (ctx, pt->offset);
      hash_u64 (ctx, pt->len);
      sha256_update (ctx, pt->len, pt->bytes);
    }
}

/* The new build-id for OLD (LEN bytes) into OUT (LEN bytes), from PIECES,
   the plan's hash so far: the first LEN bytes of SHA-256 over the pieces
   and the old build-id; beyond 32 bytes, those of the same hash with a
   block counter appended (1, 2, ... as 4 bytes).  */
static void
derive (const struct sha256_ctx *pieces, const unsigned char *old, size_t len, unsigned char *out)
{
  struct sha256_ctx base = *pieces;
  hash_u64 (&base, len);
  sha256_update (&base, len, old);
  for (size_t at = 0, block = 0; at < len; at += SHA256_DIGEST_SIZE, block++)
    {
      struct sha256_ctx c = base;
      if (block != 0)
	{
	  uint8_t n[4] = { (uint8_t) block, (uint8_t) (block >> 8), (uint8_t) (block >> 16),
			   (uint8_t) (block >> 24) };
	  sha256_update (&c, sizeof n, n);
	}
      uint8_t d[SHA256_DIGEST_SIZE];
      sha256_digest (&c, sizeof d, d);
      memcpy (out + at, d, len - at < sizeof d ? len - at : sizeof d);
    }
}

/* Whether [A, A + ALEN) and [B, B + BLEN) overlap.  */
static bool
overlap (uint64_t a, uint64_t alen, uint64_t b, uint64_t blen)
{
  return alen != 0 && blen != 0 && a < b + blen && b < a + alen;
}

/* What else PLAN writes over the LEN output bytes at OUT (the ELF header,
   a header table, a patch), for FILE: its name, or NULL when nothing
   does.  Only a hostile file puts a build-id there.  */
static const char *
written_over (const struct rewrite_plan *plan, const struct elf_file *file, uint64_t out,
	      size_t len)
{
  const struct plan_tables *t = &plan->tables;
  if (overlap (out, len, 0, elf_ehdr_size (file->elfclass)))
    return "the ELF header";
  if (overlap (out, len, t->ehdr.e_phoff, (uint64_t) t->phnum * elf_phdr_size (file->elfclass)))
    return "the program header table";
  if (overlap (out, len, t->ehdr.e_shoff, (uint64_t) t->shnum * elf_shdr_size (file->elfclass)))
    return "the section header table";
  for (size_t k = 0; k < plan->pieces.npatches; k++)
    if (overlap (out, len, plan->pieces.patches[k].offset, plan->pieces.patches[k].len))
      return patch_kind_name (plan->pieces.patches[k].kind);
  return NULL;
}

/* Read LEN bytes of FILE at AT into BUF.  Return 0, or -1 with the reason
   in *ERR.  */
static int
read_input (const struct elf_file *file, uint64_t at, size_t len, unsigned char *buf,
	    struct diag *err)
{
  Elf_Data *d = elf_getdata_rawchunk (file->elf, (int64_t) at, len, ELF_T_BYTE);
  if (d == NULL || d->d_size != len)
    return diag_set (err, "cannot read the build-id at %#" PRIx64 ": %s", at, elf_errmsg (-1));
  memcpy (buf, d->d_buf, len);
  return 0;
}

int
build_id_compose (struct rewrite_plan *plan, const struct elf_file *file,
		  enum build_id_policy policy, struct diag *err)
{
  struct plan_build_id *b = &plan->build_id;
  struct search s = { .n = 0 };
  memset (b, 0, sizeof *b);
  find_notes (file, &s);
  b->notes = s.n;
  if (s.n == 0)
    return 0;
  if (s.notes[0].len <= BUILD_ID_MAX)
    {
      b->len = s.notes[0].len;
      if (read_input (file, s.notes[0].in, b->len, b->before, err) != 0)
	return -1;
      memcpy (b->after, b->before, b->len);
    }
  if (policy == BUILD_ID_KEEP || !plan->changed)
    return 0;
  if (s.n > BUILD_ID_NOTES_MAX)
    return diag_set (err, "%zu GNU build-id notes: elfpmd derives new build-ids for at most %d "
		     "(--build-id=keep keeps them)", s.n, BUILD_ID_NOTES_MAX);
  uint64_t out[BUILD_ID_NOTES_MAX];
  for (size_t k = 0; k < s.n; k++)
    {
      if (s.notes[k].len > BUILD_ID_MAX)
	return diag_set (err, "a GNU build-id of %zu bytes: elfpmd derives build-ids of at most %d "
			 "(--build-id=keep keeps it)", s.notes[k].len, BUILD_ID_MAX);
      out[k] = output_offset (plan, s.notes[k].in, s.notes[k].len);
      const char *what = NULL;
      for (size_t j = 0; j < k && what == NULL; j++)
	if (overlap (out[k], s.notes[k].len, out[j], s.notes[j].len))
	  what = "another build-id";
      if (what == NULL)
	what = written_over (plan, file, out[k], s.notes[k].len);
      if (what != NULL)
	return diag_set (err, "the GNU build-id at %#" PRIx64 " lies under %s (--build-id=keep "
			 "keeps it)", s.notes[k].in, what);
    }

  /* Every new build-id from the plan as it is before the first of them.  */
  struct sha256_ctx pieces;
  hash_pieces (&pieces, &plan->pieces);
  for (size_t k = 0; k < s.n; k++)
    {
      const struct found *f = &s.notes[k];
      unsigned char old[BUILD_ID_MAX];
      unsigned char *now = malloc (f->len);
      if (now == NULL)
	return diag_set (err, "out of memory");
      if (read_input (file, f->in, f->len, old, err) != 0)
	{
	  free (now);
	  return -1;
	}
      derive (&pieces, old, f->len, now);
      if (k == 0)
	memcpy (b->after, now, f->len);
      if (pieces_add_patch (&plan->pieces, PATCH_BUILD_ID, out[k], now, f->len, err) != 0)
	return -1;
    }
  b->derived = true;
  return 0;
}
