/* SPDX-License-Identifier: 0BSD
   Copyright (C) 2026 The elfpmd authors  */
/* elfpmd startup stub: reading /proc and /sys.  Every file is read through
   a small buffer, a line at a time; a line longer than its buffer is cut,
   and a number is read up to the first character that is not a digit, so
   that no content can make the stub read or write past a buffer.  */
#include "runtime.h"

/* Open PATH for next_line into L.  Return 0, or -1 when it cannot be
   opened (or the scratch buffers cannot be had).  */
int
lines_open (struct stub *st, struct lines *l, const char *path)
{
  struct scratch *s = scratch (st);
  l->have = l->at = 0;
  l->fd = -1;
  if (s == NULL)
    return -1;
  l->buf = s->read_buf;
  l->fd = sys_openat (path, O_RDONLY | O_CLOEXEC);
  return l->fd < 0 ? -1 : 0;
}

/* The next line of L into LINE (CAP bytes, NUL-terminated, cut to fit);
   its full length, or -1 at the end.  */
long
next_line (struct lines *l, char *line, long cap)
{
  long len = 0;
  for (;;)
    {
      if (l->at == l->have)
	{
	  l->have = sys_read (l->fd, l->buf, sizeof ((struct scratch *) 0)->read_buf);
	  l->at = 0;
	  if (l->have <= 0)
	    {
	      l->have = 0;
	      line[len < cap ? len : cap - 1] = '\0';
	      return len > 0 ? len : -1;
	    }
	}
      char c = l->buf[l->at++];
      if (c == '\n')
	break;
      if (len < cap - 1)
	line[len] = c;
      len++;
    }
  line[len < cap ? len : cap - 1] = '\0';
  return len;
}

/* The number at *S in BASE (10 or 16), read up to a character that is not a
   digit; *S is left after it.  */
uint64_t
parse_number (const char **s, unsigned base)
{
  uint64_t v = 0;
  for (;; (*s)++)
    {
      char c = **s;
      unsigned d;
      if (c >= '0' && c <= '9')
	d = (unsigned) (c - '0');
      else if (base == 16 && c >= 'a' && c <= 'f')
	d = (unsigned) (c - 'a' + 10);
      else
	return v;
      v = v * base + d;
    }
}

void
skip_spaces (const char **s)
{
  while (**s == ' ')
    (*s)++;
}

/* Skip the field at *S and the spaces after it.  */
void
skip_field (const char **s)
{
  while (**s != ' ' && **s != '\0')
    (*s)++;
  skip_spaces (s);
}

/* Append the decimal digits of V to *D.  */
void
put_number (char **d, uint64_t v)
{
  char digits[24];
  int n = 0;
  do
    digits[n++] = (char) ('0' + v % 10);
  while ((v /= 10) != 0);
  while (n > 0)
    *(*d)++ = digits[--n];
}

