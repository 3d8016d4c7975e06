/* SPDX-License-Identifier: 0BSD
   Copyright (C) 2026 The elfpmd authors  */
/* elfpmd startup stub: facts about the running kernel, the object's file
   system and the object's file, each read where it is first needed.  */
#include "runtime.h"

/* The running kernel's version as KV (major, minor); 0 if unknown.  */
unsigned
kernel_version (void)
{
  char uts[390];
  memset (uts, 0, sizeof uts);
  if (syscall6 (SYS_uname, (long) uts, 0, 0, 0, 0, 0) != 0)
    return 0;
  const char *s = uts + 130;	/* release */
  uint64_t major = parse_number (&s, 10);
  if (*s++ != '.')
    return 0;
  uint64_t minor = parse_number (&s, 10);
  /* A release of 2.x is a personality's (UNAME26, which setarch
     --uname-2.6 sets and a set-user-ID execution keeps): it says nothing
     of the kernel.  */
  if (major < 3 || major > 0xffff || minor > 0xffff)
    return 0;
  return KV ((unsigned) major, (unsigned) minor);
}

/* Whether transparent huge pages are off for the whole system ("never").  */
int
thp_never (void)
{
  int fd = sys_openat ("/sys/kernel/mm/transparent_hugepage/enabled", O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return 0;
  char buf[96];
  long got = sys_read (fd, buf, sizeof buf - 1);
  sys_close (fd);
  static const char never[] = "[never]";
  for (long i = 0; i + 7 <= got; i++)
    {
      int k = 0;
      while (k < 7 && buf[i + k] == never[k])
	k++;
      if (k == 7)
	return 1;
    }
  return 0;
}

/* The program's file name as it was executed (AT_EXECFN), from the
   auxiliary vector the kernel laid out on its initial stack at SP: argc,
   the argument pointers and a null, the environment pointers and a null,
   then the vector's pairs; NULL when SP is null, the vector has none, or
   says AT_SECURE (a set-user-ID start, say: the name is the invoking
   user's to choose, and may since name another file).  At the program's
   entry point no code of the program has run: the stack is as the kernel
   (or ld.so, which keeps its layout) left it.  */
const char *
initial_execfn (const uint64_t *sp)
{
  if (sp == NULL || sp[0] > (1 << 20))
    return NULL;
  const uint64_t *a = sp + 1 + sp[0] + 1;
  for (uint64_t n = 0; *a != 0; a++)
    if (++n > (1 << 20))
      return NULL;
  a++;
  const char *execfn = NULL;
  int secure = -1;
  for (int k = 0; k < 64 && a[0] != AT_NULL; k++, a += 2)
    if (a[0] == AT_EXECFN)
      execfn = (const char *) a[1];
    else if (a[0] == AT_SECURE)
      secure = a[1] != 0;
  return secure == 0 ? execfn : NULL;
}

/* The type (f_type) of the file system that holds the object; 0 if
   unknown.  A program's is that of the file it was executed as
   (ST->execfn: a path walk the kernel has just made), else of
   /proc/self/exe, which costs a first look at /proc in the process (in
   QEMU's emulation, 4-8% of a start, where the other calls of the stub
   cost nothing to measure); when ld.so was run explicitly (ld.so ./prog),
   both are ld.so's,
   which may be another file system: a wrong guess costs a miss, or at most
   one chunk read again per start (the file evicted is always the
   object's, matched by device and inode).  On overlayfs (a container's
   root) the text's pages are those of the layer's file, so its file system
   decides: the one mounted from the device /proc/self/maps shows for the
   mapping (the layer's on kernels that show it there), where mountinfo
   has it; 0 (unknown) where it does not (a container that sees no mount of
   that file system, or 6.12 and later, which show the overlay's device).
   Nothing on overlayfs is ever dropped or repaired (ST->no_repair): the
   overlay's file cannot be matched to the mapping by device and inode
   (6.1 shows the layer's device in maps, stat the overlay's), and a file
   matched by inode alone could be another layer's, whose bytes a repair
   would map over the text.  Nor is cachestat asked there: through the
   overlay's file it sees an empty cache (6.18).

   A shared object's file system is asked of the descriptor
   open_object_file opened without following links and matched to the
   mapping by device and inode, never of the path /proc/self/maps shows:
   that path is escaped (a newline reads \012) and may name, at the time
   it is read, a file another user made.  Where no file matches (an overlay
   on 6.1 shows the layer's device in maps and the overlay's to stat), the
   file the path names (O_PATH|O_NOFOLLOW) counts only if it is on an
   overlay: then the mapping's own device decides, as above; anything else
   is unknown.  AT_EXECFN is the name the invoking user gave the program,
   there only when the start is not AT_SECURE: whoever could change what
   it names could have changed the program it ran.  */
uint64_t
file_system (struct stub *st)
{
  uint64_t buf[16];
  memset (buf, 0, sizeof buf);
  if (!((st->p->flags & STUB_FLAG_EXE)
	&& ((st->execfn != NULL
	     && syscall6 (SYS_statfs, (long) st->execfn, (long) buf, 0, 0, 0, 0) == 0)
	    || syscall6 (SYS_statfs, (long) "/proc/self/exe", (long) buf, 0, 0, 0, 0) == 0)))
    {
      int fd = open_object_file (st);
      if (fd >= 0)
	{
	  if (syscall6 (SYS_fstatfs, fd, (long) buf, 0, 0, 0, 0) != 0)
	    return 0;
	}
      else
	{
	  /* The path again: the scratch line may hold something else now.  */
	  if (find_mapping (st, st->self) != 0 || st->scratch->line[0] != '/')
	    return 0;
	  int o = sys_openat (st->scratch->line, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	  if (o < 0)
	    return 0;
	  long err = syscall6 (SYS_fstatfs, o, (long) buf, 0, 0, 0, 0);
	  sys_close (o);
	  if (err != 0 || buf[0] != OVERLAYFS_SUPER_MAGIC)
	    return 0;
	}
    }
  if (buf[0] != OVERLAYFS_SUPER_MAGIC)
    return buf[0];
  st->no_repair = 1;
  st->cachestat = 0;
  if (!st->map.found && find_mapping (st, st->self) != 0)
    return 0;
  uint64_t fs = mount_of (st, st->map.dev_major, st->map.dev_minor, NULL);
  return fs == OVERLAYFS_SUPER_MAGIC ? 0 : fs;
}

/* Whether the user who started this process may not influence what the
   stub does in it: a set-user-ID, set-group-ID or capability-raising
   execution, or one a security module marked so (AT_SECURE in the
   auxiliary vector, which glibc obeys too), or a process that is not
   dumpable (PR_GET_DUMPABLE is not 1: such executions, and programs that
   made themselves so).  Yes when that cannot be told.  Then the stub reads
   no environment, creates no file, waits for no other process, and drops
   or evicts nothing (see main.c).  */
int
secure (struct stub *st)
{
  if (st->secure < 0)
    st->secure = syscall6 (SYS_prctl, PR_GET_DUMPABLE, 0, 0, 0, 0, 0) != 1
		 || read_auxv (st) != 0 || st->at_secure != 0;
  return st->secure;
}

/* Whether a seccomp filter is on in this process (PR_GET_SECCOMP says 2;
   or it fails otherwise than with EINVAL, which only a kernel without
   seccomp answers: a filter refused the prctl), read once per run of the
   stub.  Then the stub makes no system call that systemd's
   SystemCallFilter=@system-service leaves out, the allow-list most
   services run under, whose other calls kill the process: mincore (only in
   @known in systemd 252) and cachestat (unknown to it), the two looks at
   the page cache (probe.c), are not made, and the stub goes on as where
   the page cache cannot be seen.  No filter tells a process what it
   allows.  prctl itself is safe to ask: the stub has asked it
   PR_GET_THP_DISABLE before (choose_mode), and it is in @system-service
   (@process).  */
int
filtered (struct stub *st)
{
  if (st->filtered < 0)
    {
      long mode = syscall6 (SYS_prctl, PR_GET_SECCOMP, 0, 0, 0, 0, 0);
      st->filtered = mode != 0 && mode != -EINVAL;
    }
  return st->filtered;
}

/* How many chunks at each end of a range the page cache may get in small
   folios from faults outside it: faults in the rest of the object's file
   mappings (the text's head and tail, read-only data, data) read around
   them into the neighbouring chunks, a window of at most the device's
   read_ahead_kb (an asynchronous window started from a page marked in a
   mapping outside the range, too: one marked inside it starts none, since
   the range is MADV_RANDOM), which large folios, aligned to their size,
   can stretch to twice that.  Those chunks are populated at once; the
   others the program's own faults read as PMD folios.  From the
   read_ahead_kb of the object's block device (/sys/dev/block/MAJOR:MINOR,
   its queue or that of the disk a partition belongs to); UINT64_MAX
   (every chunk) when that cannot be told (no block device: btrfs,
   overlayfs, NFS).  */
uint64_t
edge_chunks (struct stub *st)
{
  if (st->edge_known)
    return st->edge;
  st->edge_known = 1;
  st->edge = UINT64_MAX;
  uint64_t major, minor;
  if (!st->map.found && (st->p->flags & STUB_FLAG_EXE))
    {
      /* A program's device without reading /proc/self/maps (a warm start
	 pays for this when the program leaves chunks uncached).  */
      uint64_t sb[STAT_WORDS];
      memset (sb, 0, sizeof sb);
      int fd = sys_openat ("/proc/self/exe", O_PATH | O_CLOEXEC);
      if (fd < 0)
	return st->edge;
      long err = syscall6 (SYS_fstat, fd, (long) sb, 0, 0, 0, 0);
      sys_close (fd);
      if (err != 0)
	return st->edge;
      uint64_t dev = STAT_DEV (sb);
      major = (dev >> 8) & 0xfff;
      minor = (dev & 0xff) | ((dev >> 12) & 0xfff00);
    }
  else
    {
      if (!st->map.found && find_mapping (st, st->self) != 0)
	return st->edge;
      major = st->map.dev_major;
      minor = st->map.dev_minor;
    }
  if (scratch (st) == NULL)
    return st->edge;
  char *path = st->scratch->line;
  static const char dir[] = "/sys/dev/block/";
  char *d = path;
  for (const char *c = dir; *c != '\0'; c++)
    *d++ = *c;
  put_number (&d, major);
  *d++ = ':';
  put_number (&d, minor);
  char *tail = d;
  long kb = -1;
  for (int up = 0; up <= 1 && kb < 0; up++)
    {
      static const char queue[] = "/queue/read_ahead_kb";
      static const char parent[] = "/../queue/read_ahead_kb";
      d = tail;
      for (const char *c = up ? parent : queue; *c != '\0'; c++)
	*d++ = *c;
      *d = '\0';
      kb = read_number (path);
    }
  if (kb >= 0)
    st->edge = ((uint64_t) kb * 2048 + st->pmd - 1) / st->pmd;
  return st->edge;
}

/* Whether FD is the regular file the mapping ST->map comes from.  */
static int
is_mapped_file (struct stub *st, int fd)
{
  uint64_t s[STAT_WORDS];
  memset (s, 0, sizeof s);
  if (syscall6 (SYS_fstat, fd, (long) s, 0, 0, 0, 0) != 0)
    return 0;
  /* The kernel's encoding of a device number (new_encode_dev).  */
  uint64_t dev = STAT_DEV (s);
  uint64_t major = (dev >> 8) & 0xfff;
  uint64_t minor = (dev & 0xff) | ((dev >> 12) & 0xfff00);
  return (STAT_MODE (s) & S_IFMT) == S_IFREG && STAT_INO (s) == st->map.ino
	 && major == st->map.dev_major && minor == st->map.dev_minor;
}

/* Open the object's file read-only into ST->file, or set it to -1: the file
   that is mapped, matched by device and inode.  A program's is
   /proc/self/exe, unless ld.so was run explicitly (then that is ld.so); a
   path from /proc/self/maps is opened with O_PATH first, which never blocks
   on a FIFO nor opens a device, and reopened only when it is the file.  */
int
open_object_file (struct stub *st)
{
  if (st->file != -2)
    return st->file;
  st->file = -1;
  if (find_mapping (st, st->self) != 0)
    return -1;
  const char *path = st->scratch->line;
  int fd = -1;
  if (st->p->flags & STUB_FLAG_EXE)
    {
      fd = sys_openat ("/proc/self/exe", O_RDONLY | O_CLOEXEC);
      if (fd >= 0 && !is_mapped_file (st, fd))
	{
	  sys_close (fd);
	  fd = -1;
	}
    }
  if (fd < 0 && path[0] == '/')
    {
      int o = sys_openat (path, O_PATH | O_NOFOLLOW | O_CLOEXEC);
      if (o >= 0 && is_mapped_file (st, o))
	{
	  char proc[32] = "/proc/self/fd/";
	  char *d = proc + 14;
	  put_number (&d, (uint64_t) o);
	  *d = '\0';
	  fd = sys_openat (proc, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	  if (fd >= 0 && !is_mapped_file (st, fd))
	    {
	      sys_close (fd);
	      fd = -1;
	    }
	}
      if (o >= 0)
	sys_close (o);
    }
  st->file = fd;
  return fd;
}

#ifdef STUB_PROT_BTI
/* STUB_PROT_BTI if the mapping at ADDR is guarded (arm64 BTI: "bt" among
   its VmFlags in /proc/self/smaps), else 0; -1 when that cannot be told.
   The kernel guards a BTI-marked static program, ld.so a BTI-marked
   program or library (where the CPU has BTI and the C library does it), by
   mprotect(PROT_BTI); a fresh mapping of a chunk must keep exactly that,
   neither dropping the guard nor adding one the loader chose not to set.
   Read once (ST->guard), and only where a chunk is mapped afresh.  */
static long
guarded (struct stub *st, uintptr_t addr)
{
  if (st->guard != -2)
    return st->guard;
  st->guard = -1;
  char flags[256];
  if (smaps_value (st, addr, "VmFlags:", flags, sizeof flags) != 0)
    return -1;
  st->guard = 0;
  for (const char *s = flags; *s != '\0'; s++)
    if (s[0] == ' ' && s[1] == 'b' && s[2] == 't' && (s[3] == ' ' || s[3] == '\0'))
      st->guard = STUB_PROT_BTI;
  return st->guard;
}
#endif

/* The protection of the text at ADDR for a new mapping of it: read and
   execute, and on arm64 the BTI guard exactly where the text has it; -1
   when that cannot be told.  */
long
text_prot (struct stub *st, uintptr_t addr)
{
  long prot = PROT_READ | PROT_EXEC;
#ifdef STUB_PROT_BTI
  long guard = guarded (st, addr);
  if (guard < 0)
    return -1;
  prot |= guard;
#else
  (void) st;
  (void) addr;
#endif
  return prot;
}
