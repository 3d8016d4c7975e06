#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-messages.sh: what the command line says to a user.
#   - -h is --help, for the tool and every verb (the same bytes, exit 0);
#   - every message starts with the one prefix of its verb: "elfpmd: " for
#     the default verb, "elfpmd VERB: " for a verb, whether argp or elfpmd
#     prints it;
#   - --version in the GNU shape: name and version, copyright, licence,
#     no warranty, and where the stub's licence differs;
#   - -o - is refused as a usage error (64), and no file '-' is made;
#   - an -o that cannot be written names the output, not the input.
. "${TESTS_SRCDIR:-$(dirname "$0")}/lib.sh"
require_elfpmd

work=$TESTS_BUILDDIR/messages-work
rm -rf "$work"
mkdir -p "$work" || hard_error "cannot create $work"
cc=${CC:-cc}
have "$cc" || skip_all "no C compiler ($cc)"
printf 'int main (void) { return 0; }\n' > "$work/small.c"
"$cc" -o "$work/prog" "$work/small.c" || hard_error "cannot build a program"

for verb in "" status prime map reapply revert; do
	"$ELFPMD" $verb --help > "$work/help-long" 2>&1
	"$ELFPMD" $verb -h > "$work/help-short" 2>&1
	st=$?
	holds "elfpmd${verb:+ $verb} -h: exit 0, the bytes of --help" \
		'[ $st -eq 0 ] && [ -s "$work/help-short" ] && cmp -s "$work/help-long" "$work/help-short"'
done

# prefix LINE VERB: whether LINE starts with the prefix of VERB.
prefix_ok () { case $1 in "elfpmd${2:+ $2}: "*) return 0 ;; *) return 1 ;; esac; }
# each_line_prefixed FILE VERB: every line of FILE has VERB's prefix.
each_line_prefixed () {
	local line n=0
	while IFS= read -r line; do
		case $line in "Try \`elfpmd"*) continue ;; esac   # (argp's pointer to --help)
		prefix_ok "$line" "$2" || return 1
		n=$((n + 1))
	done < "$1"
	[ $n -gt 0 ]
}
cases=(
	":--bogus"
	":$work/no-such-file"
	":--files-from=$work/no-such-list"
	"status:--bogus"
	"status:2147483646"
	"prime:$work/no-such-file"
	"prime:--files-from=$work/no-such-list"
	"map:$work/no-such-file"
	"reapply:--manifest=$work/no-such-manifest --bogus"
	"reapply:x"
	"revert:--manifest=$work/no-such-manifest"
)
for c in "${cases[@]}"; do
	verb=${c%%:*} args=${c#*:}
	# (the arguments split at spaces on purpose; none has one)
	# shellcheck disable=SC2086
	"$ELFPMD" $verb $args > /dev/null 2> "$work/err"
	each_line_prefixed "$work/err" "$verb" \
		&& pass "elfpmd${verb:+ $verb} ${args//$work/WORK}: '$(head -1 "$work/err" | cut -c1-70)'" \
		|| fail "elfpmd${verb:+ $verb} ${args//$work/WORK}: not every line starts with 'elfpmd${verb:+ $verb}: ': $(cat "$work/err")"
done

"$ELFPMD" --version > "$work/version" 2>&1
st=$?
holds "--version: exit 0, '$(head -1 "$work/version")', then copyright, licence (GPLv3+), the stub's 0BSD, no warranty" \
	'[ $st -eq 0 ] && head -1 "$work/version" | grep -Eq "^elfpmd [0-9]+\.[0-9]+\.[0-9]+$" &&
	 grep -q "^Copyright (C) 20[0-9][0-9] The elfpmd authors$" "$work/version" &&
	 grep -q "^License GPLv3+: GNU GPL version 3 or later <https://gnu.org/licenses/gpl.html>\.$" "$work/version" &&
	 grep -q "0BSD" "$work/version" && grep -q "^There is NO WARRANTY, to the extent permitted by law\.$" "$work/version"'
check "status --version: the same" sh -c "'$ELFPMD' status --version | cmp -s - '$work/version'"
"$ELFPMD" --help > "$work/help" 2>&1
check "--help ends with where to report bugs" grep -q "^Report bugs to " "$work/help"

cd "$work" || hard_error "cannot cd to $work"
"$ELFPMD" -o - prog > "$work/dash.out" 2> "$work/dash.err"
st=$?
holds "-o -: usage error (64), one line saying why and naming ./-, no file '-'" \
	'[ $st -eq 64 ] && [ ! -e "$work/-" ] && grep -q "^elfpmd: --output=-: the result cannot go to standard output" "$work/dash.err"'
"$ELFPMD" -o ./- prog > /dev/null 2>&1
check "-o ./-: a file named '-'" test -s "$work/-"
"$ELFPMD" -o "$work/no-such-dir/out" prog > /dev/null 2> "$work/o.err"
st=$?
holds "-o into a missing directory: exit 1, the error names the output" \
	'[ $st -eq 1 ] && [ "$(wc -l < "$work/o.err")" -eq 1 ] && grep -q "^elfpmd: $work/no-such-dir/out: " "$work/o.err"'
if [ "$(id -u)" -eq 0 ] && have setpriv; then
	mkdir -p "$work/ro" && chmod 555 "$work/ro" && chmod 755 "$work" && chmod 644 "$work/prog"
	setpriv --reuid=65534 --regid=65534 --clear-groups "$ELFPMD" -o "$work/ro/out" "$work/prog" > /dev/null 2> "$work/ro.err"
	st=$?
	holds "-o into a directory nobody cannot write: exit 1, the error names the output and its directory" \
		'[ $st -eq 1 ] && grep -q "^elfpmd: $work/ro/out: cannot create a temporary file in its directory" "$work/ro.err"'
else
	skip "-o into an unwritable directory: needs root and setpriv to be another user"
fi

cd / && rm -rf "$work"
finish
