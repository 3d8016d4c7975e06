#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-buildsys.sh: the build-system recipes of doc/integration.md, run for
# real on tiny projects (tests/buildsys/, see its README):
#   - doc: each recipe file appears in doc/integration.md, byte for byte but
#     for its licence header (SPDX and copyright lines), in the fenced block
#     after its marker `<!-- recipe: tests/buildsys/PATH -->`;
#   - pipeline: what the doc says of elfpmd and debug-info extraction (a
#     new build-id of the same length, the old one with --build-id=keep,
#     .gnu_debuglink kept, gdb finds the debug file by it), and
#     of strip, eu-strip and dwz after elfpmd (the alignment kept);
#   - cmake, meson (install script and custom_target), automake (libtool,
#     install-exec-hook), make (a plain Makefile) and cargo (the linker
#     wrapper and the post-build copy): each project is configured and built
#     in a copy under $TESTS_BUILDDIR/buildsys-work, installed under a
#     DESTDIR where its recipe hooks installation, and then
#       * every file the recipe says it aligns has, as the independent reader
#         phdr-dump sees it, each executable PT_LOAD with p_align 2 MiB and
#         p_offset congruent with p_vaddr modulo 2 MiB; files the recipe
#         leaves alone (a build tree under an install hook) do not;
#       * eu-elflint --gnu-ld complains no more than about the same sources
#         linked without elfpmd;
#       * the program runs and prints what it should;
#       * a second build without changes runs no elfpmd and fails nothing,
#         a changed source runs it again on what was relinked, and elfpmd on
#         an already aligned file says so, exits 0 and leaves it alone;
#   - staging: batch mode (elfpmd -r) on a staging tree that also holds a
#     hard link, a symbolic link, a script, an object file, a separate debug
#     file and a program with nothing to align: the program and the library
#     aligned, the rest untouched, the summary line; a second run changes
#     nothing.
# Every recipe is given a logging wrapper around $ELFPMD (buildsys-work/bin/
# elfpmd, by each build system's own way of choosing the tool), so that the
# test sees which files elfpmd was run on and when.  A part whose build
# system is missing is skipped with the reason; exit 77 only if none ran.
#
# Run by 'make check' with ELFPMD, PHDR_DUMP, TESTS_SRCDIR and TESTS_BUILDDIR
# set, or by hand from the source tree: bash tests/run-buildsys.sh (see
# tests/lib.sh).  BUILDSYS_PARTS chooses the parts (default: all): doc
# pipeline cmake meson automake make cargo staging.

# shellcheck source=tests/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
require_slow "CMake, Meson, Automake and Cargo builds"

PMD=$((0x200000))
BS=$TESTS_SRCDIR/buildsys
DOC=$TESTS_SRCDIR/../doc/integration.md
O=$TESTS_BUILDDIR/buildsys-work
EXPECT_C="bigtext: program 5, library 5"
EXPECT_RUST="bigtext: program 5"
# The recipe files the doc must show, relative to tests/buildsys.
RECIPES="cmake/CMakeLists.txt meson/meson.build meson-custom/meson.build
	automake/configure.ac automake/Makefile.am make/Makefile
	cargo/.cargo/config.toml cargo/elfpmd-link cargo/post-build.sh staging/align.sh"

BUILDSYS_PARTS=${BUILDSYS_PARTS:-doc pipeline cmake meson automake make cargo staging}
want_part () { case " $BUILDSYS_PARTS " in *" $1 "*) return 0 ;; esac; return 1; }

require_elfpmd
rm -rf "$O"
mkdir -p "$O/bin" || hard_error "cannot create $O"
require_phdr_dump "$O/tools"
# The builds below must not see the make check's own make, flags or DESTDIR.
unset MAKEFLAGS MFLAGS MAKELEVEL CFLAGS CPPFLAGS LDFLAGS CCASFLAGS DESTDIR
unset CARGO_TARGET_DIR CARGO_BUILD_TARGET RUSTFLAGS CARGO_BUILD_RUSTFLAGS CARGO_TARGET_X86_64_UNKNOWN_LINUX_GNU_LINKER
export CARGO_NET_OFFLINE=true

