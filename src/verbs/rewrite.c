/* SPDX-License-Identifier: GPL-3.0-or-later
   Copyright (C) 2026 The elfpmd authors  */
/* The default verb, rewriting files: "elfpmd [OPTION...] FILE...", its
   options (the page's OPTIONS) and its run over process.c and batch.c.  */
#include <config.h>

#include <argp.h>
#include <dirent.h>
#include <stdio.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "batch.h"
#include "machine.h"
#include "cmdline.h"
#include "arch.h"
#include "place.h"
#include "process.h"
#include "rewrite.h"
#include "sizes.h"
#include "stub_params.h"
#include "trust.h"

static struct argp_option rewrite_options[] = {
  { NULL, 0, NULL, 0, "Output:", 1 },
  { "output", 'o', "FILE", 0, "Write the result to FILE instead of rewriting the input (one input only)", 0 },
  { "dry-run", 'n', NULL, 0,
    "Write nothing; say what would change (for a FILE named alone, the full report)", 0 },
  { "check", 0, NULL, OPTION_ALIAS, NULL, 0 },
  { "no-sync", OPT_NO_SYNC, NULL, 0, "Do not fsync the new file before and after renaming it", 0 },

  { "preserve-dates", 'p', NULL, 0,
    "The rewritten file keeps the input's access and modification times", 0 },
  { "build-id", OPT_BUILD_ID, "POLICY", 0,
    "'derive' (default): a file rewritten gets a new GNU build-id of the same length, "
    "derived from the old one and the changes (the same input and options give the same "
    "one); 'keep': it keeps the old one, which the original's debug files also carry", 0 },

  { "manifest", OPT_MANIFEST, "FILE", 0,
    "Append to FILE a line for each file rewritten: its path, the SHA-256 of its contents "
    "before and after, the options (for 'elfpmd reapply' and 'elfpmd revert')", 0 },
  { "known-links", OPT_KNOWN_LINKS, "DIR", 0,
    "Hard links of a file in DIR (not below it) are kept there on purpose with the old "
    "contents: no warning for them (dh_elfpmd_buildtree's stash)", 0 },
  { "keep-originals", OPT_KEEP_ORIGINALS, "DIR", 0,
    "With --manifest: keep a copy of each file rewritten in DIR, named by its SHA-256, for "
    "'elfpmd revert'", 0 },
  { "expect-inode", OPT_EXPECT_INODE, "DEV:INO", 0,
    "Rewrite the one FILE only if it is still the file of this device and inode number "
    "(what 'elfpmd reapply' checked)", 0 },

  { NULL, 0, NULL, 0, "Many files:", 2 },
  { "recursive", 'r', NULL, 0,
    "Walk each DIR (never following symbolic links), processing the ELF executables and "
    "shared objects in it and counting the other files as skipped", 0 },
  { "files-from", 'T', "LIST", 0,
    "Process the names in LIST ('-': standard input), one per line, as -r treats what it "
    "finds", 0 },
  { "null", '0', NULL, 0, "Names in LIST end with a NUL byte, not a newline", 0 },
  { "exclude", OPT_EXCLUDE, "PATTERN", 0,
    "Skip files and directories matching the shell PATTERN: its base name, or with a '/' "
    "in PATTERN its whole path (repeatable)", 0 },
  { "no-default-excludes", OPT_NO_DEFAULT_EXCLUDES, NULL, 0,
    "Walk also directories named usr/lib/debug and .build-id, which -r leaves out", 0 },
  { "jobs", 'j', "N", 0, "Process N files at once (default: the CPUs this process may use)", 0 },
  { "machine", OPT_MACHINE, "MACHINE", 0,
    "Process only files for MACHINE ('host': the one elfpmd was built for; or x86-64, "
    "i386, aarch64, riscv64, ...: the names of the report), skipping the others as "
    "\"other machine\" (repeatable)", 0 },

  { NULL, 0, NULL, 0, "Alignment:", 3 },
  { "rule", OPT_RULE, "RULE", 0,
    "Which segments to align: 'relaxed' (default: read-only, congruent, holding a whole PMD chunk) "
    "or 'kernel' (exactly the rule of the Linux patch)", 0 },
  { "no-pad", OPT_NO_PAD, NULL, 0,
    "Never move file contents: only raise p_align where the offset is already congruent", 0 },
  { "pmd-size", OPT_PMD_SIZE, "SIZE", 0,
    "Align to SIZE (e.g. 2M) instead of the PMD size of the file's machine", 0 },
  { "page-size", OPT_PAGE_SIZE, "SIZE", 0,
    "Base page size of the target kernel (e.g. 64K, from 4K to 256K), when the "
    "machine has several", 0 },

