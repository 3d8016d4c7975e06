/* SPDX-License-Identifier: GPL-3.0-or-later
   Copyright (C) 2026 The elfpmd authors  */
/* itlb: a QEMU TCG plugin (qemu-user's -plugin) that feeds the instruction
   pages of every executed translation block to models of instruction TLBs
   (tlb.h), once for each layout ("arm") the program's text could have:

     orig    every page 4 KiB, as the program runs now;
     elfpmd  the objects as elfpmd --madvise rewrites them (copies named by
	     the layout file): base 2 MiB-aligned when p_align says so, and
	     the chunks the stub maps (every 2 MiB chunk of an executable
	     PT_LOAD whose file offset is congruent with its address);
     kernel  the program as Linux patch 001 loads it (its copy made by
	     elfpmd --rule=kernel, which never pads): base aligned for an
	     eligible PIE, its congruent chunks; libraries as they are (ld.so
	     maps them);
     glibc   glibc.elf.thp: ld.so aligns the base of a library with a
	     segment at a 2 MiB-aligned address and offset, at least 2 MiB,
	     not writable, and (a later patch) madvises such segments, the
	     main program's too where they land aligned; no padding;
     remap   an anonymous copy of the main program's text (iodlr, Node's
	     --use-largepages): its executable segment rounded inwards to
	     2 MiB, no congruence needed;
     limit   every byte of every object's text on 2 MiB pages.

   Every arm assumes the best case for the page cache: a chunk the arm can
   map with a PMD is mapped with one.  Code outside file mappings (JIT) is
   on 4 KiB pages in every arm.  The page of an address is found from the
   host's mappings of the guest (qemu-user maps the guest's files as they
   are: the object, its file offset and so its link address).

   Arguments: cpus=NAME:NAME... (tlb.c's models), out=DIR (a JSON file per
   process, itlb.PID.json), layout=FILE (lines "elfpmd|kernel ORIG COPY
   CHUNKS": the copy, "-" for an object elfpmd put no stub in, and the
   chunks elfpmd's report says the stub maps).
   Fork resets the counts of the child, which writes its own file.  */
#define _GNU_SOURCE
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <qemu-plugin.h>

#include "tlb.h"

QEMU_PLUGIN_EXPORT int qemu_plugin_version = QEMU_PLUGIN_VERSION;

#define PMD ((uint64_t) 2 << 20)
#define MAX_CPUS 8
#define MAX_VCPUS 256
#define MAX_OBJECTS 1024
#define MAX_RANGES 64

enum arm { ARM_ORIG, ARM_ELFPMD, ARM_KERNEL, ARM_GLIBC, ARM_REMAP, ARM_LIMIT, NARMS };
static const char *const arm_names[NARMS] = { "orig", "elfpmd", "kernel", "glibc", "remap", "limit" };

struct elf_info
{
  uint16_t type;
  int nload;
  Elf64_Phdr load[32];
};

struct layout
{
  bool aligned;			/* the arm's load base is 2 MiB-aligned */
  bool missing;			/* the arm needs a copy and has none */
  int n;
  struct { uint64_t lo, hi; } r[MAX_RANGES];	/* link addresses on 2 MiB pages */
};

struct object
{
  dev_t dev;
  ino_t ino;
  char *path;
  bool main, elf, placed;
  struct elf_info orig;
  uint64_t bias;		/* observed load bias */
  struct layout arm[NARMS];
};

struct copy
{
  enum arm arm;
  dev_t dev;
  ino_t ino;
  bool none;			/* no stub in it: nothing asks for huge pages */
  long stub_chunks;
  struct elf_info elf;
};

struct map
{
  uint64_t start, end, off;
  dev_t dev;
  ino_t ino;
  char *path;
};

struct tbinfo
{
  uint32_t ninsns;
  int32_t obj;			/* -1: no object */
  uint8_t npages;
  uint64_t key[NARMS][2];	/* page number << 1 | size (1: 2 MiB) */
};

