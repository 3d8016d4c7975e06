/* SPDX-License-Identifier: GPL-3.0-or-later
   Copyright (C) 2026 The elfpmd authors  */
/* A run over many files, in four passes:

   1. gather (walk.h): the names of the command line, of directory walks
      and of a --files-from list, in the order met;
   2. link (walk.h): names of one inode are grouped; the first is
      processed, the others follow it;
   3. process: each first name by process_job, in this process or in N
      worker processes (workers.h);
   4. report: the reports in the order of the names, whatever finished
      first, then the summary.  */
#include <config.h>

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "batch.h"
#include "manifest.h"
#include "walk.h"
#include "workers.h"
#include "progress.h"

/* The result of processing one name, as a worker sends it back: the
   outcome as its head, then the report, the JSON report (--json=FILE) and
   the errors.  */
enum { OUT_REPORT, OUT_JSON, OUT_ERRORS };
struct result
{
  struct work_result w;
  struct file_outcome out;
};


unsigned
batch_cpus (void)
{
  return workers_cpus ();
}

/* Process JOB into RES, the report and errors kept in memory.  */
static void
process_to_memory (const struct file_job *job, const struct run_options *ro, struct result *res)
{
  char **out = res->w.out;
  size_t *len = res->w.len;
  FILE *rep = open_memstream (&out[OUT_REPORT], &len[OUT_REPORT]);
  FILE *json = ro->json_too ? open_memstream (&out[OUT_JSON], &len[OUT_JSON]) : NULL;
  FILE *err = open_memstream (&out[OUT_ERRORS], &len[OUT_ERRORS]);
  if (rep == NULL || err == NULL || (ro->json_too && json == NULL))
    {
      if (rep != NULL)
	fclose (rep);
      if (json != NULL)
	fclose (json);
      if (err != NULL)
	fclose (err);
      work_result_clear (&res->w);
      res->w.rc = 1;
      res->out.status = STATUS_ERROR;
      return;
    }
  res->w.rc = process_job (job, ro, rep, json, err, &res->out);
  fclose (rep);
  if (json != NULL)
    fclose (json);
  fclose (err);
}

/* What the workers of a run use: its jobs, options and progress line.  */
struct run
{
  const struct file_job *jobs;
  const struct run_options *ro;
  struct progress *pr;
};

/* work_fn: process job UNIT of the run ARG into the result whose part RES is.  */
static void
work_job (size_t unit, struct work_result *res, void *arg)
{
  const struct run *run = arg;
  process_to_memory (&run->jobs[unit], run->ro, (struct result *) res);
}

/* Count where the stub went, and why not (OUT of one file).  */
static void
count_stub (struct batch_counts *c, const struct file_outcome *out)
{
  if (out->stub == 1)
    c->stub_injected++;
  if (out->stub != 2)
    return;
  c->stub_refused++;
  /* (a worker's message: read no further than the field) */
  char why[FILE_OUTCOME_WHY];
  snprintf (why, sizeof why, "%.*s", (int) sizeof out->stub_why - 1, out->stub_why);
  for (size_t k = 0; k < c->nstub_whys; k++)
    if (strcmp (c->stub_whys[k].why, why) == 0)
      {
	c->stub_whys[k].n++;
	return;
      }
  if (c->nstub_whys == BATCH_STUB_WHYS)
    {
      c->stub_other++;
      return;
    }
  memcpy (c->stub_whys[c->nstub_whys].why, why, sizeof why);
  c->stub_whys[c->nstub_whys++].n = 1;
}

/* Whether a file with STATUS counts as changed on the progress line.  */
static bool
status_changed (int status)
{
  return status == STATUS_CHANGED || status == STATUS_WOULD_CHANGE;
}

/* work_arrived_fn: the progress line steps past job UNIT of the run ARG.  */
static void
job_arrived (size_t unit, const struct work_result *res, void *arg)
{
  const struct run *run = arg;
  progress_step (run->pr, run->jobs[unit].name,
		 status_changed (((const struct result *) res)->out.status));
}

