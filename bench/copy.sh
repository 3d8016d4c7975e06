#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# copy.sh -- elfpmd --madvise=copy against Intel iodlr's remap, where the
# page cache cannot hold text in 2 MiB folios.
#
# On such a kernel or file system (ext4 before Linux 6.16, ext4 mounted
# data=journal on any kernel) the only way to put text on huge pages is to
# copy it into anonymous THP memory.  iodlr does it from a constructor (the
# "remap": copy the text aside, map anonymous memory over it, madvise
# MADV_HUGEPAGE, copy back, mprotect r-x); elfpmd's stub, with
# --madvise=copy, preads the text into populated anonymous huge pages and
# mremaps them over it.  This script measures both side by side on an ext4
# image mounted data=journal (made, loop-mounted and removed by the
# script), where the file-backed way cannot work even on a kernel with
# large folios.  Arms, all on the same mount:
#   original  a copy of the program (default gcc's cc1plus, from
#             `gcc -print-prog-name=cc1plus`);
#   iodlr     the same file run with LD_PRELOAD=remap-preload.so, built
#             here from bench/remap-preload.c (iodlr's technique as a
#             preload library; its header says what it does);
#   copy      the program rewritten with `elfpmd --madvise=copy`;
# and, for coverage only, the premise: the program rewritten with plain
# `elfpmd --madvise`, which must get no PMD mapping on this mount
# (FilePmdMapped 0): otherwise the copy would not be needed here and the
# comparison would measure something else.
#
# With -H ("here") the other side: no image, the programs are written in
# the work directory, on its own file system, which must be one where the
# file-backed way works (ext4 with large folios, Linux 6.16+; xfs; ...):
# the script checks that first, after the cache drop (a plain --madvise
# rewrite of cc1plus started twice, the second start warm, must get
# FilePmdMapped = the ideal, else it stops and says so).  There
# --madvise=copy must copy nothing and cost nothing.  The arms become:
#   original  the copy of the program, as above;
#   madvise   its plain `elfpmd --madvise` rewrite;
#   copy      its `elfpmd --madvise=copy` rewrite;
# (no iodlr arm: it copies everywhere, which is not the question here).
# Coverage then counts FilePmdMapped and AnonHugePages apart, and the size
# of anonymous executable mappings in the text: the copy arm must show
# FilePmdMapped as the madvise arm's (for cc1plus the ideal; the big PIE,
# which reaches none of its text, gets only the chunks the stub touches)
# and no anonymous text (AnonHugePages 0, no copy) in every process; the
# Pss of its PROCS processes is printed beside the madvise arm's.
# Warm start: the batches alternate ABC CBA over these three arms, and the
# key figure is the ratio copy / madvise of the medians (1.00: no cost);
# acceptance: no copy in any process, and that ratio within 0.95..1.05 for
# both invocations of cc1plus (a bound for noise, not a measured cost).
#
# Checks first that every arm behaves the same: the output (stdout and
# stderr) of `--version` (cc1plus prints nothing for it and exits 0: the
# driver prints the version) and of `-version` (cc1plus's banner and its
# executable checksum; the time report after them varies), and the assembly of a
# small C++ unit (no #include) compiled at -O2.
#
# Warm start: `cc1plus --version` and an empty translation unit
# (`-quiet -o /dev/null`, the source read from stdin /dev/null), with a
# small C helper compiled here (posix_spawn to wait4, CLOCK_MONOTONIC;
# stdin, stdout and stderr /dev/null; LD_PRELOAD set in the child's
# environment only, never in the helper's).  WARM runs of each arm in
# batches of BATCH runs of one arm, each batch after one untimed run, the
# batches alternating ABC CBA.  It prints the median, mean, minimum and
# maximum per run, the median minor/major faults, the ratios to the
# original of the medians, the overheads (ratio - 1) of iodlr and of the
# copy, and their quotient copy overhead / iodlr overhead.  Acceptance:
# that quotient at most 0.5 for both invocations of cc1plus.
#
# Coverage and memory: PROCS processes of each arm started at once, each
# reading its stdin from a pipe the helper keeps open, so that each is
# paused after its startup (blocked in read(0), seen in /proc/PID/syscall);
# then /proc/PID/smaps of each: its text mappings are its own file's
# executable mappings plus the executable anonymous mappings between its
# file's first and last mapping (the copy, iodlr's or elfpmd's, is a
# separate anonymous mapping where the text was; elfpmd's is named
# [anon:elfpmd copy of PATH]).  Coverage: AnonHugePages + FilePmdMapped of
# those mappings per process, against the ideal (the whole 2 MiB chunks
# of the text, i.e. of each run of adjacent text mappings), as min..max over the
# processes; memory: Pss of those mappings summed over the PROCS
# processes (file pages shared between them count once in all, each
# private copy in full).  It prints the text mappings of each arm's first
# process.  The helper then closes the pipes and checks that every process
# ended with status 0.
#
# With -p, a second program: a PIE with SIZE_MIB MiB of text (the shape of
# bench/seed000.sh and startup.sh's big PIE: `ret` instructions) whose main
# returns at once, or with an argument waits for end of input on stdin (for
# the paused processes); its warm start is timed with no argument.
#
# The caches are dropped once after the files are written.  Every timed
# batch and every paused measurement holds the lock (flock(1) on
# /tmp/elfpmd-bench.lock, or $ELFPMD_BENCH_LOCK), one at a time, so that
# other benchmarks taking the same lock never time anything at the same
# moment; they cannot keep other untimed work off the CPUs: on a busy
# machine use more runs.
#
# Usage: bench/copy.sh [-H] [-n WARM] [-b BATCH] [-j PROCS] [-p] [-s SIZE_MIB]
#                      [-d WORKDIR] [-k]
#   -H           here: no image; the work directory's own file system, where
#                file THP must work; arms original, madvise, copy (above)
#   -n WARM      warm runs of each arm per invocation (default 200)
#   -b BATCH     warm runs per batch (default 10; WARM is rounded up to an
#                even number of batches)
#   -j PROCS     processes per arm started at once for coverage and memory
#                (default 4)
#   -p           also measure the big PIE
#   -s SIZE_MIB  text of the big PIE in MiB (default 64)
#   -d WORKDIR   directory to work in (default: mktemp -d under /var/tmp);
#                the image (2 GiB, sparse; more with -p -s above 256) is
#                made in it and mounted at WORKDIR/mnt; with -H the
#                programs are written in WORKDIR/files
#   -k           keep the work directory (the image is unmounted anyway,
#                and kept)
#   ELFPMD=path  the tool (default: ../src/elfpmd beside this script, else
#                PATH); it must know --madvise=copy
# Needs root (mount, losetup, drop_caches), cc, gcc with cc1plus,
# mkfs.ext4, losetup, flock, THP not [never]; with -H only root
# (drop_caches), cc, gcc with cc1plus and flock.  About 15 seconds with the
# defaults, half a minute with -p (more while another benchmark holds the
# lock).

