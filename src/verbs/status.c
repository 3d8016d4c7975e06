/* SPDX-License-Identifier: GPL-3.0-or-later
   Copyright (C) 2026 The elfpmd authors  */
/* elfpmd status: for each process, each mapped ELF object whose text holds
   at least one whole PMD chunk, or would once aligned: how much of it the
   kernel maps with PMD pages now, whether the object is aligned and
   carries elfpmd's stub, and what aligning it would gain.

   Three passes: read each process's /proc/PID/smaps (its executable
   mappings, their FilePmdMapped and AnonHugePages), read each mapped file
   once (the planner's own answer to "what would elfpmd do with it"), then
   print the rows, largest text first, and a summary line.  */
#include <config.h>

#include <argp.h>
#include <sysexits.h>

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <linux/magic.h>
#include <sys/statfs.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "elf_file.h"
#include "phdr_align.h"
#include "host.h"
#include "plan.h"
#include "report.h"
#include "safe_open.h"
#include "status.h"
#include "cmdline.h"
#include "stub_params.h"
#include "proc.h"
#include "text_chunks.h"

/* What the file of one mapped object says: read once per file, whichever
   processes map it.  DEV and INO are as /proc/PID/maps shows them.  */
struct object_file
{
  dev_t dev;
  ino_t ino;
  bool read;			/* the fields below hold the planner's answer */
  struct diag error;		/* why not, when !read */
  bool aligned;			/* elfpmd would change nothing, and it has whole chunks */
  bool stub;			/* it carries elfpmd's startup stub */
  bool fixed;			/* ET_EXEC: the kernel ignores its p_align */
  bool tmpfs;			/* on tmpfs, whose huge pages follow shmem_enabled */
  uint64_t chunks_after;	/* whole chunks once aligned */
  uint64_t gain;		/* chunks aligning would add */
};

/* One object as one process maps it (proc.h), and its file.  */
struct object_use
{
  struct proc_object m;
  struct object_file *file;	/* NULL when the text is too small to matter */
};

struct process
{
  long pid;
  char comm[64];
  struct object_use *objects;
  size_t nobjects;
  uint64_t anon_exec_kb;	/* JIT code (proc.h) */
  uint64_t largest;		/* text of its largest object listed */
};

/* A process that could not be read, named in the summary.  */
struct unreadable
{
  long pid;
  char comm[64];
  int err;
};

struct status
{
  const struct status_options *opts;
  uint64_t pmd, page;
  char thp[32];			/* the THP mode, "madvise" */
  struct process *procs;
  size_t nprocs, cap;
  struct object_file **files;
  size_t nfiles, files_cap;
  uint64_t seen, unreadable, gone;
  struct unreadable *unread;	/* the unreadable processes, NUNREAD of them */
  uint64_t nunread;
  struct proc_geometry geometry;	/* the PMD and page sizes, a pagemap buffer */
};

/* The cached reading of the file DEV, INO, added unread if new.  */
static struct object_file *
file_of (struct status *s, dev_t dev, ino_t ino)
{
  for (size_t i = 0; i < s->nfiles; i++)
    if (s->files[i]->dev == dev && s->files[i]->ino == ino)
      return s->files[i];
  if (s->nfiles == s->files_cap)
    {
      size_t cap = s->files_cap == 0 ? 64 : 2 * s->files_cap;
      struct object_file **grown = realloc (s->files, cap * sizeof *grown);
      if (grown == NULL)
	return NULL;
      s->files = grown;
      s->files_cap = cap;
    }
  struct object_file *of = calloc (1, sizeof *of);
  if (of == NULL)
    return NULL;
  of->dev = dev;
  of->ino = ino;
  s->files[s->nfiles++] = of;
  return of;
}

