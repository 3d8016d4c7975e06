/* SPDX-License-Identifier: GPL-3.0-or-later
   Copyright (C) 2026 The elfpmd authors  */
/* What /proc and the page cache say about memory (proc.h).  */
#include <config.h>

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "proc.h"
#include "safe_open.h"
#include "text_chunks.h"

int
smaps_open (struct smaps_reader *r, const char *path)
{
  memset (r, 0, sizeof *r);
  r->f = fopen (path, "re");
  return r->f == NULL ? errno : 0;
}

void
smaps_close (struct smaps_reader *r)
{
  if (r->f != NULL)
    fclose (r->f);
  free (r->line);
  free (r->head);
  memset (r, 0, sizeof *r);
}

/* Whether LINE is a mapping's head: fields are "Name: value", heads start
   with the start address in lower-case hex.  */
static bool
is_head (const char *line)
{
  return isdigit ((unsigned char) line[0]) || (line[0] >= 'a' && line[0] <= 'f');
}

static bool
parse_head (char *line, struct smaps_mapping *m)
{
  char perms[8];
  int n = 0;
  if (sscanf (line, "%" SCNx64 "-%" SCNx64 " %7s %" SCNx64 " %x:%x %lu %n", &m->start, &m->end,
	      perms, &m->offset, &m->major, &m->minor, &m->inode, &n) != 7 || m->end < m->start)
    return false;
  m->exec = strlen (perms) >= 3 && perms[2] == 'x';
  line[strcspn (line, "\n")] = '\0';
  m->path = line + n;
  return true;
}

/* Read the next line into R->LINE: true, or false at the end or on an
   error (ferror tells).  */
static bool
next_line (struct smaps_reader *r)
{
  if (r->pending)
    {
      r->pending = false;
      return true;
    }
  return getline (&r->line, &r->line_cap, r->f) > 0;
}

int
smaps_next (struct smaps_reader *r, struct smaps_mapping *m)
{
  errno = 0;
  for (;;)
    {
      if (!next_line (r))
	break;
      if (!is_head (r->line))
	continue;		/* (a field of a mapping whose head was not understood) */
      /* The head is kept apart: the fields after it are read into LINE.  */
      size_t len = strlen (r->line) + 1;
      if (len > r->head_cap)
	{
	  char *grown = realloc (r->head, len);
	  if (grown == NULL)
	    return -1;
	  r->head = grown;
	  r->head_cap = len;
	}
      memcpy (r->head, r->line, len);
      memset (m, 0, sizeof *m);
      bool ok = parse_head (r->head, m);
      while (getline (&r->line, &r->line_cap, r->f) > 0)
	{
	  if (is_head (r->line))
	    {
	      r->pending = true;
	      break;
	    }
	  unsigned long long kb;
	  if (sscanf (r->line, "FilePmdMapped: %llu kB", &kb) == 1)
	    m->file_pmd_kb = kb;
	  else if (sscanf (r->line, "AnonHugePages: %llu kB", &kb) == 1)
	    m->anon_huge_kb = kb;
	}
      if (ok)
	return 1;
    }
  if (ferror (r->f))
    {
      if (errno == 0)
	errno = EIO;
      return -1;
    }
  return 0;
}

/* The object of P mapped from DEV, INO, added with PATH if it is new; NULL
   when out of memory.  */
static struct proc_object *
object_of (struct proc_text *p, dev_t dev, ino_t ino, const char *path)
{
  for (size_t i = 0; i < p->nobjects; i++)
    if (p->objects[i].dev == dev && p->objects[i].ino == ino)
      return &p->objects[i];
  struct proc_object *grown = realloc (p->objects, (p->nobjects + 1) * sizeof *grown);
  if (grown == NULL)
    return NULL;
  p->objects = grown;
  struct proc_object *o = &grown[p->nobjects];
  *o = (struct proc_object) { .dev = dev, .ino = ino, .path = strdup (path) };
  if (o->path == NULL)
    return NULL;
  p->nobjects++;
  return o;
}