/* Process the NJOBS jobs in NWORKERS worker processes, filling RESULTS.
   Results that never arrived (a worker died) stay not done.  */
static void
run_workers (const struct file_job *jobs, size_t njobs, unsigned nworkers,
	     const struct run_options *ro, struct result *results, FILE *errors,
	     struct progress *pr)
{
  struct work_result **w = malloc ((njobs != 0 ? njobs : 1) * sizeof *w);
  if (w == NULL)
    {
      fprintf (errors, "%s: cannot start worker processes: out of memory\n", diag_program);
      return;
    }
  for (size_t u = 0; u < njobs; u++)
    {
      w[u] = &results[u].w;
      w[u]->head = &results[u].out;
    }
  struct run run = { jobs, ro, pr };
  workers_run (njobs, nworkers, w, sizeof results->out, work_job, job_arrived, &run, errors);
  free (w);
}

/* The line of a further name of a file processed before, to OUT, as JSON
   or as text.  */
static void
print_same_file (FILE *out, bool json, const char *name, const char *lead, int status)
{
  if (json)
    {
      fputc ('{', out);
      json_name (out, "file", name);
      fputc (',', out);
      json_name (out, "same_file_as", lead);
      fprintf (out, ",\"status\":\"%s\"}\n", file_status_name (status));
    }
  else
    fprintf (out, "%s: same file as %s: %s\n", name, lead, file_status_name (status));
}

/* Whether a text report of a file with STATUS is printed: in a batch run
   without -v only what changed (or would), what was refused and what
   failed are; the JSON report lists every file.  */
static bool
listed (const struct run_options *ro, int status)
{
  return !ro->batch || ro->list_all || ro->format == REPORT_JSON
	 || (status != STATUS_ALREADY_ALIGNED && status != STATUS_NOTHING_ELIGIBLE
	     && status != STATUS_SKIPPED);
}

static void
count_and_print (const struct walk_entry *e, size_t i, const struct result *results,
		 const struct run_options *ro, FILE *report, FILE *json, FILE *errors,
		 struct batch_counts *c, int *status, struct progress *pr)
{
  c->files++;
  if (e[i].error != NULL)
    {
      progress_clear (pr);
      fprintf (errors, "%s: %s: %s\n", diag_program, e[i].name, e[i].error);
      c->status[STATUS_ERROR]++;
      *status = 1;
      return;
    }
  if (e[i].skip != SKIP_NONE)
    {
      c->status[STATUS_SKIPPED]++;
      c->skipped[e[i].skip]++;
      return;
    }
  if (e[i].leader != i)
    {
      /* Another name of a file processed before.  */
      const struct walk_entry *lead = &e[e[i].leader];
      const struct result *lr = &results[lead->unit];
      if (!e[i].via_link)
	c->hard_links++;
      if (!lr->w.done || lr->out.status == STATUS_SKIPPED || lr->out.status == STATUS_ERROR)
	return;
      /* (counted in the summary; listed with -v, and always in JSON) */
      if (ro->format != REPORT_NONE && (ro->list_all || ro->format == REPORT_JSON))
	{
	  progress_clear (pr);
	  print_same_file (report, ro->format == REPORT_JSON, e[i].name, lead->name,
			   lr->out.status);
	}
      if (json != NULL)
	print_same_file (json, true, e[i].name, lead->name, lr->out.status);
      if (ro->manifest_out != NULL && lr->out.written)
	manifest_entry (ro->manifest_out, e[i].name, &lr->out, ro, ro->keep_dir);
      return;
    }
  const struct result *r = &results[e[i].unit];
  if (!r->w.done || r->w.len[OUT_ERRORS] != 0
      || (r->w.len[OUT_REPORT] != 0 && listed (ro, r->out.status)))
    progress_clear (pr);
  if (!r->w.done)
    {
      fprintf (errors, "%s: %s: internal error: the worker process processing it died\n", diag_program,
	       e[i].name);
      c->status[STATUS_ERROR]++;
      *status = 1;
      return;
    }
  if (listed (ro, r->out.status))
    fwrite (r->w.out[OUT_REPORT], 1, r->w.len[OUT_REPORT], report);
  if (json != NULL && r->w.out[OUT_JSON] != NULL)
    fwrite (r->w.out[OUT_JSON], 1, r->w.len[OUT_JSON], json);
  if (ro->manifest_out != NULL && r->out.written)
    manifest_entry (ro->manifest_out, e[i].name, &r->out, ro, ro->keep_dir);
  fwrite (r->w.out[OUT_ERRORS], 1, r->w.len[OUT_ERRORS], errors);
  /* (unsupported: 2 unless something failed: 1 wins) */
  if (r->w.rc != 0 && r->out.unsupported)
    *status = *status == 0 ? 2 : *status;
  else if (r->w.rc != 0)
    *status = 1;
  int st = r->out.status >= 0 && r->out.status < STATUS_KINDS ? r->out.status : STATUS_ERROR;
  c->status[st]++;
  if (st == STATUS_SKIPPED)
    {
      int sk = r->out.skip > SKIP_NONE && r->out.skip < SKIP_KINDS ? r->out.skip : SKIP_OTHER_TYPE;
      c->skipped[sk]++;
    }
  count_stub (c, &r->out);
}

