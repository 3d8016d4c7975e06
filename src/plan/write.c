/* SPDX-License-Identifier: GPL-3.0-or-later
   Copyright (C) 2026 The elfpmd authors  */
/* Applying a rewrite plan: the only code that writes.

   The output is assembled in a temporary file in the target's directory:
   the plan's copies of input ranges go to their places (padding stays a
   hole), then its patches; ownership, mode and extended attributes are
   carried over (but for the IMA and EVM attributes, which describe the old
   contents: ima.c), the result is read back and checked by the
   independent checker, and only then renamed over the target.  The writer
   does not know what a patch means.  */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/syscall.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#ifdef HAVE_SYS_XATTR_H
# include <sys/xattr.h>
#endif

#include "checker.h"
#include "safe_open.h"
#include "sha256.h"
#include "ima.h"
#include "write.h"
#include "trust.h"

/* How much the copy hands to the kernel at once, and after how much newly
   written data it starts writeback, so that the final fsync has less to wait for.  */
#define COPY_CHUNK ((size_t) 64 << 20)
#define COPY_ALIGN ((uint64_t) 4096)
/* A copy whose input and output offsets differ modulo this (the largest
   folio the page cache holds here, 2 MiB) is shifted.  */
#define SHIFT_GRAIN ((uint64_t) 2 << 20)

/* The temporary file: its name in the target's directory, and its
   descriptor.  */
struct output
{
  char tmp[64];
  int fd;
};

/* Copy LEN bytes at IN_OFF of IN to OUT_OFF of OUT with read and write.  */
static int
copy_with_read_write (int in, int out, uint64_t in_off, uint64_t out_off, uint64_t len,
		      struct diag *err)
{
  size_t bufsize = (size_t) 1 << 20;
  char *buf = malloc (bufsize);
  if (buf == NULL)
    return diag_set (err, "out of memory");
  while (len > 0)
    {
      size_t want = len < bufsize ? (size_t) len : bufsize;
      ssize_t n = pread (in, buf, want, (off_t) in_off);
      if (n < 0 && errno == EINTR)
	continue;
      if (n <= 0)
	{
	  free (buf);
	  return diag_set (err, n == 0 ? "file shrank while being read" : "read failed: %s",
			   strerror (errno));
	}
      for (ssize_t done = 0; done < n;)
	{
	  ssize_t w = pwrite (out, buf + done, (size_t) (n - done), (off_t) (out_off + (uint64_t) done));
	  if (w < 0 && errno == EINTR)
	    continue;
	  if (w <= 0)
	    {
	      free (buf);
	      return diag_set (err, "write failed: %s", w == 0 ? "no progress" : strerror (errno));
	    }
	  done += w;
	}
      in_off += (uint64_t) n;
      out_off += (uint64_t) n;
      len -= (uint64_t) n;
    }
  free (buf);
  return 0;
}

/* A pipe for splice, sized so that the kernel moves whole runs of pages:
   copy_file_range's own pipe is small, and with padding the output offsets
   are shifted against the input's large folios, which made it half again as
   slow as cp; through a 1 MiB pipe a shifted copy costs what cp costs.  A
   copy that is not shifted goes through copy_file_range, as cp's does: the
   splice pipe cost it 1.05-3.5 s for 1 GiB where copy_file_range took
   0.76-1.12 s (8 interleaved pairs, elfpmd --no-sync in place, Linux 6.18
   ext4).  */
static int splice_pipe[2] = { -1, -1 };
static bool no_splice;

/* Move up to LEN bytes at IN_OFF of IN to OUT_OFF of OUT through the splice
   pipe.  Return the bytes moved, 0 at the input's end, or -1 with errno set.  */
static ssize_t
splice_some (int in, int out, uint64_t in_off, uint64_t out_off, size_t len)
{
  if (splice_pipe[0] < 0)
    {
      if (pipe2 (splice_pipe, O_CLOEXEC) != 0)
	return -1;
      fcntl (splice_pipe[1], F_SETPIPE_SZ, 1 << 20);
    }
  int size = fcntl (splice_pipe[1], F_GETPIPE_SZ);
  if (size > 0 && len > (size_t) size)
    len = (size_t) size;
  loff_t ioff = (loff_t) in_off, ooff = (loff_t) out_off;
  ssize_t n = splice (in, &ioff, splice_pipe[1], NULL, len, SPLICE_F_MOVE);
  if (n <= 0)
    return n;
  for (ssize_t done = 0; done < n;)
    {
      ssize_t w = splice (splice_pipe[0], NULL, out, &ooff, (size_t) (n - done), SPLICE_F_MOVE);
      if (w < 0 && errno == EINTR)
	continue;
      if (w <= 0)
	{
	  /* The pipe holds data that belongs nowhere now: drop the pipe.  */
	  int saved = w == 0 ? EIO : errno;
	  close (splice_pipe[0]);
	  close (splice_pipe[1]);
	  splice_pipe[0] = splice_pipe[1] = -1;
	  errno = saved;
	  return -1;
	}
      done += w;
    }
  return n;
}