# The elfpmd every recipe gets: $ELFPMD, logging each call to $SPY_LOG.
SPY_LOG=$O/elfpmd-calls.log
: >"$SPY_LOG"
cat >"$O/bin/elfpmd" <<EOF
#!/bin/sh
printf '%s\n' "\$*" >>'$SPY_LOG'
exec '$ELFPMD' "\$@"
EOF
chmod +x "$O/bin/elfpmd"
SPY=$O/bin/elfpmd

# calls: the number of elfpmd runs logged so far.
calls () { wc -l <"$SPY_LOG" | tr -d ' '; }
# calls_since N: the elfpmd runs logged after the first N, one a line.
calls_since () { tail -n +"$(($1 + 1))" "$SPY_LOG"; }

# text_aligned FILE: every executable PT_LOAD of FILE has p_align 2 MiB and
# p_offset congruent with p_vaddr modulo 2 MiB, as phdr-dump reads it; else
# print the offending program headers and fail.
text_aligned () {
	local a o v s n=0 bad=0
	while read -r a o v s; do
		n=$((n + 1))
		if [ "$a" -ne "$PMD" ] || [ $(((v - o) % PMD)) -ne 0 ]; then
			printf '      executable PT_LOAD: p_align %#x, p_offset %#x, p_vaddr %#x\n' "$a" "$o" "$v"
			bad=1
		fi
	done < <(exec_loads "$1")
	[ "$n" -gt 0 ] || echo "      no executable PT_LOAD"
	[ "$n" -gt 0 ] && [ "$bad" -eq 0 ]
}

have_elflint=false
if have eu-elflint; then have_elflint=true; else skip "eu-elflint not found: elflint checks skipped"; fi

# aligned LABEL FILE REF: FILE's text is aligned (PASS, else FAIL with the
# program headers), and eu-elflint --gnu-ld finds no more in FILE than in
# REF, the same code linked without elfpmd.
aligned () {
	local label=$1 file=$2 ref=$3 out n m
	if [ ! -f "$file" ]; then fail "$label: $file missing"; return; fi
	if out=$(text_aligned "$file"); then pass "$label: ${file#"$O"/}: text p_align 2 MiB, offset = address mod 2 MiB"
	else fail "$label: ${file#"$O"/}: text not aligned:"; echo "$out"; fi
	$have_elflint || return 0
	n=$(elflint_count "$file")
	m=$(elflint_count "$ref")
	if [ "$n" -le "$m" ]; then pass "$label: ${file#"$O"/}: eu-elflint --gnu-ld messages $n <= unaligned build's $m"
	else fail "$label: ${file#"$O"/}: eu-elflint --gnu-ld messages $n > unaligned build's $m"
		diff <(elflint_messages "$ref") <(elflint_messages "$file") | sed 's/^/      /' | head -10; fi
}

# unaligned LABEL FILE WHY: FILE's text is not aligned (a file the recipe
# must leave alone).
unaligned () {
	if text_aligned "$2" >/dev/null; then fail "$1: ${2#"$O"/} is aligned, but $3"
	else pass "$1: ${2#"$O"/} is left unaligned ($3)"; fi
}

# runs LABEL EXPECTED LIBDIR PROGRAM: PROGRAM, with LIBDIR (may be empty) on
# LD_LIBRARY_PATH, prints EXPECTED and exits 0.
runs () {
	local out status
	out=$(LD_LIBRARY_PATH=$3 timeout 30 "$4" 2>&1)
	status=$?
	if [ "$status" -eq 0 ] && [ "$out" = "$2" ]; then pass "$1: ${4#"$O"/} runs and prints '$2'"
	else fail "$1: ${4#"$O"/}: exit $status, printed '$out', expected '$2'"; fi
}

