/* SPDX-License-Identifier: GPL-3.0-or-later
   Copyright (C) 2026 The elfpmd authors  */
/* Synthetic ELF files for the unit tests.  */
#define _GNU_SOURCE
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "synth.h"

void
synth_put (unsigned char *p, uint64_t v, int n, int data)
{
  for (int i = 0; i < n; i++)
    p[data == 1 ? i : n - 1 - i] = (unsigned char) (v >> (8 * i));
}

uint64_t
synth_get (const unsigned char *p, int n, int data)
{
  uint64_t v = 0;
  for (int i = 0; i < n; i++)
    v |= (uint64_t) p[data == 1 ? i : n - 1 - i] << (8 * i);
  return v;
}

static size_t
ehdr_size (const struct synth_elf *s)
{
  return s->elfclass == 1 ? 52 : 64;
}

static size_t
phdr_size (const struct synth_elf *s)
{
  return s->elfclass == 1 ? 32 : 56;
}

int
synth_write (const char *path, const struct synth_elf *s)
{
  uint64_t phoff = s->phoff != 0 ? s->phoff : ehdr_size (s);
  uint64_t size = phoff + s->phnum * phdr_size (s);
  for (size_t i = 0; i < s->phnum; i++)
    if (s->phdr[i].offset + s->phdr[i].filesz > size)
      size = s->phdr[i].offset + s->phdr[i].filesz;
  if (s->size != 0)
    size = s->size;
  size_t shentsize = s->elfclass == 1 ? 40 : 64;
  uint64_t shoff = s->shoff != 0 ? s->shoff : (size + 7) & ~(uint64_t) 7;
  if (s->shnum != 0 && shoff + (s->shnum + 1) * shentsize > size)
    size = shoff + (s->shnum + 1) * shentsize;
  unsigned char *buf = calloc (1, size);
  if (buf == NULL)
    return -1;
  int d = s->data;
  memcpy (buf, "\177ELF", 4);
  buf[4] = (unsigned char) s->elfclass;
  buf[5] = (unsigned char) d;
  buf[6] = 1;
  synth_put (buf + 16, s->type, 2, d);
  synth_put (buf + 18, s->machine, 2, d);
  synth_put (buf + 20, 1, 4, d);
  if (s->elfclass == 1)
    {
      synth_put (buf + 28, phoff, 4, d);
      synth_put (buf + 40, 52, 2, d);
      synth_put (buf + 42, 32, 2, d);
      synth_put (buf + 44, s->phnum, 2, d);
      synth_put (buf + 46, 40, 2, d);
    }
  else
    {
      synth_put (buf + 32, phoff, 8, d);
      synth_put (buf + 52, 64, 2, d);
      synth_put (buf + 54, 56, 2, d);
      synth_put (buf + 56, s->phnum, 2, d);
      synth_put (buf + 58, 64, 2, d);
    }
  for (size_t i = 0; i < s->phnum; i++)
    {
      const struct synth_phdr *ph = &s->phdr[i];
      unsigned char *p = buf + phoff + i * phdr_size (s);
      if (phoff + (i + 1) * phdr_size (s) > size)
	break;
      if (s->elfclass == 1)
	{
	  synth_put (p + 0, ph->type, 4, d);
	  synth_put (p + 4, ph->offset, 4, d);
	  synth_put (p + 8, ph->vaddr, 4, d);
	  synth_put (p + 12, ph->vaddr, 4, d);
	  synth_put (p + 16, ph->filesz, 4, d);
	  synth_put (p + 20, ph->memsz, 4, d);
	  synth_put (p + 24, ph->flags, 4, d);
	  synth_put (p + 28, ph->align, 4, d);
	}
      else
	{
	  synth_put (p + 0, ph->type, 4, d);
	  synth_put (p + 4, ph->flags, 4, d);
	  synth_put (p + 8, ph->offset, 8, d);
	  synth_put (p + 16, ph->vaddr, 8, d);
	  synth_put (p + 24, ph->vaddr, 8, d);
	  synth_put (p + 32, ph->filesz, 8, d);
	  synth_put (p + 40, ph->memsz, 8, d);
	  synth_put (p + 48, ph->align, 8, d);
	}
    }
  if (s->shnum != 0)
    {
      if (s->elfclass == 1)
	{
	  synth_put (buf + 32, shoff, 4, d);
	  synth_put (buf + 48, s->shnum + 1, 2, d);
	  synth_put (buf + 50, s->shstrndx, 2, d);
	}
      else
	{
	  synth_put (buf + 40, shoff, 8, d);
	  synth_put (buf + 60, s->shnum + 1, 2, d);
	  synth_put (buf + 62, s->shstrndx, 2, d);
	}
      for (size_t i = 0; i < s->shnum; i++)
	{
	  const struct synth_shdr *sh = &s->shdr[i];
	  unsigned char *p = buf + shoff + (i + 1) * shentsize;
	  int w = s->elfclass == 1 ? 4 : 8;
	  synth_put (p + 4, sh->type, 4, d);
	  synth_put (p + 8, sh->flags, w, d);
	  synth_put (p + 8 + w, sh->addr, w, d);
	  synth_put (p + 8 + 2 * w, sh->offset, w, d);
	  synth_put (p + 8 + 3 * w, sh->size, w, d);
	}
    }
  FILE *f = fopen (path, "wb");
  int ret = (f != NULL && fwrite (buf, 1, size, f) == size) ? 0 : -1;
  if (f != NULL && fclose (f) != 0)
    ret = -1;
  free (buf);
  return ret;
}