/* Plan FILE as elfpmd --madvise would, and keep the answer in OF.  */
static void
plan_object (struct status *s, struct object_file *of, const struct elf_file *file)
{
  if (file->skip_reason != NULL)
    {
      diag_set (&of->error, "%s", file->skip_reason);
      return;
    }
  struct plan_options po = {
    .layout = { .rule = ALIGN_RULE_RELAXED, .pmd = s->pmd, .page = s->page, .pad = true },
    .stub = { .wanted = true, .populate_max = STUB_POPULATE_DEFAULT },
  };
  struct rewrite_plan plan = { 0 };
  if (rewrite_plan_build (&plan, file, &po, &of->error) != 0)
    return;
  of->read = true;
  of->stub = plan.stub.present;
  of->fixed = file->kind == OBJECT_EXECUTABLE;
  of->chunks_after = plan.layout.chunks_after;
  of->aligned = !plan.layout.changed && plan.layout.chunks_after > 0;
  of->gain = plan.layout.chunks_after > plan.layout.chunks_before
	     ? plan.layout.chunks_after - plan.layout.chunks_before : 0;
  rewrite_plan_free (&plan);
}

/* Read the file of O, which process PID maps (proc_open_mapped), into OF.  */
static void
read_object (struct status *s, long pid, const struct proc_object *o, struct object_file *of)
{
  struct diag first = { "" };
  struct stat st;
  int fd = proc_open_mapped (s->opts->proc, pid, o, &st, &first);
  struct statfs sf;
  of->tmpfs = fd >= 0 && fstatfs (fd, &sf) == 0 && sf.f_type == TMPFS_MAGIC;
  if (fd >= 0)
    {
      struct elf_file file;
      struct diag err = { "" };
      if (elf_file_open_fd (&file, fd, o->path, &err) != 0)
	diag_set (&first, "%s", err.msg);
      else
	{
	  diag_clear (&of->error);
	  plan_object (s, of, &file);
	  if (!of->read)
	    diag_set (&first, "%s", of->error.msg);
	  elf_file_close (&file);
	}
    }
  if (!of->read)
    {
      diag_clear (&of->error);
      diag_set (&of->error, "%s", first.msg[0] != '\0' ? first.msg : "cannot be opened");
    }
}

/* Read process PID: its command name, its objects, their files.  Return 0,
   or the errno that stopped it (then P holds nothing to free).  */
static int
read_process (struct status *s, long pid, struct process *p)
{
  struct proc_text t;
  int err = proc_text_read (&t, s->opts->proc, pid, &s->geometry);
  if (err != 0)
    return err;
  *p = (struct process) { .pid = pid, .anon_exec_kb = t.anon_exec_kb };
  memcpy (p->comm, t.comm, sizeof p->comm);
  p->objects = calloc (t.nobjects + 1, sizeof *p->objects);
  if (p->objects == NULL)
    {
      proc_text_free (&t);
      return ENOMEM;
    }
  /* Only objects whose text could hold a whole chunk are read.  */
  for (size_t i = 0; i < t.nobjects; i++)
    {
      struct object_use *o = &p->objects[p->nobjects];
      *o = (struct object_use) { .m = t.objects[i] };
      if (o->m.text >= s->pmd)
	{
	  o->file = file_of (s, o->m.dev, o->m.ino);
	  if (o->file != NULL && !o->file->read && o->file->error.msg[0] == '\0')
	    read_object (s, pid, &o->m, o->file);
	}
      if (o->m.whole == 0 && (o->file == NULL || !o->file->read || o->file->chunks_after == 0))
	{
	  free (o->m.path);
	  continue;
	}
      p->nobjects++;
      if (o->m.text > p->largest)
	p->largest = o->m.text;
    }
  free (t.objects);
  return 0;
}

static int
by_text (const void *a, const void *b)
{
  const struct object_use *x = a, *y = b;
  return x->m.text != y->m.text ? (x->m.text < y->m.text ? 1 : -1) : strcmp (x->m.path, y->m.path);
}

static int
by_largest (const void *a, const void *b)
{
  const struct process *x = a, *y = b;
  if (x->largest != y->largest)
    return x->largest < y->largest ? 1 : -1;
  return x->pid < y->pid ? -1 : x->pid > y->pid;
}

/* Add process PID to S.  Return 0, or the errno that stopped it.  */
static int
add_process (struct status *s, long pid)
{
  if (s->nprocs == s->cap)
    {
      size_t cap = s->cap == 0 ? 64 : 2 * s->cap;
      struct process *grown = realloc (s->procs, cap * sizeof *grown);
      if (grown == NULL)
	return ENOMEM;
      s->procs = grown;
      s->cap = cap;
    }
  struct process *p = &s->procs[s->nprocs];
  int err = read_process (s, pid, p);
  if (err != 0)
    return err;
  qsort (p->objects, p->nobjects, sizeof *p->objects, by_text);
  s->nprocs++;
  return 0;
}

