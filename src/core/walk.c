/* SPDX-License-Identifier: GPL-3.0-or-later
   Copyright (C) 2026 The elfpmd authors  */
/* The names a run processes (walk.h).  */
#include <config.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "namelist.h"
#include "place.h"
#include "walk.h"

/* Add the entry NAME (which the gather takes over, with REL and ERROR),
   below the walk's root ROOTFD at REL, or a name given (ROOTFD -1).  */
static int
add_entry_at (struct walk_names *g, char *name, int rootfd, char *rel, enum skip_kind skip,
	      const struct stat *st, char *error)
{
  if (g->n == g->cap)
    {
      size_t cap = g->cap == 0 ? 256 : g->cap * 2;
      struct walk_entry *e = realloc (g->e, cap * sizeof *e);
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
  g->e[g->n] = (struct walk_entry) { .name = name, .rootfd = rootfd, .rel = rel, .skip = skip,
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
add_entry (struct walk_names *g, char *name, enum skip_kind skip, const struct stat *st,
	   char *error)
{
  return add_entry_at (g, name, -1, NULL, skip, st, error);
}

/* add_entry of a name given to be processed, VIA_LINK when it was reached
   through a symbolic link.  */
static int
add_entry_link (struct walk_names *g, char *name, const struct stat *st, bool via_link)
{
  int ret = add_entry (g, name, SKIP_NONE, st, NULL);
  if (ret == 0)
    g->e[g->n - 1].via_link = via_link;
  return ret;
}

/* Whether PATH, whose last component is BASE, matches an --exclude pattern:
   one without '/' is matched against BASE, one with '/' against PATH.  */
static bool
excluded (const struct walk_options *bo, const char *path, const char *base)
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
walk (struct walk_names *g, int rootfd, int dirfd, const char *shown, const char *rel)
{
  const struct walk_options *bo = &g->opts;
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

int
walk_add_name (struct walk_names *g, char *path, bool follow)
{
  const struct walk_options *bo = &g->opts;
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
  if (!g->opts.batch)
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

int
walk_add_list (struct walk_names *g, const char *list, FILE *errors)
{
  struct namelist l;
  if (namelist_open (&l, list, g->opts.null, false, errors) != 0)
    return 1;
  int ret = 0;
  const char *name;
  while (ret == 0 && (name = namelist_next (&l, &ret, errors)) != NULL)
    {
      char *copy = strdup (name);
      ret = copy == NULL || walk_add_name (g, copy, false) != 0 ? -1 : 0;
    }
  namelist_close (&l);
  return ret;
}

/* Order of entry indices by inode, then by index.  */
static const struct walk_entry *sort_entries;

static int
by_inode (const void *a, const void *b)
{
  const struct walk_entry *x = &sort_entries[*(const size_t *) a];
  const struct walk_entry *y = &sort_entries[*(const size_t *) b];
  if (x->dev != y->dev)
    return x->dev < y->dev ? -1 : 1;
  if (x->ino != y->ino)
    return x->ino < y->ino ? -1 : 1;
  return *(const size_t *) a < *(const size_t *) b ? -1 : 1;
}

int
walk_find_links (struct walk_names *g)
{
  struct walk_entry *e = g->e;
  size_t n = g->n;
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

void
walk_names_free (struct walk_names *g)
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
