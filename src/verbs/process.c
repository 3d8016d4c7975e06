/* SPDX-License-Identifier: GPL-3.0-or-later
   Copyright (C) 2026 The elfpmd authors  */
/* Processing one file: parse, plan, check the plan, report, then write.
   Nothing is written until the plan has been checked.  */
#include <config.h>

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "elf_file.h"
#include "checker.h"
#include "machine.h"
#include "phdr_align.h"
#include "plan.h"
#include "process.h"
#include "report.h"
#include "sizes.h"
#include "write.h"

/* Resolve NAME (a path the user gave, when ROOTFD is -1; else REL below
   the walk's root ROOTFD) into *AT.  */
static int
place_of (const char *name, int rootfd, const char *rel, bool follow, struct place *at,
	  struct diag *err)
{
  return rootfd >= 0 ? place_beneath (at, rootfd, rel, err) : place_resolve (at, name, follow, err);
}

/* How many of the names of --known-links (sorted by device, then inode)
   name the file DEV, INO.  */
static uint64_t
known_links_of (const struct run_options *opts, dev_t dev, ino_t ino)
{
  const struct known_inode *k = opts->known_links;
  size_t lo = 0, hi = opts->nknown_links;
  while (lo < hi)
    {
      size_t mid = lo + (hi - lo) / 2;
      if (k[mid].dev < dev || (k[mid].dev == dev && k[mid].ino < ino))
	lo = mid + 1;
      else
	hi = mid;
    }
  uint64_t n = 0;
  for (; lo < opts->nknown_links && k[lo].dev == dev && k[lo].ino == ino; lo++)
    n++;
  return n;
}

int
process_file (const char *name, const struct run_options *opts, FILE *report, FILE *errors)
{
  struct file_job job = { .name = name, .rootfd = -1 };
  return process_job (&job, opts, report, NULL, errors, NULL);
}

/* One file on its way through the passes of process_job.  */
struct job
{
  const struct file_job *in;
  const struct run_options *opts;
  FILE *errors;
  const char *err_name;		/* the file an error line names */
  struct diag err;
  struct elf_file file;
  struct rewrite_plan plan;
  bool opened, planned;
  char source[128];		/* where the PMD size came from */
  struct file_report r;
  enum skip_kind batch_skip;
  bool unsupported;		/* a machine without a known PMD size */
  struct place at, out_at;
  struct ima_plan ima;
};

/* Open the file: its directory held open from here to the rename; a name
   given alone is followed through a symbolic link (its own, or one on the
   way, when root or this user owns it), a batch run's never.  What a walk
   saw must be what is rewritten.  Return 0, or -1 (J->err says why, unless
   a batch run passes over what is not ELF).  */
static int
open_pass (struct job *j)
{
  const struct file_job *in = j->in;
  if (place_of (in->name, in->rootfd, in->rel, !j->opts->batch, &j->at, &j->err) != 0
      || elf_file_open_at (&j->file, j->at.dirfd, j->at.base, false, in->name, &j->err) != 0)
    {
      /* A batch run meets scripts, archives and data among the programs.  */
      if (j->opts->batch && j->file.skip_kind == SKIP_NOT_ELF)
	diag_clear (&j->err);
      return -1;
    }
  j->opened = true;
  j->r.file = &j->file;
  /* Not a file, or a symbolic link, put at the name since.  */
  const struct elf_file *f = &j->file;
  if ((in->expect_inode && (f->st.st_dev != in->dev || f->st.st_ino != in->ino))
      || (j->opts->expect_inode && (f->st.st_dev != j->opts->expect_dev
				    || f->st.st_ino != j->opts->expect_ino)))
    {
      diag_set (&j->err, "the file was replaced while the run was under way");
      return -1;
    }
  return 0;
}

/* The machines --machine selects, and the PMD and page sizes.  Return 0,
   or -1: an error, or a file a batch run skips (J->batch_skip).  */
static int
machine_pass (struct job *j)
{
  const struct run_options *opts = j->opts;
  const struct elf_file *f = &j->file;
  if (f->skip_reason != NULL)
    return 0;
  if (opts->nmachines != 0)
    {
      bool selected = false;
      for (size_t i = 0; i < opts->nmachines && !selected; i++)
	selected = opts->machines[i].machine == f->ehdr.e_machine
		   && (opts->machines[i].elfclass == ELFCLASSNONE
		       || opts->machines[i].elfclass == f->elfclass);
      if (!selected)
	{
	  j->batch_skip = SKIP_OTHER_MACHINE;
	  return -1;
	}
    }
  if (choose_sizes (f->ehdr.e_machine, f->elfclass, opts->pmd_size, opts->page_size,
		    &j->r.pmd, &j->r.page, j->source, sizeof j->source, &j->err) != 0)
    {
      /* A package holds firmware and files for other machines too: a batch
	 run skips a machine elfpmd knows no PMD size for, unless the
	 options (--page-size) are what does not fit.  */
      struct machine_info known;
      if (opts->pmd_size == 0 && machine_pmd_size (f->ehdr.e_machine, f->elfclass, 0, &known) != NULL)
	{
	  if (opts->batch)
	    {
	      diag_clear (&j->err);
	      j->batch_skip = SKIP_NO_PMD_SIZE;
	    }
	  else
	    j->unsupported = true;
	}
      return -1;
    }
  j->r.pmd_source = j->source;
  return 0;
}