  /* (its text names the machines with a stub: madvise_doc) */
  { "madvise", OPT_MADVISE, "copy", OPTION_ARG_OPTIONAL, NULL, 0 },
  { "copy-max", OPT_COPY_MAX, "SIZE", 0,
    "With --madvise=copy: copy at most SIZE bytes of text per object (whole chunks; "
    "default: all the aligned text)", 0 },
  { "move-table", OPT_MOVE_TABLE, NULL, 0,
    "With --madvise: where the program header table has no room for the stub's entry, "
    "move the table into the stub's segment (GNU strip then breaks the file); without it "
    "such a file gets no stub", 0 },
  { "populate-max", OPT_POPULATE_MAX, "CHUNKS", 0,
    "With --madvise: at every start the stub looks at text ranges of at most CHUNKS "
    "PMD-sized chunks whole (default 64); larger ranges are sampled, and looked at whole "
    "only when the sample finds chunks cached in small pages", 0 },

  { NULL, 0, NULL, 0, "Report:", 4 },
  { "json", OPT_JSON, "FILE", OPTION_ARG_OPTIONAL,
    "Print the report as JSON, one object per file per line; with =FILE write that to FILE "
    "and the text report to standard output as without --json", 0 },
  { "times", OPT_TIMES, NULL, 0,
    "End a batch run's summary with its run time (\"in 39.2 s\"; \"seconds\" in the JSON "
    "summary); without it the same input gives the same report bytes", 0 },
  { "no-progress", OPT_NO_PROGRESS, NULL, 0,
    "No progress line in a batch run (otherwise shown on a terminal, never in a pipe "
    "or a file)", 0 },
  { "quiet", 'q', NULL, 0,
    "Print nothing but errors and warnings, and a batch run's summary line", 0 },
  { "verbose", 'v', NULL, 0,
    "A batch run lists every file, not only those changed, refused or failed; -vv (and "
    "-v for a FILE named alone) prints the full report of each file", 0 },
  { NULL, 0, NULL, 0, NULL, 0 }
};

static const char rewrite_doc[] =
  "Align eligible read-only PT_LOAD segments of ELF executables and shared "
  "objects to the PMD size, so that Linux can map their text with huge pages."
  "\v"
  "Each FILE is rewritten in place, atomically: a temporary file beside it is "
  "written, synced and renamed over it; owner, mode and extended attributes "
  "are kept.  Addresses never change; where a read-only segment's file offset "
  "is not congruent with its address, a hole is inserted before it.\n\n"
  "With -r or --files-from (a batch run), what is no ELF executable or shared "
  "object (scripts, archives, relocatable objects, debug files, symbolic links) "
  "is skipped quietly and counted in a summary line at the end; the text "
  "report lists only the files changed, refused or failed (-v: every file), "
  "and on a terminal a progress line shows meanwhile.  In any run, "
  "names of one file (hard links) are processed once, and afterwards every "
  "one of them in the run names the rewritten file.\n\n"
  "Safe as root over trees others can write: every operation goes through a "
  "directory held open, a symbolic link is followed only when it is root's or "
  "the running user's (never in a walk), only regular files are opened, and "
  "a name swapped meanwhile is reported and left alone (elfpmd(1), RUNNING AS "
  "ROOT).  In --json, a name that is not valid UTF-8 also comes as its bytes "
  "in hexadecimal (file_hex).\n\n"
  "Verbs (each with its own --help): 'elfpmd status [PID...]' shows which "
  "running programs have their text on PMD pages; 'elfpmd prime FILE...' "
  "reads aligned text into the page cache as PMD-sized folios without "
  "running it; 'elfpmd map FILE' shows which functions lie in whole PMD "
  "chunks; 'elfpmd reapply' converts again the files of a --manifest that "
  "an upgrade replaced, 'elfpmd revert' puts their kept originals back.  A "
  "file named like a verb is ./status.\n\n"
  "SIZE is a number (decimal, 0x hexadecimal; a leading 0 is still decimal) "
  "optionally followed by K, M, G, T (powers of 1024), e.g. 4K, 64K, 2M, "
  "0x200000.\n\n"
  "--page-size takes a power of two from 4K to 256K (the page sizes Linux "
  "has), --pmd-size a power of two of at least 4K and at least the page "
  "size.\n\n"
  "Exit status:\n"
  "  0   every file was processed: changed, already aligned, nothing eligible,\n"
  "      or skipped (relocatable objects, core files, files without PT_LOAD\n"
  "      segments, separate debug files; in a batch run also files that are\n"
  "      not ELF, symbolic links and machines without a known PMD size)\n"
  "  1   at least one file failed (one line on stderr names it and the\n"
  "      reason); each failed file is left untouched and the others are still\n"
  "      processed\n"
  "  2   none failed, but a FILE named alone is for a machine elfpmd knows no\n"
  "      PMD size for (one line on stderr says so; --pmd-size handles it; a\n"
  "      batch run skips such files)\n"
  "  64  usage error: unknown or conflicting options, a bad size, no FILE";