/* How the copy treats the files: SYNC starts writeback of the output as
   it goes; DROP drops the input's pages from the page cache behind it.  */
struct copy_mode
{
  bool sync, drop;
};

/* With MODE->drop, drop [*FROM, TO) of IN from the page cache, up to a
   multiple of SHIFT_GRAIN unless LAST (a folio that straddles the end
   stays), and move *FROM on.  */
static void
drop_behind (int in, uint64_t *from, uint64_t to, bool last, const struct copy_mode *mode)
{
  if (!mode->drop)
    return;
  uint64_t end = last ? to : to & ~(SHIFT_GRAIN - 1);
  if (end <= *from)
    return;
  posix_fadvise (in, (off_t) *from, (off_t) (end - *from), POSIX_FADV_DONTNEED);
  *from = end;
}

/* Copy LEN bytes at IN_OFF of IN to OUT_OFF of OUT, in the kernel where it can.  */
static int
copy_range (int in, int out, uint64_t in_off, uint64_t out_off, uint64_t len,
	    const struct copy_mode *mode, struct diag *err)
{
#ifdef HAVE_COPY_FILE_RANGE
  static bool no_copy_file_range;
#else
  static const bool no_copy_file_range = true;
#endif
  uint64_t since_writeback = 0, writeback_from = out_off, drop_from = in_off;
  while (len > 0)
    {
      size_t want = len < COPY_CHUNK ? (size_t) len : COPY_CHUNK;
      /* Start at a page boundary of the input after a short first piece:
	 the kernel copies whole pages much faster than straddling ones.  */
      uint64_t misalign = in_off & (COPY_ALIGN - 1);
      if (misalign != 0 && want > COPY_ALIGN - misalign)
	want = (size_t) (COPY_ALIGN - misalign);
      ssize_t n = -1;
      bool shifted = ((in_off ^ out_off) & (SHIFT_GRAIN - 1)) != 0;
      if (!no_splice && (shifted || no_copy_file_range))
	{
	  n = splice_some (in, out, in_off, out_off, want);
	  if (n < 0 && errno == EINTR)
	    continue;
	  if (n == 0)
	    return diag_set (err, "file shrank while being read");
	  if (n < 0 && (errno == EINVAL || errno == ENOSYS || errno == EOPNOTSUPP
			|| errno == EBADF || errno == EPERM || errno == EMFILE || errno == ENFILE))
	    no_splice = true;
	  else if (n < 0)
	    return diag_set (err, "copy failed: %s", strerror (errno));
	}
#ifdef HAVE_COPY_FILE_RANGE
      if (n < 0 && !no_copy_file_range)
	{
	  off_t ioff = (off_t) in_off, ooff = (off_t) out_off;
	  n = copy_file_range (in, &ioff, out, &ooff, want, 0);
	  if (n < 0 && errno == EINTR)
	    continue;
	  if (n < 0 && (errno == ENOSYS || errno == EXDEV || errno == EOPNOTSUPP
			|| errno == EINVAL || errno == EBADF || errno == EPERM))
	    no_copy_file_range = true;
	  else if (n < 0)
	    return diag_set (err, "copy failed: %s", strerror (errno));
	  else if (n == 0)
	    return diag_set (err, "file shrank while being read");
	}
#endif
      if (n < 0)
	{
	  if (copy_with_read_write (in, out, in_off, out_off, want, err) != 0)
	    return -1;
	  n = (ssize_t) want;
	}
      in_off += (uint64_t) n;
      out_off += (uint64_t) n;
      len -= (uint64_t) n;
      since_writeback += (uint64_t) n;
      if (in_off - drop_from >= COPY_CHUNK)
	drop_behind (in, &drop_from, in_off, false, mode);
#ifdef HAVE_SYNC_FILE_RANGE
      if (mode->sync && since_writeback >= COPY_CHUNK)
	{
	  /* Start writeback now; the fsync at the end then overlaps with the copy.  */
	  sync_file_range (out, (off_t) writeback_from, (off_t) since_writeback,
			   SYNC_FILE_RANGE_WRITE);
	  writeback_from = out_off;
	  since_writeback = 0;
	}
#endif
    }
  drop_behind (in, &drop_from, in_off, true, mode);
  return 0;
}

