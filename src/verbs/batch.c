/* SPDX-License-Identifier: GPL-3.0-or-later
   Copyright (C) 2026 The elfpmd authors  */
/* A run over many files, in four passes:

   1. gather: the names of the command line, of directory walks (sorted by
      name, symbolic links never followed, every directory opened relative
      to its parent's descriptor: a walk never leaves its tree, whatever is
      swapped meanwhile) and of a --files-from list, each with what
      fstatat says of it, in the order met;
   2. link: names of one inode are grouped; the first is processed, the
      others follow it (they are to name the rewritten file afterwards);
   3. process: each first name by process_job, in this process or in N
      worker processes that take the next name from a shared counter and
      send their report back through a pipe;
   4. report: the reports in the order of the names, whatever finished
      first, then the summary.  */
#include <config.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "batch.h"
#include "manifest.h"
#include "namelist.h"
#include "place.h"
#include "progress.h"

/* One name met by the run.  */
struct entry
{
  char *name;			/* as shown: the path given, or the walk's root '/' REL */
  int rootfd;			/* the walk's root, or -1 for a name given */
  char *rel;			/* with ROOTFD: the name below it */
  enum skip_kind skip;		/* decided by the walk, or SKIP_NONE */
  char *error;			/* the walk could not read it (a directory) */
  bool have_stat;
  dev_t dev;
  ino_t ino;
  bool via_link;		/* a name given whose last component is a symbolic link */
  size_t leader;		/* the entry processed for this inode: itself or another one */
  size_t unit;			/* a leader's index among the processed names */
};

/* The result of processing one name, as a worker sends it back.  */
struct result
{
  bool done;
  int rc;
  struct file_outcome out;
  char *report;
  size_t report_len;
  char *json;			/* --json=FILE: the JSON report too */
  size_t json_len;
  char *errors;
  size_t errors_len;
};

struct gather
{
  struct entry *e;
  size_t n, cap;
  int *roots;			/* the walks' roots, held open for the run */
  size_t nroots;
  const struct batch_options *bo;
  bool batch;			/* skip what is no ELF file quietly (-r, --files-from) */
};

/* Add the entry NAME (which the gather takes over, with REL and ERROR),
   below the walk's root ROOTFD at REL, or a name given (ROOTFD -1).  */
static int
add_entry_at (struct gather *g, char *name, int rootfd, char *rel, enum skip_kind skip,
	      const struct stat *st, char *error)
{
  if (g->n == g->cap)
    {
      size_t cap = g->cap == 0 ? 256 : g->cap * 2;
      struct entry *e = realloc (g->e, cap * sizeof *e);
      if (e == NULL)
	{
	  free (name);
	  free (rel);
	  free (error);
	  return -1;
	}
      g->e = e;
      g->cap = cap;
    }
  g->e[g->n] = (struct entry) { .name = name, .rootfd = rootfd, .rel = rel, .skip = skip,
				.error = error, .have_stat = st != NULL, .leader = g->n,
				.unit = SIZE_MAX };
  if (st != NULL)
    {
      g->e[g->n].dev = st->st_dev;
      g->e[g->n].ino = st->st_ino;
    }
  g->n++;
  return 0;
}

static int
add_entry (struct gather *g, char *name, enum skip_kind skip, const struct stat *st,
	   char *error)
{
  return add_entry_at (g, name, -1, NULL, skip, st, error);
}

/* add_entry of a name given to be processed, VIA_LINK when it was reached
   through a symbolic link.  */
static int
add_entry_link (struct gather *g, char *name, const struct stat *st, bool via_link)
{
  int ret = add_entry (g, name, SKIP_NONE, st, NULL);
  if (ret == 0)
    g->e[g->n - 1].via_link = via_link;
  return ret;
}

/* Whether PATH, whose last component is BASE, matches an --exclude pattern:
   one without '/' is matched against BASE, one with '/' against PATH.  */
static bool
excluded (const struct batch_options *bo, const char *path, const char *base)
{
  for (size_t i = 0; i < bo->nexcludes; i++)
    {
      const char *pat = bo->excludes[i];
      if (fnmatch (pat, strchr (pat, '/') != NULL ? path : base, 0) == 0)
	return true;
    }
  return false;
}

/* Whether the directory PATH (last component BASE) is one a walk leaves out
   by default: separate debug files live there, and they are skipped anyway.  */