struct cmdline
{
  struct run_options run;
  struct batch_options batch;
  int verbose;			/* -v given this often */
  bool quiet, json, no_progress;
  const char *json_file;	/* --json=FILE */
  const char *manifest;		/* --manifest=FILE */
  const char *keep_dir;		/* --keep-originals=DIR */
  const char *known_links;	/* --known-links=DIR */
  struct size_options sizes;
  bool seen_rule, seen_populate, seen_jobs, seen_build_id;
  const char **excludes;
  size_t nexcludes;
  char **files;
  int nfiles;
};

/* The stub's options (--madvise and what refines it); ARGP_ERR_UNKNOWN
   for any other KEY.  */
static error_t
parse_stub_opt (int key, char *arg, struct argp_state *state)
{
  struct cmdline *c = state->input;
  switch (key)
    {
    case OPT_MADVISE:
      if (c->run.stub.wanted)
	argp_error (state, "--madvise given twice");
      c->run.stub.wanted = true;
      if (arg != NULL && strcmp (arg, "copy") == 0)
	c->run.stub.copy = true;
      else if (arg != NULL)
	argp_error (state, "--madvise: unknown value '%s' (only --madvise or --madvise=copy)", arg);
      break;
    case OPT_COPY_MAX:
      {
	if (c->run.stub.copy_max != 0)
	  argp_error (state, "--copy-max given twice");
	const char *why = parse_size (arg, &c->run.stub.copy_max);
	if (why != NULL)
	  argp_error (state, "--copy-max: invalid size '%s': %s", arg, why);
	if (c->run.stub.copy_max == 0)
	  argp_error (state, "--copy-max: the size must be more than 0");
      }
      break;
    case OPT_MOVE_TABLE:
      c->run.stub.move_table = true;
      break;
    case OPT_POPULATE_MAX:
      {
	if (c->seen_populate)
	  argp_error (state, "--populate-max given twice");
	c->seen_populate = true;
	char *end;
	errno = 0;
	unsigned long long v = strtoull (arg, &end, 10);
	if (*arg < '0' || *arg > '9' || *end != '\0' || errno != 0 || v > STUB_POPULATE_LIMIT)
	  argp_error (state, "--populate-max: '%s' is not a number of chunks from 0 to %d",
		      arg, STUB_POPULATE_LIMIT);
	c->run.stub.populate_max = v;
      }
      break;
    default:
      return ARGP_ERR_UNKNOWN;
    }
  return 0;
}

/* The options of a run over many files (-r, --files-from and what
   selects, paces and reports them); ARGP_ERR_UNKNOWN for any other KEY.  */
