#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-buildsys-doc.sh: each recipe file that the run-buildsys-*.sh scripts
# run (tests/buildsys/) appears in doc/integration.md, byte for byte but
# for its licence header (SPDX and copyright lines, which a user's copy of
# the recipe does not carry), in the fenced block after its marker
# `<!-- recipe: tests/buildsys/PATH -->`; every marker is followed by a
# closed fenced block, and no marker names a file the tests do not run.
. "${TESTS_SRCDIR:-$(dirname "$0")}/lib.sh"
. "$TESTS_SRCDIR/buildsys-lib.sh"
buildsys_setup
# The recipe files the doc must show, relative to tests/buildsys.
RECIPES="cmake/CMakeLists.txt meson/meson.build meson-custom/meson.build
	automake/configure.ac automake/Makefile.am make/Makefile
	cargo/.cargo/config.toml cargo/elfpmd-link cargo/post-build.sh staging/align.sh"
[ -f "$DOC" ] || { fail "doc: $DOC missing"; finish; }

# Each marker's fenced block into $O/doc/PATH; a marker not followed by a
# fence, or a block not closed, is an error line on stdout.
problems=$(awk -v out="$O/doc" '
	function mkdirs(path,  d) { d = path; sub(/\/[^\/]*$/, "", d); system("mkdir -p \"" d "\"") }
	inblock && /^```[ \t]*$/ { inblock = 0; close(file); next }
	inblock { print > file; next }
	want { if ($0 !~ /^```/) print "line " NR ": marker for " want " not followed by a fence"
	       else { file = out "/" want; mkdirs(file); printf "" > file; inblock = 1 }
	       want = ""; next }
	/^<!-- recipe: [^ ]+ -->$/ { want = $3; sub(/^tests\/buildsys\//, "", want); next }
	END { if (inblock) print "a fenced block is not closed"; if (want) print "marker for " want " at the end" }' "$DOC")
[ -z "$problems" ] && pass "doc: every recipe marker is followed by a closed fenced block" \
	|| fail "doc: $problems"
for r in $RECIPES; do
	mkdir -p "$O/file/${r%/*}"
	sed '/SPDX-License-Identifier: /d; /Copyright (C) 2026 The elfpmd authors/d' "$BS/$r" >"$O/file/$r"
	if [ ! -f "$O/doc/$r" ]; then fail "doc: no '<!-- recipe: tests/buildsys/$r -->' block in doc/integration.md"
	elif cmp -s "$O/file/$r" "$O/doc/$r"; then pass "doc: the block of tests/buildsys/$r is the file"
	else fail "doc: the block of tests/buildsys/$r differs from the file:"
		diff "$O/file/$r" "$O/doc/$r" | head -10 | sed 's/^/      /'; fi
done
# shellcheck disable=SC2086  # the list is words
extra=$(cd "$O/doc" 2>/dev/null && find . -type f | sed 's|^\./||' | grep -vxF -f <(printf '%s\n' $RECIPES))
[ -z "$extra" ] && pass "doc: no marker names a file the test does not run" \
	|| fail "doc: markers for files this test does not know: $extra"
finish
