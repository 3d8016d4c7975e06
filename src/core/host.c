/* SPDX-License-Identifier: GPL-3.0-or-later
   Copyright (C) 2026 The elfpmd authors  */
/* What the running kernel offers huge pages for files, from sysfs.  */
#include <config.h>

#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/statfs.h>

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

const char *
host_thp_unavailable (void)
{
  FILE *f = fopen ("/sys/kernel/mm/transparent_hugepage/enabled", "re");
  if (f == NULL)
    return "this kernel has no transparent huge pages";
  char line[128] = "";
  if (fgets (line, sizeof line, f) == NULL)
    line[0] = '\0';
  fclose (f);
  if (strstr (line, "[never]") != NULL)
    return "transparent huge pages are off (/sys/kernel/mm/transparent_hugepage/enabled: never)";
  if (prctl (PR_GET_THP_DISABLE, 0, 0, 0, 0) > 0)
    return "transparent huge pages are disabled for this process (PR_SET_THP_DISABLE)";
  return NULL;
}

const char *
host_fs_name (int fd, char *buf, size_t len)
{
  struct statfs sf;
  if (fstatfs (fd, &sf) != 0)
    return "unknown";
  static const struct
  {
    unsigned long magic;
    const char *name;
  } names[] = {
    { 0xEF53, "ext4" }, { 0x58465342, "xfs" }, { 0x9123683E, "btrfs" }, { 0x01021994, "tmpfs" },
    { 0x794c7630, "overlayfs" }, { 0x6969, "nfs" }, { 0x73717368, "squashfs" },
    { 0xF2F52010, "f2fs" }, { 0xE0F5E1E2, "erofs" }, { 0xFF534D42, "cifs" },
  };
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
    if ((unsigned long) sf.f_type == names[i].magic)
      return names[i].name;
  snprintf (buf, len, "type %#lx", (unsigned long) sf.f_type);
  return buf;
}