/* S printable on one terminal line: control characters become '?'.  */
static void
print_plain (FILE *out, const char *str)
{
  for (const unsigned char *c = (const unsigned char *) str; *c != '\0'; c++)
    fputc (*c < 0x20 || *c == 0x7f ? '?' : *c, out);
}

/* STR printable in a column of WIDTH characters: cut, or padded.  */
static void
print_column (FILE *out, const char *str, int width)
{
  int n = 0;
  for (const unsigned char *c = (const unsigned char *) str; *c != '\0' && n < width; c++, n++)
    fputc (*c < 0x20 || *c == 0x7f ? '?' : *c, out);
  fprintf (out, "%*s", width - n, "");
}

/* Chunks of O's text on huge pages: PMD-mapped from the page cache, or
   copied into anonymous huge pages.  */
static uint64_t
huge_chunks (const struct status *s, const struct object_use *o)
{
  return (o->m.pmd_kb + o->m.copied_kb) * 1024 / s->pmd;
}

/* Whole chunks of O the program has used that are not on huge pages: in
   small pages (or some of their pages only), the chunks to look into.  */
static uint64_t
small_chunks (const struct status *s, const struct object_use *o)
{
  uint64_t huge = huge_chunks (s, o);
  return o->m.touched > huge ? o->m.touched - huge : 0;
}

static void
print_row (FILE *out, const struct status *s, const struct process *p, const struct object_use *o)
{
  const struct object_file *of = o->file;
  char aligned[32] = "?", stub[8] = "?";
  if (of != NULL && of->read)
    {
      if (of->aligned)
	snprintf (aligned, sizeof aligned, "yes");
      else if (of->gain != 0)
	snprintf (aligned, sizeof aligned, "no,+%" PRIu64, of->gain);
      else
	snprintf (aligned, sizeof aligned, "no");
      snprintf (stub, sizeof stub, "%s", of->stub ? "yes" : "no");
    }
  fprintf (out, "%7ld ", p->pid);
  print_column (out, p->comm, 15);
  fprintf (out, " %7.1fM %4" PRIu64 "/%-4" PRIu64 " %9" PRIu64 " %9" PRIu64 " %-8s %-4s ",
	   (double) o->m.text / 1048576.0, huge_chunks (s, o), o->m.whole, o->m.pmd_kb,
	   o->m.anon_kb + o->m.copied_kb, aligned, stub);
  print_plain (out, o->m.path);
  if (of != NULL && !of->read)
    {
      fputs (" (not read: ", out);
      print_plain (out, of->error.msg);
      fputc (')', out);
    }
  fputc ('\n', out);
}

static void
print_json_process (FILE *out, const struct status *s, const struct process *p)
{
  fprintf (out, "{\"pid\":%ld,\"comm\":", p->pid);
  json_string (out, p->comm);
  fprintf (out, ",\"anon_exec_huge_kb\":%" PRIu64 ",\"objects\":[", p->anon_exec_kb);
  for (size_t i = 0; i < p->nobjects; i++)
    {
      const struct object_use *o = &p->objects[i];
      const struct object_file *of = o->file;
      fprintf (out, "%s{", i == 0 ? "" : ",");
      json_name (out, "path", o->m.path);
      fprintf (out, ",\"text_kb\":%" PRIu64 ",\"whole_chunks\":%" PRIu64
	       ",\"pmd_mapped_chunks\":%" PRIu64 ",\"file_pmd_mapped_kb\":%" PRIu64
	       ",\"anon_huge_kb\":%" PRIu64 ",\"copied_huge_kb\":%" PRIu64, o->m.text / 1024, o->m.whole,
	       huge_chunks (s, o), o->m.pmd_kb, o->m.anon_kb, o->m.copied_kb);
      if (o->m.touched_known)
	fprintf (out, ",\"touched_chunks\":%" PRIu64 ",\"small_chunks\":%" PRIu64
		 ",\"unused_chunks\":%" PRIu64, o->m.touched, small_chunks (s, o),
		 o->m.whole - o->m.touched);
      else
	fputs (",\"touched_chunks\":null,\"small_chunks\":null,\"unused_chunks\":null", out);
      if (of != NULL && of->read)
	fprintf (out, ",\"aligned\":%s,\"stub\":%s,\"chunks_once_aligned\":%" PRIu64
		 ",\"gain_chunks\":%" PRIu64, of->aligned ? "true" : "false",
		 of->stub ? "true" : "false", of->chunks_after, of->gain);
      else
	{
	  fputs (",\"aligned\":null,\"stub\":null,\"error\":", out);
	  json_string (out, of != NULL ? of->error.msg : "the text is smaller than a chunk");
	}
      fputc ('}', out);
    }
  fputs ("]}\n", out);
}