struct vstate
{
  struct tlb tlb[NARMS][MAX_CPUS];
  uint64_t last[NARMS];
  uint64_t insns;
  uint64_t obj_insns[MAX_OBJECTS + 1];
};

static const struct tlb_cpu_spec *cpus[MAX_CPUS];
static int ncpus;
static char *outdir;
static struct copy *copies;
static int ncopies;
static struct object objects[MAX_OBJECTS];
static int nobjects;
static struct map *maps;
static int nmaps;
static dev_t main_dev;
static ino_t main_ino;
static bool main_known;
static struct vstate *vstates[MAX_VCPUS];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pid_t my_pid;

static void
die (const char *fmt, const char *arg)
{
  fprintf (stderr, "itlb plugin: ");
  fprintf (stderr, fmt, arg);
  fputc ('\n', stderr);
  exit (1);
}

/* Read the ELF header and PT_LOADs of the open file FD.  */
static bool
read_elf (int fd, struct elf_info *e)
{
  Elf64_Ehdr eh;
  memset (e, 0, sizeof *e);
  if (pread (fd, &eh, sizeof eh, 0) != sizeof eh || memcmp (eh.e_ident, ELFMAG, SELFMAG) != 0
      || eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_ident[EI_DATA] != ELFDATA2LSB
      || eh.e_phentsize != sizeof (Elf64_Phdr) || eh.e_phnum > 256)
    return false;
  e->type = eh.e_type;
  for (int i = 0; i < eh.e_phnum; i++)
    {
      Elf64_Phdr ph;
      if (pread (fd, &ph, sizeof ph, (off_t) (eh.e_phoff + (uint64_t) i * sizeof ph)) != sizeof ph)
	return false;
      if (ph.p_type == PT_LOAD && e->nload < (int) (sizeof e->load / sizeof e->load[0]))
	e->load[e->nload++] = ph;
    }
  return true;
}

static uint64_t
max_align (const struct elf_info *e)
{
  uint64_t a = 0;
  for (int i = 0; i < e->nload; i++)
    if (e->load[i].p_align > a)
      a = e->load[i].p_align;
  return a;
}

/* The rule of Linux patch 001 and of glibc.elf.thp for one segment.  */
static bool
pmd_rule (const Elf64_Phdr *ph)
{
  return ((ph->p_vaddr | ph->p_offset) & (PMD - 1)) == 0 && ph->p_filesz >= PMD
	 && !(ph->p_flags & PF_W);
}

static void
add_range (struct layout *l, uint64_t lo, uint64_t hi)
{
  if (hi <= lo)
    return;
  if (l->n > 0 && l->r[l->n - 1].hi == lo)
    l->r[l->n - 1].hi = hi;
  else if (l->n < MAX_RANGES)
    {
      l->r[l->n].lo = lo;
      l->r[l->n].hi = hi;
      l->n++;
    }
}

/* The chunks of E's executable segments (ONLY_RULE: those the PMD rule
   takes) that a PMD can map at load bias BIAS: 2 MiB-aligned addresses,
   wholly inside the file's part of the segment, the file offset congruent
   (ANON: no file, no congruence needed).  */
static void
chunks (struct layout *l, const struct elf_info *e, uint64_t bias, bool only_rule, bool anon)
{
  for (int i = 0; i < e->nload; i++)
    {
      const Elf64_Phdr *ph = &e->load[i];
      if (!(ph->p_flags & PF_X) || (only_rule && !pmd_rule (ph)))
	continue;
      if (!anon && ((ph->p_vaddr + bias - ph->p_offset) & (PMD - 1)) != 0)
	continue;
      uint64_t lo = (ph->p_vaddr + bias + PMD - 1) & ~(PMD - 1);
      uint64_t hi = (ph->p_vaddr + ph->p_filesz + bias) & ~(PMD - 1);
      add_range (l, lo - bias, hi - bias);
    }
}