set -eu
export LC_ALL=C

WARM=200
BATCH=10
PROCS=4
BIGPIE=0
SIZE_MIB=64
WORK=
KEEP=0
OWNFS=0
while getopts 'Hn:b:j:ps:d:kh' opt; do
	case $opt in
	H) OWNFS=1 ;;
	n) WARM=$OPTARG ;;
	b) BATCH=$OPTARG ;;
	j) PROCS=$OPTARG ;;
	p) BIGPIE=1 ;;
	s) SIZE_MIB=$OPTARG ;;
	d) WORK=$OPTARG ;;
	k) KEEP=1 ;;
	*) sed -n '2,/^$/p' "$0" | sed 's/^# \{0,1\}//'; exit 64 ;;
	esac
done
shift $((OPTIND - 1))
[ $# = 0 ] || { echo "copy.sh: no arguments expected; -h for help" >&2; exit 64; }
die() { echo "copy.sh: $*" >&2; exit 1; }
for v in "$WARM" "$BATCH" "$PROCS" "$SIZE_MIB"; do
	case $v in '' | *[!0-9]*) die "-n, -b, -j and -s want numbers" ;; esac
done
[ "$WARM" -ge 1 ] && [ "$BATCH" -ge 1 ] && [ "$PROCS" -ge 1 ] && [ "$SIZE_MIB" -ge 4 ] ||
	die "-n, -b and -j want at least 1, -s at least 4"
BATCHES=$(((WARM + BATCH - 1) / BATCH))
BATCHES=$((BATCHES + BATCHES % 2))

# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"
HERE=$(cd "$(dirname "$0")" && pwd)
[ "$OWNFS" = 1 ] || [ -r "$HERE/remap-preload.c" ] || die "$HERE/remap-preload.c not found"
bench_find_elfpmd
"$ELFPMD" --help 2>&1 | grep -q -- '--madvise\[=copy\]' ||
	die "$ELFPMD does not know --madvise=copy"
command -v gcc >/dev/null || die "gcc is needed to find cc1plus"
SOURCE=$(gcc -print-prog-name=cc1plus)
[ -x "$SOURCE" ] || die "gcc has no cc1plus (g++ not installed?)"
SOURCE=$(readlink -f "$SOURCE")
LOCK=${ELFPMD_BENCH_LOCK:-/tmp/elfpmd-bench.lock}
if [ "$OWNFS" = 1 ]; then needs="cc flock"; else needs="cc flock mkfs.ext4 losetup mount umount"; fi
for c in $needs; do
	command -v "$c" >/dev/null || die "$c is needed"
done
bench_require_root_thp

bench_workdir copy
started=$SECONDS

# ------------------------------------------------------------------ the mount
# An ext4 image mounted data=journal: the page cache of its files is made of
# small folios only, on every kernel.  Unmounted and detached at exit.
# MNT is where the programs are written: the mount, or with -H a directory
# in the work directory, on its own file system.
IMG=$WORK/journal.img
MNT=$WORK/mnt
[ "$OWNFS" = 0 ] || MNT=$WORK/files
LOOPDEV=
MOUNTED=
cleanup() {
	if [ -n "$MOUNTED" ]; then
		umount "$MNT" 2>/dev/null || { sleep 1; umount "$MNT"; } || echo "copy.sh: could not unmount $MNT" >&2
	fi
	[ -z "$LOOPDEV" ] || losetup -d "$LOOPDEV" || echo "copy.sh: could not detach $LOOPDEV" >&2
	if [ "$KEEP" = 1 ]; then echo "kept $WORK"; else rm -rf "$WORK"; fi
}
trap cleanup EXIT
if [ "$OWNFS" = 1 ]; then
	mkdir "$MNT"