/* With --madvise, the stub's line before the summary: "elfpmd: startup
   stub: 120 injected, 3 not (2: REASON; 1: REASON)" (in a DRY_RUN "would
   be injected, 3 would not be"), the reasons in the
   order first met; or the summary's "stubs" object.  */
static void
print_stub_summary (FILE *out, const struct batch_counts *c, bool json, bool dry_run)
{
  if (json)
    {
      fprintf (out, ",\"stubs\":{\"injected\":%" PRIu64 ",\"not_injected\":%" PRIu64
	       ",\"not_injected_by_reason\":{", c->stub_injected, c->stub_refused);
      for (size_t k = 0; k < c->nstub_whys; k++)
	{
	  if (k != 0)
	    fputc (',', out);
	  json_string (out, c->stub_whys[k].why);
	  fprintf (out, ":%" PRIu64, c->stub_whys[k].n);
	}
      if (c->stub_other != 0)
	fprintf (out, "%s\"other reasons\":%" PRIu64, c->nstub_whys != 0 ? "," : "", c->stub_other);
      fputs ("}}", out);
      return;
    }
  fprintf (out, "%s: startup stub: %" PRIu64 " %s, %" PRIu64 " %s", diag_program, c->stub_injected,
	   dry_run ? "would be injected" : "injected", c->stub_refused,
	   dry_run ? "would not be" : "not");
  for (size_t k = 0; k < c->nstub_whys; k++)
    fprintf (out, "%s%" PRIu64 ": %s", k == 0 ? " (" : "; ", c->stub_whys[k].n, c->stub_whys[k].why);
  if (c->stub_other != 0)
    fprintf (out, "; %" PRIu64 ": other reasons", c->stub_other);
  fputs (c->nstub_whys != 0 ? ")\n" : "\n", out);
}

