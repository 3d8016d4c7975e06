/* SPDX-License-Identifier: GPL-3.0-or-later
   Copyright (C) 2026 The elfpmd authors  */
/* The prefix of every message (diag.h).  */
#include <config.h>

#include "diag.h"

const char *diag_program = "elfpmd";