else
	img_mib=2048
	[ "$BIGPIE" = 0 ] || [ $((512 + 8 * SIZE_MIB)) -le "$img_mib" ] || img_mib=$((512 + 8 * SIZE_MIB))
	truncate -s "${img_mib}M" "$IMG"
	mkfs.ext4 -q -F "$IMG" || die "mkfs.ext4 $IMG failed"
	LOOPDEV=$(losetup --find --show "$IMG") || { LOOPDEV=; die "no loop device for $IMG"; }
	mkdir "$MNT"
	mount -o data=journal "$LOOPDEV" "$MNT" || die "mount -o data=journal $LOOPDEV failed"
	MOUNTED=1
	grep -q " $MNT ext4 [^ ]*data=journal" /proc/mounts || die "$MNT is not mounted data=journal: $(grep " $MNT " /proc/mounts)"
fi

echo "elfpmd:   $ELFPMD ($("$ELFPMD" --version 2>/dev/null | head -n 1))"
echo "work dir: $WORK ($(df -T "$WORK" | awk 'NR == 2 { print $2 " on " $1 }'))"
# fs_of DIR: the type, options and mount point of DIR's file system.
fs_of() { { findmnt -n -o FSTYPE,OPTIONS,TARGET -T "$1" 2>/dev/null || stat -f -c %T "$1"; } | tail -n 1 | tr -s ' '; }
if [ "$OWNFS" = 1 ]; then
	echo "here:     $MNT, on the work directory's file system: $(fs_of "$MNT") (-H)"
else
	echo "mount:    $MNT: $(awk -v m="$MNT" '$2 == m { print $3 " " $4 }' /proc/mounts) on $LOOPDEV (${img_mib} MiB image)"
fi
echo "kernel:   $(uname -r), $(nproc) CPUs, THP $(cat "$thp"), defrag $(cat /sys/kernel/mm/transparent_hugepage/defrag), lock $LOCK"

# ------------------------------------------------------------------ helpers
cd "$WORK"
cat >textprobe.c <<'EOF'
/* textprobe [-e NAME=VALUE] [-j PROCS] [-v] PROG [ARG...]: start PROCS
   copies of PROG ARG... at once, each with its stdin the read end of its
   own pipe (stdout and stderr /dev/null) and NAME=VALUE added to its
   environment (not to ours); wait until each is blocked in read(0, ...)
   (/proc/PID/syscall), i.e. done with its startup and waiting for input;
   then print for each one line
     PID PSS_KB RSS_KB ANONHUGE_KB FILEPMD_KB IDEAL_KB SIZE_KB NMAPS ANONX_KB
   summed over its text mappings: the executable mappings of its own file
   (/proc/PID/exe) and the executable anonymous mappings (no path, or
   [anon:NAME]) between the first and the last mapping of its file, where
   a copy of the text replaced the file mapping; IDEAL_KB is the whole
   2 MiB chunks of each run of adjacent text mappings (the text; a
   separate small segment such as elfpmd's stub has none); ANONX_KB the
   size of those anonymous ones (0: nothing copied).  With -v,
   before the first process's line, its text mappings one a line:
     "  LO-HI PERMS SIZE_KB RSS_KB PSS_KB ANONHUGE_KB FILEPMD_KB NAME".
   Then close the pipes (end of input: the programs go on and end) and wait
   for all.  Exit 1 when one did not block within 60 s or did not exit 0.  */
#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define PMD (2ul << 20)
#define MAXMAPS 8192

extern char **environ;
static char **child_env;

struct map
{
  unsigned long lo, hi, rss, pss, anonhuge, filepmd;
  char perms[8];
  char name[512];
};
static struct map maps[MAXMAPS];

static void
add_env (const char *kv)
{
  size_t n = 0, name = strcspn (kv, "=") + 1, k = 0;
  while (environ[n] != NULL)
    n++;
  child_env = calloc (n + 2, sizeof *child_env);
  if (child_env == NULL)
    exit (1);
  for (size_t i = 0; i < n; i++)
    if (strncmp (environ[i], kv, name) != 0)
      child_env[k++] = environ[i];
  child_env[k] = (char *) kv;
}

/* Whether PID is blocked reading fd 0.  */
static int
blocked_in_read (pid_t pid)
{
  char path[64], buf[256], want[32];
  snprintf (path, sizeof path, "/proc/%d/syscall", (int) pid);
  int fd = open (path, O_RDONLY);
  if (fd < 0)
    return 0;
  ssize_t n = read (fd, buf, sizeof buf - 1);
  close (fd);
  if (n <= 0)
    return 0;
  buf[n] = '\0';
  int w = snprintf (want, sizeof want, "%d 0x0 ", (int) SYS_read);
  return strncmp (buf, want, (size_t) w) == 0;
}

