/* SPDX-License-Identifier: GPL-3.0-or-later
   Copyright (C) 2026 The elfpmd authors  */
/* What the running kernel offers huge pages for files, from sysfs.  */
#include <config.h>

#include <stdio.h>
#include <string.h>

#include "host.h"

uint64_t
host_pmd_size (void)
{
  FILE *f = fopen ("/sys/kernel/mm/transparent_hugepage/hpage_pmd_size", "re");
  unsigned long long v = 0;
  if (f != NULL)
    {
      if (fscanf (f, "%llu", &v) != 1)
	v = 0;
      fclose (f);
    }
  return (v & (v - 1)) == 0 ? v : 0;
}

void
host_thp_mode (char *buf, size_t len)
{
  snprintf (buf, len, "unknown");
  FILE *f = fopen ("/sys/kernel/mm/transparent_hugepage/enabled", "re");
  if (f == NULL)
    return;
  char line[128];
  if (fgets (line, sizeof line, f) != NULL)
    {
      char *a = strchr (line, '['), *b = a != NULL ? strchr (a, ']') : NULL;
      if (b != NULL)
	snprintf (buf, len, "%.*s", (int) (b - a - 1), a + 1);
    }
  fclose (f);
}
