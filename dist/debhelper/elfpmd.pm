#!/usr/bin/perl
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# The elfpmd sequence add-on for dh(1): "dh $@ --with elfpmd", a build
# dependency on dh-sequence-elfpmd, or DH_EXTRA_ADDONS=elfpmd in the build
# environment.
#
# dh_elfpmd runs right before dh_strip (after dh_dwz): elfpmd rewrites the
# files dh_dwz left, so that the debug files dh_strip then extracts
# describe the rewritten layout (gdb and eu-unstrip match their sections,
# the stub's included); GNU strip keeps the alignment and the stub; and it
# runs before dh_makeshlibs, dh_shlibdeps and dh_md5sums read the files.
#
# dh_elfpmd_buildtree runs right before dh_auto_test: it rewrites the
# programs and libraries the build made in the build tree, so that the
# package's own tests run the rewritten files; dh_elfpmd_buildtree_restore,
# right after it, puts the files as built back, which the package is made
# of (dh_dwz refuses a file with the stub).

use strict;
use warnings;
use Debian::Debhelper::Dh_Lib;

insert_before('dh_strip', 'dh_elfpmd');
insert_before('dh_auto_test', 'dh_elfpmd_buildtree');
insert_after('dh_auto_test', 'dh_elfpmd_buildtree_restore');

1;