static int
report (pid_t pid, int verbose)
{
  char path[64], exe[4096], line[8192];
  snprintf (path, sizeof path, "/proc/%d/exe", (int) pid);
  ssize_t e = readlink (path, exe, sizeof exe - 1);
  if (e < 0)
    return -1;
  exe[e] = '\0';
  snprintf (path, sizeof path, "/proc/%d/smaps", (int) pid);
  FILE *f = fopen (path, "r");
  if (f == NULL)
    return -1;
  int n = 0;
  struct map *m = NULL;
  while (fgets (line, sizeof line, f) != NULL)
    {
      unsigned long lo, hi, kb;
      char perms[8];
      int at = 0;
      if (sscanf (line, "%lx-%lx %7s %*s %*s %*s %n", &lo, &hi, perms, &at) == 3 && at > 0)
	{
	  if (n == MAXMAPS)
	    break;
	  m = &maps[n++];
	  memset (m, 0, sizeof *m);
	  m->lo = lo;
	  m->hi = hi;
	  strcpy (m->perms, perms);
	  line[strcspn (line, "\n")] = '\0';
	  snprintf (m->name, sizeof m->name, "%s", line + at);
	}
      else if (m == NULL)
	continue;
      else if (sscanf (line, "Rss: %lu kB", &kb) == 1)
	m->rss = kb;
      else if (sscanf (line, "Pss: %lu kB", &kb) == 1)
	m->pss = kb;
      else if (sscanf (line, "AnonHugePages: %lu kB", &kb) == 1)
	m->anonhuge = kb;
      else if (sscanf (line, "FilePmdMapped: %lu kB", &kb) == 1)
	m->filepmd = kb;
    }
  fclose (f);
  unsigned long span_lo = ~0ul, span_hi = 0;
  for (int i = 0; i < n; i++)
    if (strcmp (maps[i].name, exe) == 0)
      {
	if (maps[i].lo < span_lo)
	  span_lo = maps[i].lo;
	if (maps[i].hi > span_hi)
	  span_hi = maps[i].hi;
      }
  unsigned long pss = 0, rss = 0, ah = 0, fp = 0, size = 0, ideal = 0, run_lo = 0, run_hi = 0;
  unsigned long anonx = 0;
  int count = 0;
  for (int i = 0; i < n; i++)
    {
      struct map *t = &maps[i];
      int anon = t->name[0] == '\0' || strncmp (t->name, "[anon:", 6) == 0;
      if (t->perms[2] != 'x'
	  || !(strcmp (t->name, exe) == 0 || (anon && t->lo >= span_lo && t->hi <= span_hi)))
	continue;
      count++;
      pss += t->pss;
      rss += t->rss;
      ah += t->anonhuge;
      fp += t->filepmd;
      size += (t->hi - t->lo) >> 10;
      if (anon)
	anonx += (t->hi - t->lo) >> 10;
      /* smaps is in address order: a run of adjacent text mappings ends
	 where the next one does not start at its end.  */
      if (t->lo != run_hi)
	{
	  if (run_hi / PMD > (run_lo + PMD - 1) / PMD)
	    ideal += run_hi / PMD - (run_lo + PMD - 1) / PMD;
	  run_lo = t->lo;
	}
      run_hi = t->hi;
      if (verbose)
	printf ("  %lx-%lx %s %lu %lu %lu %lu %lu %s\n", t->lo, t->hi, t->perms,
		(t->hi - t->lo) >> 10, t->rss, t->pss, t->anonhuge, t->filepmd,
		t->name[0] ? t->name : "[anon]");
    }
  if (run_hi / PMD > (run_lo + PMD - 1) / PMD)
    ideal += run_hi / PMD - (run_lo + PMD - 1) / PMD;
  printf ("%d %lu %lu %lu %lu %lu %lu %d %lu\n", (int) pid, pss, rss, ah, fp, ideal * (PMD >> 10),
	  size, count, anonx);
  return 0;
}

int
main (int argc, char **argv)
{
  int opt, procs = 1, verbose = 0, failed = 0;
  child_env = environ;
  while ((opt = getopt (argc, argv, "+e:j:v")) != -1)
    switch (opt)
      {
      case 'e': add_env (optarg); break;
      case 'j': procs = atoi (optarg); break;
      case 'v': verbose = 1; break;
      default: return 64;
      }
  if (optind >= argc || procs < 1)
    return 64;
  pid_t *pid = calloc ((size_t) procs, sizeof *pid);
  int *wfd = calloc ((size_t) procs, sizeof *wfd);
  if (pid == NULL || wfd == NULL)
    return 1;
  signal (SIGPIPE, SIG_IGN);
  for (int i = 0; i < procs; i++)
    {
      int p[2];
      if (pipe2 (p, O_CLOEXEC) != 0)
	return 1;
      posix_spawn_file_actions_t fa;
      posix_spawn_file_actions_init (&fa);
      posix_spawn_file_actions_adddup2 (&fa, p[0], 0);
      posix_spawn_file_actions_addopen (&fa, 1, "/dev/null", O_WRONLY, 0);
      posix_spawn_file_actions_addopen (&fa, 2, "/dev/null", O_WRONLY, 0);
      int err = posix_spawn (&pid[i], argv[optind], &fa, NULL, argv + optind, child_env);
      posix_spawn_file_actions_destroy (&fa);
      close (p[0]);
      wfd[i] = p[1];
      if (err != 0)
	{
	  fprintf (stderr, "textprobe: %s: %s\n", argv[optind], strerror (err));
	  procs = i;
	  failed = 1;
	  break;
	}
    }
  struct timespec t0, t;
  clock_gettime (CLOCK_MONOTONIC, &t0);
  for (int i = 0; i < procs && !failed; i++)
    while (!blocked_in_read (pid[i]))
      {
	int status;
	clock_gettime (CLOCK_MONOTONIC, &t);
	if (waitpid (pid[i], &status, WNOHANG) == pid[i])
	  {
	    fprintf (stderr, "textprobe: %s ended (status 0x%x) before reading its input\n",
		     argv[optind], (unsigned) status);
	    pid[i] = 0;
	    failed = 1;
	    break;
	  }
	if (t.tv_sec - t0.tv_sec > 60)
	  {
	    fprintf (stderr, "textprobe: %s did not block reading its input in 60 s\n", argv[optind]);
	    failed = 1;
	    break;
	  }
	usleep (1000);
      }
  for (int i = 0; i < procs && !failed; i++)
    if (report (pid[i], verbose && i == 0) != 0)
      {
	fprintf (stderr, "textprobe: cannot read /proc/%d\n", (int) pid[i]);
	failed = 1;
      }
  fflush (stdout);
  for (int i = 0; i < procs; i++)
    close (wfd[i]);
  for (int i = 0; i < procs; i++)
    {
      int status;
      if (pid[i] != 0 && (waitpid (pid[i], &status, 0) != pid[i]
			  || !WIFEXITED (status) || WEXITSTATUS (status) != 0))
	{
	  fprintf (stderr, "textprobe: %s (pid %d) did not exit 0\n", argv[optind], (int) pid[i]);
	  failed = 1;
	}
    }
  return failed;
}
EOF
cc -O2 -Wall -o runtimer "$HERE/runtimer.c"
cc -O2 -Wall -o textprobe textprobe.c
[ "$OWNFS" = 1 ] || cc -O2 -Wall -shared -fPIC -o remap-preload.so "$HERE/remap-preload.c"
PRELOAD=LD_PRELOAD=$WORK/remap-preload.so