uint64_t
synth_read_align (const char *path, const struct synth_elf *s, size_t index)
{
  FILE *f = fopen (path, "rb");
  if (f == NULL)
    return UINT64_MAX;
  uint64_t phoff = s->phoff != 0 ? s->phoff : ehdr_size (s);
  unsigned char buf[8];
  uint64_t at = phoff + index * phdr_size (s) + (s->elfclass == 1 ? 28 : 48);
  int n = s->elfclass == 1 ? 4 : 8;
  uint64_t v = UINT64_MAX;
  if (fseek (f, (long) at, SEEK_SET) == 0 && fread (buf, 1, (size_t) n, f) == (size_t) n)
    v = synth_get (buf, n, s->data);
  fclose (f);
  return v;
}

/* The directory of synth_temp_dir_create, or NULL.  */
static char *temp_dir;

static const char *
tmpdir (void)
{
  const char *dir = getenv ("TMPDIR");
  return dir != NULL && *dir != '\0' ? dir : "/tmp";
}

void
synth_temp_dir_create (void)
{
  if (temp_dir != NULL)
    return;
  if (asprintf (&temp_dir, "%s/elfpmd-tests-%ld-XXXXXX", tmpdir (), (long) getpid ()) < 0)
    temp_dir = NULL;
  if (temp_dir == NULL || mkdtemp (temp_dir) == NULL)
    {
      /* Without it the tests cannot promise to clean up: do not run them.  */
      perror ("cannot create a directory for the tests' temporary files");
      exit (EXIT_FAILURE);
    }
}

static int
remove_one (const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
  (void) st;
  (void) flag;
  (void) ftw;
  if (remove (path) != 0)
    perror (path);
  return 0;
}

void
synth_remove_tree (const char *path)
{
  nftw (path, remove_one, 16, FTW_DEPTH | FTW_PHYS);
}

void
synth_temp_dir_remove (void)
{
  if (temp_dir == NULL)
    return;
  synth_remove_tree (temp_dir);
  free (temp_dir);
  temp_dir = NULL;
}

char *
synth_temp_path (const char *tag)
{
  char *path;
  if (temp_dir != NULL
      ? asprintf (&path, "%s/%s-XXXXXX", temp_dir, tag) < 0
      : asprintf (&path, "%s/elfpmd-%s-%ld-XXXXXX", tmpdir (), tag, (long) getpid ()) < 0)
    return NULL;
  int fd = mkstemp (path);
  if (fd < 0)
    {
      free (path);
      return NULL;
    }
  close (fd);
  return path;
}
