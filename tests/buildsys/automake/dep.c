/* SPDX-License-Identifier: GPL-3.0-or-later
   Copyright (C) 2026 The elfpmd authors  */
/* A second libtool library that libbig links: libtool relinks libbig when
   it installs it.  */
int
big_dep (void)
{
  return 0;
}