# ------------------------------------------------------------------ programs
# prepare NAME SOURCE: MNT/NAME/original, a copy of SOURCE;
# MNT/NAME/copy, its `elfpmd --madvise=copy` rewrite; MNT/NAME/madvise,
# its plain `elfpmd --madvise` rewrite (the premise; with -H an arm);
# print elfpmd's view.
prepare() {
	local name=$1 dir=$MNT/$1 json chunks
	mkdir "$dir"
	cp "$2" "$dir/original"
	json=$("$ELFPMD" -n --json --madvise=copy "$dir/original")
	case $json in
	*'"status":"would change"'*'"stub":{"injected":true'*'"copy":true'*) ;;
	*) echo "elfpmd -n --madvise=copy would not inject a copying stub into $2; its report:" >&2
		"$ELFPMD" -n --madvise=copy "$dir/original" >&2 || true
		exit 1 ;;
	esac
	chunks=$(echo "$json" | sed -n 's/.*"stub":{[^}]*"chunks":\([0-9]*\).*/\1/p')
	"$ELFPMD" -q --madvise=copy -o "$dir/copy" "$dir/original"
	"$ELFPMD" -q --madvise -o "$dir/madvise" "$dir/original"
	printf '%s: %s, %d MiB; the stub works on %d chunks of 2 MiB (%d MiB)\n' "$name" "$2" \
		$(($(stat -c %s "$2") >> 20)) "$chunks" $((chunks * 2))
}

PROGRAMS=(cc1plus)
prepare cc1plus "$SOURCE"
if [ "$BIGPIE" = 1 ]; then
	cat >big.S <<EOF
	.section .text.big, "ax", @progbits
	.p2align 12
big_text:
	.fill	$SIZE_MIB << 20, 1, 0xc3
	.section .note.GNU-stack, "", @progbits
EOF
	cat >bigmain.c <<'EOF'
#include <unistd.h>
/* Returns at once; with an argument, first reads stdin to its end.  */
int
main (int argc, char **argv)
{
  char buf[4096];
  (void) argv;
  if (argc > 1)
    while (read (0, buf, sizeof buf) > 0)
      ;
  return 0;
}
EOF
	cc -O2 -fPIE -pie -Wl,-z,noexecstack -o bigpie.elf bigmain.c big.S
	prepare pie "$WORK/bigpie.elf"
	rm -f bigpie.elf big.S bigmain.c
	PROGRAMS+=(pie)
fi
sync

# ------------------------------------------------------------------ runs
# locked COMMAND...: run COMMAND under the lock (one measurement).
locked() {
	{
		flock -w 3600 9 || die "could not take the lock $LOCK in an hour"
		"$@" 9>&-
	} 9>>"$LOCK"
}
locked sh -c 'sync; echo 3 >/proc/sys/vm/drop_caches'

# With -H, first the premise of the other side: the file-backed way works
# here.  The plain --madvise rewrite of cc1plus started once (cold: its
# stub puts the text in PMD folios) and once more, warm and paused, must
# have FilePmdMapped = the ideal.
if [ "$OWNFS" = 1 ]; then
	locked ./textprobe -j 1 "$MNT/cc1plus/madvise" -quiet -o /dev/null >/dev/null ||
		die "the --madvise rewrite of cc1plus failed in $MNT"
	out=$(locked ./textprobe -j 1 "$MNT/cc1plus/madvise" -quiet -o /dev/null) ||
		die "the --madvise rewrite of cc1plus failed in $MNT"
	read -r _ _ _ ah fp ideal _ <<<"$out"
	[ "$fp" = "$ideal" ] ||
		die "-H needs a file system where file-backed THP works, and $MNT ($(fs_of "$MNT"), Linux $(uname -r)) is not one: a plain --madvise rewrite of cc1plus, started warm, got FilePmdMapped $fp kB of the ideal $ideal (AnonHugePages $ah); give -d a directory on one (xfs, or ext4 on Linux 6.16+, not data=journal), or run without -H"
	echo "premise (-H): file-backed THP works here: a plain --madvise rewrite of cc1plus, warm, has FilePmdMapped $fp of $ideal kB"
