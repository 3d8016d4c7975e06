#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-buildsys-cargo-post-build.sh: the Cargo recipe without the linker
# wrapper (tests/buildsys/cargo/post-build.sh, shown in
# doc/integration.md): cargo build, then elfpmd writes an aligned copy of
# target/release/prog outside target/ (dist/prog), which runs (eu-elflint
# no worse than target/release/prog, linked without the wrapper and left
# unaligned); run again, the copy is aligned again.  Why a copy: aligned in
# place, target/release/prog is put back by the next cargo build, as the
# doc says (noted).
. "${TESTS_SRCDIR:-$(dirname "$0")}/lib.sh"
. "$TESTS_SRCDIR/buildsys-lib.sh"
buildsys_setup
have cargo || skip_all "cargo: not installed"
host=$(rustc -vV 2>/dev/null | sed -n 's/^host: //p')
[ "$host" = x86_64-unknown-linux-gnu ] || skip_all "cargo: rustc's host is '$host', the recipe's config names x86_64-unknown-linux-gnu"
L=cargo-post-build
project cargo-post cargo
rm -rf "$O/cargo-post/.cargo"
P=$O/cargo-post

n0=$(calls)
step $L "$P/build.log" in_dir "$P" env ELFPMD="$SPY" sh post-build.sh || finish
mkdir -p "$O/ref"
CREF=$O/ref/rust-prog
cp "$P/target/release/prog" "$CREF"
called_on "$L" "$n0" dist/prog target/release/prog
unaligned "$L" "$CREF" "linked without the wrapper"
aligned "$L" "$P/dist/prog" "$CREF"
runs "$L" "$EXPECT_RUST" "" "$P/dist/prog"
step $L "$P/build2.log" in_dir "$P" env ELFPMD="$SPY" sh post-build.sh \
	&& aligned "$L: run again" "$P/dist/prog" "$CREF"
"$ELFPMD" -q "$P/target/release/prog" && in_dir "$P" cargo build --release >"$P/build3.log" 2>&1
text_aligned "$P/target/release/prog" >/dev/null && note "$L: target/release/prog aligned in place stays aligned after cargo build" \
	|| note "$L: target/release/prog aligned in place is unaligned again after cargo build"
finish