# step LABEL LOG COMMAND...: run COMMAND with its output in LOG; on failure
# FAIL with the log's tail and return 1.
step () {
	local label=$1 log=$2
	shift 2
	if "$@" >"$log" 2>&1; then return 0; fi
	fail "$label: '$*' failed (log: $log)"
	tail -15 "$log" | sed 's/^/      /'
	return 1
}

# no_calls LABEL N WHAT: no elfpmd run was logged after the first N.
no_calls () {
	if [ "$(calls)" -eq "$2" ]; then pass "$1: $3 runs no elfpmd"
	else fail "$1: $3 ran elfpmd:"; calls_since "$2" | sed 's/^/      /'; fi
}

# called_on LABEL N FILE...: the elfpmd runs after the first N name exactly
# FILE... (in any order, in one run or several).
called_on () {
	local label=$1 n=$2 got want
	shift 2
	got=$(calls_since "$n" | tr ' ' '\n' | grep -v '^-' | sort | paste -sd ' ')
	want=$(printf '%s\n' "$@" | sort | paste -sd ' ')
	if [ "$got" = "$want" ]; then pass "$label: elfpmd ran on ${want//"$O"\//}"
	else fail "$label: elfpmd ran on '${got//"$O"\//}', expected '${want//"$O"\//}'"; fi
}

# already_aligned LABEL FILE: elfpmd (without -q) on FILE says "already
# aligned", exits 0 and leaves FILE alone, as a rerun of a recipe would.
already_aligned () {
	local sig out status
	sig=$(file_signature "$2")
	out=$("$ELFPMD" "$2" 2>&1)
	status=$?
	if [ "$status" -eq 0 ] && [[ $out == *": already aligned:"* ]] && [ "$sig" = "$(file_signature "$2")" ]; then
		pass "$1: elfpmd again on ${2#"$O"/}: 'already aligned', exit 0, file untouched"
	else fail "$1: elfpmd again on ${2#"$O"/}: exit $status, '$out', signature $sig -> $(file_signature "$2")"; fi
}

# project DIR SUBDIR...: a fresh copy of tests/buildsys/SUBDIR... (their
# contents merged) in $O/DIR, writable.
project () {
	local dir=$O/$1 sub
	shift
	rm -rf "$dir" && mkdir -p "$dir" || hard_error "cannot create $dir"
	for sub in "$@"; do cp -R "$BS/$sub/." "$dir/" || hard_error "cannot copy $BS/$sub"; done
	chmod -R u+w "$dir"
}

# locate VAR NAME DIR: set VAR to the path of the first regular file NAME
# (a find -name pattern) under DIR; fail (no PASS or FAIL) when there is none.
locate () {
	printf -v "$1" '%s' "$(find "$3" -name "$2" -type f | sort | head -1)"
	[ -n "${!1}" ]
}

# in_dir DIR COMMAND...: run COMMAND in DIR.
in_dir () { (cd "$1" && shift && exec "$@"); }

ran_any=false
ip='' il=''	# set by locate

# ---------------------------------------------------------------------------
# doc: the recipes in doc/integration.md are the files, byte for byte.
if want_part doc; then
	if [ ! -f "$DOC" ]; then fail "doc: $DOC missing"
	else
		ran_any=true
		# Each marker's fenced block into $O/doc/PATH; a marker not followed
		# by a fence, or a block not closed, is an error line on stdout.
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
		# (The file's licence header, which a user's copy of the recipe does
		# not carry, is not in the block.)
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
	fi
fi

# The C projects' text is x86-64 code (`ret` instructions).
if [ "$(uname -m)" != x86_64 ]; then
	skip "the sample projects are x86-64 code, this is $(uname -m): build parts skipped"
	finish
fi
have cc || { skip "no C compiler: build parts skipped"; finish; }