static error_t
parse_batch_opt (int key, char *arg, struct argp_state *state)
{
  struct cmdline *c = state->input;
  switch (key)
    {
    case OPT_KNOWN_LINKS:
      if (c->known_links != NULL)
	argp_error (state, "--known-links given twice");
      c->known_links = arg;
      break;
    case OPT_TIMES:
      c->run.times = true;
      break;
    case OPT_NO_PROGRESS:
      c->no_progress = true;
      break;
    case 'r':
      c->batch.recursive = true;
      break;
    case 'T':
      files_from_argument (state, &c->batch.files_from, arg);
      break;
    case '0':
      c->batch.null = true;
      break;
    case OPT_EXCLUDE:
      {
	if (*arg == '\0')
	  argp_error (state, "--exclude needs a pattern");
	const char **e = realloc (c->excludes, (c->nexcludes + 1) * sizeof *e);
	if (e == NULL)
	  argp_failure (state, 1, ENOMEM, "--exclude");
	e[c->nexcludes++] = arg;
	c->excludes = e;
      }
      break;
    case OPT_NO_DEFAULT_EXCLUDES:
      c->batch.default_excludes = false;
      break;
    case OPT_MACHINE:
      {
	unsigned m;
	int cls;
	if (!machine_by_name (arg, &m, &cls))
	  argp_error (state, "--machine: unknown machine '%s' (host, x86-64, i386, aarch64, "
		      "riscv64, ...)", arg);
	size_t n = c->run.nmachines;
	if (n == sizeof c->run.machines / sizeof c->run.machines[0])
	  argp_error (state, "--machine given more than %zu times", n);
	c->run.machines[n].machine = m;
	c->run.machines[n].elfclass = cls;
	c->run.nmachines = n + 1;
      }
      break;
    case 'j':
      {
	if (c->seen_jobs)
	  argp_error (state, "--jobs given twice");
	c->seen_jobs = true;
	char *end;
	errno = 0;
	unsigned long v = strtoul (arg, &end, 10);
	if (*arg < '0' || *arg > '9' || *end != '\0' || errno != 0 || v < 1 || v > 1024)
	  argp_error (state, "--jobs: '%s' is not a number from 1 to 1024", arg);
	c->batch.jobs = (unsigned) v;
      }
      break;
    default:
      return ARGP_ERR_UNKNOWN;
    }
  return 0;
}

/* The options that need or exclude others, once all are read.  */
static void
check_rewrite_options (struct argp_state *state, const struct cmdline *c)
{
  if (c->verbose && c->quiet)
    argp_error (state, "--verbose and --quiet exclude each other");
  if (c->json && c->quiet)
    argp_error (state, "--json and --quiet exclude each other");
  if (c->run.output != NULL && (c->batch.recursive || c->batch.files_from != NULL))
    argp_error (state, "--output takes one input FILE, not -r or --files-from");
  if (c->run.output != NULL && c->nfiles != 1)
    argp_error (state, "--output takes exactly one input FILE");
  if (c->batch.null && c->batch.files_from == NULL)
    argp_error (state, "--null needs --files-from");
  if (c->nexcludes != 0 && !c->batch.recursive && c->batch.files_from == NULL)
    argp_error (state, "--exclude needs -r or --files-from");
  if (c->run.nmachines != 0 && !c->batch.recursive && c->batch.files_from == NULL)
    argp_error (state, "--machine needs -r or --files-from");
  if (!c->batch.default_excludes && !c->batch.recursive)
    argp_error (state, "--no-default-excludes needs -r");
  if (c->run.output != NULL && c->run.dry_run)
    argp_error (state, "--output and --dry-run exclude each other");
  if (c->seen_populate && !c->run.stub.wanted)
    argp_error (state, "--populate-max needs --madvise");
  if (c->run.times && !c->batch.recursive && c->batch.files_from == NULL)
    argp_error (state, "--times needs -r or --files-from");
  if (c->run.expect_inode && (c->nfiles != 1 || c->batch.recursive
			      || c->batch.files_from != NULL))
    argp_error (state, "--expect-inode names one FILE");
  if (c->keep_dir != NULL && c->manifest == NULL)
    argp_error (state, "--keep-originals needs --manifest");
  if (c->manifest != NULL && (c->run.output != NULL || c->run.dry_run))
    argp_error (state, "--manifest records files rewritten in place: not with --output "
		"or --dry-run");
  if (c->run.stub.move_table && !c->run.stub.wanted)
    argp_error (state, "--move-table needs --madvise");
  if (c->run.stub.copy_max != 0 && !c->run.stub.copy)
    argp_error (state, "--copy-max needs --madvise=copy");
  size_options_check (state, &c->sizes);
}

/* Where the result goes and what is kept of the original (-o, -n,
   --no-sync, --manifest, --keep-originals, --expect-inode, --build-id);
   ARGP_ERR_UNKNOWN for any other KEY.  */