/* Copy [START, END) of the input to OUT at TO, leaving the input's holes
   holes in the output: a file elfpmd padded before stays sparse.  */
static int
copy_data (int in, int out, uint64_t start, uint64_t end, uint64_t to,
	   const struct copy_mode *mode, struct diag *err)
{
  uint64_t pos = start;
  while (pos < end)
    {
      off_t data = lseek (in, (off_t) pos, SEEK_DATA);
      if (data < 0 && errno == ENXIO)
	return 0;		/* only a hole is left */
      if (data < 0)		/* no hole support here: copy everything */
	return copy_range (in, out, pos, to + (pos - start), end - pos, mode, err);
      if ((uint64_t) data >= end)
	return 0;
      off_t hole = lseek (in, data, SEEK_HOLE);
      uint64_t stop = hole < 0 || (uint64_t) hole > end ? end : (uint64_t) hole;
      if (copy_range (in, out, (uint64_t) data, to + ((uint64_t) data - start),
		      stop - (uint64_t) data, mode, err) != 0)
	return -1;
      pos = stop;
    }
  return 0;
}

/* Apply the plan's copies, set the output's size (what no copy or patch
   writes is a hole), then write its patches.  */
static int
apply_pieces (const struct elf_file *file, const struct rewrite_plan *plan, int out,
	      const struct copy_mode *mode, struct diag *err)
{
  const struct plan_pieces *p = &plan->pieces;
  for (size_t k = 0; k < p->ncopies; k++)
    {
      const struct plan_copy *c = &p->copies[k];
      if (copy_data (file->fd, out, c->from, c->from + c->len, c->to, mode, err) != 0)
	return -1;
    }
  if (ftruncate (out, (off_t) plan->tables.size) != 0)
    return diag_set (err, "cannot set the output size: %s", strerror (errno));
  for (size_t k = 0; k < p->npatches; k++)
    {
      const struct plan_patch *pt = &p->patches[k];
      for (size_t done = 0; done < pt->len;)
	{
	  ssize_t w = pwrite (out, pt->bytes + done, pt->len - done, (off_t) (pt->offset + done));
	  if (w < 0 && errno == EINTR)
	    continue;
	  if (w <= 0)
	    return diag_set (err, "cannot write %s: %s", patch_kind_name (pt->kind),
			     w == 0 ? "no progress" : strerror (errno));
	  done += (size_t) w;
	}
    }
  return 0;
}

/* Give OUT the owner, mode and extended attributes of the input; the IMA
   attribute as IMA says (OUT's contents are final: the hash is theirs), the
   EVM attribute never.  */
int
keep_metadata (const struct elf_file *file, int out, const struct ima_plan *ima,
	       struct diag *err)
{
  /* chown clears set-user-ID bits and file capabilities, so it goes first.  */
  if (fchown (out, file->st.st_uid, file->st.st_gid) != 0)
    {
      struct stat st;
      if (fstat (out, &st) != 0 || st.st_uid != file->st.st_uid || st.st_gid != file->st.st_gid)
	return diag_set (err, "cannot keep the owner: %s", strerror (errno));
    }
  if (fchmod (out, file->st.st_mode & 07777) != 0)
    return diag_set (err, "cannot keep the mode: %s", strerror (errno));
#ifdef HAVE_SYS_XATTR_H
  ssize_t len = flistxattr (file->fd, NULL, 0);
  if (len < 0)
    return (errno == ENOTSUP || errno == ENOSYS) ? 0
	   : diag_set (err, "cannot list extended attributes: %s", strerror (errno));
  char *names = malloc ((size_t) len + 1);
  if (names == NULL)
    return diag_set (err, "out of memory");
  len = flistxattr (file->fd, names, (size_t) len);
  int ret = len < 0 ? diag_set (err, "cannot list extended attributes: %s", strerror (errno)) : 0;
  for (ssize_t at = 0; ret == 0 && at < len; at += (ssize_t) strlen (names + at) + 1)
    {
      const char *name = names + at;
      if (ima_own_xattr (name))
	continue;
      ssize_t vlen = fgetxattr (file->fd, name, NULL, 0);
      char *value = vlen >= 0 ? malloc ((size_t) vlen + 1) : NULL;
      if (vlen >= 0 && value != NULL)
	vlen = fgetxattr (file->fd, name, value, (size_t) vlen);
      if (vlen < 0 || value == NULL)
	ret = diag_set (err, "cannot read extended attribute %s: %s", name,
			value == NULL && vlen >= 0 ? "out of memory" : strerror (errno));
      else if (fsetxattr (out, name, value, (size_t) vlen, 0) != 0)
	ret = diag_set (err, "cannot keep extended attribute %s: %s", name, strerror (errno));
      free (value);
    }
  free (names);
  if (ret != 0)
    return ret;
  return ima_finish (file, out, ima, err);
#else
  (void) ima;
  return 0;
#endif
}