fi

# arm_cmd PROG ARM: the runtimer/textprobe options and path of ARM.
# ARMS: the timed arms; PROBED: the arms checked and probed.
if [ "$OWNFS" = 1 ]; then
	ARMS=(original madvise copy)
	PROBED=(original madvise copy)
else
	ARMS=(original iodlr copy)
	PROBED=(original iodlr copy madvise)
fi
arm_opts() {
	case $2 in
	iodlr) echo "-e $PRELOAD $MNT/$1/original" ;;
	*) echo "$MNT/$1/$2" ;;
	esac
}
arm_label() {
	case $1 in
	original) echo "original" ;;
	iodlr) echo "iodlr remap" ;;
	copy) echo "elfpmd --madvise=copy" ;;
	madvise) if [ "$OWNFS" = 1 ]; then echo "elfpmd --madvise"; else echo "elfpmd --madvise (premise)"; fi ;;
	esac
}

# Identical behaviour: the output of --version and -version, and the
# assembly of a small unit.
cat >unit.cc <<'EOF'
template <typename T, int N> struct vec { T v[N]; T sum () const { T s = T (); for (int i = 0; i < N; i++) s += v[i] * (i + 1); return s; } };
template <typename T> T twice (T x) { return x + x; }
int f (const vec<int, 8> &a, const vec<double, 3> &b) { return twice (a.sum ()) + (int) b.sum (); }
struct base { virtual ~base () {} virtual int g (int) const = 0; };
struct d1 : base { int g (int x) const override { return x * 3 + 1; } };
int h (const base &b, int n) { int s = 0; for (int i = 0; i < n; i++) s += b.g (i); return s; }
int k () { d1 d; return h (d, 10); }
EOF
echo
echo "== identical behaviour"
for prog in "${PROGRAMS[@]}"; do
	for arm in "${PROBED[@]}"; do
		if [ "$arm" = iodlr ]; then bin=$MNT/$prog/original; env=$PRELOAD; else bin=$MNT/$prog/$arm; env=; fi
		if [ "$prog" = cc1plus ]; then
			env ${env:+"$env"} "$bin" --version </dev/null >"version.$arm" 2>&1 || die "$arm: cc1plus --version failed"
			env ${env:+"$env"} "$bin" -version -o /dev/null </dev/null >"version.tmp" 2>&1 ||
				die "$arm: cc1plus -version failed"
			sed '/^Compiler executable checksum/q' version.tmp >>"version.$arm"
			env ${env:+"$env"} "$bin" -quiet -O2 -o "unit.$arm.s" <unit.cc >/dev/null 2>&1 || die "$arm: cc1plus failed on unit.cc"
			cmp -s version.original "version.$arm" || die "$(arm_label "$arm"): --version or -version output differs from the original's"
			cmp -s unit.original.s "unit.$arm.s" || die "$(arm_label "$arm"): assembly of unit.cc differs from the original's"
		else
			env ${env:+"$env"} "$bin" </dev/null || die "$(arm_label "$arm"): $prog failed"
		fi
	done
	if [ "$prog" = cc1plus ]; then
		echo "  cc1plus --version and -version: same output in all arms ($(grep -c . version.original) lines: $(grep -m 1 . version.original | cut -c 1-50)...)"
		echo "  cc1plus -O2 of a small unit: same assembly in all arms ($(wc -l <unit.original.s) lines)"
	else
		echo "  $prog: exits 0 in all arms"
	fi
done

# probe PROG ARM: PROCS paused processes of ARM (after one untimed run of
# the same kind); prints their text mappings and a summary; sets
# COV_<prog>_<arm> "min max ideal" (coverage kB per process),
# PSS_<prog>_<arm> (kB summed) and SPLIT_<prog>_<arm> "FilePmdMapped min
# max, AnonHugePages min max, anonymous text max" (kB per process; printed
# with -H).
probe() {
	local prog=$1 arm=$2 args out
	# shellcheck disable=SC2046 # options are words
	set -- $(arm_opts "$prog" "$arm")
	if [ "$prog" = cc1plus ]; then args=(-quiet -o /dev/null); else args=(wait); fi
	locked ./textprobe -j 1 "$@" "${args[@]}" >/dev/null || die "$prog $arm: the paused process failed"
	out=$(locked ./textprobe -v -j "$PROCS" "$@" "${args[@]}") || die "$prog $arm: the paused processes failed"
	echo "  $(arm_label "$arm"): $PROCS processes; the first one's text mappings (start-end perms size rss pss AnonHuge FilePmd, kB):"
	echo "$out" | grep '^  ' | sed 's/^/  /'
	echo "$out" | grep -v '^  ' | awk -v arm="$arm" -v prog="$prog" -v splitv="$OWNFS" '
		{ c = $4 + $5; if (NR == 1 || c < lo) lo = c; if (c > hi) hi = c; pss += $2; rss += $3; ideal = $6
		  if (NR == 1 || $5 < fplo) fplo = $5; if ($5 > fphi) fphi = $5
		  if (NR == 1 || $4 < ahlo) ahlo = $4; if ($4 > ahhi) ahhi = $4; if ($9 > axhi) axhi = $9 }
		END { printf "    coverage (AnonHugePages + FilePmdMapped) per process %d..%d of ideal %d kB; Pss of text, %d processes %.1f MiB (Rss %.1f MiB)\n",
			lo, hi, ideal, NR, pss / 1024, rss / 1024
			if (splitv)
				printf "    per process: FilePmdMapped %d..%d kB, AnonHugePages %d..%d kB, anonymous text mappings at most %d kB; Pss %d kB\n",
					fplo, fphi, ahlo, ahhi, axhi, pss
			printf "COV_%s_%s=\"%d %d %d\"; PSS_%s_%s=%d; SPLIT_%s_%s=\"%d %d %d %d %d\"\n", prog, arm, lo, hi, ideal, prog, arm, pss,
				prog, arm, fplo, fphi, ahlo, ahhi, axhi > "probe.vars" }'
	# shellcheck disable=SC1091
	. ./probe.vars
}