/* The totals of the summary.  */
struct totals
{
  uint64_t objects, whole, pmd_chunks, pmd_kb, anon_kb, copied_kb, not_aligned, gain, stubs;
  uint64_t fixed_no_stub;	/* ET_EXEC programs without the stub */
  uint64_t on_tmpfs;		/* objects (with whole chunks) on tmpfs */
  uint64_t anon_exec_kb;	/* JIT code, not text */
  uint64_t small, unused;	/* chunks used in small pages, chunks not used */
  bool touched_known;		/* for every object */
};

static struct totals
add_up (const struct status *s)
{
  struct totals t = { .touched_known = true };
  for (size_t i = 0; i < s->nprocs; i++)
    {
      const struct process *p = &s->procs[i];
      t.anon_exec_kb += p->anon_exec_kb;
      for (size_t k = 0; k < p->nobjects; k++)
	{
	  const struct object_use *o = &p->objects[k];
	  t.objects++;
	  t.touched_known &= o->m.touched_known;
	  if (o->m.touched_known)
	    {
	      t.small += small_chunks (s, o);
	      t.unused += o->m.whole - o->m.touched;
	    }
	  t.whole += o->m.whole;
	  t.pmd_kb += o->m.pmd_kb;
	  t.pmd_chunks += huge_chunks (s, o);
	  t.anon_kb += o->m.anon_kb;
	  t.copied_kb += o->m.copied_kb;
	  if (o->file != NULL && o->file->tmpfs && o->m.whole != 0)
	    t.on_tmpfs++;
	  if (o->file != NULL && o->file->read)
	    {
	      t.stubs += o->file->stub;
	      t.fixed_no_stub += o->file->fixed && !o->file->stub && o->m.whole != 0;
	      if (!o->file->aligned)
		{
		  t.not_aligned++;
		  t.gain += o->file->gain;
		}
	    }
	}
    }
  return t;
}

/* Why none of the whole chunks T counts is on huge pages, or NULL when
   some are (or there are none).  */
static const char *
why_none (const struct status *s, const struct totals *t)
{
  if (t->whole == 0 || t->pmd_chunks != 0 || t->anon_kb != 0)
    return NULL;
  if (strcmp (s->thp, "never") == 0)
    return "transparent huge pages are off (/sys/kernel/mm/transparent_hugepage/enabled: never)";
  if (t->on_tmpfs != 0 && t->on_tmpfs == t->objects)
    return "the text is on tmpfs, whose huge pages follow the mount's huge= option and "
	   "/sys/kernel/mm/transparent_hugepage/shmem_enabled";
  if (t->stubs == 0 && strcmp (s->thp, "madvise") == 0)
    return "THP is 'madvise' and no object carries the startup stub: text gets PMD pages "
	   "only where something asks (elfpmd --madvise, or elfpmd prime before the start)";
  return "the page cache holds the text in small folios (a file system or kernel without "
	 "large folios for it, text read before it was aligned, or memory too fragmented; "
	 "elfpmd prime FILE says which)";
}