/* Give OUT, a new file beside a target that is not the input, the input's
   permission bits as cp would: without set-ID bits, less the umask.  */
static int
new_file_mode (const struct elf_file *file, int out, struct diag *err)
{
  mode_t mask = umask (0);
  umask (mask);
  if (fchmod (out, file->st.st_mode & 0777 & ~mask) != 0)
    return diag_set (err, "cannot set the mode: %s", strerror (errno));
  return 0;
}

/* Whether the input still is the file that was planned for, and TARGET
   (when rewriting in place) still names it: a file put at that name
   meanwhile must not be overwritten.  */
static const char *
input_changed (const struct elf_file *file, const struct place *target, bool in_place)
{
  struct stat st;
  if (fstat (file->fd, &st) != 0 || st.st_size != file->st.st_size
      || st.st_mtim.tv_sec != file->st.st_mtim.tv_sec
      || st.st_mtim.tv_nsec != file->st.st_mtim.tv_nsec)
    return "the file changed while being rewritten";
  if (in_place && (fstatat (target->dirfd, target->base, &st, AT_SYMLINK_NOFOLLOW) != 0
		   || st.st_dev != file->st.st_dev || st.st_ino != file->st.st_ino))
    return "the file was replaced while being rewritten";
  return NULL;
}

/* Read the written file back, through its descriptor FD, and check it
   with the independent checker.  */
static int
verify_output (const struct elf_file *file, const struct rewrite_plan *plan, int fd,
	       struct diag *err)
{
  struct elf_file out;
  struct diag oerr = { "" };
  int copy = fcntl (fd, F_DUPFD_CLOEXEC, 0);
  if (copy < 0 || elf_file_open_fd (&out, copy, "the output", &oerr) != 0)
    return diag_set (err, "internal error: the output does not read back: %s",
		     copy < 0 ? strerror (errno) : oerr.msg);
  int ret = check_output (plan, file, &out, err);
  elf_file_close (&out);
  return ret;
}

/* Put TMP in the place of NAME in the directory DIRFD and NAME in TMP's,
   in one step (RENAME_EXCHANGE), for a rewrite without sync: renamed over
   an existing file, a file is written out before the rename returns on
   ext4 (auto_da_alloc, so that a crash never leaves the name empty), which
   made elfpmd --no-sync cost what cp IN F.new && mv F.new F does, three
   times a plain cp over F; exchanged, it is written back later, as a
   linker's output is, and after a crash it may read as zeros.  Return 0,
   or -1 (errno) where the file system or the kernel cannot exchange, or
   NAME is gone: then renameat.  */
static int
exchange_names (int dirfd, const char *tmp, const char *name)
{
#ifdef HAVE_RENAMEAT2
  return renameat2 (dirfd, tmp, dirfd, name, RENAME_EXCHANGE);
#else
  (void) dirfd;
  (void) tmp;
  (void) name;
  errno = ENOSYS;
  return -1;
#endif
}

/* fsync the directory DIRFD, where a name was made or replaced.  */
static int
sync_directory (int dirfd, struct diag *err)
{
  return fsync (dirfd) == 0 || errno == EINVAL ? 0
	 : diag_set (err, "cannot sync the directory: %s", strerror (errno));
}

/* Whether none of the page cache of the file open as FD is dirty or under
   writeback, as cachestat (Linux 6.5) tells; false where it cannot tell.  */
static bool
cache_clean (int fd)
{
#if !defined __NR_cachestat && (defined __x86_64__ || defined __i386__ || defined __aarch64__ \
				|| defined __riscv || defined __loongarch__)
# define __NR_cachestat 451	/* the same number in every table that has it there */
#endif
#ifdef __NR_cachestat
  struct { uint64_t off, len; } range = { 0, 0 };	/* len 0: to the end */
  struct { uint64_t cache, dirty, writeback, evicted, recently_evicted; } cs;
  return syscall (__NR_cachestat, fd, &range, &cs, 0) == 0 && cs.dirty == 0 && cs.writeback == 0;
