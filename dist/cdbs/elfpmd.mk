# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# -*- mode: makefile; coding: utf-8 -*-
# Description: align the text of ELF programs and libraries for huge pages
#   with dh_elfpmd (elfpmd), in each architecture-dependent package
#
# A cdbs rule file of elfpmd, not of cdbs.  In debian/rules:
#
#   include /usr/share/cdbs/1/rules/debhelper.mk
#   include /usr/share/cdbs/1/rules/elfpmd.mk
#
# dh_elfpmd -p<package> runs for each architecture-dependent package once
# every package is installed and every binary-post-install/<package> hook
# has run (binary-elfpmd/<package>, a prerequisite of
# common-binary-post-install-arch), and before binary-strip/<package> runs
# dh_strip: the debug files are then extracted from the rewritten files, and
# dh_makeshlibs, dh_shlibdeps and dh_md5sums read them.  (cdbs runs no
# dh_dwz; a package that adds one in a binary-post-install hook gets it
# before dh_elfpmd.)  A common-binary-post-install-arch:: rule of the
# package runs after dh_elfpmd when it comes after this include.
#
# DEB_BUILD_OPTIONS=noelfpmd builds without it (dh_elfpmd does nothing).
# Architecture: all and udeb packages are left alone by dh_elfpmd itself.
####
# Variables implemented by this rule file (as debhelper.mk's DEB_DH_*_ARGS
# and DEB_STRIP_EXCLUDE):
#
# DEB_DH_ELFPMD_ARGS_ALL and either ..._<package> or ..._DEFAULT
#   Arguments passed to dh_elfpmd; options for elfpmd itself go after --,
#   e.g. DEB_DH_ELFPMD_ARGS_ALL = -- --madvise (so -- only once, last).
# DEB_DH_ELFPMD_ARGS
#   The same as DEB_DH_ELFPMD_ARGS_DEFAULT.
# DEB_ELFPMD_EXCLUDE_ALL and either ..._<package> or ..._DEFAULT
#   Items of file names not to rewrite (dh_elfpmd -X<item> each).
# DEB_ELFPMD_EXCLUDE
#   The same as DEB_ELFPMD_EXCLUDE_DEFAULT.
####

_cdbs_scripts_path ?= /usr/lib/cdbs
_cdbs_rules_path ?= /usr/share/cdbs/1/rules
_cdbs_class_path ?= /usr/share/cdbs/1/class

ifndef _cdbs_rules_elfpmd
_cdbs_rules_elfpmd = 1

include $(_cdbs_rules_path)/debhelper.mk$(_cdbs_makefile_suffix)

# The package that ships dh_elfpmd (for debian/control.in's @cdbs@).
CDBS_BUILD_DEPENDS_rules_elfpmd ?= dh-elfpmd
CDBS_BUILD_DEPENDS +=, $(CDBS_BUILD_DEPENDS_rules_elfpmd)

DEB_DH_ELFPMD_ARGS_DEFAULT ?= $(DEB_DH_ELFPMD_ARGS)
DEB_ELFPMD_EXCLUDE_DEFAULT ?= $(DEB_ELFPMD_EXCLUDE)

# A second double-colon rule of common-binary-post-install-arch: make runs
# it after debhelper.mk's, whose prerequisites are the packages'
# binary-post-install/<package> hooks, and binary-strip/<package> makes
# common-binary-post-install-arch before binary-strip-IMPL/<package>
# (dh_strip).  cdbs's .NOTPARALLEL keeps that order under make -j.
common-binary-post-install-arch:: $(patsubst %,binary-elfpmd/%,$(DEB_ARCH_PACKAGES))

$(patsubst %,binary-elfpmd/%,$(DEB_ARCH_PACKAGES)):: binary-elfpmd/%: binary-post-install/%
	dh_elfpmd -p$(cdbs_curpkg) $(strip \
		$(call cdbs_add_dashx,$(call cdbs_expand_curvar,DEB_ELFPMD_EXCLUDE)) \
		$(call cdbs_expand_curvar,DEB_DH_ELFPMD_ARGS))

.PHONY: $(patsubst %,binary-elfpmd/%,$(DEB_ARCH_PACKAGES))

endif