static void
print_summary (FILE *out, const struct status *s)
{
  struct totals t = add_up (s);
  struct utsname u;
  const char *release = uname (&u) == 0 ? u.release : "unknown";
  if (s->opts->json)
    {
      fputs ("{\"summary\":{\"kernel\":", out);
      json_string (out, release);
      fputs (",\"thp\":", out);
      json_string (out, s->thp);
      fprintf (out, ",\"pmd_size\":%" PRIu64 ",\"processes\":%" PRIu64 ",\"unreadable\":%" PRIu64
	       ",\"gone\":%" PRIu64 ",\"objects\":%" PRIu64 ",\"whole_chunks\":%" PRIu64
	       ",\"pmd_mapped_chunks\":%" PRIu64 ",\"file_pmd_mapped_kb\":%" PRIu64
	       ",\"anon_text_huge_kb\":%" PRIu64 ",\"copied_huge_kb\":%" PRIu64
	       ",\"anon_exec_huge_kb\":%" PRIu64
	       ",\"with_stub\":%" PRIu64 ",\"not_aligned\":%" PRIu64 ",\"gain_chunks\":%" PRIu64,
	       s->pmd, s->seen, s->unreadable, s->gone, t.objects, t.whole, t.pmd_chunks, t.pmd_kb,
	       t.anon_kb, t.copied_kb, t.anon_exec_kb, t.stubs, t.not_aligned, t.gain);
      fprintf (out, ",\"fixed_address_without_stub\":%" PRIu64 ",\"why_none\":", t.fixed_no_stub);
      if (why_none (s, &t) != NULL)
	json_string (out, why_none (s, &t));
      else
	fputs ("null", out);
      if (t.touched_known)
	fprintf (out, ",\"small_chunks\":%" PRIu64 ",\"unused_chunks\":%" PRIu64, t.small,
		 t.unused);
      else
	fputs (",\"small_chunks\":null,\"unused_chunks\":null", out);
      fputs (",\"unreadable_processes\":[", out);
      for (uint64_t i = 0; i < s->nunread; i++)
	{
	  fprintf (out, "%s{\"pid\":%ld,\"comm\":", i == 0 ? "" : ",", s->unread[i].pid);
	  json_string (out, s->unread[i].comm);
	  fputs (",\"error\":", out);
	  json_string (out, strerror (s->unread[i].err));
	  fputc ('}', out);
	}
      fputs ("]}}\n", out);
      return;
    }
  fprintf (out, "elfpmd status: %" PRIu64 " process%s", s->seen, s->seen == 1 ? "" : "es");
  if (s->unreadable != 0)
    {
      /* (the first few by name: the JSON has them all) */
      fprintf (out, " (%" PRIu64 " unreadable, skipped:", s->unreadable);
      for (uint64_t i = 0; i < s->nunread && i < 8; i++)
	{
	  fprintf (out, "%s %ld ", i == 0 ? "" : ",", s->unread[i].pid);
	  print_plain (out, s->unread[i].comm);
	}
      fputs (s->unreadable > 8 || s->nunread < s->unreadable ? ", ...)" : ")", out);
    }
  fprintf (out, ", %" PRIu64 " object%s with whole chunks: %" PRIu64 " of %" PRIu64,
	   t.objects, t.objects == 1 ? "" : "s", t.pmd_chunks, t.whole);
  if (t.copied_kb == 0)
    fprintf (out, " chunks PMD-mapped (%" PRIu64 " kB)", t.pmd_kb);
  else
    fprintf (out, " chunks on huge pages (%" PRIu64 " kB PMD-mapped from the page cache, %" PRIu64
	     " kB copied into anonymous huge pages by --madvise=copy)", t.pmd_kb, t.copied_kb);
  if (t.touched_known && (t.small != 0 || t.unused != 0))
    fprintf (out, ", %" PRIu64 " used in small pages, %" PRIu64 " not used", t.small, t.unused);
  if (t.anon_kb != 0)
    fprintf (out, ", %" PRIu64 " kB of anonymous text on huge pages", t.anon_kb);
  if (t.anon_exec_kb != 0)
    fprintf (out, ", %" PRIu64 " kB of other anonymous executable memory on huge pages (JIT "
	     "code, not counted as text)", t.anon_exec_kb);
  if (why_none (s, &t) != NULL)
    fprintf (out, " (none on huge pages: %s)", why_none (s, &t));
  fprintf (out, "; %" PRIu64 " with the stub, %" PRIu64 " not aligned (aligning would add %"
	   PRIu64 " chunk%s)", t.stubs, t.not_aligned, t.gain, t.gain == 1 ? "" : "s");
  if (t.fixed_no_stub != 0)
    fprintf (out, ", %" PRIu64 " fixed-address program%s (ET_EXEC) without the stub, for which "
	     "alignment alone has no run-time effect", t.fixed_no_stub,
	     t.fixed_no_stub == 1 ? "" : "s");
  fprintf (out, "; kernel %s, THP %s, PMD %" PRIu64 " kB\n", release, s->thp, s->pmd / 1024);
}

