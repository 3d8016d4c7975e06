/* SPDX-License-Identifier: GPL-3.0-or-later
   Copyright (C) 2026 The elfpmd authors  */
/* The verbs reapply and revert, and the manifest's lines a conversion
   appends (manifest.h); the file's format is src/plan/manifest_file.c's.  */
#include <config.h>

#include <argp.h>
#include <sysexits.h>

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cmdline.h"
#include "manifest.h"
#include "manifest_file.h"
#include "place.h"
#include "sha256.h"
#include "stub_params.h"
#include "trust.h"
#include "write.h"

extern char **environ;

/* NAME made absolute against the working directory (not resolved: the
   name the run used), or NULL when out of memory.  */
static char *
absolute (const char *name)
{
  if (name[0] == '/')
    return strdup (name);
  char cwd[PATH_MAX];
  if (getcwd (cwd, sizeof cwd) == NULL)
    return strdup (name);
  char *abs = NULL;
  while (name[0] == '.' && name[1] == '/')
    name += 2;
  if (asprintf (&abs, "%s%s%s", cwd, strcmp (cwd, "/") == 0 ? "" : "/", name) < 0)
    return NULL;
  return abs;
}

/* The most options a convert line records: one of each that
   recorded_options writes.  */
enum { RECORDED_OPTIONS_MAX = 11 };

/* The options of RO that decide what a rewrite makes, as the command line
   gives them, into OPTS (pointing into STORE), their number returned.  */
static size_t
recorded_options (const struct run_options *ro, char *opts[RECORDED_OPTIONS_MAX],
		  char store[RECORDED_OPTIONS_MAX][48])
{
  size_t n = 0;
#define OPT(...) (snprintf (store[n], sizeof store[n], __VA_ARGS__), opts[n] = store[n], n++)
  if (ro->rule == ALIGN_RULE_KERNEL)
    OPT ("--rule=kernel");
  if (!ro->pad)
    OPT ("--no-pad");
  if (ro->pmd_size != 0)
    OPT ("--pmd-size=%" PRIu64, ro->pmd_size);
  if (ro->page_size != 0)
    OPT ("--page-size=%" PRIu64, ro->page_size);
  if (ro->stub.wanted)
    {
      OPT ("--madvise%s", ro->stub.copy ? "=copy" : "");
      if (ro->stub.populate_max != STUB_POPULATE_DEFAULT)
	OPT ("--populate-max=%" PRIu64, ro->stub.populate_max);
      if (ro->stub.copy_max != 0)
	OPT ("--copy-max=%" PRIu64, ro->stub.copy_max);
      if (ro->stub.move_table)
	OPT ("--move-table");
    }
  if (ro->preserve_dates)
    OPT ("-p");
  if (!ro->sync)
    OPT ("--no-sync");
  /* (derive, the default, is what a line without it means)  */
  if (ro->build_id == BUILD_ID_KEEP)
    OPT ("--build-id=keep");
#undef OPT
  return n;
}

/* Append R to the manifest M as one line; say on stderr when that fails
   (NAME is the file's name as the run gave it).  */
static void
append_record (FILE *m, const struct manifest_record *r, const char *name)
{
  char *line;
  size_t len;
  struct diag err = { "" };
  if (manifest_record_format (r, &line, &len) != 0)
    {
      fprintf (stderr, "%s: %s: the manifest: out of memory\n", diag_program, name);
      return;
    }
  if (manifest_append (fileno (m), line, len, &err) != 0)
    fprintf (stderr, "%s: the manifest: %s\n", diag_program, err.msg);
  free (line);
}

void
manifest_entry (FILE *m, const char *name, const struct file_outcome *out,
		const struct run_options *ro, const char *keep_dir)
{
  char *abs = absolute (name);
  if (abs == NULL)
    {
      fprintf (stderr, "%s: %s: the manifest: out of memory\n", diag_program, name);
      return;
    }
  char *opts[RECORDED_OPTIONS_MAX], store[RECORDED_OPTIONS_MAX][48];
  struct manifest_record r = {
    .file = abs, .size_before = out->size_before, .size_after = out->size_after,
    .options = opts, .noptions = recorded_options (ro, opts, store),
    .originals = out->kept && keep_dir != NULL ? (char *) keep_dir : NULL,
  };
  sha256_hex (out->sha256_before, r.before);
  sha256_hex (out->sha256_after, r.after);
  append_record (m, &r, name);
  free (abs);
}

/* The manifest PATH read by manifest_read into *V; its number of files,
   or -1 said on stderr.  */
