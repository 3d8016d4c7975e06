/* SPDX-License-Identifier: GPL-3.0-or-later
   Copyright (C) 2026 The elfpmd authors  */
/* runtimer.c -- the timing helper of bench/startup.sh and bench/copy.sh,
   compiled by them into their work directory.

   runtimer [-d] [-e NAME=VALUE] [-w WARMUPS] [-n RUNS] PROG [ARG...]: run
   PROG (a path) WARMUPS times untimed, then RUNS times timed, with stdin,
   stdout and stderr on /dev/null and NAME=VALUE added to its environment
   (not to ours); with -d, sync() and drop the page cache before each
   timed run (untimed).  For each timed run print "SECONDS MINFLT MAJFLT":
   wall time from just before posix_spawn to wait4's return
   (CLOCK_MONOTONIC), and the child's page faults.  Exit 1 when a run
   fails.  */
#define _GNU_SOURCE
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;
static char **child_env;

/* child_env: environ with NAME=VALUE instead of any NAME=...  */
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

static int
run (char **argv, double *seconds, struct rusage *ru)
{
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init (&fa);
  posix_spawn_file_actions_addopen (&fa, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen (&fa, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen (&fa, 2, "/dev/null", O_WRONLY, 0);
  struct timespec t0, t1;
  pid_t pid;
  int status;
  clock_gettime (CLOCK_MONOTONIC, &t0);
  int err = posix_spawn (&pid, argv[0], &fa, NULL, argv, child_env);
  if (err == 0 && wait4 (pid, &status, 0, ru) != pid)
    err = -1;
  clock_gettime (CLOCK_MONOTONIC, &t1);
  posix_spawn_file_actions_destroy (&fa);
  if (err != 0)
    {
      fprintf (stderr, "runtimer: %s: %s\n", argv[0], err > 0 ? strerror (err) : "wait failed");
      return -1;
    }
  if (!WIFEXITED (status) || WEXITSTATUS (status) != 0)
    {
      fprintf (stderr, "runtimer: %s: exit status 0x%x\n", argv[0], (unsigned) status);
      return -1;
    }
  *seconds = (double) (t1.tv_sec - t0.tv_sec) + (double) (t1.tv_nsec - t0.tv_nsec) * 1e-9;
  return 0;
}

int
main (int argc, char **argv)
{
  int drop = 0, opt;
  long warmups = 0, runs = 1;
  child_env = environ;
  while ((opt = getopt (argc, argv, "+de:w:n:")) != -1)
    switch (opt)
      {
      case 'd': drop = 1; break;
      case 'e': add_env (optarg); break;
      case 'w': warmups = atol (optarg); break;
      case 'n': runs = atol (optarg); break;
      default: return 64;
      }
  if (optind >= argc)
    return 64;
  double s;
  struct rusage ru;
  for (long i = 0; i < warmups; i++)
    if (run (argv + optind, &s, &ru) != 0)
      return 1;
  for (long i = 0; i < runs; i++)
    {
      if (drop)
	{
	  sync ();
	  int fd = open ("/proc/sys/vm/drop_caches", O_WRONLY);
	  if (fd < 0 || write (fd, "3\n", 2) != 2)
	    {
	      perror ("/proc/sys/vm/drop_caches");
	      return 1;
	    }
	  close (fd);
	}
      if (run (argv + optind, &s, &ru) != 0)
	return 1;
      printf ("%.6f %ld %ld\n", s, ru.ru_minflt, ru.ru_majflt);
    }
  return 0;
}
