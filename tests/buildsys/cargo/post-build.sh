#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# Cargo without the linker wrapper: build, then write an aligned copy of the
# program outside target/ ($ELFPMD, default: elfpmd on PATH).  Not in place:
# the next cargo build puts target/release/prog back from target/release/deps.
set -e
cargo build --release
mkdir -p dist
"${ELFPMD:-elfpmd}" -q -o dist/prog target/release/prog
