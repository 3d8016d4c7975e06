/* SPDX-License-Identifier: GPL-3.0-or-later
   Copyright (C) 2026 The elfpmd authors  */
/* elfpmd prime: put the aligned text of a file into the page cache as
   PMD-sized folios, without running it, so that the next start of the
   program maps PMD pages at once (the kernel maps a PMD-sized folio with a
   PMD at fault time in any congruent mapping that covers it, VM_HUGEPAGE or
   not) and the stub has nothing to repair.

   For each whole PMD chunk of text (read-only, executable PT_LOADs whose
   address and file offset are congruent modulo the PMD size, in an object
   whose load base is PMD-aligned): map the chunk alone at a fresh
   PMD-aligned address (so its page table is empty), madvise(MADV_HUGEPAGE)
   and MADV_RANDOM (a fault in an uncached chunk then reads exactly one
   PMD-sized folio), touch it, and see in /proc/self/smaps whether the
   kernel mapped it with a PMD.  When not, the cache holds the chunk in
   small folios: drop them (after writing the file back: dirty pages stay)
   and read it again.  Pages another process maps cannot be dropped; a
   chunk read back whole in small folios means that the kernel or the file
   system gives the file no PMD-sized folios, and ends the work on that
   file.  */
#include <config.h>

#include <argp.h>
#include <sysexits.h>

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "elf_file.h"
#include "phdr_align.h"
#include "host.h"
#include "place.h"
#include "namelist.h"
#include "prime.h"
#include "cmdline.h"
#include "report.h"
#include "safe_open.h"
#include "proc.h"
#include "text_chunks.h"

/* What became of one file.  */
struct prime_result
{
  uint64_t chunks;		/* whole chunks of aligned text */
  uint64_t already;		/* cached as PMD folios before */
  uint64_t primed;		/* read as PMD folios now */
  uint64_t busy;		/* held in small folios by pages other processes map */
  char reason[256];		/* why the others were not primed, or "" */
};

/* Read the page at P.  */
static void
touch (const unsigned char *p)
{
  (void) *(const volatile unsigned char *) p;
}

/* Prime the chunk at OFFSET of FD, on the file system FS, into R.
   Return false when the work on this file should stop (R->reason says
   why).  */
static bool
prime_chunk (int fd, uint64_t offset, uint64_t pmd, long page, struct prime_result *r,
	     const char *fs)
{
  /* tmpfs pages are the file: they cannot be dropped and read again.  */
  bool shmem = strcmp (fs, "tmpfs") == 0;
  struct chunk_map m;
  int err = chunk_map_open (&m, fd, offset, pmd);
  if (err != 0)
    {
      snprintf (r->reason, sizeof r->reason, "cannot map the text with huge pages: %s",
		strerror (err));
      return false;
    }
  long before = chunk_cached_pages (&m, page);
  touch (m.at);
  bool done = chunk_pmd_mapped (&m);
  chunk_map_close (&m);
  if (done)
    {
      if (before == 0)
	r->primed++;
      else
	r->already++;
      return true;
    }

  if (shmem)
    {
      snprintf (r->reason, sizeof r->reason, "the file is on tmpfs, whose huge pages follow "
		"the mount's huge= option and /sys/kernel/mm/transparent_hugepage/shmem_enabled; "
		"its pages cannot be read again");
      return false;
    }
  /* Cached in small folios: drop them (no process of ours maps them now)
     and read the chunk again.  */
  posix_fadvise (fd, (off_t) offset, (off_t) pmd, POSIX_FADV_DONTNEED);
  if ((err = chunk_map_open (&m, fd, offset, pmd)) != 0)
    {
      snprintf (r->reason, sizeof r->reason, "cannot map the text with huge pages: %s",
		strerror (err));
      return false;
    }
  bool go_on = true;
  if (chunk_cached_pages (&m, page) != 0)
    r->busy++;
  else
    {
      touch (m.at);
      if (chunk_pmd_mapped (&m))
	r->primed++;
      else
	{
	  /* The touch of the last page waits for the read of the rest:
	     mincore counts only pages read.  */
	  touch (m.at + pmd - (uint64_t) page);
	  if (chunk_cached_pages (&m, page) == (long) (pmd / (uint64_t) page))
	    {
	      struct utsname u;
	      snprintf (r->reason, sizeof r->reason,
			"read back in small folios: this kernel (%s) and file system (%s) give the "
			"file no PMD-sized folios, or memory is too fragmented for them",
			uname (&u) == 0 ? u.release : "unknown", fs);
	      go_on = false;
	    }
	  else
	    r->busy++;	/* another process read part of it meanwhile */
	}
    }
  chunk_map_close (&m);
  return go_on;
}