static const struct copy *
find_copy (enum arm arm, const struct object *o)
{
  for (int i = 0; i < ncopies; i++)
    if (copies[i].arm == arm && copies[i].dev == o->dev && copies[i].ino == o->ino)
      return &copies[i];
  return NULL;
}

/* Each arm's layout of O, now that its load bias is known.  */
static void
place (struct object *o, uint64_t bias)
{
  o->bias = bias;
  o->placed = true;
  memset (o->arm, 0, sizeof o->arm);
  if (!o->elf)
    return;
  uint64_t abias = bias & ~(PMD - 1);
  bool dyn = o->orig.type == ET_DYN;

  const struct copy *c = find_copy (ARM_ELFPMD, o);
  if (c == NULL)
    o->arm[ARM_ELFPMD].missing = true;
  else if (!c->none)
    {
      bool al = dyn && max_align (&c->elf) >= PMD;
      o->arm[ARM_ELFPMD].aligned = al;
      chunks (&o->arm[ARM_ELFPMD], &c->elf, al ? abias : bias, false, false);
    }

  if (o->main)
    {
      c = find_copy (ARM_KERNEL, o);
      if (c == NULL)
	o->arm[ARM_KERNEL].missing = true;
      else if (dyn && max_align (&c->elf) >= PMD)
	{
	  o->arm[ARM_KERNEL].aligned = true;
	  chunks (&o->arm[ARM_KERNEL], &c->elf, abias, false, false);
	}
      /* glibc madvises the main program's eligible segments where the
	 kernel put them; remap copies its text wherever it is.  */
      chunks (&o->arm[ARM_GLIBC], &o->orig, bias, true, false);
      chunks (&o->arm[ARM_REMAP], &o->orig, bias, false, true);
    }
  else
    {
      bool eligible = false;
      for (int i = 0; i < o->orig.nload; i++)
	eligible |= pmd_rule (&o->orig.load[i]);
      if (dyn && eligible)
	{
	  o->arm[ARM_GLIBC].aligned = true;
	  chunks (&o->arm[ARM_GLIBC], &o->orig, abias, true, false);
	}
    }
  for (int i = 0; i < o->orig.nload; i++)
    if (o->orig.load[i].p_flags & PF_X)
      add_range (&o->arm[ARM_LIMIT], o->orig.load[i].p_vaddr & ~(uint64_t) 0xfff,
		 o->orig.load[i].p_vaddr + o->orig.load[i].p_memsz);
}

static void
read_maps (void)
{
  FILE *f = fopen ("/proc/self/maps", "r");
  if (f == NULL)
    die ("cannot read /proc/self/maps: %s", strerror (errno));
  for (int i = 0; i < nmaps; i++)
    free (maps[i].path);
  nmaps = 0;
  int cap = 0;
  char line[4096 + 256];
  while (fgets (line, sizeof line, f) != NULL)
    {
      unsigned long long start, end, off, ino;
      unsigned maj, min;
      int pos = 0;
      if (sscanf (line, "%llx-%llx %*s %llx %x:%x %llu %n", &start, &end, &off, &maj, &min, &ino, &pos) < 6)
	continue;
      if (nmaps == cap)
	{
	  cap = cap ? 2 * cap : 256;
	  maps = realloc (maps, cap * sizeof *maps);
	  if (maps == NULL)
	    die ("%s", "out of memory");
	}
      char *path = line + pos;
      path[strcspn (path, "\n")] = 0;
      maps[nmaps] = (struct map) { start, end, off, makedev (maj, min), (ino_t) ino,
				   ino != 0 ? strdup (path) : NULL };
      nmaps++;
    }
  fclose (f);
}

static const struct map *
find_map (uint64_t host)
{
  for (int pass = 0; pass < 2; pass++)
    {
      for (int i = 0; i < nmaps; i++)
	if (host >= maps[i].start && host < maps[i].end)
	  return &maps[i];
      if (pass == 0)
	read_maps ();
    }
  return NULL;
}