static bool
pruned_by_default (const char *path, const char *base)
{
  static const char debug_dir[] = "usr/lib/debug";
  size_t len = strlen (path), dlen = sizeof debug_dir - 1;
  if (strcmp (base, ".build-id") == 0)
    return true;
  return len >= dlen && strcmp (path + len - dlen, debug_dir) == 0
	 && (len == dlen || path[len - dlen - 1] == '/');
}

static char *
join (const char *dir, const char *name)
{
  char *path;
  size_t len = strlen (dir);
  bool slash = len > 0 && dir[len - 1] == '/';
  return asprintf (&path, "%s%s%s", dir, slash ? "" : "/", name) < 0 ? NULL : path;
}

static int
by_name (const void *a, const void *b)
{
  return strcmp (*(char *const *) a, *(char *const *) b);
}

static const char *
base_name (const char *path)
{
  const char *slash = strrchr (path, '/');
  return slash == NULL ? path : slash + 1;
}

/* The names in the directory DIRFD (not "." and ".."), sorted by their
   bytes, into *NAMES (*N of them).  Return 0, or -1 with errno.  */
static int
read_names (int dirfd, char ***names, size_t *n)
{
  *names = NULL;
  *n = 0;
  int fd = fcntl (dirfd, F_DUPFD_CLOEXEC, 0);
  DIR *d = fd >= 0 ? fdopendir (fd) : NULL;
  if (d == NULL)
    {
      int e = errno;
      if (fd >= 0)
	close (fd);
      errno = e;
      return -1;
    }
  size_t cap = 0;
  struct dirent *de;
  errno = 0;
  while ((de = readdir (d)) != NULL)
    {
      if (strcmp (de->d_name, ".") == 0 || strcmp (de->d_name, "..") == 0)
	continue;
      if (*n == cap)
	{
	  cap = cap == 0 ? 64 : 2 * cap;
	  char **grown = realloc (*names, cap * sizeof *grown);
	  if (grown == NULL)
	    break;
	  *names = grown;
	}
      if (((*names)[*n] = strdup (de->d_name)) == NULL)
	break;
      ++*n;
      errno = 0;
    }
  int e = errno;
  closedir (d);
  if (e != 0)
    {
      for (size_t i = 0; i < *n; i++)
	free ((*names)[i]);
      free (*names);
      *names = NULL;
      *n = 0;
      errno = e;
      return -1;
    }
  qsort (*names, *n, sizeof **names, by_name);
  return 0;
}

/* Add what the directory DIRFD holds, in the order of the names' bytes:
   DIRFD is SHOWN (as the user will read it), REL below the walk's root
   ROOTFD (NULL: the root itself).  Each subdirectory is opened relative to
   DIRFD without following a symbolic link, so that one swapped in after
   its fstatat cannot lead the walk out of the tree.  */