static long
read_manifest (const char *path, struct manifest_record **v)
{
  struct diag err = { "" };
  size_t lineno;
  long n = manifest_read (path, v, &lineno, &err);
  if (n < 0 && lineno != 0)
    fprintf (stderr, "%s: %s: line %zu: %s\n", diag_program, path, lineno, err.msg);
  else if (n < 0)
    fprintf (stderr, "%s: %s: %s\n", diag_program, path, err.msg);
  return n;
}

/* --- The verbs.  */

struct manifest_cmdline
{
  const char *manifest;
  bool dry_run, quiet;
  char **files;
  int nfiles;
  uint64_t max_size;		/* reapply: files larger are left alone; 0: no limit */
  bool manifest_given;		/* --manifest */
};

enum { OPT_MANIFEST_FILE = 0x200 };

static const struct argp_option revert_options[] = {
  { "manifest", OPT_MANIFEST_FILE, "FILE", 0,
    "The manifest to read (and append to; default " MANIFEST_DEFAULT ")", 0 },
  { "dry-run", 'n', NULL, 0, "Say what would be done, do nothing", 0 },
  { "quiet", 'q', NULL, 0, "Print nothing but errors", 0 },
  { NULL, 0, NULL, 0, NULL, 0 }
};

static const struct argp_option reapply_options[] = {
  { "manifest", OPT_MANIFEST_FILE, "FILE", 0,
    "The manifest to read (and append to; default " MANIFEST_DEFAULT ")", 0 },
  { "dry-run", 'n', NULL, 0, "Say what would be done, do nothing", 0 },
  { "quiet", 'q', NULL, 0, "Print nothing but errors", 0 },
  { "max-size", OPT_MAX_SIZE, "SIZE", 0,
    "Leave alone every file larger than SIZE (default 1G; 0: no limit)", 0 },
  { NULL, 0, NULL, 0, NULL, 0 }
};

static error_t
parse_manifest_opt (int key, char *arg, struct argp_state *state)
{
  struct manifest_cmdline *c = state->input;
  switch (key)
    {
    case OPT_MANIFEST_FILE:
      if (*arg == '\0')
	argp_error (state, "--manifest needs a FILE");
      c->manifest = arg;
      c->manifest_given = true;
      break;
    case 'n':
      c->dry_run = true;
      break;
    case 'q':
      c->quiet = true;
      break;
    case OPT_MAX_SIZE:
      c->max_size = max_size_argument (state, arg);
      break;
    case ARGP_KEY_ARGS:
      c->files = state->argv + state->next;
      c->nfiles = state->argc - state->next;
      break;
    default:
      return ARGP_ERR_UNKNOWN;
    }
  return 0;
}

static const char reapply_doc[] =
  "Convert again, with the options recorded, the files of the manifest "
  "that something else replaced since elfpmd rewrote them (a package "
  "upgrade), appending their new entries; leave the others alone."
  "\v"
  "A file is converted again when its contents are no longer those elfpmd "
  "wrote (the SHA-256 in the manifest): it is then run through elfpmd with "
  "the options of its last entry, --manifest and, where its original was "
  "kept, --keep-originals into the same directory.  A file reverted (elfpmd "
  "revert), gone, or not a regular file any more is left alone, and so is "
  "one larger than --max-size (default 1 GiB): root runs reapply unattended "
  "over names other users may place files at.  A file whose size is not the "
  "one elfpmd wrote is not hashed: it was replaced.  The "
  "packaging hooks run 'elfpmd reapply -q' after every dpkg or rpm "
  "transaction that touched the directories elfpmd converts in.\n\n"
  "Without --manifest and with no " MANIFEST_DEFAULT " (nothing was ever "
  "converted with it) it says \"nothing recorded\".\n\n"
  "Exit status: 0 when every file is as the manifest wants it (or was left "
  "alone with a reason), or nothing is recorded; 1 when a conversion failed "
  "or the manifest cannot be read; 64 for a usage error.";

static const char revert_doc[] =
  "Put back the originals of the files of the manifest (or of the FILEs "
  "named) that are as elfpmd rewrote them, from the copies --keep-originals "
  "made, and record that in the manifest."
  "\v"
  "A file is put back when its contents are those elfpmd wrote (the SHA-256 "
  "in the manifest) and the kept copy has the recorded SHA-256 of the "
  "original: a temporary file beside it gets the original's contents and "
  "the current file's owner and mode, and is renamed over it.  A file whose "
  "contents are the original's already, or changed since (an upgrade "
  "replaced it), is left alone and said so.  A file whose original was not "
  "kept cannot be put back: reinstall its package (dpkg -S FILE, rpm -qf "
  "FILE).\n\n"
  "A summary line follows (unless -q): how many files were put back, "
  "original already, left alone, failed.\n\n"
  "Exit status: 0 when every file asked for is original now (or left alone "
  "with a reason); 1 when one could not be put back (no kept original, an "
  "I/O error) or the manifest cannot be read; 64 for a usage error.";