/* Prime the file NAME into R, through FD when it is not -1 (the
   descriptor of NAME a list's check opened, which this takes over).
   Return 0, or -1 with the reason in *ERR.  The file is opened once (only
   if it is a regular file: never a FIFO, which would block, nor a device)
   and primed through that descriptor, so that a name exchanged meanwhile
   changes nothing.  */
static int
prime_file (const char *name, int fd_given, uint64_t pmd, long page, uint64_t max_size,
	    struct prime_result *r, struct diag *err)
{
  struct elf_file file;
  if ((fd_given >= 0 ? elf_file_open_fd (&file, fd_given, name, err)
       : elf_file_open (&file, name, err)) != 0)
    return -1;
  uint64_t *chunks = NULL, n = 0;
  int ret = 0, fd = -1;
  if (file.skip_reason != NULL)
    snprintf (r->reason, sizeof r->reason, "%s", file.skip_reason);
  else if (max_size != 0 && (uint64_t) file.st.st_size > max_size)
    snprintf (r->reason, sizeof r->reason, "larger than --max-size (%" PRIu64 " bytes, %"
	      PRIu64 " at most)", (uint64_t) file.st.st_size, max_size);
  else if (text_chunk_offsets (&file, pmd, &chunks, &n) != 0)
    ret = diag_set (err, "out of memory");
  /* The same open file, without libelf's view of it: pages libelf maps
     could not be dropped from the cache.  */
  else if ((fd = fcntl (file.fd, F_DUPFD_CLOEXEC, 0)) < 0)
    ret = diag_set (err, "%s", strerror (errno));
  elf_file_close (&file);
  const char *why = NULL;
  if (fd < 0)
    ;				/* refused or failed above */
  else if ((r->chunks = n) == 0)
    snprintf (r->reason, sizeof r->reason, "no whole PMD chunk of text at a PMD-aligned "
	      "address and file offset (not aligned: run elfpmd on it first)");
  else if ((why = host_thp_unavailable ()) != NULL)
    snprintf (r->reason, sizeof r->reason, "%s", why);
  else
    {
      char buf[32];
      const char *fs = host_fs_name (fd, buf, sizeof buf);
      /* Dirty pages cannot be dropped: write the file back first (a file
	 a package manager has just written).  */
      if (sync_file_range (fd, 0, 0, SYNC_FILE_RANGE_WAIT_BEFORE | SYNC_FILE_RANGE_WRITE
			   | SYNC_FILE_RANGE_WAIT_AFTER) != 0)
	fdatasync (fd);
      for (uint64_t i = 0; i < n; i++)
	if (!prime_chunk (fd, chunks[i], pmd, page, r, fs))
	  break;
    }
  if (fd >= 0)
    close (fd);
  free (chunks);
  return ret;
}

static void
report_prime (FILE *out, const char *name, const struct prime_result *r, bool json)
{
  uint64_t pmd_folios = r->already + r->primed;
  if (json)
    {
      fputc ('{', out);
      json_name (out, "file", name);
      fprintf (out, ",\"chunks\":%" PRIu64 ",\"pmd_folios\":%" PRIu64 ",\"already\":%" PRIu64
	       ",\"primed\":%" PRIu64 ",\"busy\":%" PRIu64 ",\"reason\":", r->chunks, pmd_folios,
	       r->already, r->primed, r->busy);
      if (r->reason[0] != '\0')
	json_string (out, r->reason);
      else
	fputs ("null", out);
      fputs ("}\n", out);
      return;
    }
  fprintf (out, "%s: ", name);
  if (r->chunks == 0)
    {
      fprintf (out, "nothing to prime: %s\n", r->reason);
      return;
    }
  fprintf (out, "%" PRIu64 " of %" PRIu64 " chunks of text in PMD-sized folios (%" PRIu64
	   " primed, %" PRIu64 " already)", pmd_folios, r->chunks, r->primed, r->already);
  if (r->busy != 0)
    fprintf (out, "; %" PRIu64 " held in small folios by running programs", r->busy);
  if (r->reason[0] != '\0')
    fprintf (out, "; %s", r->reason);
  fputc ('\n', out);
}

/* What a run did with the names of a list.  */
struct list_counts
{
  uint64_t names;		/* names read */
  uint64_t missing;		/* no such file (a package removed since) */
  uint64_t not_regular;		/* symbolic links, directories, devices */
  uint64_t not_elf;
  uint64_t failed;
};

/* Prime the file NAME (through FD, which this takes over, when it is not
   -1) and report it.  Return 0, or 1 when it could not be read.  */