static error_t
parse_output_opt (int key, char *arg, struct argp_state *state)
{
  struct cmdline *c = state->input;
  switch (key)
    {
    case 'o':
      if (c->run.output != NULL)
	argp_error (state, "--output given twice");
      if (*arg == '\0')
	argp_error (state, "--output needs a file name");
      /* The result is a file renamed into place, and standard output
	 carries the report: '-' is no name for it (./- is).  */
      if (strcmp (arg, "-") == 0)
	argp_error (state, "--output=-: the result cannot go to standard output; name a "
		    "file ('./-' for one called '-')");
      c->run.output = arg;
      break;
    case 'n':
      c->run.dry_run = true;
      break;
    case OPT_NO_SYNC:
      c->run.sync = false;
      break;
    case OPT_MANIFEST:
      if (*arg == '\0')
	argp_error (state, "--manifest needs a FILE");
      c->manifest = arg;
      break;
    case OPT_KEEP_ORIGINALS:
      if (*arg == '\0')
	argp_error (state, "--keep-originals needs a DIR");
      c->keep_dir = arg;
      break;
    case OPT_EXPECT_INODE:
      {
	unsigned long long dev, ino;
	int used = 0;
	if (sscanf (arg, "%llu:%llu%n", &dev, &ino, &used) != 2 || arg[used] != '\0')
	  argp_error (state, "--expect-inode wants DEV:INO (two decimal numbers)");
	c->run.expect_inode = true;
	c->run.expect_dev = (dev_t) dev;
	c->run.expect_ino = (ino_t) ino;
      }
      break;
    case OPT_BUILD_ID:
      if (c->seen_build_id)
	argp_error (state, "--build-id given twice");
      c->seen_build_id = true;
      if (strcmp (arg, "derive") == 0)
	c->run.build_id = BUILD_ID_DERIVE;
      else if (strcmp (arg, "keep") == 0)
	c->run.build_id = BUILD_ID_KEEP;
      else
	argp_error (state, "--build-id must be 'derive' or 'keep', not '%s'", arg);
      break;
    default:
      return ARGP_ERR_UNKNOWN;
    }
  return 0;
}

/* The layout's options (--no-pad, --rule, the sizes, -p) and the report's
   (--json, -v, -q); ARGP_ERR_UNKNOWN for any other KEY.  */
static error_t
parse_layout_opt (int key, char *arg, struct argp_state *state)
{
  struct cmdline *c = state->input;
  switch (key)
    {
    case OPT_NO_PAD:
      c->run.pad = false;
      break;
    case OPT_RULE:
      if (c->seen_rule)
	argp_error (state, "--rule given twice");
      c->seen_rule = true;
      if (strcmp (arg, "relaxed") == 0)
	c->run.rule = ALIGN_RULE_RELAXED;
      else if (strcmp (arg, "kernel") == 0)
	c->run.rule = ALIGN_RULE_KERNEL;
      else
	argp_error (state, "--rule must be 'kernel' or 'relaxed', not '%s'", arg);
      break;
    case OPT_PMD_SIZE:
    case OPT_PAGE_SIZE:
      size_option (state, key, arg, &c->sizes);
      c->run.pmd_size = c->sizes.pmd_size;
      c->run.page_size = c->sizes.page_size;
      break;
    case 'p':
      c->run.preserve_dates = true;
      break;
    case OPT_JSON:
      if (c->json || c->json_file != NULL)
	argp_error (state, "--json given twice");
      if (arg != NULL && *arg == '\0')
	argp_error (state, "--json=: no FILE");
      if (arg != NULL)
	c->json_file = arg;
      else
	c->json = true;
      break;
    case 'v':
      c->verbose++;
      break;
    case 'q':
      c->quiet = true;
      break;
    default:
      return ARGP_ERR_UNKNOWN;
    }
  return 0;
}

static error_t
parse_rewrite_opt (int key, char *arg, struct argp_state *state)
{
  struct cmdline *c = state->input;
  static error_t (*const parsers[]) (int, char *, struct argp_state *) = {
    parse_stub_opt, parse_batch_opt, parse_output_opt, parse_layout_opt,
  };
  for (size_t i = 0; i < sizeof parsers / sizeof parsers[0]; i++)
    {
      error_t r = parsers[i] (key, arg, state);
      if (r != ARGP_ERR_UNKNOWN)
	return r;
    }
  switch (key)
    {
    case ARGP_KEY_ARGS:
      c->files = state->argv + state->next;
      c->nfiles = state->argc - state->next;
      break;
    case ARGP_KEY_NO_ARGS:
      if (c->batch.files_from == NULL)
	argp_error (state, c->batch.recursive ? "no DIR given" : "no FILE given");
      break;
    case ARGP_KEY_SUCCESS:
      check_rewrite_options (state, c);
      break;
    default:
      return ARGP_ERR_UNKNOWN;
    }
  return 0;
}