static void
print_summary (FILE *out, const struct batch_counts *c, const struct run_options *ro,
	       enum report_format format)
{
  if (format == REPORT_NONE)
    return;
  if (format == REPORT_JSON)
    {
      fprintf (out, "{\"summary\":{\"files\":%" PRIu64, c->files);
      for (int s = 0; s < STATUS_KINDS; s++)
	fprintf (out, ",\"%s\":%" PRIu64, file_status_key (s), c->status[s]);
      fprintf (out, ",\"hard_links\":%" PRIu64 ",\"skipped_by_reason\":{", c->hard_links);
      bool first = true;
      for (int k = SKIP_NONE + 1; k < SKIP_KINDS; k++)
	if (c->skipped[k] != 0)
	  {
	    fprintf (out, "%s\"%s\":%" PRIu64, first ? "" : ",", skip_kind_key (k), c->skipped[k]);
	    first = false;
	  }
      fputc ('}', out);
      if (ro->stub.wanted)
	print_stub_summary (out, c, true, ro->dry_run);
      if (ro->times)
	fprintf (out, ",\"seconds\":%.3f", c->seconds);
      fputs ("}}\n", out);
      return;
    }
  if (ro->stub.wanted)
    print_stub_summary (out, c, false, ro->dry_run);
  fprintf (out, "%s: %" PRIu64 " file%s: ", diag_program, c->files, c->files == 1 ? "" : "s");
  /* The usual outcomes always, the rarer ones when they happened.  */
  static const int order[] = { STATUS_CHANGED, STATUS_WOULD_CHANGE, STATUS_ALREADY_ALIGNED,
			       STATUS_NOTHING_ELIGIBLE, STATUS_PADDING_REFUSED,
			       STATUS_NEEDS_PADDING };
  for (size_t k = 0; k < sizeof order / sizeof order[0]; k++)
    {
      int s = order[k];
      bool usual = s == (ro->dry_run ? STATUS_WOULD_CHANGE : STATUS_CHANGED)
		   || s == STATUS_ALREADY_ALIGNED || s == STATUS_NOTHING_ELIGIBLE;
      if (usual || c->status[s] != 0)
	fprintf (out, "%" PRIu64 " %s, ", c->status[s], file_status_name (s));
    }
  if (c->hard_links != 0)
    fprintf (out, "%" PRIu64 " further hard link%s, ", c->hard_links,
	     c->hard_links == 1 ? "" : "s");
  fprintf (out, "%" PRIu64 " skipped", c->status[STATUS_SKIPPED]);
  const char *sep = " (";
  for (int k = SKIP_NONE + 1; k < SKIP_KINDS; k++)
    if (c->skipped[k] != 0)
      {
	fprintf (out, "%s%" PRIu64 " %s", sep, c->skipped[k], skip_kind_words (k));
	sep = ", ";
      }
  fprintf (out, "%s, %" PRIu64 " failed", *sep == ',' ? ")" : "", c->status[STATUS_ERROR]);
  if (ro->times)
    fprintf (out, " in %.1f s", c->seconds);
  fputc ('\n', out);
}

/* One job per first name of an inode in G, its further names riding along
   (the other hard links, to name the new file; a name through a symbolic
   link names it anyway): *JOBS and *RESULTS (*NJOBS of each) and the
   jobs' *LINKS.  Return 0, or -1 when out of memory.  */
static int
make_jobs (struct walk_names *g, struct file_job **jobs, struct result **results,
	   struct job_name **links, size_t *njobs)
{
  size_t nfollow = 0;
  for (size_t i = 0; i < g->n; i++)
    if (g->e[i].skip == SKIP_NONE && g->e[i].error == NULL)
      {
	if (g->e[i].leader == i)
	  g->e[i].unit = (*njobs)++;
	else
	  nfollow++;
      }
  *jobs = calloc (*njobs ? *njobs : 1, sizeof **jobs);
  *results = calloc (*njobs ? *njobs : 1, sizeof **results);
  *links = calloc (nfollow ? nfollow : 1, sizeof **links);
  if (*jobs == NULL || *results == NULL || *links == NULL)
    return -1;
  size_t used = 0;
  for (size_t i = 0; i < g->n; i++)
    if (g->e[i].unit != SIZE_MAX)
      {
	struct file_job *j = &(*jobs)[g->e[i].unit];
	j->name = g->e[i].name;
	j->rootfd = g->e[i].rootfd;
	j->rel = g->e[i].rel;
	j->expect_inode = g->e[i].have_stat;
	j->dev = g->e[i].dev;
	j->ino = g->e[i].ino;
	j->links = *links + used;
	/* The other hard links, to name the new file; a name through a
	   symbolic link names it anyway.  */
	for (size_t k = 0; k < g->n; k++)
	  if (g->e[k].leader == i && k != i && g->e[k].skip == SKIP_NONE && !g->e[k].via_link)
	    (*links)[used + j->nlinks++] = (struct job_name) { .name = g->e[k].name,
							     .rootfd = g->e[k].rootfd,
							     .rel = g->e[k].rel };
	used += j->nlinks;
      }
  return 0;
}

