# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# buildsys-lib.sh: what the build-system recipe tests (tests/run-buildsys-*.sh)
# share, sourced after lib.sh: each runs a recipe of doc/integration.md for
# real on a tiny project of tests/buildsys/ (see its README), copied into the
# script's own work directory $O, with a logging wrapper around $ELFPMD
# ($O/bin/elfpmd, given to every recipe by its build system's own way of
# choosing the tool), so that the test sees which files elfpmd was run on
# and when; and checks with the independent reader phdr-dump, eu-elflint
# and a run of the program.

BS=$TESTS_SRCDIR/buildsys
DOC=$TESTS_SRCDIR/../doc/integration.md
PMD=$((0x200000))
EXPECT_C="bigtext: program 5, library 5"
EXPECT_RUST="bigtext: program 5"

# buildsys_setup: the requirements (the slow suites, elfpmd), the work
# directory $O (scratch_dir), phdr-dump, the logging elfpmd $SPY (its log
# $SPY_LOG), and an environment without make check's make, flags, DESTDIR
# or Cargo settings.
buildsys_setup () {
	require_slow "CMake, Meson, Automake and Cargo builds"
	require_elfpmd
	scratch_dir
	O=$work
	mkdir -p "$O/bin" || hard_error "cannot create $O"
	require_phdr_dump "$O/tools"
	unset MAKEFLAGS MFLAGS MAKELEVEL CFLAGS CPPFLAGS LDFLAGS CCASFLAGS DESTDIR
	unset CARGO_TARGET_DIR CARGO_BUILD_TARGET RUSTFLAGS CARGO_BUILD_RUSTFLAGS CARGO_TARGET_X86_64_UNKNOWN_LINUX_GNU_LINKER
	export CARGO_NET_OFFLINE=true
	SPY_LOG=$O/elfpmd-calls.log
	: >"$SPY_LOG"
	cat >"$O/bin/elfpmd" <<EOS
#!/bin/sh
printf '%s\n' "\$*" >>'$SPY_LOG'
exec '$ELFPMD' "\$@"
EOS
	chmod +x "$O/bin/elfpmd"
	SPY=$O/bin/elfpmd
	have_elflint=false
	if have eu-elflint; then have_elflint=true; else skip "eu-elflint not found: elflint checks skipped"; fi
}

# buildsys_ref: the sample project's sources (tests/buildsys/src) linked
# without elfpmd in $REF=$O/ref (prog, libbig.so): the reference for
# eu-elflint, and what the recipes' results must differ from.  The
# projects' text is x86-64 code (`ret` instructions): the script is
# skipped elsewhere, or without a C compiler.
buildsys_ref () {
	[ "$(uname -m)" = x86_64 ] || skip_all "the sample projects are x86-64 code, this is $(uname -m)"
	have cc || skip_all "no C compiler"
	REF=$O/ref
	mkdir -p "$REF"
	cc -O2 -g -shared -fPIC -o "$REF/libbig.so" "$BS/src/lib.c" "$BS/src/bigtext.S" >"$REF/log" 2>&1 \
		&& cc -O2 -g -o "$REF/prog" "$BS/src/prog.c" "$BS/src/bigtext.S" -L"$REF" -lbig >>"$REF/log" 2>&1 \
		|| skip_all "cc cannot build the sample project ($(tail -1 "$REF/log"))"
}

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

# pipeline_linkers: set linkers to the linkers the post-link pipeline
# scripts link with: bfd, and lld where clang and ld.lld are (a SKIP says
# so where not).
pipeline_linkers () {
	linkers=bfd
	if have clang && have ld.lld; then linkers="bfd lld"; else skip "pipeline: clang or ld.lld missing: the lld layout skipped"; fi
}

# pipeline_link LD OUT: the pipeline's program (src/prog.c, src/bigtext.S,
# -lbig of $REF) linked at OUT with LD (bfd: cc; lld: clang -fuse-ld=lld),
# -O2 -g with a build-id; SKIP and return 1 where it cannot be linked.
pipeline_link () {
	local cc=(cc)
	[ "$1" = lld ] && cc=(clang -fuse-ld=lld)
	"${cc[@]}" -O2 -g -Wl,--build-id -o "$2" "$BS/src/prog.c" "$BS/src/bigtext.S" -L"$REF" -lbig >"$2.log" 2>&1 && return 0
	skip "pipeline: $1: cannot link ($(tail -1 "$2.log"))"
	return 1
}