# The same sources linked without elfpmd: the reference for eu-elflint, and
# proof that what the recipes align is not aligned already.
REF=$O/ref
mkdir -p "$REF"
if cc -O2 -g -shared -fPIC -o "$REF/libbig.so" "$BS/src/lib.c" "$BS/src/bigtext.S" >"$REF/log" 2>&1 \
	&& cc -O2 -g -o "$REF/prog" "$BS/src/prog.c" "$BS/src/bigtext.S" -L"$REF" -lbig >>"$REF/log" 2>&1; then
	unaligned "reference" "$REF/prog" "linked without elfpmd"
	unaligned "reference" "$REF/libbig.so" "linked without elfpmd"
else
	skip "cc cannot build the sample project: build parts skipped ($(tail -1 "$REF/log"))"
	finish
fi

# ---------------------------------------------------------------------------
# pipeline: what the doc says about elfpmd next to debug-info extraction,
# strip, eu-strip and dwz, on the program linked by GNU ld and, where clang
# and lld are there, by lld (whose layout elfpmd pads).
if want_part pipeline; then
	ran_any=true
	L=pipeline
	P=$O/pipeline
	mkdir -p "$P"
	# section FILE NAME: the bytes of section NAME of FILE, in hex.
	section () { objcopy --dump-section "$2=$P/section.bin" "$1" "$P/section.out" 2>/dev/null && od -An -tx1 "$P/section.bin" | tr -d ' \n'; }
	linkers="bfd"
	if have clang && have ld.lld; then linkers="bfd lld"; else skip "$L: clang or ld.lld missing: the lld layout skipped"; fi
	for ld in $linkers; do
		W=$P/$ld
		mkdir -p "$W"
		cc=(cc)
		[ "$ld" = lld ] && cc=(clang -fuse-ld=lld)
		if ! "${cc[@]}" -O2 -g -Wl,--build-id -o "$W/prog" "$BS/src/prog.c" "$BS/src/bigtext.S" -L"$REF" -lbig >"$W/log" 2>&1; then
			skip "$L: $ld: cannot link ($(tail -1 "$W/log"))"; continue
		fi
		cp "$W/prog" "$W/prog.orig"
		cp "$W/prog" "$W/prog.g"
		unaligned "$L: $ld" "$W/prog.orig" "linked without elfpmd"
		# Debug info in a separate file, the program stripped and linked to it.
		if have objcopy; then
			objcopy --only-keep-debug "$W/prog" "$W/prog.debug" && objcopy --strip-debug "$W/prog" \
				&& objcopy --add-gnu-debuglink="$W/prog.debug" "$W/prog" || { fail "$L: $ld: objcopy failed"; continue; }
			id=$(section "$W/prog" .note.gnu.build-id)
			link=$(section "$W/prog" .gnu_debuglink)
			"$ELFPMD" -q --build-id=keep -o "$W/prog.keep" "$W/prog" || fail "$L: $ld: elfpmd --build-id=keep failed"
			"$ELFPMD" -q "$W/prog" || fail "$L: $ld: elfpmd failed"
			aligned "$L: $ld, debug info split off" "$W/prog" "$W/prog.orig"
			new=$(section "$W/prog" .note.gnu.build-id)
			# (the note's header, 16 bytes, is 32 hexadecimal digits)
			[ -n "$id" ] && [ "$new" != "$id" ] && [ ${#new} -eq ${#id} ] && [ "${new:0:32}" = "${id:0:32}" ] \
				&& pass "$L: $ld: elfpmd gives a new build-id of the same length" || fail "$L: $ld: build-id note '$id' -> '$new'"
			[ -n "$id" ] && [ "$id" = "$(section "$W/prog.keep" .note.gnu.build-id)" ] \
				&& pass "$L: $ld: elfpmd --build-id=keep keeps the build-id note" \
				|| fail "$L: $ld: --build-id=keep: build-id note '$id' -> '$(section "$W/prog.keep" .note.gnu.build-id)'"
			[ -n "$link" ] && [ "$link" = "$(section "$W/prog" .gnu_debuglink)" ] \
				&& pass "$L: $ld: elfpmd keeps .gnu_debuglink (name and CRC)" || fail "$L: $ld: .gnu_debuglink '$link' -> '$(section "$W/prog" .gnu_debuglink)'"
			if have gdb; then
				gdb -nx -batch -ex 'info line main' "$W/prog" >"$W/gdb.out" 2>&1
				grep -q 'Line [0-9]* of ".*prog\.c"' "$W/gdb.out" && pass "$L: $ld: gdb finds main's line in the separate debug file" \
					|| fail "$L: $ld: gdb: $(tail -1 "$W/gdb.out")"
			fi
			runs "$L: $ld, debug info split off" "$EXPECT_C" "$REF" "$W/prog"
		else skip "$L: objcopy missing: debug-info extraction not checked"; fi
		# Stripping, or dwz, after elfpmd keeps the alignment.
		"$ELFPMD" -q "$W/prog.g" || fail "$L: $ld: elfpmd failed"
		for tool in strip eu-strip dwz; do
			[ "$tool" = dwz ] && [ "$ld" = lld ] && continue	# clang's DWARF 5 is beyond dwz 0.15
			if ! have $tool; then skip "$L: $tool missing"; continue; fi
			cp "$W/prog.g" "$W/prog.$tool"
			if ! $tool "$W/prog.$tool" >"$W/$tool.log" 2>&1; then fail "$L: $ld: $tool failed: $(head -1 "$W/$tool.log")"; continue; fi
			aligned "$L: $ld, $tool after elfpmd" "$W/prog.$tool" "$W/prog.orig"
			runs "$L: $ld, $tool after elfpmd" "$EXPECT_C" "$REF" "$W/prog.$tool"
		done
	done
fi

# ---------------------------------------------------------------------------
# cmake: POST_BUILD on each target; install --strip copies the aligned files.
if want_part cmake; then
	if ! have cmake; then skip "cmake: not installed"
	else
		ran_any=true
		L=cmake
		project cmake src cmake
		P=$O/cmake
		gen=()
		have ninja && gen=(-G Ninja)
		n0=$(calls)
		if step $L "$P/configure.log" cmake "${gen[@]}" -S "$P" -B "$P/b" -DCMAKE_INSTALL_PREFIX=/usr -DELFPMD="$SPY" \
			&& step $L "$P/build.log" cmake --build "$P/b"; then
			B=$P/b
			called_on "$L: build" "$n0" "$B/prog" "$B/libbig.so.1.0.0"
			aligned "$L" "$B/prog" "$REF/prog"
			aligned "$L" "$B/libbig.so.1.0.0" "$REF/libbig.so"
			runs "$L" "$EXPECT_C" "" "$B/prog"
			n1=$(calls)
			step $L "$P/rebuild.log" cmake --build "$B" && no_calls "$L" "$n1" "a second build"
			aligned "$L: after a second build" "$B/prog" "$REF/prog"
			already_aligned "$L" "$B/prog"
			touch "$P/prog.c"
			n1=$(calls)
			if step $L "$P/rebuild2.log" cmake --build "$B"; then
				called_on "$L: prog.c touched, rebuild" "$n1" "$B/prog"
				aligned "$L: prog.c touched" "$B/prog" "$REF/prog"
				runs "$L: prog.c touched" "$EXPECT_C" "" "$B/prog"
			fi
			n1=$(calls)
			if step $L "$P/install.log" env DESTDIR="$P/dest" cmake --install "$B" --strip; then
				no_calls "$L: install" "$n1" "installing"
				if locate ip prog "$P/dest" && locate il libbig.so.1.0.0 "$P/dest"; then
					aligned "$L: installed, stripped" "$ip" "$REF/prog"
					aligned "$L: installed, stripped" "$il" "$REF/libbig.so"
					runs "$L: installed" "$EXPECT_C" "$(dirname "$il")" "$ip"
				else fail "$L: prog or libbig.so.1.0.0 not installed under $P/dest"; fi
			fi
		fi
	fi
fi

# ---------------------------------------------------------------------------
# meson: the install script (the build tree stays unaligned) and the
# custom_target (an aligned copy in the build tree, installed).
if want_part meson; then
	if ! have meson || ! have ninja; then skip "meson: $(have meson || echo meson)$(have ninja || echo ' ninja') not installed"
	else
		ran_any=true
		L=meson
		project meson src meson
		P=$O/meson
		B=$P/b
		n0=$(calls)
		if step $L "$P/setup.log" env PATH="$O/bin:$PATH" meson setup --prefix=/usr "$B" "$P" \
			&& step $L "$P/build.log" ninja -C "$B"; then
			grep -q "Program elfpmd found: YES ($SPY)" "$P/setup.log" \
				&& pass "$L: find_program found the elfpmd on PATH" || fail "$L: find_program did not find $SPY (see $P/setup.log)"
			no_calls "$L" "$n0" "building"
			unaligned "$L" "$B/prog" "the install script aligns the installed copy"
			runs "$L" "$EXPECT_C" "" "$B/prog"
			# Installed twice: the second time only the runtime files (the
			# script's install_tag), copied again over the aligned ones.
			for round in 1 2; do
				n1=$(calls)
				tags=()
				[ $round = 2 ] && tags=(--tags runtime)
				step $L "$P/install$round.log" env DESTDIR="$P/dest" meson install -C "$B" "${tags[@]}" || break
				if ! locate ip prog "$P/dest" || ! locate il libbig.so.1.0.0 "$P/dest"; then
					fail "$L: prog or libbig.so.1.0.0 not installed under $P/dest"; break
				fi
				called_on "$L: install $round" "$n1" "$ip" "$il"
				aligned "$L: installed ($round)" "$ip" "$REF/prog"
				aligned "$L: installed ($round)" "$il" "$REF/libbig.so"
				runs "$L: installed ($round)" "$EXPECT_C" "$(dirname "$il")" "$ip"
			done
			n1=$(calls)
			step $L "$P/rebuild.log" ninja -C "$B" && no_calls "$L" "$n1" "a second build"
		fi

		L=meson-custom
		project meson-custom src meson-custom
		P=$O/meson-custom
		B=$P/b
		n0=$(calls)
		if step $L "$P/setup.log" env PATH="$O/bin:$PATH" meson setup --prefix=/usr "$B" "$P" \
			&& step $L "$P/build.log" ninja -C "$B"; then
			# meson runs the command in the build directory, with relative names.
			called_on "$L: build" "$n0" prog prog-unaligned
			aligned "$L" "$B/prog" "$REF/prog"
			unaligned "$L" "$B/prog-unaligned" "the input of the copy"
			unaligned "$L" "$B/libbig.so.1.0.0" "a custom_target is a copy, not something to link"
			runs "$L" "$EXPECT_C" "" "$B/prog"
			n1=$(calls)
			step $L "$P/rebuild.log" ninja -C "$B" && no_calls "$L" "$n1" "a second build"
			touch "$P/prog.c"
			n1=$(calls)
			if step $L "$P/rebuild2.log" ninja -C "$B"; then
				called_on "$L: prog.c touched, rebuild" "$n1" prog prog-unaligned
				aligned "$L: prog.c touched" "$B/prog" "$REF/prog"
			fi
			if step $L "$P/install.log" env DESTDIR="$P/dest" meson install -C "$B"; then
				if locate ip prog "$P/dest" && locate il libbig.so.1.0.0 "$P/dest"; then
					aligned "$L: installed" "$ip" "$REF/prog"
					runs "$L: installed" "$EXPECT_C" "$(dirname "$il")" "$ip"
				else fail "$L: prog or libbig.so.1.0.0 not installed under $P/dest"; fi
				# Meson strips the build tree's RUNPATH from the executables it
				# installs, not from a custom_target's output (the doc says so).
				note "$L: installed prog's RUNPATH: $(readelf -d "$ip" 2>/dev/null | sed -n 's/.*(RUNPATH).*: \[\(.*\)\]/\1/p')"
			fi
		fi
	fi
fi

# ---------------------------------------------------------------------------
# automake: install-exec-hook on the installed files (libtool).
if want_part automake; then
	if ! have autoreconf || ! have automake || ! have libtoolize; then
		skip "automake: autoreconf, automake or libtoolize not installed"
	else
		ran_any=true
		L=automake
		project automake src automake
		P=$O/automake
		B=$P/b
		n0=$(calls)
		if step $L "$P/autoreconf.log" in_dir "$P" autoreconf -fi && mkdir -p "$B" \
			&& step $L "$P/configure.log" in_dir "$B" ../configure --prefix=/usr ELFPMD="$SPY" \
			&& step $L "$P/build.log" make -C "$B" -j2; then
			no_calls "$L" "$n0" "building"
			head -c 4 "$B/prog" | grep -q 'ELF' && fail "$L: the build tree's prog is an ELF file, not libtool's wrapper script" \
				|| pass "$L: the build tree's prog is libtool's wrapper script"
			runs "$L" "$EXPECT_C" "" "$B/prog"
			# install, then install-strip over it: each copies the build's
			# unaligned files (libtool relinks libbig) and the hook aligns them.
			for target in install install-strip; do
				n1=$(calls)
				step $L "$P/$target.log" make -C "$B" "$target" DESTDIR="$P/dest" || break
				grep -q '^libtool: relink:' "$P/$target.log" && pass "$L: $target: libtool relinked libbig" \
					|| fail "$L: $target: no 'libtool: relink:' in $P/$target.log"
				called_on "$L: $target" "$n1" "$P/dest/usr/bin/prog" "$P/dest/usr/lib/libbig.so"
				aligned "$L: $target" "$P/dest/usr/bin/prog" "$REF/prog"
				if locate il 'libbig.so.*.*.*' "$P/dest/usr/lib"; then aligned "$L: $target" "$il" "$REF/libbig.so"
				else fail "$L: $target: no libbig.so.*.*.* under $P/dest/usr/lib"; fi
				runs "$L: $target" "$EXPECT_C" "$P/dest/usr/lib" "$P/dest/usr/bin/prog"
			done
			n1=$(calls)
			step $L "$P/rebuild.log" make -C "$B" && no_calls "$L" "$n1" "a second build"
		fi
	fi
fi

# ---------------------------------------------------------------------------
# make: elfpmd in the link rule; .DELETE_ON_ERROR.
if want_part make; then
	if ! have make; then skip "make: not installed"
	else
		ran_any=true
		L='make'
		project make src make
		P=$O/make
		n0=$(calls)
		if step $L "$P/build.log" make -C "$P" ELFPMD="$SPY"; then
			called_on "$L: build" "$n0" prog libbig.so
			aligned "$L" "$P/prog" "$REF/prog"
			aligned "$L" "$P/libbig.so" "$REF/libbig.so"
			runs "$L" "$EXPECT_C" "" "$P/prog"
			n1=$(calls)
			step $L "$P/rebuild.log" make -C "$P" ELFPMD="$SPY" && no_calls "$L" "$n1" "a second make"
			already_aligned "$L" "$P/prog"
			# A failing elfpmd fails the build and deletes its target, so
			# the next make links it again.
			touch "$P/prog.c"
			if make -C "$P" ELFPMD=false >"$P/fail.log" 2>&1; then fail "$L: make with ELFPMD=false succeeded"
			elif [ -e "$P/prog" ]; then fail "$L: make with ELFPMD=false kept the unaligned prog"
			else pass "$L: a failing elfpmd fails make and deletes prog"; fi
			n1=$(calls)
			if step $L "$P/rebuild2.log" make -C "$P" ELFPMD="$SPY"; then
				called_on "$L: make again" "$n1" prog
				aligned "$L: make again" "$P/prog" "$REF/prog"
			fi
		fi
	fi
fi

# ---------------------------------------------------------------------------
# cargo: the linker wrapper, and the post-build copy.
if want_part cargo; then
	host=$(rustc -vV 2>/dev/null | sed -n 's/^host: //p')
	if ! have cargo; then skip "cargo: not installed"
	elif [ "$host" != x86_64-unknown-linux-gnu ]; then
		skip "cargo: rustc's host is '$host', the recipe's config names x86_64-unknown-linux-gnu"
	else
		ran_any=true
		# The post-build form first, in a copy without the wrapper: its
		# target/release/prog is also the unaligned reference.
		L=cargo-post-build
		project cargo-post cargo
		rm -rf "$O/cargo-post/.cargo"
		P=$O/cargo-post
		n0=$(calls)
		if step $L "$P/build.log" in_dir "$P" env ELFPMD="$SPY" sh post-build.sh; then
			CREF=$O/ref/rust-prog
			cp "$P/target/release/prog" "$CREF"
			called_on "$L" "$n0" dist/prog target/release/prog
			unaligned "$L" "$CREF" "linked without the wrapper"
			aligned "$L" "$P/dist/prog" "$CREF"
			runs "$L" "$EXPECT_RUST" "" "$P/dist/prog"
			n1=$(calls)
			step $L "$P/build2.log" in_dir "$P" env ELFPMD="$SPY" sh post-build.sh \
				&& aligned "$L: run again" "$P/dist/prog" "$CREF"
			# Why the copy: aligned in place, target/release/prog is put back
			# by the next cargo build (the doc says so).
			"$ELFPMD" -q "$P/target/release/prog" && in_dir "$P" cargo build --release >"$P/build3.log" 2>&1
			text_aligned "$P/target/release/prog" >/dev/null && note "$L: target/release/prog aligned in place stays aligned after cargo build" \
				|| note "$L: target/release/prog aligned in place is unaligned again after cargo build"

			L=cargo
			project cargo cargo
			P=$O/cargo
			n0=$(calls)
			if step $L "$P/build.log" in_dir "$P/src" env ELFPMD="$SPY" cargo build --release; then
				prog=$P/target/release/prog
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
			fi
		fi
	fi
fi

# ---------------------------------------------------------------------------
# staging: batch mode on a staging tree filled by hand with what packages
# hold besides programs and libraries.
if want_part staging; then
	L=staging
	P=$O/staging
	D=$P/dest
	if ! "$ELFPMD" --help 2>/dev/null | grep -q -- '--recursive'; then
		skip "$L: this elfpmd has no batch mode (-r)"
	elif ! have objcopy; then skip "$L: objcopy missing"
	else
		ran_any=true
		mkdir -p "$D/usr/bin" "$D/usr/lib/debug/.build-id/ab"
		if cc -O2 -g -shared -fPIC -o "$D/usr/lib/libbig.so" "$BS/src/lib.c" "$BS/src/bigtext.S" >"$P.log" 2>&1 \
			&& cc -O2 -g -o "$D/usr/bin/prog" "$BS/src/prog.c" "$BS/src/bigtext.S" -L"$D/usr/lib" -lbig >>"$P.log" 2>&1 \
			&& printf 'int main (void) { return 0; }\n' >"$P/small.c" && cc -O2 -o "$D/usr/bin/small" "$P/small.c" >>"$P.log" 2>&1 \
			&& cc -O2 -c -o "$D/usr/lib/lib.o" "$BS/src/lib.c" >>"$P.log" 2>&1 \
			&& objcopy --only-keep-debug "$D/usr/bin/prog" "$D/usr/lib/debug/.build-id/ab/cdef.debug" >>"$P.log" 2>&1; then
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
		else skip "$L: cannot build the staging tree's files ($(tail -1 "$P.log"))"; fi
	fi
fi

$ran_any || skip_all "no part could run (see the SKIP lines above)"
finish