/* Run elfpmd itself on E's file with its options.  Return its status.  */
static int
reconvert (const struct manifest_record *e, const char *manifest, const struct stat *st, bool quiet)
{
  size_t n = 0;
  const char **argv = calloc (e->noptions + 9, sizeof *argv);
  char *mopt = NULL, *kopt = NULL, *iopt = NULL;
  if (argv == NULL || asprintf (&mopt, "--manifest=%s", manifest) < 0
      || asprintf (&iopt, "--expect-inode=%llu:%llu", (unsigned long long) st->st_dev,
		   (unsigned long long) st->st_ino) < 0
      || (e->originals != NULL && asprintf (&kopt, "--keep-originals=%s", e->originals) < 0))
    {
      fprintf (stderr, "%s: %s: out of memory\n", diag_program, e->file);
      free (argv);
      return 1;
    }
  argv[n++] = "elfpmd";
  if (quiet)
    argv[n++] = "-q";
  for (size_t i = 0; i < e->noptions; i++)
    argv[n++] = e->options[i];
  argv[n++] = mopt;
  argv[n++] = iopt;
  if (kopt != NULL)
    argv[n++] = kopt;
  argv[n++] = "--";
  argv[n++] = e->file;
  argv[n] = NULL;
  pid_t pid;
  int status = 1;
  if (posix_spawn (&pid, "/proc/self/exe", NULL, NULL, (char *const *) argv, environ) == 0)
    {
      while (waitpid (pid, &status, 0) < 0 && errno == EINTR)
	;
      status = WIFEXITED (status) ? WEXITSTATUS (status) : 1;
    }
  else
    fprintf (stderr, "%s: %s: cannot run elfpmd again: %s\n", diag_program, e->file, strerror (errno));
  free (argv);
  free (mopt);
  free (kopt);
  free (iopt);
  return status;
}

/* Whether the entry X, a file's state, needs the kept original of E: the
   same original kept in the same directory.  */
static bool
same_kept_original (const struct manifest_record *x, const struct manifest_record *e)
{
  return !x->revert && x->originals != NULL && e->originals != NULL
	 && strcmp (x->before, e->before) == 0 && strcmp (x->originals, e->originals) == 0;
}

/* After reapply: the kept originals of the entries of V (N, the manifest
   as it was) converted again (AGAIN[i]) that no entry of the manifest as it
   is now needs (a file's last convert entry with the same originals
   directory and original hash) are removed: an upgrade superseded them.
   Each through the directory trust_open_dir opened, only a regular file
   of that name.  */
static void
prune_superseded (const struct manifest_record *v, const bool *again, long n, const char *manifest,
		  bool quiet)
{
  bool any = false;
  for (long i = 0; i < n && !any; i++)
    any = again[i] && v[i].originals != NULL;
  if (!any)
    return;
  struct manifest_record *now;
  long m = read_manifest (manifest, &now);
  if (m < 0)
    return;
  for (long i = 0; i < n; i++)
    {
      const struct manifest_record *e = &v[i];
      if (!again[i] || e->originals == NULL)
	continue;
      bool needed = false;
      for (long k = 0; k < m && !needed; k++)
	needed = same_kept_original (&now[k], e);
      /* And not by another entry of this run's that was not converted
	 again (the same original kept for two names).  */
      for (long k = 0; k < n && !needed; k++)
	needed = k != i && !again[k] && same_kept_original (&v[k], e);
      if (needed)
	continue;
      struct diag err = { "" };
      struct stat kst;
      int kdir = trust_open_dir (e->originals, 0, &err);
      int kfd = kdir >= 0 ? trust_open_at (kdir, e->before, &kst, &err) : -1;
      if (kfd >= 0)
	{
	  close (kfd);
	  if (unlinkat (kdir, e->before, 0) == 0 && !quiet)
	    printf ("%s: its superseded kept original removed\n", e->file);
	}
      if (kdir >= 0)
	close (kdir);
    }
  manifest_records_free (now, m);
}

