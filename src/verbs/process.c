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

int
process_job (const struct file_job *job, const struct run_options *opts, FILE *report,
	     FILE *json, FILE *errors, struct file_outcome *out)
{
  const char *name = job->name;
  const char *err_name = name;	/* the file an error line names */
  struct diag err = { "" };
  struct elf_file file;
  struct rewrite_plan plan = { 0 };
  bool opened = false, planned = false;
  char source[128] = "";
  struct file_report r = { .name = name, .rule = opts->rule, .dry_run = opts->dry_run };
  enum skip_kind batch_skip = SKIP_NONE;
  bool unsupported = false;	/* a machine without a known PMD size */
  struct place at, out_at;
  place_init (&at);
  place_init (&out_at);
  file.skip_kind = SKIP_NONE;

  /* The file's directory, held open from here to the rename; a name given
     alone is followed through a symbolic link (its own, or one on the
     way, when root or this user owns it), a batch run's never.  */
  if (place_of (job->name, job->rootfd, job->rel, !opts->batch, &at, &err) != 0
      || elf_file_open_at (&file, at.dirfd, at.base, false, name, &err) != 0)
    {
      /* A batch run meets scripts, archives and data among the programs.  */
      if (opts->batch && file.skip_kind == SKIP_NOT_ELF)
	diag_clear (&err);
      goto done;
    }
  opened = true;
  r.file = &file;
  /* What a walk saw must be what is rewritten: not a file, or a symbolic
     link, put at the name since.  */
  if ((job->expect_inode && (file.st.st_dev != job->dev || file.st.st_ino != job->ino))
      || (opts->expect_inode && (file.st.st_dev != opts->expect_dev
				 || file.st.st_ino != opts->expect_ino)))
    {
      diag_set (&err, "the file was replaced while the run was under way");
      goto done;
    }
  if (file.skip_reason == NULL && opts->nmachines != 0)
    {
      bool selected = false;
      for (size_t i = 0; i < opts->nmachines && !selected; i++)
	selected = opts->machines[i].machine == file.ehdr.e_machine
		   && (opts->machines[i].elfclass == ELFCLASSNONE
		       || opts->machines[i].elfclass == file.elfclass);
      if (!selected)
	{
	  batch_skip = SKIP_OTHER_MACHINE;
	  goto done;
	}
    }
  if (file.skip_reason == NULL)
    {
      if (choose_sizes (file.ehdr.e_machine, file.elfclass, opts->pmd_size, opts->page_size,
			&r.pmd, &r.page, source, sizeof source, &err) != 0)
	{
	  /* A package holds firmware and files for other machines too: a batch
	     run skips a machine elfpmd knows no PMD size for, unless the
	     options (--page-size) are what does not fit.  */
	  struct machine_info known;
	  if (opts->pmd_size == 0
	      && machine_pmd_size (file.ehdr.e_machine, file.elfclass, 0, &known) != NULL)
	    {
	      if (opts->batch)
		{
		  diag_clear (&err);
		  batch_skip = SKIP_NO_PMD_SIZE;
		}
	      else
		unsupported = true;
	    }
	  goto done;
	}
      r.pmd_source = source;
    }
  struct plan_options po = {
    .layout = { .rule = opts->rule, .pmd = r.pmd, .page = r.page, .pad = opts->pad },
    .stub = opts->stub,
  };
  if (rewrite_plan_build (&plan, &file, &po, &err) != 0)
    goto done;
  planned = true;
  r.plan = &plan;
  if (check_plan (&plan, &file, &err) != 0)
    goto done;
  /* A rewrite in place changes the contents that IMA's attributes describe:
     decide now, so that a dry run says it too, what becomes of them.  (-o
     makes a new file, which gets no extended attributes.)  */
  struct ima_plan ima = { .action = IMA_NONE };
  if (plan.changed && opts->output == NULL)
    {
      r.ima = &ima;
      if (ima_plan_build (&file, &ima, &err) != 0)
	goto done;
    }

  if (!opts->dry_run && (plan.changed || opts->output != NULL))
    {
      struct write_options wo = { .in_place = opts->output == NULL, .sync = opts->sync,
				  .hash = opts->manifest, .keep = opts->keep,
				  .keep_dirfd = opts->keep_dirfd,
				  .preserve_dates = opts->preserve_dates, .ima = &ima };
      /* From here on a failure is the output's (-o): it is named.  */
      if (!wo.in_place)
	err_name = opts->output;
      /* -o: a symbolic link at OUTPUT is replaced, not followed.  */
      if (!wo.in_place && place_of (opts->output, -1, NULL, false, &out_at, &err) != 0)
	goto done;
      struct place *links = NULL;
      const char **link_names = NULL;
      if (wo.in_place && job->nlinks > 0)
	{
	  links = calloc (job->nlinks, sizeof *links);
	  link_names = calloc (job->nlinks, sizeof *link_names);
	  if (links == NULL || link_names == NULL)
	    {
	      free (links);
	      free (link_names);
	      diag_set (&err, "out of memory");
	      goto done;
	    }
	  /* A name that cannot be resolved any more stays unresolved: the
	     writer warns that it keeps the old contents.  */
	  for (size_t i = 0; i < job->nlinks; i++)
	    {
	      struct diag lerr = { "" };
	      link_names[i] = job->links[i].name;
	      if (place_of (job->links[i].name, job->links[i].rootfd, job->links[i].rel, false,
			    &links[i], &lerr) != 0)
		place_init (&links[i]);
	    }
	  wo.links = links;
	  wo.link_names = link_names;
	  wo.nlinks = job->nlinks;
	}
      int ret = write_plan (&file, &plan, wo.in_place ? &at : &out_at, &wo, &r.written, &err);
      for (size_t i = 0; links != NULL && i < job->nlinks; i++)
	place_close (&links[i]);
      free (links);
      free (link_names);
      if (ret != 0)
	goto done;
      r.has_written = true;
      if (r.written.warning[0] != '\0')
	fprintf (errors, "%s: %s: warning: %s\n", diag_program, name, r.written.warning);
      /* The names of the old inode that this run did not name keep the old
	 contents: harmless, but not what whoever made the links meant
	 (unless they are in --known-links, kept so on purpose).  */
      uint64_t known = wo.in_place ? known_links_of (opts, file.st.st_dev, file.st.st_ino) : 0;
      if (wo.in_place && file.st.st_nlink > 1 + job->nlinks + known)
	{
	  uint64_t outside = (uint64_t) file.st.st_nlink - 1 - job->nlinks - known;
	  fprintf (errors, "%s: %s: warning: %" PRIu64 " other hard link%s of this file %s not "
		 "in this run and keep%s the old contents\n", diag_program, name, outside,
		 outside == 1 ? "" : "s", outside == 1 ? "is" : "are", outside == 1 ? "s" : "");
	}
    }

done:
  if (err.msg[0] != '\0')
    {
      r.error = err.msg;
      r.file = NULL;
      r.plan = NULL;
      fprintf (errors, "%s: %s: %s\n", diag_program, err_name, err.msg);
    }
  enum report_format format = opts->format;
  /* A batch run counts what it skips; it does not list it.  */
  if (batch_skip != SKIP_NONE)
    r.plan = NULL;
  bool listed = !(opts->batch && err.msg[0] == '\0'
		  && (r.file == NULL || r.plan == NULL || r.file->skip_reason != NULL));
  if (!listed)
    format = REPORT_NONE;
  if (json != NULL && listed)
    {
      report_json (json, &r);
      fflush (json);
    }
  switch (format)
    {
    case REPORT_SUMMARY: report_summary (report, &r); break;
    case REPORT_FULL: report_text (report, &r); break;
    case REPORT_JSON: report_json (report, &r); break;
    case REPORT_NONE: break;
    }
  fflush (report);
  if (out != NULL)
    {
      out->status = report_file_status (&r);
      out->skip = batch_skip != SKIP_NONE ? batch_skip
		  : opened && file.skip_reason != NULL ? file.skip_kind
		  : !opened && file.skip_kind == SKIP_NOT_ELF ? SKIP_NOT_ELF : SKIP_NONE;
      out->relinked = r.has_written ? r.written.relinked : 0;
      out->unsupported = unsupported;
      out->written = r.has_written && opts->manifest;
      if (out->written)
	{
	  memcpy (out->sha256_before, r.written.sha256_before, 32);
	  memcpy (out->sha256_after, r.written.sha256_after, 32);
	  out->size_before = r.written.size_before;
	  out->size_after = r.written.size_after;
	  out->kept = r.written.kept;
	}
      out->stub = 0;
      out->stub_why[0] = '\0';
      if (planned && plan.stub.wanted && out->status != STATUS_ERROR
	  && out->status != STATUS_SKIPPED)
	{
	  out->stub = plan.stub.enabled ? 1 : 2;
	  if (!plan.stub.enabled)
	    snprintf (out->stub_why, sizeof out->stub_why, "%s",
		      plan.stub.refusal != NULL ? plan.stub.refusal : "no reason given");
	}
    }
  if (planned)
    rewrite_plan_free (&plan);
  if (opened)
    elf_file_close (&file);
  place_close (&at);
  place_close (&out_at);
  return err.msg[0] != '\0' ? 1 : 0;
}