/* Read the processes PIDS (NPIDS of them; NAMED: given by the user, whose
   failures are errors) into S.  Return 0, or 1 when a named one could not
   be read (said on ERRORS).  */
static int
read_processes (struct status *s, const long *pids, size_t npids, bool named, FILE *errors)
{
  int status = 0;
  for (size_t i = 0; i < npids; i++)
    {
      int err = add_process (s, pids[i]);
      if (err == 0)
	s->seen++;
      else if (err == ENOENT || err == ESRCH)
	{
	  s->gone++;
	  if (named)
	    {
	      fprintf (errors, "%s: %ld: no such process\n", diag_program, pids[i]);
	      status = 1;
	    }
	}
      else
	{
	  s->unreadable++;
	  struct unreadable *grown = realloc (s->unread, (s->nunread + 1) * sizeof *grown);
	  if (grown != NULL)
	    {
	      s->unread = grown;
	      struct unreadable *u = &s->unread[s->nunread++];
	      *u = (struct unreadable) { .pid = pids[i], .err = err };
	      proc_read_comm (s->opts->proc, pids[i], u->comm);
	    }
	  if (named)
	    {
	      fprintf (errors, "%s: %ld: %s\n", diag_program, pids[i], strerror (err));
	      status = 1;
	    }
	}
    }
  return status;
}

/* Print S's rows (or JSON objects) to OUT, largest text first.  */
static void
print_rows (FILE *out, struct status *s)
{
  qsort (s->procs, s->nprocs, sizeof *s->procs, by_largest);
  if (s->opts->quiet)
    return;
  if (!s->opts->json)
    fprintf (out, "%7s %-15s %8s %9s %9s %9s %-8s %-4s %s\n", "PID", "COMMAND", "TEXT",
	     "PMD/WHOLE", "PMD-kB", "ANON-kB", "ALIGNED", "STUB", "OBJECT");
  for (size_t i = 0; i < s->nprocs; i++)
    {
      const struct process *p = &s->procs[i];
      if (s->opts->json)
	{
	  if (p->nobjects != 0 || p->anon_exec_kb != 0)
	    print_json_process (out, s, p);
	  continue;
	}
      for (size_t k = 0; k < p->nobjects; k++)
	print_row (out, s, p, &p->objects[k]);
      if (p->anon_exec_kb != 0)
	{
	  fprintf (out, "%7ld ", p->pid);
	  print_plain (out, p->comm);
	  fprintf (out, ": %" PRIu64 " kB of anonymous executable memory on huge pages (JIT "
		   "code, not text)\n", p->anon_exec_kb);
	}
    }
}

static void
status_free (struct status *s)
{
  for (size_t i = 0; i < s->nprocs; i++)
    {
      for (size_t k = 0; k < s->procs[i].nobjects; k++)
	free (s->procs[i].objects[k].m.path);
      free (s->procs[i].objects);
    }
  free (s->procs);
  free (s->unread);
  free (s->geometry.pagemap_buf);
  for (size_t i = 0; i < s->nfiles; i++)
    free (s->files[i]);
  free (s->files);
}