static int
walk (struct gather *g, int rootfd, int dirfd, const char *shown, const char *rel)
{
  const struct batch_options *bo = g->bo;
  char **names;
  size_t n;
  if (read_names (dirfd, &names, &n) != 0)
    {
      char *name = strdup (shown), *why = NULL;
      if (name == NULL || asprintf (&why, "cannot read the directory: %s", strerror (errno)) < 0)
	{
	  free (name);
	  return -1;
	}
      return add_entry (g, name, SKIP_NONE, NULL, why);
    }
  int ret = 0;
  for (size_t i = 0; i < n; i++)
    {
      const char *d = names[i];
      char *path = ret == 0 ? join (shown, d) : NULL;
      char *sub_rel = NULL;
      if (ret == 0 && (path == NULL || (sub_rel = rel == NULL ? strdup (d) : join (rel, d)) == NULL))
	ret = -1;
      struct stat st;
      if (ret != 0)
	;
      else if (fstatat (dirfd, d, &st, AT_SYMLINK_NOFOLLOW) != 0)
	{
	  /* Gone since the directory was read: process_job says why.  */
	  ret = add_entry_at (g, path, rootfd, sub_rel, SKIP_NONE, NULL, NULL);
	  path = sub_rel = NULL;
	}
      else if (S_ISDIR (st.st_mode) && bo->recursive)
	{
	  if (!(bo->default_excludes && pruned_by_default (path, d)) && !excluded (bo, path, d))
	    {
	      int sub = openat (dirfd, d, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	      if (sub < 0)
		{
		  char *why = NULL;
		  if (asprintf (&why, "cannot read the directory: %s%s", strerror (errno),
				errno == ELOOP || errno == ENOTDIR ? " (replaced while being walked)"
				: "") < 0)
		    ret = -1;
		  else
		    {
		      ret = add_entry (g, path, SKIP_NONE, NULL, why);
		      path = NULL;
		    }
		}
	      else
		{
		  ret = walk (g, rootfd, sub, path, sub_rel);
		  close (sub);
		}
	    }
	}
      else
	{
	  enum skip_kind skip = excluded (bo, path, d) ? SKIP_EXCLUDED
				: S_ISLNK (st.st_mode) ? SKIP_SYMLINK
				: !S_ISREG (st.st_mode) ? SKIP_NOT_REGULAR : SKIP_NONE;
	  ret = add_entry_at (g, path, rootfd, sub_rel, skip, &st, NULL);
	  path = sub_rel = NULL;
	}
      free (path);
      free (sub_rel);
      free (names[i]);
    }
  free (names);
  return ret;
}

/* Add PATH (which the gather takes over), a name the user gave: looked at
   through a symbolic link when FOLLOW (a name on the command line) and the
   link is root's or this user's (place.c), else as it is; walked if it is
   a directory and the run walks, the directory held open as the walk's
   root.  */
static int
add_name (struct gather *g, char *path, bool follow)
{
  const struct batch_options *bo = g->bo;
  struct stat st;
  struct place pl;
  struct diag err = { "" };
  if (place_resolve (&pl, path, follow, &err) != 0
      || fstatat (pl.dirfd, pl.base, &st, AT_SYMLINK_NOFOLLOW) != 0)
    {
      place_close (&pl);
      /* process_job says why it cannot open it.  */
      return add_entry (g, path, SKIP_NONE, NULL, NULL);
    }
  /* A name given outside a batch run is processed whatever it is, so that
     the error says why it cannot be.  */
  /* A name given through a symbolic link names the file through the link,
     never as one of its hard links.  */
  bool via_link = pl.via_link;
  if (!g->batch)
    {
      place_close (&pl);
      return add_entry_link (g, path, S_ISREG (st.st_mode) ? &st : NULL, via_link);
    }
  const char *base = base_name (path);
  if (S_ISDIR (st.st_mode) && bo->recursive)
    {
      if (!follow && ((bo->default_excludes && pruned_by_default (path, base))
		      || excluded (bo, path, base)))
	{
	  place_close (&pl);
	  free (path);
	  return 0;
	}
      int root = openat (pl.dirfd, pl.base, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
      place_close (&pl);
      int *grown = root >= 0 ? realloc (g->roots, (g->nroots + 1) * sizeof *grown) : NULL;
      if (root < 0 || grown == NULL)
	{
	  char *why = NULL;
	  int e = errno;
	  if (root >= 0)
	    close (root);
	  if (asprintf (&why, "cannot read the directory: %s", strerror (e)) < 0)
	    {
	      free (path);
	      return -1;
	    }
	  return add_entry (g, path, SKIP_NONE, NULL, why);
	}
      g->roots = grown;
      g->roots[g->nroots++] = root;
      int ret = walk (g, root, root, path, NULL);
      free (path);
      return ret;
    }
  place_close (&pl);
  if (!follow && excluded (bo, path, base))
    return add_entry (g, path, SKIP_EXCLUDED, &st, NULL);
  if (S_ISLNK (st.st_mode))
    return add_entry (g, path, SKIP_SYMLINK, &st, NULL);
  if (!S_ISREG (st.st_mode))
    return add_entry (g, path, SKIP_NOT_REGULAR, &st, NULL);
  return add_entry_link (g, path, &st, via_link);
}

/* Add the names of the list LIST ("-": standard input), one per line or
   with BO->null one per NUL.  */
static int
add_list (struct gather *g, const char *list, FILE *errors)
{
  struct namelist l;
  if (namelist_open (&l, list, g->bo->null, false, errors) != 0)
    return 1;
  int ret = 0;
  const char *name;
  while (ret == 0 && (name = namelist_next (&l, &ret, errors)) != NULL)
    {
      char *copy = strdup (name);
      ret = copy == NULL || add_name (g, copy, false) != 0 ? -1 : 0;
    }
  namelist_close (&l);
  return ret;
}

/* Order of entry indices by inode, then by index.  */
static const struct entry *sort_entries;

static int
by_inode (const void *a, const void *b)
{
  const struct entry *x = &sort_entries[*(const size_t *) a];
  const struct entry *y = &sort_entries[*(const size_t *) b];
  if (x->dev != y->dev)
    return x->dev < y->dev ? -1 : 1;
  if (x->ino != y->ino)
    return x->ino < y->ino ? -1 : 1;
  return *(const size_t *) a < *(const size_t *) b ? -1 : 1;
}

/* Point each entry at the entry processed for its inode: the first of its
   names that is not a symbolic link, or the first if all are.  */
static int
find_links (struct entry *e, size_t n)
{
  size_t *idx = malloc ((n ? n : 1) * sizeof *idx);
  if (idx == NULL)
    return -1;
  size_t m = 0;
  for (size_t i = 0; i < n; i++)
    if (e[i].have_stat && e[i].skip == SKIP_NONE && e[i].error == NULL)
      idx[m++] = i;
  sort_entries = e;
  qsort (idx, m, sizeof *idx, by_inode);
  for (size_t k = 0; k < m;)
    {
      size_t end = k + 1;
      while (end < m && e[idx[end]].dev == e[idx[k]].dev && e[idx[end]].ino == e[idx[k]].ino)
	end++;
      size_t lead = idx[k];
      for (size_t j = k; j < end; j++)
	if (!e[idx[j]].via_link)
	  {
	    lead = idx[j];
	    break;
	  }
      for (size_t j = k; j < end; j++)
	e[idx[j]].leader = lead;
      k = end;
    }
  free (idx);
  return 0;
}

unsigned
batch_cpus (void)
{
  cpu_set_t set;
  if (sched_getaffinity (0, sizeof set, &set) == 0 && CPU_COUNT (&set) > 0)
    return (unsigned) CPU_COUNT (&set);
  long n = sysconf (_SC_NPROCESSORS_ONLN);
  return n > 0 ? (unsigned) n : 1;
}

static int
write_all (int fd, const void *buf, size_t len)
{
  const char *p = buf;
  while (len > 0)
    {
      ssize_t w = write (fd, p, len);
      if (w < 0 && errno == EINTR)
	continue;
      if (w <= 0)
	return -1;
      p += w;
      len -= (size_t) w;
    }
  return 0;
}

/* Read LEN bytes: 0, 1 at end of file before the first byte, -1 on error
   or a short message.  */
static int
read_all (int fd, void *buf, size_t len)
{
  char *p = buf;
  size_t got = 0;
  while (got < len)
    {
      ssize_t r = read (fd, p + got, len - got);
      if (r < 0 && errno == EINTR)
	continue;
      if (r < 0)
	return -1;
      if (r == 0)
	return got == 0 ? 1 : -1;
      got += (size_t) r;
    }
  return 0;
}

/* A worker's message: this header, then the report, the JSON report (with
   --json=FILE) and the errors.  */
struct message
{
  uint64_t unit;
  int32_t rc;
  struct file_outcome out;
  uint64_t report_len, json_len, errors_len;
};

/* Process JOB into RES, the report and errors kept in memory.  */
static void
process_to_memory (const struct file_job *job, const struct run_options *ro, struct result *res)
{
  FILE *rep = open_memstream (&res->report, &res->report_len);
  FILE *json = ro->json_too ? open_memstream (&res->json, &res->json_len) : NULL;
  FILE *err = open_memstream (&res->errors, &res->errors_len);
  if (rep == NULL || err == NULL || (ro->json_too && json == NULL))
    {
      if (rep != NULL)
	fclose (rep);
      if (json != NULL)
	fclose (json);
      if (err != NULL)
	fclose (err);
      free (res->report);
      free (res->json);
      free (res->errors);
      res->report = res->json = res->errors = NULL;
      res->report_len = res->json_len = res->errors_len = 0;
      res->rc = 1;
      res->out.status = STATUS_ERROR;
      return;
    }
  res->rc = process_job (job, ro, rep, json, err, &res->out);
  fclose (rep);
  if (json != NULL)
    fclose (json);
  fclose (err);
}

/* A worker: take the next unit from *NEXT until none is left, send each
   result to FD.  */
static void __attribute__ ((noreturn))
worker (const struct file_job *jobs, size_t njobs, uint64_t *next, const struct run_options *ro,
	int fd)
{
  for (;;)
    {
      uint64_t u = __atomic_fetch_add (next, 1, __ATOMIC_RELAXED);
      if (u >= njobs)
	break;
      struct result res = { 0 };
      process_to_memory (&jobs[u], ro, &res);
      struct message m = { .unit = u, .rc = res.rc, .out = res.out,
			   .report_len = res.report_len, .json_len = res.json_len,
			   .errors_len = res.errors_len };
      if (write_all (fd, &m, sizeof m) != 0
	  || write_all (fd, res.report, res.report_len) != 0
	  || write_all (fd, res.json, res.json_len) != 0
	  || write_all (fd, res.errors, res.errors_len) != 0)
	_exit (2);
      free (res.report);
      free (res.json);
      free (res.errors);
    }
  _exit (0);
}

/* Read one message from FD into RESULTS, saying in *UNIT which it filled.
   Return 0, 1 at end of file, -1 on a broken message.  */
static int
receive (int fd, struct result *results, size_t njobs, size_t *unit)
{
  struct message m;
  int r = read_all (fd, &m, sizeof m);
  if (r != 0)
    return r;
  if (m.unit >= njobs || results[m.unit].done || m.report_len > SIZE_MAX / 4
      || m.json_len > SIZE_MAX / 4 || m.errors_len > SIZE_MAX / 4)
    return -1;
  struct result *res = &results[m.unit];
  res->report = malloc (m.report_len + 1);
  res->json = malloc (m.json_len + 1);
  res->errors = malloc (m.errors_len + 1);
  if (res->report == NULL || res->json == NULL || res->errors == NULL
      || read_all (fd, res->report, m.report_len) != 0
      || read_all (fd, res->json, m.json_len) != 0
      || read_all (fd, res->errors, m.errors_len) != 0)
    return -1;
  res->report_len = m.report_len;
  res->json_len = m.json_len;
  res->errors_len = m.errors_len;
  res->rc = m.rc;
  res->out = m.out;
  res->done = true;
  *unit = m.unit;
  return 0;
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

/* Process the NJOBS jobs in NWORKERS worker processes, filling RESULTS.
   Results that never arrived (a worker died) stay not done.  */
static void
run_workers (const struct file_job *jobs, size_t njobs, unsigned nworkers,
	     const struct run_options *ro, struct result *results, FILE *errors,
	     struct progress *pr)
{
  uint64_t *next = mmap (NULL, sizeof *next, PROT_READ | PROT_WRITE,
			 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  struct pollfd *fds = calloc (nworkers, sizeof *fds);
  pid_t *pids = calloc (nworkers, sizeof *pids);
  if (next == MAP_FAILED || fds == NULL || pids == NULL)
    {
      fprintf (errors, "%s: cannot start worker processes: out of memory\n", diag_program);
      goto out;
    }
  *next = 0;
  fflush (NULL);
  unsigned started = 0;
  for (; started < nworkers; started++)
    {
      int p[2];
      if (pipe2 (p, O_CLOEXEC) != 0)
	break;
      pid_t pid = fork ();
      if (pid < 0)
	{
	  close (p[0]);
	  close (p[1]);
	  break;
	}
      if (pid == 0)
	{
	  close (p[0]);
	  for (unsigned k = 0; k < started; k++)
	    close (fds[k].fd);
	  worker (jobs, njobs, next, ro, p[1]);
	}
      close (p[1]);
      fds[started] = (struct pollfd) { .fd = p[0], .events = POLLIN };
      pids[started] = pid;
    }
  if (started == 0)
    {
      /* No worker could start: do the work here.  */
      for (size_t u = 0; u < njobs; u++)
	{
	  process_to_memory (&jobs[u], ro, &results[u]);
	  results[u].done = true;
	  progress_step (pr, jobs[u].name, status_changed (results[u].out.status));
	}
      goto out;
    }
  for (unsigned open_fds = started; open_fds > 0;)
    {
      if (poll (fds, started, -1) < 0)
	{
	  if (errno == EINTR)
	    continue;
	  break;
	}
      for (unsigned k = 0; k < started; k++)
	if (fds[k].fd >= 0 && (fds[k].revents & (POLLIN | POLLHUP | POLLERR)) != 0)
	  {
	    size_t u;
	    if (receive (fds[k].fd, results, njobs, &u) != 0)
	      {
		close (fds[k].fd);
		fds[k].fd = -1;
		open_fds--;
	      }
	    else
	      progress_step (pr, jobs[u].name, status_changed (results[u].out.status));
	  }
    }
  for (unsigned k = 0; k < started; k++)
    {
      if (fds[k].fd >= 0)
	close (fds[k].fd);
      int st;
      while (waitpid (pids[k], &st, 0) < 0 && errno == EINTR)
	;
    }
out:
  if (next != MAP_FAILED)
    munmap (next, sizeof *next);
  free (fds);
  free (pids);
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
count_and_print (const struct entry *e, size_t i, const struct result *results,
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
      const struct entry *lead = &e[e[i].leader];
      const struct result *lr = &results[lead->unit];
      if (!e[i].via_link)
	c->hard_links++;
      if (!lr->done || lr->out.status == STATUS_SKIPPED || lr->out.status == STATUS_ERROR)
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
  if (!r->done || r->errors_len != 0 || (r->report_len != 0 && listed (ro, r->out.status)))
    progress_clear (pr);
  if (!r->done)
    {
      fprintf (errors, "%s: %s: internal error: the worker process processing it died\n", diag_program,
	       e[i].name);
      c->status[STATUS_ERROR]++;
      *status = 1;
      return;
    }
  if (listed (ro, r->out.status))
    fwrite (r->report, 1, r->report_len, report);
  if (json != NULL && r->json != NULL)
    fwrite (r->json, 1, r->json_len, json);
  if (ro->manifest_out != NULL && r->out.written)
    manifest_entry (ro->manifest_out, e[i].name, &r->out, ro, ro->keep_dir);
  fwrite (r->errors, 1, r->errors_len, errors);
  /* (unsupported: 2 unless something failed: 1 wins) */
  if (r->rc != 0 && r->out.unsupported)
    *status = *status == 0 ? 2 : *status;
  else if (r->rc != 0)
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
make_jobs (struct gather *g, struct file_job **jobs, struct result **results,
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
run_in_order (struct gather *g, struct file_job *jobs, struct result *results,
	      const struct run_options *ro, FILE *report, FILE *json, FILE *errors,
	      struct batch_counts *counts, int *status, struct progress *pr)
{
  for (size_t i = 0; i < g->n; i++)
    {
      /* A name before the one processed for its file (a symbolic link
	 given before its target) has that one processed first.  */
      size_t lead = g->e[i].leader;
      size_t u = g->e[i].unit != SIZE_MAX ? g->e[i].unit : lead != i ? g->e[lead].unit : SIZE_MAX;
      if (u != SIZE_MAX && !results[u].done)
	{
	  process_to_memory (&jobs[u], ro, &results[u]);
	  results[u].done = true;
	  progress_step (pr, jobs[u].name, status_changed (results[u].out.status));
	}
      count_and_print (g->e, i, results, ro, report, json, errors, counts, status, pr);
      if (g->e[i].unit != SIZE_MAX)
	{
	  struct result *r = &results[g->e[i].unit];
	  free (r->report);
	  free (r->json);
	  free (r->errors);
	  r->report = r->json = r->errors = NULL;
	}
    }
}

/* Free what G holds, closing the walk's roots.  */
static void
gather_free (struct gather *g)
{
  for (size_t i = 0; i < g->n; i++)
    {
      free (g->e[i].name);
      free (g->e[i].rel);
      free (g->e[i].error);
    }
  free (g->e);
  for (size_t i = 0; i < g->nroots; i++)
    close (g->roots[i]);
  free (g->roots);
}

int
batch_run (char *const *args, size_t nargs, const struct batch_options *bo,
	   const struct run_options *ro, FILE *report, FILE *json, FILE *errors,
	   struct batch_counts *counts)
{
  struct gather g = { .bo = bo, .batch = ro->batch };
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
      if (name == NULL || add_name (&g, name, true) != 0)
	goto oom;
    }
  if (bo->files_from != NULL)
    {
      int r = add_list (&g, bo->files_from, errors);
      if (r < 0)
	goto oom;
      if (r > 0)
	status = 1;
    }
  if (find_links (g.e, g.n) != 0)
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
      free (results[u].report);
      free (results[u].json);
      free (results[u].errors);
    }
  gather_free (&g);
  free (jobs);
  free (results);
  free (links);
  return status;
}