#else
  (void) fd;
  return false;
#endif
}

/* Whether the copy may drop the input's pages behind it, so that the new
   file is written into the memory the old one held: when the old contents
   die with the rewrite (in place, no other name of the inode left behind,
   nothing reads the input after the copy but the checker's samples of a
   large file, no --manifest hash) and the pages are clean (dropping a dirty
   page would first write out a file about to be removed).  The memory is the
   point: written into pages the old file frees, a 1 GiB rewrite costs what
   cp over the file costs (which frees the old contents first); into
   memory a virtual machine's host has taken back (free page reporting), it
   cost 2.5-3 s where cp over took 0.9 (Linux 6.18 guest), and on any
   machine it leaves the page cache of other files alone.  */
static bool
may_drop_input (const struct elf_file *file, const struct rewrite_plan *plan,
		const struct write_options *opts)
{
  return opts->in_place && !opts->hash && !opts->keep
	 && (uint64_t) file->st.st_nlink <= 1 + (uint64_t) opts->nlinks
	 && plan->tables.size > CHECK_READ_BACK_WHOLE && cache_clean (file->fd);
}

static int
write_to_temp (const struct elf_file *file, const struct rewrite_plan *plan,
	       const struct output *o, const struct write_options *opts,
	       struct write_result *res, struct diag *err)
{
  const struct copy_mode mode = { opts->sync, may_drop_input (file, plan, opts) };
  if (apply_pieces (file, plan, o->fd, &mode, err) != 0)
    return -1;
  /* After the last byte is written: keep_metadata hashes the contents.  */
  if ((opts->in_place ? keep_metadata (file, o->fd, opts->ima, err)
       : new_file_mode (file, o->fd, err)) != 0)
    return -1;
  if (opts->preserve_dates)
    {
      const struct timespec times[2] = { file->st.st_atim, file->st.st_mtim };
      if (futimens (o->fd, times) != 0)
	return diag_set (err, "cannot keep the dates: %s", strerror (errno));
    }
  if (opts->sync && fsync (o->fd) != 0)
    return diag_set (err, "cannot sync the output: %s", strerror (errno));
  struct stat st;
  if (fstat (o->fd, &st) != 0)
    return diag_set (err, "cannot stat the output: %s", strerror (errno));
  res->allocated_before = (uint64_t) file->st.st_blocks * 512;
  res->allocated_after = (uint64_t) st.st_blocks * 512;
  if (file->skip_reason == NULL && plan->changed && verify_output (file, plan, o->fd, err) != 0)
    return -1;
  return 0;
}

/* The temporary file of the rewrite under way, for the signal handler:
   its directory and its name there.  */
static volatile int pending_dirfd = -1;
static const char *volatile pending_tmp;

/* An interrupted rewrite leaves no temporary file behind: remove it, then
   die of the signal as if nothing had caught it.  */
static void
remove_pending (int sig)
{
  const char *name = pending_tmp;
  if (name != NULL)
    unlinkat (pending_dirfd, name, 0);
  signal (sig, SIG_DFL);
  raise (sig);
}

static const int fatal_signals[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE };
#define NFATAL (sizeof fatal_signals / sizeof fatal_signals[0])

/* Remove TMP in DIRFD if one of the usual termination signals arrives,
   saving the old actions in OLD; or, with TMP NULL, restore them.  */
static void
guard_temporary (int dirfd, const char *tmp, struct sigaction *old)
{
  if (tmp != NULL)
    {
      pending_dirfd = dirfd;
      pending_tmp = tmp;
      struct sigaction sa = { .sa_handler = remove_pending };
      sigemptyset (&sa.sa_mask);
      for (size_t i = 0; i < NFATAL; i++)
	{
	  sigaction (fatal_signals[i], NULL, &old[i]);
	  /* A signal the caller ignores stays ignored.  */
	  if (old[i].sa_handler != SIG_IGN)
	    sigaction (fatal_signals[i], &sa, NULL);
	}
      return;
    }
  for (size_t i = 0; i < NFATAL; i++)
    sigaction (fatal_signals[i], &old[i], NULL);
  pending_tmp = NULL;
  pending_dirfd = -1;
}

/* A name for a new file in a directory, PREFIX and random letters, into
   NAME (SIZE bytes).  */