/* Plan, check the plan, and decide what becomes of IMA's attributes: a
   rewrite in place changes the contents they describe (decided now, so
   that a dry run says it too; -o makes a new file, which gets none).
   Return 0, or -1.  */
static int
plan_pass (struct job *j)
{
  const struct run_options *opts = j->opts;
  struct plan_options po = {
    .layout = { .rule = opts->rule, .pmd = j->r.pmd, .page = j->r.page, .pad = opts->pad },
    .stub = opts->stub, .build_id = opts->build_id,
  };
  if (rewrite_plan_build (&j->plan, &j->file, &po, &j->err) != 0)
    return -1;
  j->planned = true;
  j->r.plan = &j->plan;
  if (check_plan (&j->plan, &j->file, &j->err) != 0)
    return -1;
  j->ima = (struct ima_plan) { .action = IMA_NONE };
  if (j->plan.changed && opts->output == NULL)
    {
      j->r.ima = &j->ima;
      if (ima_plan_build (&j->file, &j->ima, &j->err) != 0)
	return -1;
    }
  return 0;
}

/* The other names of the file that this run rewrites too (hard links met
   by a walk), resolved into *LINKS and *NAMES (J->in->nlinks of each).  A
   name that cannot be resolved any more stays unresolved: the writer warns
   that it keeps the old contents.  Return 0, or -1 when out of memory.  */
static int
resolve_links (struct job *j, struct place **links, const char ***names)
{
  size_t n = j->in->nlinks;
  *links = calloc (n, sizeof **links);
  *names = calloc (n, sizeof **names);
  if (*links == NULL || *names == NULL)
    {
      free (*links);
      free (*names);
      *links = NULL;
      *names = NULL;
      return diag_set (&j->err, "out of memory");
    }
  for (size_t i = 0; i < n; i++)
    {
      struct diag lerr = { "" };
      (*names)[i] = j->in->links[i].name;
      if (place_of (j->in->links[i].name, j->in->links[i].rootfd, j->in->links[i].rel, false,
		    &(*links)[i], &lerr) != 0)
	place_init (&(*links)[i]);
    }
  return 0;
}

/* The names of the old inode that this run did not name keep the old
   contents: harmless, but not what whoever made the links meant (unless
   they are in --known-links, kept so on purpose).  */
static void
warn_other_links (const struct job *j)
{
  const struct elf_file *f = &j->file;
  uint64_t known = known_links_of (j->opts, f->st.st_dev, f->st.st_ino);
  if (f->st.st_nlink <= 1 + j->in->nlinks + known)
    return;
  uint64_t outside = (uint64_t) f->st.st_nlink - 1 - j->in->nlinks - known;
  fprintf (j->errors, "%s: %s: warning: %" PRIu64 " other hard link%s of this file %s not "
	   "in this run and keep%s the old contents\n", diag_program, j->in->name, outside,
	   outside == 1 ? "" : "s", outside == 1 ? "is" : "are", outside == 1 ? "s" : "");
}

/* Write the plan: in place (with the hard links the run names), or to -o's
   output.  Return 0, or -1.  */
static int
write_pass (struct job *j)
{
  const struct run_options *opts = j->opts;
  if (opts->dry_run || !(j->plan.changed || opts->output != NULL))
    return 0;
  struct write_options wo = { .in_place = opts->output == NULL, .sync = opts->sync,
			      .hash = opts->manifest, .keep = opts->keep,
			      .keep_dirfd = opts->keep_dirfd,
			      .preserve_dates = opts->preserve_dates, .ima = &j->ima };
  /* From here on a failure is the output's (-o): it is named.  */
  if (!wo.in_place)
    j->err_name = opts->output;
  /* -o: a symbolic link at OUTPUT is replaced, not followed.  */
  if (!wo.in_place && place_of (opts->output, -1, NULL, false, &j->out_at, &j->err) != 0)
    return -1;
  struct place *links = NULL;
  const char **names = NULL;
  if (wo.in_place && j->in->nlinks > 0)
    {
      if (resolve_links (j, &links, &names) != 0)
	return -1;
      wo.links = links;
      wo.link_names = names;
      wo.nlinks = j->in->nlinks;
    }
  int ret = write_plan (&j->file, &j->plan, wo.in_place ? &j->at : &j->out_at, &wo, &j->r.written,
			&j->err);
  for (size_t i = 0; links != NULL && i < wo.nlinks; i++)
    place_close (&links[i]);
  free (links);
  free (names);
  if (ret != 0)
    return -1;
  j->r.has_written = true;
  if (j->r.written.warning[0] != '\0')
    fprintf (j->errors, "%s: %s: warning: %s\n", diag_program, j->in->name, j->r.written.warning);
  if (wo.in_place)
    warn_other_links (j);
  return 0;
}

