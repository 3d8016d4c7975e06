/* SPDX-License-Identifier: GPL-3.0-or-later
   Copyright (C) 2026 The elfpmd authors  */
/* What the command lines of elfpmd's verbs share (see cmdline.h).  */
#include <config.h>

#include <stdbool.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cmdline.h"
#include "place.h"
#include "sizes.h"
#include "trust.h"

/* ARG of OPTION as a power of two from MIN to MAX (0: no maximum), or a usage
   error.  */
static uint64_t
size_argument (struct argp_state *state, const char *option, const char *arg,
	       uint64_t min, uint64_t max)
{
  uint64_t size;
  const char *why = parse_size (arg, &size);
  if (why != NULL)
    argp_error (state, "%s: invalid size '%s': %s", option, arg, why);
  if (!is_power_of_2 (size))
    argp_error (state, "%s: %s is not a power of two", option, arg);
  if (size < min || (max != 0 && size > max))
    {
      char lo[32], hi[32];
      format_size (min, lo, sizeof lo);
      if (max != 0)
	argp_error (state, "%s: %s is outside %s to %s, the page sizes Linux has",
		    option, arg, lo, format_size (max, hi, sizeof hi));
      else
	argp_error (state, "%s: %s is smaller than %s, the smallest page size",
		    option, arg, lo);
    }
  return size;
}

void
size_option (struct argp_state *state, int key, const char *arg, struct size_options *s)
{
  if (key == OPT_PMD_SIZE)
    {
      if (s->seen_pmd)
	argp_error (state, "--pmd-size given twice");
      s->seen_pmd = true;
      s->pmd_size = size_argument (state, "--pmd-size", arg, PAGE_SIZE_MIN, 0);
    }
  else
    {
      if (s->seen_page)
	argp_error (state, "--page-size given twice");
      s->seen_page = true;
      s->page_size = size_argument (state, "--page-size", arg, PAGE_SIZE_MIN, PAGE_SIZE_MAX);
    }
}

void
size_options_check (struct argp_state *state, const struct size_options *s)
{
  if (s->pmd_size != 0 && s->page_size != 0 && s->pmd_size < s->page_size)
    argp_error (state, "--pmd-size is smaller than --page-size");
}

uint64_t
max_size_argument (struct argp_state *state, const char *arg)
{
  uint64_t size;
  const char *why = parse_size (arg, &size);
  if (why != NULL)
    argp_error (state, "--max-size: invalid size '%s': %s", arg, why);
  return size;
}

/* -h, as the short form of --help that most programs take (argp's own is
   -?), for every verb through cmdline_children.  */
static const struct argp_option help_options[] = {
  { NULL, 'h', NULL, 0, "Give this help list (as --help)", -1 },
  { NULL, 0, NULL, 0, NULL, 0 }
};

static error_t
parse_help (int key, char *arg, struct argp_state *state)
{
  if (key != 'h')
    return ARGP_ERR_UNKNOWN;
  argp_state_help (state, stdout, ARGP_HELP_STD_HELP);
  return 0;
}

static const struct argp help_argp = { help_options, parse_help, NULL, NULL, NULL, NULL, NULL };

const struct argp_child cmdline_children[] = {
  { &help_argp, 0, NULL, -1 },
  { NULL, 0, NULL, 0 }
};

void
files_from_argument (struct argp_state *state, const char **list, const char *arg)
{
  if (*list != NULL)
    argp_error (state, "--files-from given twice");
  if (*arg == '\0')
    argp_error (state, "--files-from needs a file name ('-' for standard input)");
  *list = arg;
}

int
report_flushed (int status)
{
  if (fflush (stdout) != 0 || ferror (stdout))
    {
      fprintf (stderr, "%s: cannot write the report\n", diag_program);
      return 1;
    }
  return status;
}


FILE *
open_output (const char *path, int flags, const char *mode, struct diag *err)
{
  int fd = trust_open_output (path, (flags & O_TRUNC) != 0, 0666, err);
  FILE *f = fd >= 0 ? fdopen (fd, mode) : NULL;
  if (fd >= 0 && f == NULL)
    {
      diag_set (err, "%s", strerror (errno));
      close (fd);
    }
  return f;
}
