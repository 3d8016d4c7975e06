/* SPDX-License-Identifier: 0BSD
   Copyright (C) 2026 The elfpmd authors  */
/* elfpmd startup stub: with the environment variable ELFPMD_PERF_MAP set
   (to anything but empty or 0; never read in a process that the user who
   started it may not influence, see secure ()), the copy fallback also
   writes
   /tmp/perf-PID.map, the function symbols of the copied text at their
   run-time addresses, so that perf report can name what it sampled there
   (perf reads the map only for unnamed anonymous memory, so copy.c leaves
   the copies unnamed then).  Every number read from the file is
   untrusted: a read that fails ends the map.  */
#include "runtime.h"

/* The little-endian number of SIZE bytes at P.  */
static uint64_t
get_le (const unsigned char *p, int size)
{
  uint64_t v = 0;
  for (int k = size; k-- > 0;)
    v = v << 8 | p[k];
  return v;
}

/* Read exactly LEN bytes of the object's file at OFFSET into BUF.  */
static int
read_at (struct stub *st, void *buf, uint64_t len, uint64_t offset)
{
  return syscall6 (SYS_pread64, st->file, (long) buf, (long) len, (long) offset, 0, 0)
	 == (long) len;
}

/* A buffered writer of the perf map, into the scratch buffer OUT.  */
struct out
{
  int fd;
  int used;
  char *buf;
};

#define OUT_SIZE ((int) sizeof ((struct scratch *) 0)->out)

static void
out_flush (struct out *o)
{
  for (int done = 0; done < o->used;)
    {
      long got = syscall6 (SYS_write, o->fd, (long) (o->buf + done), o->used - done, 0, 0, 0);
      if (got <= 0)
	break;
      done += (int) got;
    }
  o->used = 0;
}

static void
out_hex (struct out *o, uint64_t v)
{
  char digits[16];
  int n = 0;
  do
    digits[n++] = "0123456789abcdef"[v & 15];
  while ((v >>= 4) != 0);
  while (n > 0)
    o->buf[o->used++] = digits[--n];
}

/* Write /tmp/perf-PID.map (never over an existing file): one line
   "ADDRESS SIZE NAME" (hexadecimal) per function symbol of the object's
   file (.symtab, else .dynsym) that overlaps the copied text, at its
   run-time address, which is what perf report reads for addresses in
   anonymous executable memory.  ELF64 little-endian only, as the stub's
   machines are.  */
void
write_perf_map (struct stub *st)
{
  unsigned char eh[64];
  struct scratch *scr = st->scratch;
  if (st->ncopies == 0 || scr == NULL || !read_at (st, eh, sizeof eh, 0) || eh[4] != 2
      || eh[5] != 1)
    return;
  const struct copy *copies = scr->copies;
  uint64_t phoff = get_le (eh + 32, 8), shoff = get_le (eh + 40, 8);
  uint64_t phnum = get_le (eh + 56, 2), shnum = get_le (eh + 60, 2);
  /* The load bias, from the PT_LOAD that holds the first copy.  */
  uint64_t fo = copies[0].file_offset;
  int found = 0;
  uintptr_t bias = 0;
  for (uint64_t k = 0; k < phnum && !found; k++)
    {
      unsigned char ph[56];
      if (!read_at (st, ph, sizeof ph, phoff + k * 56))
	return;
      uint64_t off = get_le (ph + 8, 8), filesz = get_le (ph + 32, 8);
      if (get_le (ph, 4) == 1 && fo >= off && fo - off < filesz)
	{
	  bias = copies[0].start - (uintptr_t) (get_le (ph + 16, 8) + (fo - off));
	  found = 1;
	}
    }
  /* The symbol table: SHT_SYMTAB, else SHT_DYNSYM; and its strings.  */
  uint64_t sym_off = 0, sym_size = 0, str_off = 0, str_size = 0;
  for (int want = 2; found && want <= 11 && sym_size == 0; want += 9)
    for (uint64_t k = 0; k < shnum; k++)
      {
	unsigned char sh[64], link[64];
	if (!read_at (st, sh, sizeof sh, shoff + k * 64))
	  return;
	if (get_le (sh + 4, 4) != (uint64_t) want)
	  continue;
	uint64_t l = get_le (sh + 40, 4);
	if (l >= shnum || !read_at (st, link, sizeof link, shoff + l * 64))
	  return;
	sym_off = get_le (sh + 24, 8);
	sym_size = get_le (sh + 32, 8);
	str_off = get_le (link + 24, 8);
	str_size = get_le (link + 32, 8);
	break;
      }
  if (sym_size == 0)
    return;
  char path[32] = "/tmp/perf-";
  char *d = path + 10;
  put_number (&d, (uint64_t) syscall6 (SYS_getpid, 0, 0, 0, 0, 0, 0));
  for (const char *c = ".map"; *c != '\0'; c++)
    *d++ = *c;
  *d = '\0';
  struct out o = { .used = 0, .buf = scr->out };
  o.fd = (int) syscall6 (SYS_openat, AT_FDCWD, (long) path,
			 O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644, 0, 0);
  if (o.fd < 0)
    return;
  unsigned char *syms = scr->syms;
  for (uint64_t at = 0; at + 24 <= sym_size;)
    {
      uint64_t chunk = sym_size - at < sizeof scr->syms ? (sym_size - at) / 24 * 24
							: sizeof scr->syms;
      if (!read_at (st, syms, chunk, sym_off + at))
	break;
      at += chunk;
      for (uint64_t k = 0; k < chunk; k += 24)
	{
	  const unsigned char *s = syms + k;
	  uint64_t name = get_le (s, 4), value = get_le (s + 8, 8), size = get_le (s + 16, 8);
	  uintptr_t addr = (uintptr_t) value + bias;
	  /* A function that overlaps a copy: perf looks a sample's address
	     up among the symbols that hold it.  */
	  int inside = 0;
	  for (int c = 0; c < st->ncopies; c++)
	    inside |= addr < copies[c].start + copies[c].length && addr + size > copies[c].start;
	  /* STT_FUNC, with a size and a name.  */
	  if ((s[4] & 15) != 2 || size == 0 || !inside || name == 0 || name >= str_size)
	    continue;
	  char text[256];
	  long got = syscall6 (SYS_pread64, st->file, (long) text, (long) sizeof text,
			       (long) (str_off + name), 0, 0);
	  if (got <= 0)
	    continue;
	  if (o.used > OUT_SIZE - 300)
	    out_flush (&o);
	  out_hex (&o, addr);
	  o.buf[o.used++] = ' ';
	  out_hex (&o, size);
	  o.buf[o.used++] = ' ';
	  for (long c = 0; c < got && c < (long) sizeof text - 1 && text[c] != '\0'; c++)
	    o.buf[o.used++] = text[c] == '\n' ? '?' : text[c];
	  o.buf[o.used++] = '\n';
	}
    }
  out_flush (&o);
  sys_close (o.fd);
}