static int
find_object (const struct map *m)
{
  for (int i = 0; i < nobjects; i++)
    if (objects[i].dev == m->dev && objects[i].ino == m->ino)
      return i;
  if (nobjects == MAX_OBJECTS)
    return -1;
  struct object *o = &objects[nobjects];
  memset (o, 0, sizeof *o);
  o->dev = m->dev;
  o->ino = m->ino;
  o->path = strdup (m->path);
  o->main = main_known && m->dev == main_dev && m->ino == main_ino;
  int fd = open (m->path, O_RDONLY | O_CLOEXEC);
  struct stat st;
  if (fd >= 0 && fstat (fd, &st) == 0 && st.st_dev == m->dev && st.st_ino == m->ino)
    o->elf = read_elf (fd, &o->orig);
  if (fd >= 0)
    close (fd);
  return nobjects++;
}

/* The link address of file offset OFF of O, or false.  */
static bool
link_address (const struct object *o, uint64_t off, uint64_t *v)
{
  for (int i = 0; i < o->orig.nload; i++)
    {
      const Elf64_Phdr *ph = &o->orig.load[i];
      uint64_t pofs = ph->p_offset & ~(uint64_t) 0xfff, pv = ph->p_vaddr & ~(uint64_t) 0xfff;
      if (off >= pofs && off < ph->p_offset + ph->p_filesz)
	{
	  *v = pv + (off - pofs);
	  return true;
	}
    }
  return false;
}

static bool
in_layout (const struct layout *l, uint64_t v)
{
  for (int i = 0; i < l->n; i++)
    if (v >= l->r[i].lo && v < l->r[i].hi)
      return true;
  return false;
}

/* Each arm's page key of guest address GVA at host address HOST.  */
static void
page_keys (uint64_t gva, uint64_t host, int *objp, uint64_t key[NARMS])
{
  const struct map *m = find_map (host);
  int oi = -1;
  uint64_t v = 0;
  if (m != NULL && m->ino != 0 && m->path != NULL)
    {
      oi = find_object (m);
      if (oi >= 0 && objects[oi].elf && link_address (&objects[oi], m->off + (host - m->start), &v))
	{
	  struct object *o = &objects[oi];
	  if (!o->placed)
	    place (o, gva - v);
	  for (int a = 0; a < NARMS; a++)
	    {
	      const struct layout *l = &o->arm[a];
	      uint64_t addr = v + (l->aligned ? o->bias & ~(PMD - 1) : o->bias);
	      key[a] = in_layout (l, v) ? (addr >> 21) << 1 | 1 : (addr >> 12) << 1;
	    }
	  *objp = oi;
	  return;
	}
    }
  *objp = oi;
  for (int a = 0; a < NARMS; a++)
    key[a] = (gva >> 12) << 1;
}

static void
vcpu_tb_exec (unsigned int vcpu, void *udata)
{
  const struct tbinfo *tb = udata;
  struct vstate *s = vcpu < MAX_VCPUS ? vstates[vcpu] : NULL;
  if (s == NULL)
    return;
  s->insns += tb->ninsns;
  s->obj_insns[tb->obj >= 0 ? tb->obj : MAX_OBJECTS] += tb->ninsns;
  for (int p = 0; p < tb->npages; p++)
    for (int a = 0; a < NARMS; a++)
      {
	uint64_t k = tb->key[a][p];
	if (k == s->last[a])
	  continue;
	s->last[a] = k;
	for (int c = 0; c < ncpus; c++)
	  tlb_access (&s->tlb[a][c], k >> 1, (unsigned) (k & 1));
      }
}