/* Whether the anonymous mapping H, which starts right where a mapping of a
   file ends, is text that elfpmd's stub (--madvise=copy) copied from that
   file and moved over it: unnamed (kernels without anonymous mapping names,
   or the stub asked for a perf map) or named by the stub.  */
static bool
copied_text (const struct smaps_mapping *h)
{
  static const char name[] = "[anon:elfpmd copy of ";
  return h->path[0] == '\0' || strncmp (h->path, name, sizeof name - 1) == 0;
}

/* How many of the whole chunks of the mapping [START, END) of file offset
   OFFSET have a page present or swapped in PAGEMAP (a process's
   /proc/PID/pagemap: bits 63 and 62 of each page's entry), read with G;
   UINT64_MAX when it cannot be read.  */
static uint64_t
touched_chunks (const struct proc_geometry *g, int pagemap, uint64_t start, uint64_t end,
		uint64_t offset)
{
  if (pagemap < 0)
    return UINT64_MAX;
  size_t per = (size_t) (g->pmd / g->page), len = per * 8;
  uint64_t n = 0, c, whole = mapping_chunks (start, end, offset, g->pmd, &c);
  for (; whole > 0; whole--, c += g->pmd)
    {
      if (pread (pagemap, g->pagemap_buf, len, (off_t) (c / g->page * 8)) != (ssize_t) len)
	return UINT64_MAX;
      bool any = false;
      for (size_t k = 0; k < per && !any; k++)
	{
	  uint64_t e;
	  memcpy (&e, g->pagemap_buf + k * 8, sizeof e);
	  any = (e >> 62) != 0;	/* present (63) or swapped (62) */
	}
      n += any;
    }
  return n;
}

/* Add the anonymous mapping H, text copied from the file of FILE (named
   FILE_PATH) by the stub, to that file's object in P.  Return 0 or ENOMEM.  */
static int
add_copy (struct proc_text *p, const struct proc_geometry *g, const struct smaps_mapping *file,
	  const char *file_path, const struct smaps_mapping *h)
{
  struct proc_object *cur = object_of (p, makedev (file->major, file->minor),
				       (ino_t) file->inode, file_path);
  if (cur == NULL)
    return ENOMEM;
  /* Copies are whole chunks, at their own address and offset, populated
     whole.  */
  uint64_t chunks = mapping_chunks (h->start, h->end, h->start, g->pmd, NULL);
  cur->text += h->end - h->start;
  cur->whole += chunks;
  cur->touched += chunks;
  cur->copied_kb += h->anon_huge_kb;
  return 0;
}

/* Add the executable mapping H of a file to its object in P, with the
   chunks of it PAGEMAP shows touched.  Return 0 or ENOMEM.  */
static int
add_mapping (struct proc_text *p, const struct proc_geometry *g, int pagemap,
	     const struct smaps_mapping *h)
{
  size_t before = p->nobjects;
  struct proc_object *cur = object_of (p, makedev (h->major, h->minor), (ino_t) h->inode,
				       h->path);
  if (cur == NULL)
    return ENOMEM;
  if (p->nobjects != before)
    cur->touched_known = true;
  cur->text += h->end - h->start;
  cur->whole += mapping_chunks (h->start, h->end, h->offset, g->pmd, NULL);
  uint64_t t = touched_chunks (g, pagemap, h->start, h->end, h->offset);
  if (t == UINT64_MAX)
    cur->touched_known = false;
  else
    cur->touched += t;
  if (cur->map_end - cur->map_start < h->end - h->start)
    {
      cur->map_start = h->start;
      cur->map_end = h->end;
    }
  cur->pmd_kb += h->file_pmd_kb;
  cur->anon_kb += h->anon_huge_kb;
  return 0;
}

