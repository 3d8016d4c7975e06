#!/usr/bin/perl
# The elfpmd sequence add-on for dh(1): "dh $@ --with elfpmd", a build
# dependency on dh-sequence-elfpmd, or DH_EXTRA_ADDONS=elfpmd in the build
# environment.  dh_elfpmd runs right after dh_strip (which runs after
# dh_dwz): elfpmd rewrites the final, stripped files, after the debug files
# were extracted, and before dh_makeshlibs, dh_shlibdeps and dh_md5sums
# read them.

use strict;
use warnings;
use Debian::Debhelper::Dh_Lib;

insert_after('dh_strip', 'dh_elfpmd');

1;