static int
prime_one (const char *name, int fd, uint64_t pmd, long page, const struct prime_options *opts,
	   FILE *out, FILE *errors)
{
  struct prime_result r = { 0 };
  struct diag err = { "" };
  if (pmd == 0 || page <= 0 || pmd < (uint64_t) page)
    {
      snprintf (r.reason, sizeof r.reason, "this kernel has no transparent huge pages");
      if (fd >= 0)
	close (fd);
    }
  else if (prime_file (name, fd, pmd, page, opts->max_size, &r, &err) != 0)
    {
      fprintf (errors, "%s: %s: %s\n", diag_program, name, err.msg);
      return 1;
    }
  if (!opts->quiet)
    report_prime (out, name, &r, opts->json);
  return 0;
}

/* Whether NAME from a list is worth opening as ELF: a regular file that
   starts with the ELF magic.  1 if so, with *FD its descriptor, opened once
   for the whole of its priming through the directory it was resolved to
   (place_resolve: never through another user's symbolic link on the way,
   never a FIFO or a device exchanged for the file after its look); 0 when
   it is not, counted in C (a missing file also gets a line in the
   report); -1 when it cannot be opened, with the reason on ERRORS.  */
static int
list_name_wanted (const char *name, const struct prime_options *opts, FILE *out, FILE *errors,
		  struct list_counts *c, int *fd)
{
  *fd = -1;
  struct place pl;
  struct diag why = { "" };
  struct stat st;
  bool resolved = place_resolve (&pl, name, false, &why) == 0;
  int missing = !resolved ? errno
		: fstatat (pl.dirfd, pl.base, &st, AT_SYMLINK_NOFOLLOW) != 0 ? errno : 0;
  if (!resolved && missing == 0)
    missing = EINVAL;		/* a failure with no errno: never "not regular" */
  if (missing == ENOENT || missing == ENOTDIR)
    {
      place_close (&pl);
      c->missing++;
      if (opts->json)
	{
	  fputc ('{', out);
	  json_name (out, "file", name);
	  fputs (",\"skipped\":\"no such file\"}\n", out);
	}
      else if (!opts->quiet)
	fprintf (out, "%s: skipped: no such file\n", name);
      return 0;
    }
  if (missing == 0 && !S_ISREG (st.st_mode))
    {
      place_close (&pl);
      c->not_regular++;
      return 0;
    }
  if (missing == 0 && (*fd = open_regular (pl.dirfd, pl.base, false, &st, &why)) >= 0)
    why.msg[0] = '\0';
  else if (missing != 0 && why.msg[0] == '\0')
    diag_set (&why, "%s", strerror (missing));
  place_close (&pl);
  if (*fd < 0)
    {
      fprintf (errors, "%s: %s: %s\n", diag_program, name, why.msg);
      return -1;
    }
  unsigned char magic[SELFMAG];
  ssize_t got = pread (*fd, magic, SELFMAG, 0);
  if (got < 0 || (got == SELFMAG && memcmp (magic, ELFMAG, SELFMAG) == 0))
    return 1;
  close (*fd);
  *fd = -1;
  c->not_elf++;
  return 0;
}

/* Prime the names of the list OPTS->files_from, counting them in C.
   Return 0, or 1 when a file or the list could not be read.  In a list
   of lines, empty lines and lines starting with '#' are no names.  */
static int
prime_list (uint64_t pmd, long page, const struct prime_options *opts, FILE *out, FILE *errors,
	    struct list_counts *c)
{
  struct namelist l;
  if (namelist_open (&l, opts->files_from, opts->null, true, errors) != 0)
    return 1;
  int status = 0;
  const char *name;
  while ((name = namelist_next (&l, &status, errors)) != NULL)
    {
      c->names++;
      int fd;
      int wanted = list_name_wanted (name, opts, out, errors, c, &fd);
      if (wanted == 0)
	continue;
      if (wanted < 0 || prime_one (name, fd, pmd, page, opts, out, errors) != 0)
	{
	  c->failed++;
	  status = 1;
	}
    }
  namelist_close (&l);
  return status;
}

static void
report_list (FILE *out, const struct list_counts *c, bool json)
{
  uint64_t skipped = c->missing + c->not_regular + c->not_elf;
  if (json)
    fprintf (out, "{\"summary\":{\"names\":%" PRIu64 ",\"read\":%" PRIu64 ",\"failed\":%"
	     PRIu64 ",\"skipped\":%" PRIu64 ",\"missing\":%" PRIu64 ",\"not_regular\":%" PRIu64
	     ",\"not_elf\":%" PRIu64 "}}\n", c->names, c->names - skipped - c->failed, c->failed,
	     skipped, c->missing, c->not_regular, c->not_elf);
  else
    fprintf (out, "elfpmd prime: %" PRIu64 " names in the list: %" PRIu64 " ELF files read, %"
	     PRIu64 " failed, %" PRIu64 " skipped (%" PRIu64 " missing, %" PRIu64
	     " not regular files, %" PRIu64 " not ELF)\n", c->names, c->names - skipped - c->failed,
	     c->failed, skipped, c->missing, c->not_regular, c->not_elf);
}