# stats FILE: "median mean min max" of the first column (ms), and the
# median of the second and third (page faults).
stats() {
	local med
	med=$(sort -g "$1" | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }')
	awk -v med="$med" '{ s += $1; if (NR == 1 || $1 < lo) lo = $1; if ($1 > hi) hi = $1 } END {
		printf "%.3f %.3f %.3f %.3f", med * 1000, s / NR * 1000, lo * 1000, hi * 1000 }' "$1"
	for c in 2 3; do
		printf ' %s' "$(awk -v c="$c" '{ print $c }' "$1" | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')"
	done
}

declare -a SUMMARY=() COVSUM=()
QUOTIENTS=
NOCOPY=PASS
for prog in "${PROGRAMS[@]}"; do
	echo
	echo "== $prog: coverage and memory, paused after the startup"
	for arm in "${PROBED[@]}"; do
		probe "$prog" "$arm"
	done
	for arm in "${PROBED[@]}"; do
		v=COV_${prog}_$arm p=PSS_${prog}_$arm sp=SPLIT_${prog}_$arm
		read -r lo hi ideal <<<"${!v}"
		if [ "$OWNFS" = 1 ]; then
			read -r fplo fphi ahlo ahhi axhi <<<"${!sp}"
			COVSUM+=("$(printf '%-8s %-22s FilePmdMapped %6d..%-6d AnonHugePages %d..%d anonymous text %d, of %6d kB   Pss of %d: %7.1f MiB (%d kB)' \
				"$prog" "$(arm_label "$arm")" "$fplo" "$fphi" "$ahlo" "$ahhi" "$axhi" "$ideal" "$PROCS" \
				"$(awk -v p="${!p}" 'BEGIN { print p / 1024 }')" "${!p}")")
		else
			COVSUM+=("$(printf '%-8s %-28s coverage %6d..%-6d of %6d kB   Pss of %d: %7.1f MiB' \
				"$prog" "$(arm_label "$arm")" "$lo" "$hi" "$ideal" "$PROCS" "$(awk -v p="${!p}" 'BEGIN { print p / 1024 }')")")
		fi
	done
	if [ "$OWNFS" = 1 ]; then
		v=SPLIT_${prog}_madvise
		read -r mfplo mfphi _ _ _ <<<"${!v}"
		v=COV_${prog}_madvise
		read -r lo hi ideal <<<"${!v}"
		if [ "$mfplo" = "$ideal" ]; then
			echo "  plain --madvise reaches the ideal in every process ($ideal kB FilePmdMapped)"
		else
			echo "  NOTE: plain --madvise PMD-maps $mfplo..$mfphi of $ideal kB here (the stub leaves a chunk nothing of which is cached to the program's own first fault there, and $prog does not reach all its text)"
		fi
		v=SPLIT_${prog}_copy
		read -r fplo fphi ahlo ahhi axhi <<<"${!v}"
		if [ "$fplo $fphi" = "$mfplo $mfphi" ] && [ "$ahhi" = 0 ] && [ "$axhi" = 0 ]; then
			echo "  no copy: elfpmd --madvise=copy has FilePmdMapped $fplo..$fphi of $ideal kB, as plain --madvise, and no anonymous text (AnonHugePages 0) in every process"
		else
			echo "  NOT AS --madvise: elfpmd --madvise=copy has FilePmdMapped $fplo..$fphi of $ideal kB (plain --madvise $mfplo..$mfphi), AnonHugePages up to $ahhi kB, anonymous text up to $axhi kB"
			NOCOPY=FAIL
		fi
		p=PSS_${prog}_copy q=PSS_${prog}_madvise
		echo "  Pss of the text, $PROCS processes: copy ${!p} kB, madvise ${!q} kB (copy - madvise: $((${!p} - ${!q})) kB)"
	else
		v=COV_${prog}_madvise
		read -r lo hi ideal <<<"${!v}"
		if [ "$hi" = 0 ]; then
			echo "  premise: plain --madvise gets no PMD mapping here (0 kB of $ideal): the copy is the only way"
		else
			echo "  PREMISE FAILS: plain --madvise got $lo..$hi kB of $ideal PMD-mapped on this mount"
		fi
		v=COV_${prog}_iodlr
		read -r lo hi ideal <<<"${!v}"
		if [ "$lo" = "$ideal" ]; then
			echo "  iodlr's remap reaches the ideal in every process ($ideal kB AnonHugePages)"
		else
			echo "  NOTE: iodlr's remap reached only $lo of $ideal kB: the comparison is not fair"
		fi
		v=COV_${prog}_copy
		read -r lo hi ideal <<<"${!v}"
		if [ "$lo" = "$ideal" ]; then
			echo "  elfpmd --madvise=copy reaches the ideal in every process ($ideal kB)"
		else
			echo "  NOTE: elfpmd --madvise=copy reached only $lo of $ideal kB"
		fi
	fi

	if [ "$prog" = pie ]; then invs=(""); else invs=("--version" "-quiet -o /dev/null"); fi
	for inv in "${invs[@]}"; do
		label="$prog${inv:+ $inv}"
		echo
		echo "== $label: warm start"
		rm -f warm.*
		for ((k = 0; k < BATCHES; k++)); do
			# ABC CBA
			if [ $((k % 2)) = 0 ]; then order="${ARMS[0]} ${ARMS[1]} ${ARMS[2]}"; else order="${ARMS[2]} ${ARMS[1]} ${ARMS[0]}"; fi
			for arm in $order; do
				# shellcheck disable=SC2046,SC2086 # options and INVOCATION are words
				locked ./runtimer -w 1 -n "$BATCH" $(arm_opts "$prog" "$arm") $inv >>"warm.$arm" ||
					die "$label, $arm failed"
			done
		done
		printf '  %4d runs each              median    mean     min     max (ms)  faults minor/major (median)\n' \
			"$(wc -l <warm.original)"
		for arm in "${ARMS[@]}"; do
			read -r m a l h f j <<<"$(stats "warm.$arm")"
			printf '    %-22s %9.3f %7.3f %7.3f %7.3f   %6d/%d\n' "$(arm_label "$arm")" "$m" "$a" "$l" "$h" "$f" "$j"
			eval "MED_$arm=$m"
		done
		if [ "$OWNFS" = 1 ]; then
			# shellcheck disable=SC2154 # MED_* are set by the eval above
			read -r rmad rc q <<<"$(awk -v o="$MED_original" -v m="$MED_madvise" -v c="$MED_copy" 'BEGIN {
				printf "%.3f %.3f %.3f", m / o, c / o, c / m }')"
			printf '  ratios to the original (medians): madvise %s, copy %s; copy/madvise %s\n' "$rmad" "$rc" "$q"
			SUMMARY+=("$(printf '%-28s original %7.3f ms  madvise %6.3fx  copy %6.3fx  copy/madvise %s' \
				"$label" "$MED_original" "$rmad" "$rc" "$q")")
		else
			# shellcheck disable=SC2154 # MED_* are set by the eval above
			line=$(awk -v o="$MED_original" -v i="$MED_iodlr" -v c="$MED_copy" 'BEGIN {
				ri = i / o; rc = c / o
				printf "%.3f %.3f %.3f %.3f ", ri, rc, ri - 1, rc - 1
				if (ri > 1) printf "%.3f", (rc - 1) / (ri - 1); else printf "n/a" }')
			read -r ri rc oi oc q <<<"$line"
			printf '  ratios to the original (medians): iodlr %s, copy %s; overheads: iodlr %s, copy %s; copy/iodlr overhead %s\n' \
				"$ri" "$rc" "$oi" "$oc" "$q"
			SUMMARY+=("$(printf '%-28s original %7.3f ms  iodlr %6.3fx  copy %6.3fx  overhead iodlr %6.3f copy %6.3f  quotient %s' \
				"$label" "$MED_original" "$ri" "$rc" "$oi" "$oc" "$q")")
		fi
		[ "$prog" = cc1plus ] && QUOTIENTS+="$q "
	done