/* Read PROC/PID/smaps into P.  Return 0, or the errno that stopped it.  */
static int
read_mappings (struct proc_text *p, const char *proc, const struct proc_geometry *g)
{
  char name[PATH_MAX];
  snprintf (name, sizeof name, "%s/%ld/smaps", proc, p->pid);
  struct smaps_reader r;
  int ret = smaps_open (&r, name);
  if (ret != 0)
    return ret;
  /* (the same process's pagemap: what it has touched; a process that
     allows smaps allows this) */
  snprintf (name, sizeof name, "%s/%ld/pagemap", proc, p->pid);
  int pagemap = g->pagemap_buf != NULL ? open (name, O_RDONLY | O_CLOEXEC) : -1;
  /* The last mapping of a file, and where it ends: an anonymous executable
     mapping right after it is its text, copied (copied_text).  */
  struct smaps_mapping file = { .inode = 0 };
  char file_path[PATH_MAX + 1] = "";
  struct smaps_mapping h;
  int got = 0;
  while (ret == 0 && (got = smaps_next (&r, &h)) > 0)
    {
      if (h.inode == 0 && h.exec && file.inode != 0 && h.start == file.end && copied_text (&h))
	{
	  ret = add_copy (p, g, &file, file_path, &h);
	  file.end = h.end;
	  continue;
	}
      if (h.inode != 0)
	{
	  file = h;
	  snprintf (file_path, sizeof file_path, "%s", h.path);
	}
      else
	file.inode = 0;
      if (!h.exec)
	continue;
      if (h.inode != 0)
	ret = add_mapping (p, g, pagemap, &h);
      else if (h.path[0] != '[' || strncmp (h.path, "[anon:", 6) == 0)
	p->anon_exec_kb += h.anon_huge_kb;
    }
  if (ret == 0 && got < 0)
    ret = errno != 0 ? errno : EIO;
  smaps_close (&r);
  if (pagemap >= 0)
    close (pagemap);
  return ret;
}

int
proc_read_comm (const char *proc, long pid, char comm[64])
{
  char name[PATH_MAX];
  snprintf (name, sizeof name, "%s/%ld/comm", proc, pid);
  int fd = open (name, O_RDONLY | O_CLOEXEC);
  comm[0] = '\0';
  if (fd < 0)
    return -1;
  ssize_t got = read (fd, comm, 63);
  close (fd);
  comm[got > 0 ? got : 0] = '\0';
  comm[strcspn (comm, "\n")] = '\0';
  return 0;
}

int
proc_text_read (struct proc_text *p, const char *proc, long pid, const struct proc_geometry *g)
{
  *p = (struct proc_text) { .pid = pid };
  if (proc_read_comm (proc, pid, p->comm) != 0)
    return errno;
  int err = read_mappings (p, proc, g);
  if (err != 0)
    proc_text_free (p);
  return err;
}

void
proc_text_free (struct proc_text *p)
{
  for (size_t i = 0; i < p->nobjects; i++)
    free (p->objects[i].path);
  free (p->objects);
  p->objects = NULL;
  p->nobjects = 0;
}

long
proc_list_pids (const char *proc, long **pids)
{
  DIR *d = opendir (proc);
  if (d == NULL)
    return -1;
  size_t n = 0, cap = 0;
  long *v = NULL;
  struct dirent *e;
  while ((e = readdir (d)) != NULL)
    {
      char *end;
      errno = 0;
      long pid = strtol (e->d_name, &end, 10);
      if (!isdigit ((unsigned char) e->d_name[0]) || *end != '\0' || errno != 0 || pid <= 0)
	continue;
      if (n == cap)
	{
	  cap = cap == 0 ? 256 : 2 * cap;
	  long *grown = realloc (v, cap * sizeof *grown);
	  if (grown == NULL)
	    {
	      free (v);
	      closedir (d);
	      errno = ENOMEM;
	      return -1;
	    }
	  v = grown;
	}
      v[n++] = pid;
    }
  closedir (d);
  *pids = v;
  return (long) n;
}

/* The file O at its path in the root of process PID (PROC/PID/root),
   through no symbolic link, when it is still the mapping's inode (and, as
   root, device); else -1 with the reason in *WHY.  */