int
prime_run (char *const *files, size_t nfiles, const struct prime_options *opts, FILE *out,
	   FILE *errors)
{
  uint64_t pmd = host_pmd_size ();
  long page = sysconf (_SC_PAGESIZE);
  int status = 0;
  for (size_t i = 0; i < nfiles; i++)
    status |= prime_one (files[i], -1, pmd, page, opts, out, errors);
  if (opts->files_from != NULL)
    {
      struct list_counts c = { 0 };
      status |= prime_list (pmd, page, opts, out, errors, &c);
      if (!opts->quiet)
	report_list (out, &c, opts->json);
    }
  return status;
}

/* The command line.  */

static const struct argp_option prime_options[] = {
  { "json", OPT_JSON, NULL, 0, "One JSON object per file", 0 },
  { "quiet", 'q', NULL, 0, "Print nothing but errors", 0 },
  { "files-from", 'T', "LIST", 0,
    "Prime also the names in LIST ('-': standard input), one per line; empty lines and "
    "lines starting with '#' are no names", 0 },
  { "null", '0', NULL, 0, "Names in LIST end with a NUL byte, not a newline", 0 },
  { "max-size", OPT_MAX_SIZE, "SIZE", 0,
    "Prime no file larger than SIZE (default 1G; 0: no limit)", 0 },
  { NULL, 0, NULL, 0, NULL, 0 }
};

static const char prime_doc[] =
  "Put the aligned text of each FILE into the page cache as PMD-sized folios, "
  "without running it, so that the next start maps its text with PMD pages "
  "at once."
  "\v"
  "Each whole PMD chunk of text (the running kernel's PMD size, at a "
  "PMD-aligned address and file offset: the file must be aligned, by elfpmd "
  "or its linker) is read as one PMD-sized folio; a chunk the page cache holds "
  "in small folios is written back, dropped and read again.  Pages a running "
  "program maps stay as they are.  Where the kernel or the file system gives "
  "the file no PMD-sized folios (ext4 before Linux 6.16, tmpfs), or "
  "transparent huge pages are off, the report says so.  Needs no privilege "
  "beyond reading FILE.\n\n"
  "A name in LIST that does not exist (a package removed since the list was "
  "made), is a symbolic link or no regular file, or is not ELF is skipped "
  "(a missing one with a line of its own) and counted in a summary line at "
  "the end; what it names is not an error.  A file larger than --max-size "
  "(default 1 GiB) is not primed, and the report says so: root runs prime "
  "unattended, over lists of names that other users may place files at.\n\n"
  "Exit status:\n"
  "  0   every FILE was read: primed, or the report says why not\n"
  "  1   a FILE, an ELF file of LIST or LIST itself could not be read (one line\n"
  "      on stderr names it and the reason)\n"
  "  64  usage error";

struct prime_cmdline
{
  struct prime_options opts;
  char **files;
  size_t nfiles;
};

static error_t
parse_prime_opt (int key, char *arg, struct argp_state *state)
{
  struct prime_cmdline *c = state->input;
  switch (key)
    {
    case OPT_JSON:
      c->opts.json = true;
      break;
    case 'q':
      c->opts.quiet = true;
      break;
    case 'T':
      files_from_argument (state, &c->opts.files_from, arg);
      break;
    case '0':
      c->opts.null = true;
      break;
    case OPT_MAX_SIZE:
      c->opts.max_size = max_size_argument (state, arg);
      break;
    case ARGP_KEY_ARG:
      c->files = &state->argv[state->next - 1];
      c->nfiles = (size_t) (state->argc - state->next + 1);
      state->next = state->argc;
      break;
    case ARGP_KEY_END:
      if (c->nfiles == 0 && c->opts.files_from == NULL)
	argp_error (state, "no FILE and no --files-from");
      if (c->opts.json && c->opts.quiet)
	argp_error (state, "--json and --quiet are exclusive");
      if (c->opts.null && c->opts.files_from == NULL)
	argp_error (state, "--null needs --files-from");
      break;
    default:
      return ARGP_ERR_UNKNOWN;
    }
  return 0;
}

int
prime_command (int argc, char **argv)
{
  struct prime_cmdline c = { .opts = { .json = false, .max_size = MAX_SIZE_DEFAULT } };
  const struct argp argp = { prime_options, parse_prime_opt, "FILE...\n--files-from=LIST [FILE...]", prime_doc, cmdline_children, NULL, NULL };
  if (argp_parse (&argp, argc, argv, 0, NULL, &c) != 0)
    return EX_USAGE;
  int status = prime_run (c.files, c.nfiles, &c.opts, stdout, stderr);
  return report_flushed (status);
}