int
reapply_command (int argc, char **argv)
{
  struct manifest_cmdline c = { .manifest = MANIFEST_DEFAULT, .max_size = MAX_SIZE_DEFAULT };
  const struct argp argp = { reapply_options, parse_manifest_opt, "", reapply_doc, cmdline_children, NULL, NULL };
  if (argp_parse (&argp, argc, argv, 0, NULL, &c) != 0)
    return EX_USAGE;
  if (c.nfiles != 0)
    {
      fprintf (stderr, "elfpmd reapply: takes no FILE (it reapplies the manifest)\n");
      return EX_USAGE;
    }
  /* A machine where nothing was converted with the default manifest.  */
  struct stat mst;
  if (!c.manifest_given && lstat (c.manifest, &mst) != 0 && errno == ENOENT)
    {
      if (!c.quiet)
	printf ("elfpmd reapply: nothing recorded (no %s)\n", c.manifest);
      return 0;
    }
  struct manifest_record *v;
  long n = read_manifest (c.manifest, &v);
  if (n < 0)
    return 1;
  bool *reconverted = calloc ((size_t) n + 1, sizeof *reconverted);
  if (reconverted == NULL)
    {
      fprintf (stderr, "%s: %s: out of memory\n", diag_program, c.manifest);
      manifest_records_free (v, n);
      return 1;
    }
  int status = 0;
  unsigned long again = 0, same = 0, left = 0;
  for (long i = 0; i < n; i++)
    {
      struct manifest_record *e = &v[i];
      if (e->revert)
	{
	  left++;
	  continue;
	}
      struct place pl;
      struct stat st;
      char hex[65];
      bool gone, elf;
      struct diag err = { "" };
      if (manifest_file_state (e->file, &pl, &st, hex, &gone, &elf, NULL, e->size_after, c.max_size, &err)
	  != 0)
	{
	  place_close (&pl);
	  if (!c.quiet)
	    printf ("%s: left alone: %s\n", e->file, gone ? "gone" : err.msg);
	  left++;
	  continue;
	}
      place_close (&pl);
      if (strcmp (hex, e->after) == 0)
	{
	  same++;
	  continue;
	}
      if (!elf)
	{
	  if (!c.quiet)
	    printf ("%s: left alone: no longer an ELF file\n", e->file);
	  left++;
	  continue;
	}
      again++;
      if (c.dry_run)
	{
	  printf ("%s: would be converted again (contents %s since)\n", e->file,
		  hex[0] != '\0' && strcmp (hex, e->before) == 0 ? "back to the original"
		  : "replaced");
	  continue;
	}
      if (reconvert (e, c.manifest, &st, c.quiet) != 0)
	status = 1;
      else
	reconverted[i] = true;
    }
  if (!c.dry_run)
    prune_superseded (v, reconverted, n, c.manifest, c.quiet);
  if (!c.quiet)
    printf ("elfpmd reapply: %ld files in %s: %lu as converted, %lu %sconverted again, %lu "
	    "left alone\n", n, c.manifest, same, again, c.dry_run ? "would be " : "", left);
  manifest_records_free (v, n);
  free (reconverted);
  return status;
}

/* What revert did with a file, for its summary.  */
enum revert_outcome { REVERT_PUT_BACK, REVERT_ORIGINAL, REVERT_LEFT, REVERT_FAILED, REVERT_KINDS };

/* Revert E and say so: what became of it.  SHARED: another entry of the
   manifest needs the same kept original, which stays.  */