int
status_run (const long *pids, size_t npids, const struct status_options *opts, FILE *out,
	    FILE *errors)
{
  struct status s = { .opts = opts };
  s.pmd = host_pmd_size ();
  long pagesize = sysconf (_SC_PAGESIZE);
  s.page = pagesize > 0 ? (uint64_t) pagesize : 4096;
  host_thp_mode (s.thp, sizeof s.thp);
  if (s.pmd == 0 || s.pmd < s.page)
    {
      fprintf (errors, "%s: this kernel has no transparent huge pages "
	       "(no /sys/kernel/mm/transparent_hugepage/hpage_pmd_size)\n", diag_program);
      return 1;
    }

  long *all = NULL;
  bool named = npids != 0;
  if (!named)
    {
      long n = proc_list_pids (opts->proc, &all);
      if (n < 0)
	{
	  fprintf (errors, "%s: %s: %s\n", diag_program, opts->proc, strerror (errno));
	  return 1;
	}
      pids = all;
      npids = (size_t) n;
    }
  s.geometry = (struct proc_geometry) { .pmd = s.pmd, .page = s.page,
				       .pagemap_buf = malloc ((size_t) (s.pmd / s.page) * 8) };
  int status = read_processes (&s, pids, npids, named, errors);
  free (all);
  print_rows (out, &s);
  print_summary (out, &s);
  status_free (&s);
  return status;
}

/* The command line.  */

static const struct argp_option status_options[] = {
  { "json", OPT_JSON, NULL, 0, "One JSON object per process, then a summary object", 0 },
  { "quiet", 'q', NULL, 0, "Print the summary line only", 0 },
  { NULL, 0, NULL, 0, NULL, 0 }
};

static const char status_doc[] =
  "Show, for each process (default: every process this user can read) and "
  "each mapped ELF object whose text holds a whole PMD chunk or would once "
  "aligned, how much of its text the kernel maps with PMD pages now."
  "\v"
  "Columns: TEXT, the object's executable mappings; PMD/WHOLE, the whole PMD "
  "chunks among them that are mapped with PMD pages (FilePmdMapped) and all "
  "of them (address and file offset PMD-aligned); PMD-kB, FilePmdMapped; "
  "ANON-kB, AnonHugePages of those mappings; ALIGNED, yes when elfpmd would "
  "change nothing, else no and the whole chunks aligning would add (no,+N); "
  "STUB, whether the file carries elfpmd's startup stub; '?' when the file "
  "could not be read (the reason follows the path).  The PMD size is the "
  "running kernel's.  Other anonymous executable memory on huge pages (JIT "
  "code) gets a line of its own per process and is not counted as text.  The "
  "summary line counts the whole chunks the programs used in small pages "
  "(the ones that failed) apart from those they did not use (never run, or "
  "let go by the stub), from /proc/PID/pagemap.  Processes that cannot be "
  "read (other users', without privilege) are counted and named in the "
  "summary and skipped.\n\n"
  "Exit status:\n"
  "  0   the report was printed\n"
  "  1   a PID named could not be read (no such process, no permission), or\n"
  "      the kernel has no transparent huge pages\n"
  "  64  usage error";

struct status_cmdline
{
  struct status_options opts;
  long *pids;
  size_t npids;
};

static error_t
parse_status_opt (int key, char *arg, struct argp_state *state)
{
  struct status_cmdline *c = state->input;
  switch (key)
    {
    case OPT_JSON:
      c->opts.json = true;
      break;
    case 'q':
      c->opts.quiet = true;
      break;
    case ARGP_KEY_ARG:
      {
	char *end;
	errno = 0;
	long pid = strtol (arg, &end, 10);
	if (*arg < '0' || *arg > '9' || *end != '\0' || errno != 0 || pid <= 0)
	  argp_error (state, "'%s' is not a process ID", arg);
	long *grown = realloc (c->pids, (c->npids + 1) * sizeof *grown);
	if (grown == NULL)
	  argp_failure (state, 1, ENOMEM, "status");
	c->pids = grown;
	c->pids[c->npids++] = pid;
	break;
      }
    case ARGP_KEY_END:
      if (c->opts.json && c->opts.quiet)
	argp_error (state, "--json and --quiet are exclusive");
      break;
    default:
      return ARGP_ERR_UNKNOWN;
    }
  return 0;
}

int
status_command (int argc, char **argv)
{
  struct status_cmdline c = { .opts = { .proc = "/proc" } };
  const struct argp argp = { status_options, parse_status_opt, "[PID...]", status_doc, cmdline_children, NULL, NULL };
  if (argp_parse (&argp, argc, argv, 0, NULL, &c) != 0)
    return EX_USAGE;
  int status = status_run (c.pids, c.npids, &c.opts, stdout, stderr);
  free (c.pids);
  return report_flushed (status);
}