/* The jobs one at a time, straight to the streams: the order is the order
   of the names already.  */
static void
run_in_order (struct walk_names *g, struct file_job *jobs, struct result *results,
	      const struct run_options *ro, FILE *report, FILE *json, FILE *errors,
	      struct batch_counts *counts, int *status, struct progress *pr)
{
  for (size_t i = 0; i < g->n; i++)
    {
      /* A name before the one processed for its file (a symbolic link
	 given before its target) has that one processed first.  */
      size_t lead = g->e[i].leader;
      size_t u = g->e[i].unit != SIZE_MAX ? g->e[i].unit : lead != i ? g->e[lead].unit : SIZE_MAX;
      if (u != SIZE_MAX && !results[u].w.done)
	{
	  process_to_memory (&jobs[u], ro, &results[u]);
	  results[u].w.done = true;
	  progress_step (pr, jobs[u].name, status_changed (results[u].out.status));
	}
      count_and_print (g->e, i, results, ro, report, json, errors, counts, status, pr);
      if (g->e[i].unit != SIZE_MAX)
	{
	  struct result *r = &results[g->e[i].unit];
	  work_result_clear (&r->w);
	}
    }
}

int
batch_run (char *const *args, size_t nargs, const struct batch_options *bo,
	   const struct run_options *ro, FILE *report, FILE *json, FILE *errors,
	   struct batch_counts *counts)
{
  struct walk_names g = { .opts = { .recursive = bo->recursive, .null = bo->null,
				     .excludes = bo->excludes, .nexcludes = bo->nexcludes,
				     .default_excludes = bo->default_excludes, .batch = ro->batch } };
  int status = 0;
  struct file_job *jobs = NULL;
  struct result *results = NULL;
  struct job_name *links = NULL;
  size_t njobs = 0;
  memset (counts, 0, sizeof *counts);
  struct timespec t0, t1;
  clock_gettime (CLOCK_MONOTONIC, &t0);

  for (size_t i = 0; i < nargs; i++)
    {
      char *name = strdup (args[i]);
      if (name == NULL || walk_add_name (&g, name, true) != 0)
	goto oom;
    }
  if (bo->files_from != NULL)
    {
      int r = walk_add_list (&g, bo->files_from, errors);
      if (r < 0)
	goto oom;
      if (r > 0)
	status = 1;
    }
  if (walk_find_links (&g) != 0)
    goto oom;
  if (make_jobs (&g, &jobs, &results, &links, &njobs) != 0)
    goto oom;

  struct progress pr;
  progress_start (&pr, errors, bo->progress, njobs, ro->dry_run);
  unsigned nworkers = bo->jobs != 0 ? bo->jobs : batch_cpus ();
  if (nworkers > njobs)
    nworkers = (unsigned) njobs;
  if (nworkers <= 1)
    run_in_order (&g, jobs, results, ro, report, json, errors, counts, &status, &pr);
  else
    {
      run_workers (jobs, njobs, nworkers, ro, results, errors, &pr);
      progress_clear (&pr);
      for (size_t i = 0; i < g.n; i++)
	count_and_print (g.e, i, results, ro, report, json, errors, counts, &status, &pr);
    }
  progress_clear (&pr);
  clock_gettime (CLOCK_MONOTONIC, &t1);
  counts->seconds = (double) (t1.tv_sec - t0.tv_sec) + (double) (t1.tv_nsec - t0.tv_nsec) / 1e9;
  if (ro->batch)
    {
      /* -q keeps the summary: it is the answer to "did it work".  */
      print_summary (report, counts, ro, ro->format == REPORT_NONE ? REPORT_SUMMARY : ro->format);
      if (json != NULL)
	print_summary (json, counts, ro, REPORT_JSON);
    }
  goto out;

oom:
  fprintf (errors, "%s: out of memory\n", diag_program);
  status = 1;
out:
  for (size_t u = 0; results != NULL && u < njobs; u++)
    {
      work_result_clear (&results[u].w);
    }
  walk_names_free (&g);
  free (jobs);
  free (results);
  free (links);
  return status;
}
