#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-buildsys-staging.sh: batch mode (elfpmd -r) on a staging tree, the
# recipe tests/buildsys/staging/align.sh of doc/integration.md, on a tree
# filled by hand with what packages hold besides programs and libraries:
# a hard link, a symbolic link, a script, an object file, a separate debug
# file and a program with nothing to align.  Run twice: one elfpmd run
# each time, whose summary line counts 7 files, 2 changed (then 0), 0
# failed, and is the doc's example; the program and the library aligned
# (eu-elflint no worse than the same sources linked without elfpmd), the
# hard link naming the rewritten file, the rest untouched, the program
# running; the second run rewrites nothing.
. "${TESTS_SRCDIR:-$(dirname "$0")}/lib.sh"
. "$TESTS_SRCDIR/buildsys-lib.sh"
buildsys_setup
"$ELFPMD" --help 2>/dev/null | grep -q -- '--recursive' || skip_all "staging: this elfpmd has no batch mode (-r)"
have objcopy || skip_all "staging: objcopy missing"
buildsys_ref
L=staging
P=$O/staging
D=$P/dest

mkdir -p "$D/usr/bin" "$D/usr/lib/debug/.build-id/ab"
cc -O2 -g -shared -fPIC -o "$D/usr/lib/libbig.so" "$BS/src/lib.c" "$BS/src/bigtext.S" >"$P.log" 2>&1 \
	&& cc -O2 -g -o "$D/usr/bin/prog" "$BS/src/prog.c" "$BS/src/bigtext.S" -L"$D/usr/lib" -lbig >>"$P.log" 2>&1 \
	&& printf 'int main (void) { return 0; }\n' >"$P/small.c" && cc -O2 -o "$D/usr/bin/small" "$P/small.c" >>"$P.log" 2>&1 \
	&& cc -O2 -c -o "$D/usr/lib/lib.o" "$BS/src/lib.c" >>"$P.log" 2>&1 \
	&& objcopy --only-keep-debug "$D/usr/bin/prog" "$D/usr/lib/debug/.build-id/ab/cdef.debug" >>"$P.log" 2>&1 \
	|| skip_all "$L: cannot build the staging tree's files ($(tail -1 "$P.log"))"
ln "$D/usr/bin/prog" "$D/usr/bin/prog-link"
ln -s prog "$D/usr/bin/prog-alias"
printf '#!/bin/sh\nexec prog "$@"\n' >"$D/usr/bin/script"
untouched=("$D/usr/bin/small" "$D/usr/lib/lib.o" "$D/usr/lib/debug/.build-id/ab/cdef.debug" "$D/usr/bin/script")
sigs=$(for f in "${untouched[@]}"; do file_signature "$f"; done)
for round in 1 2; do
	n1=$(calls)
	if ! step $L "$P/align$round.log" env PATH="$O/bin:$PATH" DESTDIR="$D" sh "$BS/staging/align.sh"; then break; fi
	[ "$(calls_since "$n1" | wc -l)" -eq 1 ] && pass "$L ($round): one elfpmd run" \
		|| fail "$L ($round): elfpmd runs: $(calls_since "$n1" | tr '\n' ';')"
	summary=$(tail -1 "$P/align$round.log")
	changed=$([ $round = 1 ] && echo 2 || echo 0)
	case $summary in
	"elfpmd: 7 files: $changed changed, "*", 0 failed") pass "$L ($round): summary: $summary" ;;
	*) fail "$L ($round): summary '$summary', expected 7 files, $changed changed, 0 failed" ;;
	esac
	if [ $round = 1 ]; then
		# The doc shows this summary line as its example.
		grep -qxF "    $summary" "$DOC" && pass "$L: the doc's example summary line is this one" \
			|| fail "$L: the doc has no example summary line '    $summary'"
	fi
	aligned "$L ($round)" "$D/usr/bin/prog" "$REF/prog"
	aligned "$L ($round)" "$D/usr/lib/libbig.so" "$REF/libbig.so"
	[ "$(stat -c %i "$D/usr/bin/prog")" = "$(stat -c %i "$D/usr/bin/prog-link")" ] \
		&& pass "$L ($round): the hard link names the rewritten file" || fail "$L ($round): prog-link is another file than prog"
	[ "$(readlink "$D/usr/bin/prog-alias")" = prog ] && pass "$L ($round): the symbolic link is left as it was" \
		|| fail "$L ($round): prog-alias is no longer a symbolic link to prog"
	[ "$sigs" = "$(for f in "${untouched[@]}"; do file_signature "$f"; done)" ] \
		&& pass "$L ($round): the small program, the object, the debug file and the script are untouched" \
		|| fail "$L ($round): one of ${untouched[*]#"$O"/} was changed"
	runs "$L ($round)" "$EXPECT_C" "$D/usr/lib" "$D/usr/bin/prog"
	if [ $round = 2 ]; then
		[ "$aligned_sigs" = "$(file_signature "$D/usr/bin/prog"; file_signature "$D/usr/lib/libbig.so")" ] \
			&& pass "$L (2): the aligned program and library are not rewritten" \
			|| fail "$L (2): the second run rewrote the aligned program or library"
	fi
	aligned_sigs=$(file_signature "$D/usr/bin/prog"; file_signature "$D/usr/lib/libbig.so")
done
finish