static void
vcpu_tb_trans (qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
  size_t n = qemu_plugin_tb_n_insns (tb);
  if (n == 0)
    return;
  struct qemu_plugin_insn *first = qemu_plugin_tb_get_insn (tb, 0);
  struct qemu_plugin_insn *last = qemu_plugin_tb_get_insn (tb, n - 1);
  uint64_t gva = qemu_plugin_insn_vaddr (first);
  uint64_t gend = qemu_plugin_insn_vaddr (last) + qemu_plugin_insn_size (last) - 1;
  uint64_t host = (uintptr_t) qemu_plugin_insn_haddr (first);
  uint64_t hend = (uintptr_t) qemu_plugin_insn_haddr (last) + qemu_plugin_insn_size (last) - 1;
  struct tbinfo *t = calloc (1, sizeof *t);
  if (t == NULL)
    die ("%s", "out of memory");
  t->ninsns = (uint32_t) n;
  pthread_mutex_lock (&lock);
  if (!main_known)
    {
      const char *bin = qemu_plugin_path_to_binary ();
      struct stat st;
      if (bin != NULL && stat (bin, &st) == 0)
	{
	  main_dev = st.st_dev;
	  main_ino = st.st_ino;
	}
      main_known = true;
    }
  int obj, obj2;
  uint64_t k0[NARMS], k1[NARMS];
  page_keys (gva, host, &obj, k0);
  t->obj = obj;
  t->npages = 1;
  if ((gend >> 12) != (gva >> 12))
    {
      /* (A block across two pages: the second page's code is fetched too.)  */
      page_keys (gend, hend, &obj2, k1);
      t->npages = 2;
    }
  for (int a = 0; a < NARMS; a++)
    {
      t->key[a][0] = k0[a];
      t->key[a][1] = t->npages == 2 ? k1[a] : k0[a];
    }
  pthread_mutex_unlock (&lock);
  qemu_plugin_register_vcpu_tb_exec_cb (tb, vcpu_tb_exec, QEMU_PLUGIN_CB_NO_REGS, t);
}

static void
reset_all (void)
{
  for (int v = 0; v < MAX_VCPUS; v++)
    if (vstates[v] != NULL)
      {
	struct vstate *s = vstates[v];
	for (int a = 0; a < NARMS; a++)
	  {
	    for (int c = 0; c < ncpus; c++)
	      tlb_reset (&s->tlb[a][c]);
	    s->last[a] = 0;
	  }
	s->insns = 0;
	memset (s->obj_insns, 0, sizeof s->obj_insns);
      }
}

static void
vcpu_init (qemu_plugin_id_t id, unsigned int vcpu)
{
  if (vcpu >= MAX_VCPUS)
    return;
  pthread_mutex_lock (&lock);
  if (vstates[vcpu] == NULL)
    {
      struct vstate *s = calloc (1, sizeof *s);
      if (s == NULL)
	die ("%s", "out of memory");
      for (int a = 0; a < NARMS; a++)
	for (int c = 0; c < ncpus; c++)
	  if (tlb_init (&s->tlb[a][c], cpus[c]) != 0)
	    die ("%s", "out of memory");
      vstates[vcpu] = s;
    }
  pthread_mutex_unlock (&lock);
}

/* After fork the child counts from zero.  */
static void
vcpu_syscall_ret (qemu_plugin_id_t id, unsigned int vcpu, int64_t num, int64_t ret)
{
  if (getpid () != my_pid)
    {
      my_pid = getpid ();
      reset_all ();
    }
}

static void
json_string (FILE *f, const char *s)
{
  fputc ('"', f);
  for (; *s; s++)
    if (*s == '"' || *s == '\\')
      fprintf (f, "\\%c", *s);
    else if ((unsigned char) *s < 0x20)
      fprintf (f, "\\u%04x", *s);
    else
      fputc (*s, f);
  fputc ('"', f);
}