/* The report of the file: the error line, the text or JSON report (a
   batch run counts what it skips, it does not list it).  */
static void
report_pass (struct job *j, FILE *report, FILE *json)
{
  const struct run_options *opts = j->opts;
  struct file_report *r = &j->r;
  if (j->err.msg[0] != '\0')
    {
      r->error = j->err.msg;
      r->file = NULL;
      r->plan = NULL;
      fprintf (j->errors, "%s: %s: %s\n", diag_program, j->err_name, j->err.msg);
    }
  enum report_format format = opts->format;
  if (j->batch_skip != SKIP_NONE)
    r->plan = NULL;
  bool listed = !(opts->batch && j->err.msg[0] == '\0'
		  && (r->file == NULL || r->plan == NULL || r->file->skip_reason != NULL));
  if (!listed)
    format = REPORT_NONE;
  if (json != NULL && listed)
    {
      report_json (json, r);
      fflush (json);
    }
  switch (format)
    {
    case REPORT_SUMMARY: report_summary (report, r); break;
    case REPORT_FULL: report_text (report, r); break;
    case REPORT_JSON: report_json (report, r); break;
    case REPORT_NONE: break;
    }
  fflush (report);
}

/* What the run records of the file (batch counts, the manifest, the stub's
   verdict) into *OUT.  */
static void
outcome_pass (const struct job *j, struct file_outcome *out)
{
  const struct file_report *r = &j->r;
  out->status = report_file_status (r);
  out->skip = j->batch_skip != SKIP_NONE ? j->batch_skip
	      : j->opened && j->file.skip_reason != NULL ? j->file.skip_kind
	      : !j->opened && j->file.skip_kind == SKIP_NOT_ELF ? SKIP_NOT_ELF : SKIP_NONE;
  out->relinked = r->has_written ? r->written.relinked : 0;
  out->unsupported = j->unsupported;
  out->written = r->has_written && j->opts->manifest;
  if (out->written)
    {
      memcpy (out->sha256_before, r->written.sha256_before, 32);
      memcpy (out->sha256_after, r->written.sha256_after, 32);
      out->size_before = r->written.size_before;
      out->size_after = r->written.size_after;
      out->kept = r->written.kept;
    }
  out->stub = 0;
  out->stub_why[0] = '\0';
  if (j->planned && j->plan.stub.wanted && out->status != STATUS_ERROR
      && out->status != STATUS_SKIPPED)
    {
      out->stub = j->plan.stub.enabled ? 1 : 2;
      if (!j->plan.stub.enabled)
	snprintf (out->stub_why, sizeof out->stub_why, "%s",
		  j->plan.stub.refusal != NULL ? j->plan.stub.refusal : "no reason given");
    }
}

int
process_job (const struct file_job *in, const struct run_options *opts, FILE *report,
	     FILE *json, FILE *errors, struct file_outcome *out)
{
  struct job *j = calloc (1, sizeof *j);
  if (j == NULL)
    {
      fprintf (errors, "%s: %s: out of memory\n", diag_program, in->name);
      return 1;
    }
  *j = (struct job) { .in = in, .opts = opts, .errors = errors, .err_name = in->name,
		      .r = { .name = in->name, .rule = opts->rule, .dry_run = opts->dry_run },
		      .batch_skip = SKIP_NONE };
  place_init (&j->at);
  place_init (&j->out_at);
  j->file.skip_kind = SKIP_NONE;
  /* parse, choose the sizes, plan and check, then write: each pass only
     when the one before went through */
  if (open_pass (j) == 0 && machine_pass (j) == 0 && plan_pass (j) == 0)
    write_pass (j);
  report_pass (j, report, json);
  if (out != NULL)
    outcome_pass (j, out);
  int ret = j->err.msg[0] != '\0' ? 1 : 0;
  if (j->planned)
    rewrite_plan_free (&j->plan);
  if (j->opened)
    elf_file_close (&j->file);
  place_close (&j->at);
  place_close (&j->out_at);
  free (j);
  return ret;
}