done

echo
if [ "$OWNFS" = 1 ]; then
	echo "summary (-H, warm start, medians; ratios to the original, and copy/madvise = the copy's median / the madvise rewrite's):"
else
	echo "summary (warm start, medians; overhead = ratio to the original - 1; quotient = copy overhead / iodlr overhead):"
fi
printf '  %s\n' "${SUMMARY[@]}"
echo "coverage (per process, kB) and Pss of the text mappings of $PROCS processes at once:"
printf '  %s\n' "${COVSUM[@]}"
if [ "$OWNFS" = 1 ]; then
	echo "acceptance (-H): no copy where the file-backed way works (copy arm: FilePmdMapped as plain --madvise's, no anonymous text, in every process): $NOCOPY"
	echo "$QUOTIENTS" | awk '{ lo = hi = $1; for (i = 2; i <= NF; i++) { if ($i < lo) lo = $i; if ($i > hi) hi = $i }
		printf "acceptance (-H): no cost change: copy/madvise of the medians for cc1plus %s..%s, within 0.95..1.05: %s\n",
			lo, hi, (lo >= 0.95 && hi <= 1.05 ? "PASS" : "FAIL") }'
else
	echo "$QUOTIENTS" | awk '{ w = $1; for (i = 2; i <= NF; i++) if ($i == "n/a" || (w != "n/a" && $i > w)) w = $i
		printf "acceptance: elfpmd --madvise=copy overhead at most half of iodlr'"'"'s for cc1plus: worst quotient %s: %s\n",
			w, (w == "n/a" ? "FAIL (n/a: iodlr not slower than the original)" : w <= 0.5 ? "PASS" : "FAIL") }'
fi
echo "runtime of this script: $((SECONDS - started)) s"