/* The number at the start of the file PATH (decimal), or -1.  */
long
read_number (const char *path)
{
  int fd = sys_openat (path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return -1;
  char buf[32];
  long got = sys_read (fd, buf, sizeof buf - 1);
  sys_close (fd);
  if (got <= 0 || buf[0] < '0' || buf[0] > '9')
    return -1;
  buf[got] = '\0';
  const char *s = buf;
  uint64_t v = parse_number (&s, 10);
  return v > (1u << 30) ? -1 : (long) v;
}

/* Parse the line of /proc/self/maps at *S ("LO-HI PERMS OFFSET MAJ:MIN
   INODE PATH") into E, and leave *S at what follows the inode.  Return 0;
   -1 when it does not start with "LO-HI" (E holds nothing); -2 when it
   does but the rest is cut short (E holds LO and HI only).  */
int
parse_maps_line (const char **s, struct maps_line *e)
{
  e->lo = parse_number (s, 16);
  if (*(*s)++ != '-')
    return -1;
  e->hi = parse_number (s, 16);
  skip_spaces (s);
  e->writable = (*s)[0] != '\0' && (*s)[1] == 'w';
  e->shared_rw = (*s)[0] == 'r' && (*s)[1] == 'w' && (*s)[2] != '\0' && (*s)[3] == 's';
  skip_field (s);		/* permissions */
  e->offset = parse_number (s, 16);
  skip_spaces (s);
  e->dev_major = parse_number (s, 16);
  if (*(*s)++ != ':')
    return -2;
  e->dev_minor = parse_number (s, 16);
  skip_spaces (s);
  e->ino = parse_number (s, 10);
  skip_spaces (s);
  return 0;
}

/* Fill ST->map from the line of /proc/self/maps whose mapping holds ADDR
   (the device and the inode), and the scratch buffer's LINE with its path
   (empty when the line is too long to hold a path that can be opened).
   Return 0, or -1 when not found.  */
int
find_mapping (struct stub *st, uintptr_t addr)
{
  struct mapping *m = &st->map;
  struct lines l;
  if (lines_open (st, &l, "/proc/self/maps") != 0)
    return -1;
  char *path = st->scratch->line;
  path[0] = '\0';
  long len;
  m->found = 0;
  while ((len = next_line (&l, path, MAPS_LINE)) >= 0)
    {
      const char *s = path;
      struct maps_line e;
      int got = parse_maps_line (&s, &e);
      if (got == -1 || addr < e.lo || addr >= e.hi)
	continue;
      if (got != 0)
	break;
      m->dev_major = e.dev_major;
      m->dev_minor = e.dev_minor;
      m->ino = e.ino;
      /* The path, moved to the start of the buffer; none when the line was
	 cut or the mapping has no file.  */
      char *d = path;
      if (len < MAPS_LINE && *s == '/')
	while ((*d++ = *s++) != '\0')
	  ;
      else
	*d = '\0';
      m->found = m->ino != 0;
      break;
    }
  if (!m->found)
    path[0] = '\0';
  sys_close (l.fd);
  return m->found ? 0 : -1;
}

/* Find the line KEY ("VmFlags:") of the mapping that holds ADDR in
   /proc/self/smaps, and leave in LINE (CAP bytes) what follows KEY.
   Return 0, or -1 when not found.  */
int
smaps_value (struct stub *st, uintptr_t addr, const char *key, char *line, long cap)
{
  struct lines l;
  if (lines_open (st, &l, "/proc/self/smaps") != 0)
    return -1;
  int in = 0, found = -1;
  while (found != 0 && next_line (&l, line, cap) >= 0)
    {
      const char *s = line;
      if (in)
	{
	  int k = 0;
	  while (key[k] != '\0' && s[k] == key[k])
	    k++;
	  if (key[k] == '\0')
	    {
	      char *d = line;
	      for (s += k; (*d++ = *s++) != '\0';)
		;
	      found = 0;
	      continue;
	    }
	}
      /* A mapping's first line: "LO-HI perms ..."; the others are "Name: value".  */
      uint64_t lo = parse_number (&s, 16);
      if (*s != '-' || s == line)
	continue;
      s++;
      uint64_t hi = parse_number (&s, 16);
      in = *s == ' ' && addr >= lo && addr < hi;
    }
  sys_close (l.fd);
  return found;
}

/* The file system mounted from device MAJOR:MINOR, as
   /proc/self/mountinfo names its type on the first line with that device
   (its third field, in decimal): EXT4_SUPER_MAGIC, XFS_SUPER_MAGIC,
   BTRFS_SUPER_MAGIC, TMPFS_MAGIC, OVERLAYFS_SUPER_MAGIC, OTHER_FS_MAGIC
   for another type, or 0 when no line has the device.  With DATA_JOURNAL,
   set *DATA_JOURNAL to whether its super options (after " - TYPE SOURCE ")
   say data=journal.  */
uint64_t
mount_of (struct stub *st, uint64_t major, uint64_t minor, int *data_journal)
{
  struct lines l;
  if (data_journal != NULL)
    *data_journal = 0;
  if (lines_open (st, &l, "/proc/self/mountinfo") != 0)
    return 0;
  static const struct
  {
    char name[8];
    uint64_t magic;
  } types[] = {
    { "ext4", EXT4_SUPER_MAGIC }, { "xfs", XFS_SUPER_MAGIC }, { "btrfs", BTRFS_SUPER_MAGIC },
    { "tmpfs", TMPFS_MAGIC }, { "overlay", OVERLAYFS_SUPER_MAGIC },
  };
  char *line = st->scratch->line;
  uint64_t fs = 0;
  while (fs == 0 && next_line (&l, line, MAPS_LINE) >= 0)
    {
      const char *s = line;
      skip_field (&s);		/* mount ID */
      skip_field (&s);		/* parent ID */
      if (parse_number (&s, 10) != major || *s++ != ':' || parse_number (&s, 10) != minor
	  || *s != ' ')
	continue;
      /* The type after the separator " - ", then the source, then the
	 super options.  */
      while (*s != '\0' && !(s[0] == ' ' && s[1] == '-' && s[2] == ' '))
	s++;
      if (*s == '\0')
	continue;
      s += 3;
      fs = OTHER_FS_MAGIC;
      for (unsigned t = 0; t < sizeof types / sizeof types[0]; t++)
	{
	  int k = 0;
	  while (types[t].name[k] != '\0' && s[k] == types[t].name[k])
	    k++;
	  if (types[t].name[k] == '\0' && (s[k] == ' ' || s[k] == '\0'))
	    fs = types[t].magic;
	}
      static const char opt[] = "data=journal";
      for (; data_journal != NULL && *s != '\0'; s++)
	{
	  int k = 0;
	  while (opt[k] != '\0' && s[k] == opt[k])
	    k++;
	  if (opt[k] == '\0' && (s[-1] == ',' || s[-1] == ' ') && (s[k] == ',' || s[k] == '\0'))
	    *data_journal = 1;
	}
    }
  sys_close (l.fd);
  return fs;
}

/* Whether the object's file system is ext4 mounted data=journal, which
   gives no file large folios (so no PMD folios) on any kernel.  Only known
   after find_mapping.  */
int
ext4_journals_data (struct stub *st)
{
  int journal;
  return st->fs == EXT4_SUPER_MAGIC && st->map.found
	 && mount_of (st, st->map.dev_major, st->map.dev_minor, &journal) != 0 && journal;
}

/* Whether the environment asks for a perf map: ELFPMD_PERF_MAP set to
   anything but "" or "0" in /proc/self/environ.  */
int
perf_map_wanted (void)
{
  int fd = sys_openat ("/proc/self/environ", O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return 0;
  static const char key[] = "ELFPMD_PERF_MAP=";
  const int keylen = (int) sizeof key - 1;
  char buf[256];
  int matched = 0;		/* characters of KEY matched; -1: another variable */
  long value = 0;
  char first = 0;
  int want = 0;
  long got;
  while (!want && (got = sys_read (fd, buf, sizeof buf)) > 0)
    for (long i = 0; i < got; i++)
      {
	char c = buf[i];
	if (c == '\0')
	  {
	    if (matched == keylen && value != 0 && !(value == 1 && first == '0'))
	      want = 1;
	    matched = 0;
	    value = 0;
	  }
	else if (matched == keylen)
	  {
	    if (value++ == 0)
	      first = c;
	  }
	else if (matched >= 0)
	  matched = c == key[matched] ? matched + 1 : -1;
      }
  sys_close (fd);
  return want;
}

/* Read AT_ENTRY and AT_SECURE of /proc/self/auxv into ST (once).  Return
   0 when AT_SECURE was found.  */
int
read_auxv (struct stub *st)
{
  if (!st->auxv_read)
    {
      st->auxv_read = 1;
      st->at_secure = -1;
      struct scratch *s = scratch (st);
      int fd = s != NULL ? sys_openat ("/proc/self/auxv", O_RDONLY | O_CLOEXEC) : -1;
      if (fd >= 0)
	{
	  long got = sys_read (fd, s->auxv, sizeof s->auxv);
	  sys_close (fd);
	  for (long k = 0; k + 1 < got / 8 && s->auxv[k] != AT_NULL; k += 2)
	    if (s->auxv[k] == AT_ENTRY)
	      st->at_entry = s->auxv[k + 1];
	    else if (s->auxv[k] == AT_SECURE)
	      st->at_secure = s->auxv[k + 1] != 0;
	}
    }
  return st->at_secure >= 0 ? 0 : -1;
}