static int
by_known_inode (const void *a, const void *b)
{
  const struct known_inode *x = a, *y = b;
  if (x->dev != y->dev)
    return x->dev < y->dev ? -1 : 1;
  return x->ino < y->ino ? -1 : x->ino > y->ino;
}

/* The inodes of the regular files in the directory DIR (--known-links),
   into *OUT (sorted, *N of them; free it).  DIR is opened as the
   originals' directory is, its entries looked at without following a
   symbolic link.  Return 0, or -1 with the reason in *ERR.  */
static int
read_known_links (const char *dir, struct known_inode **out, size_t *n, struct diag *err)
{
  *out = NULL;
  *n = 0;
  int fd = trust_open_dir (dir, 0, err);
  if (fd < 0)
    return -1;
  int dfd = dup (fd);
  DIR *d = dfd >= 0 ? fdopendir (dfd) : NULL;
  if (d == NULL)
    {
      diag_set (err, "%s", strerror (errno));
      if (dfd >= 0)
	close (dfd);
      close (fd);
      return -1;
    }
  size_t cap = 0;
  struct dirent *de;
  int ret = 0;
  errno = 0;
  while ((de = readdir (d)) != NULL)
    {
      struct stat st;
      if (fstatat (fd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG (st.st_mode)
	  || st.st_nlink < 2)
	continue;
      if (*n == cap)
	{
	  cap = cap == 0 ? 64 : cap * 2;
	  struct known_inode *k = realloc (*out, cap * sizeof *k);
	  if (k == NULL)
	    {
	      diag_set (err, "out of memory");
	      ret = -1;
	      break;
	    }
	  *out = k;
	}
      (*out)[(*n)++] = (struct known_inode) { .dev = st.st_dev, .ino = st.st_ino };
      errno = 0;
    }
  if (ret == 0 && errno != 0)
    {
      diag_set (err, "%s", strerror (errno));
      ret = -1;
    }
  closedir (d);
  close (fd);
  if (ret != 0)
    {
      free (*out);
      *out = NULL;
      *n = 0;
      return -1;
    }
  if (*n > 1)
    qsort (*out, *n, sizeof **out, by_known_inode);
  return 0;
}

/* Give --madvise its text, naming the machines that have a stub (arch.c's
   table), so that adding one changes no message here.  */
static void
madvise_doc (void)
{
  static char doc[512];
  snprintf (doc, sizeof doc,
	    "Inject a startup stub that gets the aligned text onto huge pages at run time "
	    "(%s).  With =copy, where the kernel cannot give the file huge page cache "
	    "folios (ext4 before Linux 6.16, xfs before 5.18), the stub copies the text "
	    "into anonymous huge pages instead (a private copy per process)", stub_arch_list ());
  for (struct argp_option *o = rewrite_options; o->name != NULL || o->doc != NULL; o++)
    if (o->key == OPT_MADVISE)
      o->doc = doc;
}

/* Open what C names beside the files, into *JSON, *MANIFEST and *KEEP_ABS
   (the originals' directory by its resolved name); read --known-links.
   Return 0, or -1 after saying why on stderr.

   --json=FILE, --manifest, --keep-originals: opened before anything is
   processed, or the run ends at once; resolved as -o is (a symbolic link
   on the way followed only when root's or the running user's), the last
   component never followed, and an existing one used only as the rule
   of trust.h allows (regular file or directory, the user's or root's,
   for root writable by no one else; a file with no other hard link).
   The originals' directory is made if missing (0700) and named in the
   manifest by what was opened.  */
static int
open_run_files (struct cmdline *c, FILE **json, FILE **manifest, char **keep_abs)
{
  struct diag err = { "" };
  if (c->json_file != NULL
      && (*json = open_output (c->json_file, O_TRUNC, "w", &err)) == NULL)
    {
      fprintf (stderr, "%s: %s: cannot write the JSON report: %s\n", diag_program, c->json_file, err.msg);
      return -1;
    }
  c->run.json_too = *json != NULL;
  if (c->manifest != NULL
      && (*manifest = open_output (c->manifest, O_APPEND, "a", &err)) == NULL)
    {
      fprintf (stderr, "%s: %s: cannot append to the manifest: %s\n", diag_program, c->manifest, err.msg);
      return -1;
    }
  c->run.manifest = *manifest != NULL;
  c->run.manifest_out = *manifest;
  if (c->keep_dir != NULL)
    {
      char fdname[64];
      c->run.keep_dirfd = trust_open_dir (c->keep_dir, 0700, &err);
      c->run.keep = c->run.keep_dirfd >= 0;
      if (c->run.keep)
	{
	  snprintf (fdname, sizeof fdname, "/proc/self/fd/%d", c->run.keep_dirfd);
	  if ((*keep_abs = realpath (fdname, NULL)) == NULL)
	    diag_set (&err, "%s", strerror (errno));
	}
      if (*keep_abs == NULL)
	{
	  fprintf (stderr, "%s: %s: cannot keep originals there: %s\n", diag_program, c->keep_dir, err.msg);
	  return -1;
	}
      c->run.keep_dir = *keep_abs;
    }
  if (c->known_links != NULL)
    {
      struct known_inode *known;
      if (read_known_links (c->known_links, &known, &c->run.nknown_links, &err) != 0)
	{
	  fprintf (stderr, "%s: %s: cannot read the known links: %s\n", diag_program, c->known_links, err.msg);
	  return -1;
	}
      c->run.known_links = known;
    }
  return 0;
}

int
rewrite_command (int argc, char **argv)
{
  madvise_doc ();
  struct cmdline c = { .run = { .rule = ALIGN_RULE_RELAXED, .sync = true, .pad = true,
				  .keep_dirfd = -1,
				  .stub = { .populate_max = STUB_POPULATE_DEFAULT } },
		       .batch = { .default_excludes = true } };
  const struct argp argp = { rewrite_options, parse_rewrite_opt,
			     "FILE...\n-r DIR...\n--files-from=LIST [FILE...]\nstatus [PID...]\nprime [--files-from=LIST] FILE...\nmap [-C] [--hot=FILE] [--json] FILE\nreapply [--manifest=FILE]\nrevert [--manifest=FILE] [FILE...]", rewrite_doc, cmdline_children, NULL, NULL };
  if (argp_parse (&argp, argc, argv, 0, NULL, &c) != 0)
    return EX_USAGE;

  /* How much to say: a batch run (over thousands of files) lists what
     changed, was refused or failed, with -v every file, with -vv every
     file's full report; files named alone get a line each, with -v or -n
     the full report.  JSON is always complete.  */
  c.run.batch = c.batch.recursive || c.batch.files_from != NULL;
  int detail = c.verbose + (c.run.batch ? 0 : 1 + c.run.dry_run);
  c.run.format = c.json ? REPORT_JSON
		 : c.quiet ? REPORT_NONE
		 : detail >= 2 ? REPORT_FULL : REPORT_SUMMARY;
  c.run.list_all = detail >= 1;
  c.batch.progress = c.run.batch && !c.quiet && !c.no_progress;
  c.batch.excludes = c.excludes;
  c.batch.nexcludes = c.nexcludes;

  int status = 1;
  FILE *json = NULL, *manifest = NULL;
  char *keep_abs = NULL;
  bool ran = false;
  if (open_run_files (&c, &json, &manifest, &keep_abs) != 0)
    goto done;
  struct batch_counts counts;
  status = batch_run (c.files, c.files == NULL ? 0 : (size_t) c.nfiles, &c.batch, &c.run,
		      stdout, json, stderr, &counts);
  ran = true;

done:
  free (c.excludes);
  free ((struct known_inode *) c.run.known_links);
  if (manifest != NULL && fclose (manifest) != 0 && ran)
    {
      fprintf (stderr, "%s: %s: cannot write the manifest\n", diag_program, c.manifest);
      status = 1;
    }
  if (c.run.keep)
    close (c.run.keep_dirfd);
  free (keep_abs);
  if (json != NULL && (fflush (json) != 0 || ferror (json) || fclose (json) != 0) && ran)
    {
      fprintf (stderr, "%s: %s: cannot write the JSON report\n", diag_program, c.json_file);
      status = 1;
    }
  return report_flushed (status);
}