static enum revert_outcome
revert_one (const struct manifest_record *e, FILE *m, const struct manifest_cmdline *c, bool shared)
{
  enum revert_outcome out = REVERT_PUT_BACK;
  struct place pl;
  struct stat st;
  char hex[65];
  bool gone, elf;
  struct diag err = { "" };
  int cur = -1;
  if (manifest_file_state (e->file, &pl, &st, hex, &gone, &elf, &cur, 0, 0, &err) != 0)
    {
      out = REVERT_LEFT;
      if (!c->quiet)
	printf ("%s: left alone: %s\n", e->file, gone ? "gone" : err.msg);
    }
  else if (strcmp (hex, e->before) == 0)
    {
      out = REVERT_ORIGINAL;
      if (!c->quiet)
	printf ("%s: original already\n", e->file);
    }
  else if (strcmp (hex, e->after) != 0)
    {
      out = REVERT_LEFT;
      if (!c->quiet)
	printf ("%s: left alone: changed since elfpmd rewrote it (an upgrade replaced it?)\n",
		e->file);
    }
  else if (e->originals == NULL)
    {
      fprintf (stderr, "%s: %s: the original was not kept (--keep-originals): reinstall its "
	       "package (dpkg -S, rpm -qf name it)\n", diag_program, e->file);
      out = REVERT_FAILED;
    }
  else
    {
      /* The originals' directory and the kept copy as the rule of trust.h
	 allows, each opened once; the copy is hashed as it is copied.  */
      struct diag kerr = { "" };
      struct stat kst;
      int kdir = trust_open_dir (e->originals, 0, &kerr);
      int kfd = kdir >= 0 ? trust_open_at (kdir, e->before, &kst, &kerr) : -1;
      if (kfd < 0)
	{
	  fprintf (stderr, "%s: %s: the kept original %s/%s: %s\n", diag_program, e->file, e->originals,
		   e->before, kdir >= 0 && errno == ENOENT ? "gone" : kerr.msg);
	  out = REVERT_FAILED;
	}
      else if (c->dry_run)
	printf ("%s: would be put back\n", e->file);
      else if (write_restore (&pl, cur, &st, kfd, &kst, e->before, &kerr) != 0)
	{
	  fprintf (stderr, "%s: %s: %s\n", diag_program, e->file, kerr.msg);
	  out = REVERT_FAILED;
	}
      else
	{
	  struct manifest_record r = { .revert = true, .file = e->file };
	  memcpy (r.after, e->before, sizeof r.after);
	  append_record (m, &r, e->file);
	  /* The copy has done its work, unless another entry needs it.  */
	  if (!shared && unlinkat (kdir, e->before, 0) != 0 && !c->quiet)
	    printf ("%s: the kept original stays: %s\n", e->file, strerror (errno));
	  if (!c->quiet)
	    printf ("%s: put back\n", e->file);
	}
      if (kfd >= 0)
	close (kfd);
      if (kdir >= 0)
	close (kdir);
    }
  if (cur >= 0)
    close (cur);
  place_close (&pl);
  return out;
}

int
revert_command (int argc, char **argv)
{
  struct manifest_cmdline c = { .manifest = MANIFEST_DEFAULT };
  const struct argp argp = { revert_options, parse_manifest_opt, "[FILE...]", revert_doc, cmdline_children, NULL, NULL };
  if (argp_parse (&argp, argc, argv, 0, NULL, &c) != 0)
    return EX_USAGE;
  struct manifest_record *v;
  long n = read_manifest (c.manifest, &v);
  if (n < 0)
    return 1;
  struct diag merr = { "" };
  FILE *m = c.dry_run ? NULL : open_output (c.manifest, O_APPEND, "a", &merr);
  if (!c.dry_run && m == NULL)
    {
      fprintf (stderr, "%s: %s: %s\n", diag_program, c.manifest, merr.msg);
      manifest_records_free (v, n);
      return 1;
    }
  /* The files to revert: each named, or all.  */
  bool *asked = calloc ((size_t) n + 1, sizeof *asked);
  if (asked == NULL)
    {
      fprintf (stderr, "%s: %s: out of memory\n", diag_program, c.manifest);
      if (m != NULL)
	fclose (m);
      manifest_records_free (v, n);
      return 1;
    }
  int status = 0;
  for (long i = 0; i < n; i++)
    asked[i] = c.nfiles == 0;
  for (int k = 0; k < c.nfiles; k++)
    {
      char *abs = absolute (c.files[k]);
      long i = 0;
      while (abs != NULL && i < n && strcmp (v[i].file, abs) != 0)
	i++;
      if (abs == NULL || i == n)
	{
	  fprintf (stderr, "%s: %s: not in %s\n", diag_program, c.files[k], c.manifest);
	  status = 1;
	}
      else
	asked[i] = true;
      free (abs);
    }
  unsigned long done[REVERT_KINDS] = { 0 };
  for (long i = 0; i < n; i++)
    {
      if (asked[i] && v[i].revert)
	done[REVERT_ORIGINAL]++;	/* reverted before */
      if (!asked[i] || v[i].revert)
	continue;
      bool shared = false;
      for (long k = 0; k < n && !shared; k++)
	shared = k != i && same_kept_original (&v[k], &v[i]);
      enum revert_outcome o = revert_one (&v[i], m, &c, shared);
      done[o]++;
      if (o == REVERT_FAILED)
	status = 1;
    }
  if (!c.quiet)
    printf ("elfpmd revert: %lu of the %ld files in %s: %lu %sput back, %lu original already, "
	    "%lu left alone, %lu failed\n", done[0] + done[1] + done[2] + done[3], n, c.manifest,
	    done[REVERT_PUT_BACK], c.dry_run ? "would be " : "", done[REVERT_ORIGINAL],
	    done[REVERT_LEFT], done[REVERT_FAILED]);
  if (m != NULL && fclose (m) != 0)
    status = 1;
  manifest_records_free (v, n);
  free (asked);
  return status;
}
