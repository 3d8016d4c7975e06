#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-completion.sh: the bash completion (dist/bash-completion/elfpmd) in a
# bash with bash-completion loaded, completing as a user's TAB would:
#   - the verbs after 'elfpmd';
#   - the options of the default verb and of a verb (status's --json, not
#     the main --madvise), as their --help lists them;
#   - --rule=, --madvise=copy, files after -o and in place of FILE,
#     directories after -r, PIDs after status;
# and `make install` puts it where configure said (bash-completion's
# completionsdir under the prefix).
. "${TESTS_SRCDIR:-$(dirname "$0")}/lib.sh"
require_elfpmd

bc=/usr/share/bash-completion/bash_completion
[ -r "$bc" ] || skip_all "bash-completion is not installed ($bc; Debian: package bash-completion)"
script=$TESTS_SRCDIR/../dist/bash-completion/elfpmd
work=$TESTS_BUILDDIR/completion-work
rm -rf "$work"
mkdir -p "$work/dir" || hard_error "cannot create $work"
touch "$work/file.so"

# complete WORDS...: what TAB offers after WORDS (the last one the word
# being completed, possibly empty), one a line, sorted, run in a fresh
# bash in $work with elfpmd on PATH.
complete_words () {
	env -u BASH_ENV PATH="$(dirname "$ELFPMD"):$PATH" bash --norc --noprofile -c '
		cd "$1" || exit 1
		. "$2" && . "$3" || exit 1
		shift 3
		COMP_WORDS=("$@")
		COMP_CWORD=$(($# - 1))
		COMP_LINE="$*"
		COMP_POINT=${#COMP_LINE}
		_comp_elfpmd elfpmd "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
		printf "%s\n" "${COMPREPLY[@]}"' sh "$work" "$bc" "$script" "$@" | sort
}
[ "$(basename "$ELFPMD")" = elfpmd ] || skip_all "ELFPMD ($ELFPMD) is not named elfpmd: the completion runs 'elfpmd VERB --help'"

out=$(complete_words elfpmd "")
holds "elfpmd TAB: the five verbs and the files here" \
	'for w in status prime map reapply revert file.so dir; do printf "%s\n" "$out" | grep -qx "$w" || exit 1; done'
out=$(complete_words elfpmd --ma)
holds "elfpmd --ma TAB: --madvise, --manifest=, --machine= ($(echo $out))" \
	'printf "%s\n" "$out" | grep -q "^--madvise" && printf "%s\n" "$out" | grep -q "^--manifest=" && printf "%s\n" "$out" | grep -q "^--machine="'
out=$(complete_words elfpmd status --)
holds "elfpmd status -- TAB: status's options (--json, --quiet), not the main ones (--madvise)" \
	'printf "%s\n" "$out" | grep -qx -- --json && printf "%s\n" "$out" | grep -qx -- --quiet && ! printf "%s\n" "$out" | grep -q -- --madvise'
out=$(complete_words elfpmd map -)
check "elfpmd map - TAB: -C and --hot=" sh -c "printf '%s\n' '$out' | grep -qx -- -C && printf '%s\n' '$out' | grep -q -- '^--hot='"
out=$(complete_words elfpmd --rule "")
check "elfpmd --rule TAB: relaxed kernel" test "$(echo $out)" = "kernel relaxed"
out=$(complete_words elfpmd --madvise=c)
check "elfpmd --madvise=c TAB: copy" test "$out" = copy
out=$(complete_words elfpmd -o fi)
check "elfpmd -o fi TAB: file.so" test "$out" = file.so
out=$(complete_words elfpmd -r "")
check "elfpmd -r TAB: directories only" test "$out" = dir
out=$(complete_words elfpmd status "$$")
check "elfpmd status PID TAB: this shell's PID among the PIDs" sh -c "printf '%s\n' '$out' | grep -qx $$"

# make install puts it where configure said.  (Not the make running the
# tests: its MAKEFLAGS, under make -j, would have this one print where it
# enters into the directory it prints.)
if [ -f "$TESTS_BUILDDIR/../Makefile" ]; then
	make () { env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make "$@"; }
	make -C "$TESTS_BUILDDIR/.." install-dist_bashcompletionDATA DESTDIR="$work/dest" > "$work/install.log" 2>&1 \
		|| hard_error "make install-dist_bashcompletionDATA failed: $(tail -3 "$work/install.log")"
	dir=$(make -s --no-print-directory -C "$TESTS_BUILDDIR/.." -f Makefile -f - print-dir <<'MK'
print-dir:
	@echo $(bashcompletiondir)
MK
)
	check "make install: the completion in $dir" cmp -s "$work/dest$dir/elfpmd" "$script"
fi

rm -rf "$work"
finish
