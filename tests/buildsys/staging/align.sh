#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# Once everything is installed into the staging tree $DESTDIR, before
# packaging: align every ELF program and shared library in it.
elfpmd -r -j"$(nproc)" "$DESTDIR"