static void
at_exit (qemu_plugin_id_t id, void *p)
{
  if (getpid () != my_pid)
    {
      my_pid = getpid ();
      reset_all ();
    }
  char path[4096];
  snprintf (path, sizeof path, "%s/itlb.%d.json", outdir, (int) my_pid);
  FILE *f = fopen (path, "w");
  if (f == NULL)
    {
      fprintf (stderr, "itlb plugin: cannot write %s: %s\n", path, strerror (errno));
      return;
    }
  uint64_t insns = 0, missing[NARMS] = { 0 };
  static uint64_t obj_insns[MAX_OBJECTS + 1];
  memset (obj_insns, 0, sizeof obj_insns);
  for (int v = 0; v < MAX_VCPUS; v++)
    if (vstates[v] != NULL)
      {
	insns += vstates[v]->insns;
	for (int o = 0; o <= MAX_OBJECTS; o++)
	  obj_insns[o] += vstates[v]->obj_insns[o];
      }
  for (int o = 0; o < nobjects; o++)
    for (int a = 0; a < NARMS; a++)
      if (objects[o].arm[a].missing)
	missing[a] += obj_insns[o];
  fprintf (f, "{\"pid\":%d,\"insns\":%" PRIu64 ",\"cpus\":[", (int) my_pid, insns);
  for (int c = 0; c < ncpus; c++)
    fprintf (f, "%s\"%s\"", c ? "," : "", cpus[c]->name);
  /* Each model's arrays: level, entries, ways, page sizes held.  */
  fprintf (f, "],\"geometry\":{");
  for (int c = 0; c < ncpus; c++)
    {
      fprintf (f, "%s\"%s\":[", c ? "," : "", cpus[c]->name);
      bool any = false;
      for (int l = 1; l <= 2; l++)
	for (int i = 0; i < 2; i++)
	  {
	    const struct tlb_array_spec *a = l == 1 ? &cpus[c]->l1.array[i] : &cpus[c]->l2.array[i];
	    if (a->entries == 0)
	      continue;
	    fprintf (f, "%s{\"level\":%d,\"entries\":%u,\"ways\":%u,\"4k\":%s,\"2m\":%s}",
		     any ? "," : "", l, a->entries, a->ways, a->sizes & TLB_HOLDS (TLB_4K) ? "true" : "false",
		     a->sizes & TLB_HOLDS (TLB_2M) ? "true" : "false");
	    any = true;
	  }
      fprintf (f, "]");
    }
  fprintf (f, "},\"walk_cycles\":{");
  for (int c = 0; c < ncpus; c++)
    fprintf (f, "%s\"%s\":%u", c ? "," : "", cpus[c]->name, cpus[c]->walk_cycles);
  fprintf (f, "},\"results\":[");
  bool first = true;
  for (int a = 0; a < NARMS; a++)
    for (int c = 0; c < ncpus; c++)
      {
	uint64_t l1 = 0, walks = 0;
	for (int v = 0; v < MAX_VCPUS; v++)
	  if (vstates[v] != NULL)
	    {
	      l1 += vstates[v]->tlb[a][c].l1_misses;
	      walks += vstates[v]->tlb[a][c].walks;
	    }
	fprintf (f, "%s{\"arm\":\"%s\",\"cpu\":\"%s\",\"l1_misses\":%" PRIu64 ",\"walks\":%" PRIu64
		 ",\"insns_without_layout\":%" PRIu64 "}", first ? "" : ",", arm_names[a], cpus[c]->name,
		 l1, walks, missing[a]);
	first = false;
      }
  fprintf (f, "],\"objects\":[");
  first = true;
  for (int o = 0; o < nobjects; o++)
    {
      if (obj_insns[o] == 0)
	continue;
      fprintf (f, "%s{\"path\":", first ? "" : ",");
      json_string (f, objects[o].path);
      const struct copy *c = find_copy (ARM_ELFPMD, &objects[o]);
      fprintf (f, ",\"main\":%s,\"insns\":%" PRIu64, objects[o].main ? "true" : "false", obj_insns[o]);
      if (c != NULL && c->stub_chunks >= 0)
	fprintf (f, ",\"stub_chunks\":%ld", c->stub_chunks);
      fprintf (f, ",\"huge\":{");
      for (int a = 0; a < NARMS; a++)
	{
	  uint64_t bytes = 0;
	  for (int r = 0; r < objects[o].arm[a].n; r++)
	    bytes += objects[o].arm[a].r[r].hi - objects[o].arm[a].r[r].lo;
	  fprintf (f, "%s\"%s\":%" PRIu64, a ? "," : "", arm_names[a], bytes / PMD);
	}
      fprintf (f, "}}");
      first = false;
    }
  fprintf (f, "],\"anon_insns\":%" PRIu64 "}\n", obj_insns[MAX_OBJECTS]);
  if (fclose (f) != 0)
    fprintf (stderr, "itlb plugin: cannot write %s: %s\n", path, strerror (errno));
}

