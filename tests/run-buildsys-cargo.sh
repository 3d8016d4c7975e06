#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-buildsys-cargo.sh: the Cargo recipe with the linker wrapper
# (tests/buildsys/cargo: .cargo/config.toml names elfpmd-link, which runs
# cc and then elfpmd on what it linked; shown in doc/integration.md):
# cargo build runs elfpmd once, on the program it linked in
# target/release/deps, and target/release/prog comes out aligned
# (eu-elflint no worse than the same project built without the wrapper)
# and runs; a second build runs no elfpmd and leaves it aligned, elfpmd
# again says "already aligned"; a touched main.rs runs elfpmd on the
# relinked program, aligned again, which runs.
. "${TESTS_SRCDIR:-$(dirname "$0")}/lib.sh"
. "$TESTS_SRCDIR/buildsys-lib.sh"
buildsys_setup
have cargo || skip_all "cargo: not installed"
host=$(rustc -vV 2>/dev/null | sed -n 's/^host: //p')
[ "$host" = x86_64-unknown-linux-gnu ] || skip_all "cargo: rustc's host is '$host', the recipe's config names x86_64-unknown-linux-gnu"
# The reference: the project built without the wrapper.
project cargo-ref cargo
rm -rf "$O/cargo-ref/.cargo"
in_dir "$O/cargo-ref" cargo build --release >"$O/cargo-ref.log" 2>&1 \
	|| hard_error "cargo cannot build the project without the wrapper: $(tail -3 "$O/cargo-ref.log")"
mkdir -p "$O/ref"
CREF=$O/ref/rust-prog
cp "$O/cargo-ref/target/release/prog" "$CREF"
L=cargo
project cargo cargo
P=$O/cargo
prog=$P/target/release/prog

n0=$(calls)
step $L "$P/build.log" in_dir "$P/src" env ELFPMD="$SPY" cargo build --release || finish
deps=$(calls_since "$n0" | grep '/target/release/deps/prog-' | sed 's/^-q //')
[ "$(calls_since "$n0" | wc -l)" -eq 1 ] && [ -n "$deps" ] \
	&& pass "$L: elfpmd ran once, on ${deps#"$O"/}" \
	|| fail "$L: elfpmd runs: $(calls_since "$n0" | tr '\n' ';')"
aligned "$L" "$prog" "$CREF"
runs "$L" "$EXPECT_RUST" "" "$prog"
n1=$(calls)
step $L "$P/rebuild.log" in_dir "$P" env ELFPMD="$SPY" cargo build --release \
	&& no_calls "$L" "$n1" "a second build"
aligned "$L: after a second build" "$prog" "$CREF"
already_aligned "$L" "$prog"
touch "$P/src/main.rs"
n1=$(calls)
if step $L "$P/rebuild2.log" in_dir "$P" env ELFPMD="$SPY" cargo build --release; then
	[ "$(calls_since "$n1" | grep -c '/target/release/deps/prog-')" -eq 1 ] \
		&& pass "$L: main.rs touched: elfpmd ran on the relinked program" \
		|| fail "$L: main.rs touched: elfpmd runs: $(calls_since "$n1" | tr '\n' ';')"
	aligned "$L: main.rs touched" "$prog" "$CREF"
	runs "$L: main.rs touched" "$EXPECT_RUST" "" "$prog"
fi
finish
