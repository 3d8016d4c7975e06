/* SPDX-License-Identifier: GPL-3.0-or-later
   Copyright (C) 2026 The elfpmd authors  */
/* elfpmd's default verb: rewrite the files named.  */
#ifndef ELFPMD_REWRITE_H
#define ELFPMD_REWRITE_H

/* The command line "elfpmd [OPTION...] FILE..." (ARGV[0] the program's
   name): parse it, process the files, return the exit status.  */
int rewrite_command (int argc, char **argv);

#endif