static void
read_layout (const char *file)
{
  FILE *f = fopen (file, "r");
  if (f == NULL)
    die ("cannot read the layout file: %s", file);
  char line[8192];
  while (fgets (line, sizeof line, f) != NULL)
    {
      line[strcspn (line, "\n")] = 0;
      char *arm = strtok (line, "\t"), *orig = strtok (NULL, "\t"), *copy = strtok (NULL, "\t");
      char *chunks = strtok (NULL, "\t");
      if (arm == NULL || orig == NULL || copy == NULL)
	continue;
      struct copy c = { .arm = strcmp (arm, "kernel") == 0 ? ARM_KERNEL : ARM_ELFPMD };
      if (strcmp (arm, "kernel") != 0 && strcmp (arm, "elfpmd") != 0)
	die ("layout file: unknown arm %s", arm);
      struct stat st;
      if (stat (orig, &st) != 0)
	die ("layout file: cannot stat %s", orig);
      c.dev = st.st_dev;
      c.ino = st.st_ino;
      c.stub_chunks = chunks != NULL ? strtol (chunks, NULL, 10) : -1;
      if (strcmp (copy, "-") == 0)
	c.none = true;
      else
	{
	  int fd = open (copy, O_RDONLY | O_CLOEXEC);
	  if (fd < 0 || !read_elf (fd, &c.elf))
	    die ("layout file: %s is not a 64-bit little-endian ELF file", copy);
	  close (fd);
	}
      copies = realloc (copies, (ncopies + 1) * sizeof *copies);
      if (copies == NULL)
	die ("%s", "out of memory");
      copies[ncopies++] = c;
    }
  fclose (f);
}

QEMU_PLUGIN_EXPORT int
qemu_plugin_install (qemu_plugin_id_t id, const qemu_info_t *info, int argc, char **argv)
{
  for (int i = 0; i < argc; i++)
    {
      char *eq = strchr (argv[i], '=');
      if (eq == NULL)
	die ("argument without a value: %s", argv[i]);
      *eq = 0;
      const char *val = eq + 1;
      if (strcmp (argv[i], "cpus") == 0)
	{
	  char *list = strdup (val), *save = NULL;
	  for (char *n = strtok_r (list, ":", &save); n != NULL; n = strtok_r (NULL, ":", &save))
	    {
	      const struct tlb_cpu_spec *s = tlb_cpu_find (n);
	      if (s == NULL)
		die ("unknown processor model %s", n);
	      if (ncpus == MAX_CPUS)
		die ("%s", "too many processor models");
	      cpus[ncpus++] = s;
	    }
	}
      else if (strcmp (argv[i], "out") == 0)
	outdir = strdup (val);
      else if (strcmp (argv[i], "layout") == 0)
	read_layout (val);
      else
	die ("unknown argument %s", argv[i]);
    }
  if (ncpus == 0)
    for (size_t c = 0; c < tlb_ncpus && c < MAX_CPUS; c++)
      cpus[ncpus++] = &tlb_cpus[c];
  if (outdir == NULL)
    die ("%s", "out=DIR is needed");
  my_pid = getpid ();
  qemu_plugin_register_vcpu_init_cb (id, vcpu_init);
  qemu_plugin_register_vcpu_tb_trans_cb (id, vcpu_tb_trans);
  qemu_plugin_register_vcpu_syscall_ret_cb (id, vcpu_syscall_ret);
  qemu_plugin_register_atexit_cb (id, at_exit, NULL);
  return 0;
}
