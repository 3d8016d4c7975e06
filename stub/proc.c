/* elfpmd startup stub: reading /proc and /sys.  Every file is read through
   a small buffer, a line at a time; a line longer than its buffer is cut,
   and a number is read up to the first character that is not a digit, so
   that no content can make the stub read or write past a buffer.  */
#include "runtime.h"

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
	  l->have = sys_read (l->fd, l->buf, sizeof l->buf);
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

/* Fill ST->map from the line of /proc/self/maps whose mapping holds ADDR
   (the device and the inode), and PATH (MAPS_LINE bytes) with its path
   (empty when the line is too long to hold a path that can be opened).
   Return 0, or -1 when not found.  */
int
find_mapping (struct stub *st, uintptr_t addr, char *path)
{
  struct mapping *m = &st->map;
  struct lines l = { .fd = sys_openat ("/proc/self/maps", O_RDONLY | O_CLOEXEC) };
  path[0] = '\0';
  if (l.fd < 0)
    return -1;
  long len;
  m->found = 0;
  while ((len = next_line (&l, path, MAPS_LINE)) >= 0)
    {
      const char *s = path;
      uint64_t lo = parse_number (&s, 16);
      if (*s++ != '-')
	continue;
      uint64_t hi = parse_number (&s, 16);
      if (addr < lo || addr >= hi)
	continue;
      skip_spaces (&s);
      skip_field (&s);		/* permissions */
      skip_field (&s);		/* offset */
      m->dev_major = parse_number (&s, 16);
      if (*s++ != ':')
	break;
      m->dev_minor = parse_number (&s, 16);
      skip_spaces (&s);
      m->ino = parse_number (&s, 10);
      skip_spaces (&s);
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
  sys_close (l.fd);
  return m->found ? 0 : -1;
}

/* Find the line KEY ("VmFlags:") of the mapping that holds ADDR in
   /proc/self/smaps, and leave in LINE (CAP bytes) what follows KEY.
   Return 0, or -1 when not found.  */
int
smaps_value (uintptr_t addr, const char *key, char *line, long cap)
{
  struct lines l = { .fd = sys_openat ("/proc/self/smaps", O_RDONLY | O_CLOEXEC) };
  if (l.fd < 0)
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

/* Whether the object's file system is ext4 mounted data=journal, which
   gives no file large folios (so no PMD folios) on any kernel: from the
   line of /proc/self/mountinfo with the mapping's device (its third field,
   MAJOR:MINOR in decimal) and its super options (after " - TYPE SOURCE ").
   Only known after find_mapping.  */
int
ext4_journals_data (struct stub *st)
{
  if (st->fs != EXT4_SUPER_MAGIC || !st->map.found)
    return 0;
  struct lines l = { .fd = sys_openat ("/proc/self/mountinfo", O_RDONLY | O_CLOEXEC) };
  if (l.fd < 0)
    return 0;
  char line[512];
  int journal = 0;
  while (next_line (&l, line, sizeof line) >= 0)
    {
      const char *s = line;
      skip_field (&s);		/* mount ID */
      skip_field (&s);		/* parent ID */
      if (parse_number (&s, 10) != st->map.dev_major || *s++ != ':'
	  || parse_number (&s, 10) != st->map.dev_minor)
	continue;
      /* The options after the separator " - ".  */
      while (*s != '\0' && !(s[0] == ' ' && s[1] == '-' && s[2] == ' '))
	s++;
      static const char opt[] = "data=journal";
      for (; *s != '\0'; s++)
	{
	  int k = 0;
	  while (opt[k] != '\0' && s[k] == opt[k])
	    k++;
	  if (opt[k] == '\0' && (s[k] == ',' || s[k] == '\0'))
	    journal = 1;
	}
      break;
    }
  sys_close (l.fd);
  return journal;
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
  char buf[512];
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

/* AT_ENTRY of /proc/self/auxv: the entry point the kernel started the
   process at; 0 when it cannot be read.  */
uint64_t
auxv_entry (void)
{
  int fd = sys_openat ("/proc/self/auxv", O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return 0;
  uint64_t auxv[64];
  long got = sys_read (fd, auxv, sizeof auxv);
  sys_close (fd);
  for (long k = 0; k + 1 < got / 8 && auxv[k] != AT_NULL; k += 2)
    if (auxv[k] == AT_ENTRY)
      return auxv[k + 1];
  return 0;
}
