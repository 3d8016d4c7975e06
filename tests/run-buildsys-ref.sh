#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-buildsys-ref.sh: the sample project of the run-buildsys-*.sh scripts
# (tests/buildsys/src: a program and a library with 4.5 MiB of text each),
# linked without elfpmd (buildsys-lib.sh, buildsys_ref), is not aligned:
# what the recipes align was not aligned already.
. "${TESTS_SRCDIR:-$(dirname "$0")}/lib.sh"
. "$TESTS_SRCDIR/buildsys-lib.sh"
buildsys_setup
buildsys_ref

unaligned "reference" "$REF/prog" "linked without elfpmd"
unaligned "reference" "$REF/libbig.so" "linked without elfpmd"
finish