static void
temporary_name (char *name, size_t size, const char *prefix)
{
  static const char letters[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
  unsigned char r[12];
  if (getrandom (r, sizeof r, GRND_NONBLOCK) != (ssize_t) sizeof r)
    {
      static unsigned serial;
      unsigned long v = (unsigned long) getpid () * 2654435761UL + serial++;
      for (size_t i = 0; i < sizeof r; i++, v /= 7)
	r[i] = (unsigned char) (v ^ (unsigned long) time (NULL) >> i);
    }
  size_t at = (size_t) snprintf (name, size, "%s", prefix);
  for (size_t i = 0; i < sizeof r && at + 1 < size; i++)
    name[at++] = letters[r[i] % (sizeof letters - 1)];
  name[at] = '\0';
}

/* Add a warning to RES, after any there already is.  */
static void __attribute__ ((format (printf, 2, 3)))
add_warning (struct write_result *res, const char *fmt, ...)
{
  size_t used = strlen (res->warning);
  if (used != 0 && used + 2 < sizeof res->warning)
    {
      memcpy (res->warning + used, "; ", 3);
      used += 2;
    }
  va_list ap;
  va_start (ap, fmt);
  vsnprintf (res->warning + used, sizeof res->warning - used, fmt, ap);
  va_end (ap);
}

/* Make LINK, another name of FILE's inode, name TARGET (the rewritten file)
   instead: a new hard link beside LINK renamed over it, so that LINK names
   one of the two files at every moment; every step relative to the two
   directories held open, never through a path.  BLOCK holds the signals
   that must not interrupt the rename.  Problems go to RES as warnings:
   TARGET is already in place, and LINK still names the input's
   contents.  */
static void
relink_name (const struct elf_file *file, const struct place *target, const struct place *link,
	     const char *shown, bool sync, const sigset_t *block, struct write_result *res)
{
  struct stat st, now;
  if (link->dirfd < 0)
    {
      add_warning (res, "hard link %s cannot be resolved any more: left alone", shown);
      return;
    }
  /* A name given twice (a/b and a//b) names the new file already.  */
  if (fstatat (link->dirfd, link->base, &st, AT_SYMLINK_NOFOLLOW) == 0
      && fstatat (target->dirfd, target->base, &now, AT_SYMLINK_NOFOLLOW) == 0
      && st.st_dev == now.st_dev && st.st_ino == now.st_ino)
    {
      res->relinked++;
      return;
    }
  if (fstatat (link->dirfd, link->base, &st, AT_SYMLINK_NOFOLLOW) != 0
      || st.st_dev != file->st.st_dev || st.st_ino != file->st.st_ino)
    {
      add_warning (res, "hard link %s no longer names the input: left alone", shown);
      return;
    }
  char tmp[64];
  int linked = -1;
  for (int attempt = 0; attempt < 100 && linked != 0; attempt++)
    {
      temporary_name (tmp, sizeof tmp, ".elfpmd-link.");
      linked = linkat (target->dirfd, target->base, link->dirfd, tmp, 0);
      if (linked != 0 && errno != EEXIST)
	break;
    }
  if (linked != 0)
    {
      add_warning (res, "hard link %s keeps the old contents: cannot link beside it: %s", shown,
		   strerror (errno));
      return;
    }
  sigset_t saved;
  struct sigaction old[NFATAL];
  sigprocmask (SIG_BLOCK, block, &saved);
  guard_temporary (link->dirfd, tmp, old);
  int renamed = renameat (link->dirfd, tmp, link->dirfd, link->base);
  int rename_errno = errno;
  if (renamed != 0)
    unlinkat (link->dirfd, tmp, 0);
  guard_temporary (-1, NULL, old);
  sigprocmask (SIG_SETMASK, &saved, NULL);
  if (renamed != 0)
    {
      add_warning (res, "hard link %s keeps the old contents: cannot replace it: %s", shown,
		   strerror (rename_errno));
      return;
    }
  res->relinked++;
  struct diag dir_err = { "" };
  if (sync && sync_directory (link->dirfd, &dir_err) != 0)
    add_warning (res, "%s (of hard link %s)", dir_err.msg, shown);
}

/* --keep-originals: a copy of the input FILE into the directory KEEPFD
   under the name HEX (its SHA-256), made beside it and renamed, unless a
   regular file of that name is there already (the same contents).  */
static int
keep_original (const struct elf_file *file, int keepfd, const char *hex, struct diag *err)
{
  /* A copy there already (the same original kept by an earlier run) is
     used only if the rule trusts it and it is what its name says;
     anything else under the name is replaced by the rename below.  */
  struct stat st;
  struct diag why = { "" };
  int old = trust_open_at (keepfd, hex, &st, &why);
  if (old >= 0)
    {
      unsigned char d[32];
      char have[65];
      bool same = sha256_fd (old, d) == 0;
      close (old);
      if (same)
	{
	  sha256_hex (d, have);
	  if (strcmp (have, hex) == 0)
	    return 0;
	}
    }
  char tmp[96];
  snprintf (tmp, sizeof tmp, ".%s.%ld", hex, (long) getpid ());
  int fd = openat (keepfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0400);
  if (fd < 0)
    return diag_set (err, "cannot keep the original (--keep-originals): %s", strerror (errno));
  struct diag cerr = { "" };
  int ret = 0;
  /* Sparse, and with the original's times, which revert puts back.  */
  const struct timespec times[2] = { file->st.st_atim, file->st.st_mtim };
  if (copy_contents (file->fd, fd, &cerr) != 0)
    ret = diag_set (err, "cannot keep the original: %s", cerr.msg);
  else if (futimens (fd, times) != 0 || fsync (fd) != 0)
    ret = diag_set (err, "cannot keep the original: cannot write: %s", strerror (errno));
  if (close (fd) != 0 && ret == 0)
    ret = diag_set (err, "cannot keep the original: %s", strerror (errno));
  if (ret == 0 && renameat (keepfd, tmp, keepfd, hex) != 0)
    ret = diag_set (err, "cannot keep the original: %s", strerror (errno));
  if (ret != 0)
    unlinkat (keepfd, tmp, 0);
  return ret;
}

/* --manifest: hash the input and the written temporary file TMPFD (what is
   renamed in), and keep the input where asked.  */
static int
hash_both (const struct elf_file *file, int tmpfd, const struct write_options *opts,
	   struct write_result *res, struct diag *err)
{
  struct stat a, b;
  if (sha256_fd (file->fd, res->sha256_before) != 0 || fstat (file->fd, &a) != 0
      || sha256_fd (tmpfd, res->sha256_after) != 0 || fstat (tmpfd, &b) != 0)
    return diag_set (err, "cannot hash the input and the output (--manifest): %s",
		     strerror (errno));
  res->size_before = (uint64_t) a.st_size;
  res->size_after = (uint64_t) b.st_size;
  if (opts->keep)
    {
      char hex[65];
      sha256_hex (res->sha256_before, hex);
      if (keep_original (file, opts->keep_dirfd, hex, err) != 0)
	return -1;
      res->kept = true;
    }
  return 0;
}

int
write_plan (const struct elf_file *file, const struct rewrite_plan *plan,
	    const struct place *target, const struct write_options *opts,
	    struct write_result *res, struct diag *err)
{
  memset (res, 0, sizeof *res);
  struct output o = { .fd = -1 };

  /* Signals that end the process between the temporary file's creation
     and its rename remove it; blocking them only around those two calls
     keeps the handler from seeing a name that is not yet, or no longer,
     ours.  */
  sigset_t block, saved;
  sigemptyset (&block);
  for (size_t i = 0; i < NFATAL; i++)
    sigaddset (&block, fatal_signals[i]);
  struct sigaction old[NFATAL];
  int ret = -1;
  sigprocmask (SIG_BLOCK, &block, &saved);
  for (int attempt = 0; attempt < 100 && o.fd < 0; attempt++)
    {
      temporary_name (o.tmp, sizeof o.tmp, ".elfpmd.");
      o.fd = openat (target->dirfd, o.tmp, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
		     0600);
      if (o.fd < 0 && errno != EEXIST)
	break;
    }
  if (o.fd >= 0)
    guard_temporary (target->dirfd, o.tmp, old);
  sigprocmask (SIG_SETMASK, &saved, NULL);
  if (o.fd < 0)
    return diag_set (err, "cannot create a temporary file in its directory: %s",
		     strerror (errno));
  if (write_to_temp (file, plan, &o, opts, res, err) != 0)
    goto cleanup;
  if (opts->hash && hash_both (file, o.fd, opts, res, err) != 0)
    goto cleanup;
  /* A write error that NFS reports only at close must not be renamed over
     the target.  */
  int fd = o.fd;
  o.fd = -1;
  if (close (fd) != 0)
    {
      diag_set (err, "cannot write the output: %s", strerror (errno));
      goto cleanup;
    }
  const char *why = input_changed (file, target, opts->in_place);
  if (why != NULL)
    {
      diag_set (err, "%s", why);
      goto cleanup;
    }
  sigprocmask (SIG_BLOCK, &block, &saved);
  int exchanged = !opts->sync && exchange_names (target->dirfd, o.tmp, target->base) == 0;
  if (!exchanged && renameat (target->dirfd, o.tmp, target->dirfd, target->base) != 0)
    {
      diag_set (err, "cannot replace %s: %s", target->base, strerror (errno));
      sigprocmask (SIG_SETMASK, &saved, NULL);
      goto cleanup;
    }
  /* Exchanged, the temporary name names the old file now.  */
  if (exchanged && unlinkat (target->dirfd, o.tmp, 0) != 0)
    add_warning (res, "the old contents stay as %s: cannot remove it: %s", o.tmp, strerror (errno));
  guard_temporary (-1, NULL, old);
  sigprocmask (SIG_SETMASK, &saved, NULL);
  ret = 0;
  /* The new file is in place: a directory that cannot be synced makes its
     durability unsure, which is a warning, not a failure (exit status 1
     promises the file untouched).  */
  struct diag dir_err = { "" };
  if (opts->sync && sync_directory (target->dirfd, &dir_err) != 0)
    add_warning (res, "%s", dir_err.msg);
  for (size_t i = 0; opts->in_place && i < opts->nlinks; i++)
    relink_name (file, target, &opts->links[i], opts->link_names[i], opts->sync, &block, res);
  return ret;

cleanup:
  unlinkat (target->dirfd, o.tmp, 0);
  guard_temporary (-1, NULL, old);
  if (o.fd >= 0)
    close (o.fd);
  return ret;
}

int
write_restore (struct place *pl, int cur, const struct stat *st, int orig, const struct stat *ost,
	       const char *want, struct diag *err)
{
  struct elf_file cf;
  memset (&cf, 0, sizeof cf);
  cf.name = pl->base;
  cf.fd = cur;
  cf.st = *st;
  struct ima_plan ima;
  if (ima_plan_build (&cf, &ima, err) != 0)
    return -1;
  /* A name nobody can foresee: another user who can write the directory
     could otherwise make it first and fail the revert.  */
  char tmp[64];
  int fd = -1;
  for (int tries = 0; fd < 0 && tries < 16; tries++)
    {
      uint64_t r = 0;
      if (getrandom (&r, sizeof r, 0) != (ssize_t) sizeof r)
	r ^= (uint64_t) getpid () << 32 ^ (uint64_t) tries;
      snprintf (tmp, sizeof tmp, ".elfpmd-revert.%016" PRIx64, r);
      fd = openat (pl->dirfd, tmp, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
      if (fd < 0 && errno != EEXIST)
	break;
    }
  if (fd < 0)
    return diag_set (err, "cannot create a temporary file beside it: %s", strerror (errno));
  struct diag cerr = { "" };
  int ret = 0;
  struct sha256_ctx h;
  unsigned char d[SHA256_DIGEST_SIZE];
  char got[65];
  sha256_init (&h);
  if (copy_sparse (orig, fd, &h, &cerr) != 0)
    ret = diag_set (err, "the kept original: %s", cerr.msg);
  else
    {
      sha256_digest (&h, SHA256_DIGEST_SIZE, d);
      sha256_hex (d, got);
      if (strcmp (got, want) != 0)
	ret = diag_set (err, "the kept original is not what elfpmd kept (SHA-256 %s)", got);
    }
  const struct timespec times[2] = { ost->st_atim, ost->st_mtim };
  if (ret == 0 && keep_metadata (&cf, fd, &ima, err) != 0)
    ret = -1;
  if (ret == 0 && (futimens (fd, times) != 0 || fsync (fd) != 0))
    ret = diag_set (err, "cannot write: %s", strerror (errno));
  if (close (fd) != 0 && ret == 0)
    ret = diag_set (err, "cannot write: %s", strerror (errno));
  /* The name must still be the file that was checked.  */
  struct stat now;
  if (ret == 0 && (fstatat (pl->dirfd, pl->base, &now, AT_SYMLINK_NOFOLLOW) != 0
		   || now.st_dev != st->st_dev || now.st_ino != st->st_ino))
    ret = diag_set (err, "it was replaced while being put back");
  if (ret == 0 && renameat (pl->dirfd, tmp, pl->dirfd, pl->base) != 0)
    ret = diag_set (err, "cannot replace it: %s", strerror (errno));
  if (ret != 0)
    unlinkat (pl->dirfd, tmp, 0);
  else
    fsync (pl->dirfd);
  return ret;
}