static int
open_in_root (const char *proc, long pid, const struct proc_object *o, struct stat *st,
	      struct diag *why)
{
  char *name;
  if (asprintf (&name, "%s/%ld/root", proc, pid) < 0)
    return -1;
  int root = open (name, O_PATH | O_DIRECTORY | O_CLOEXEC), fd = -1;
  free (name);
  if (root < 0)
    {
      diag_set (why, "cannot open its root: %s", strerror (errno));
      return -1;
    }
  int at = open_beneath (root, o->path, O_PATH, true, why);
  close (root);
  if (at < 0)
    return -1;
  fd = reopen_regular (at, st, why);
  close (at);
  if (fd >= 0 && (st->st_ino != o->ino || (geteuid () == 0 && st->st_dev != o->dev)))
    {
      diag_set (why, "the file at this path is not the one mapped (replaced since?)");
      close (fd);
      fd = -1;
    }
  return fd;
}

/* Opened once and by descriptor: through /proc/PID/map_files (the very
   file, also when deleted or in another mount namespace; root only), else
   at its path in the process's root, through no symbolic link (a process
   can plant one where its maps line points: "lib (deleted)"), and only
   when it is a regular file of the mapping's inode (and, as root, device:
   btrfs and overlayfs show another device in maps than stat gives, which
   only a user reading his own processes may accept).  Never a device, a
   FIFO or a socket: opening one can act on it.  */
int
proc_open_mapped (const char *proc, long pid, const struct proc_object *o, struct stat *st,
		  struct diag *why)
{
  char *name = NULL;
  int fd = -1;
  if (asprintf (&name, "%s/%ld/map_files/%" PRIx64 "-%" PRIx64, proc, pid, o->map_start,
		o->map_end) >= 0)
    {
      /* EPERM for anyone but root says nothing about the file.  */
      struct diag ignored = { "" };
      fd = open_regular (AT_FDCWD, name, true, st, &ignored);
      free (name);
    }
  if (fd < 0 && o->path[0] == '/')
    fd = open_in_root (proc, pid, o, st, why);
  return fd;
}

int
chunk_map_open (struct chunk_map *m, int fd, uint64_t offset, uint64_t pmd)
{
  m->pmd = pmd;
  m->reserved = mmap (NULL, 2 * pmd, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (m->reserved == MAP_FAILED)
    return errno;
  uintptr_t a = ((uintptr_t) m->reserved + pmd - 1) & ~(uintptr_t) (pmd - 1);
  void *got = mmap ((void *) a, pmd, PROT_READ, MAP_PRIVATE | MAP_FIXED, fd, (off_t) offset);
  int err = got == MAP_FAILED ? errno : 0;
  if (err == 0 && madvise (got, pmd, MADV_HUGEPAGE) != 0)
    err = errno;
  if (err != 0)
    {
      munmap (m->reserved, 2 * pmd);
      return err;
    }
  madvise (got, pmd, MADV_RANDOM);
  m->at = got;
  return 0;
}

void
chunk_map_close (struct chunk_map *m)
{
  munmap (m->reserved, 2 * m->pmd);
}

long
chunk_cached_pages (const struct chunk_map *m, long page)
{
  size_t n = (size_t) (m->pmd / (uint64_t) page);
  unsigned char *vec = malloc (n);
  if (vec == NULL || mincore (m->at, m->pmd, vec) != 0)
    {
      free (vec);
      return -1;
    }
  long count = 0;
  for (size_t i = 0; i < n; i++)
    count += vec[i] & 1;
  free (vec);
  return count;
}

bool
chunk_pmd_mapped (const struct chunk_map *m)
{
  struct smaps_reader r;
  if (smaps_open (&r, "/proc/self/smaps") != 0)
    return false;
  struct smaps_mapping mapping;
  bool mapped = false;
  while (smaps_next (&r, &mapping) > 0)
    if (mapping.start == (uintptr_t) m->at)
      {
	mapped = mapping.file_pmd_kb * 1024 >= m->pmd;
	break;
      }
  smaps_close (&r);
  return mapped;
}
