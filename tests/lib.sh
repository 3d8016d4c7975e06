# tests/lib.sh: shell helpers shared by the tests/run-*.sh scripts (bash).
#
# Source it after setting nothing; it reads the environment that
# Makefile.am's AM_TESTS_ENVIRONMENT exports and fills in defaults for a run
# by hand from the source tree (bash tests/run-foo.sh):
#
#   TESTS_SRCDIR    tests/ of the source tree (default: this file's directory)
#   TESTS_BUILDDIR  tests/ of the build tree (default: TESTS_SRCDIR)
#   ELFPMD          the tool (default: TESTS_BUILDDIR/../src/elfpmd)
#   PHDR_DUMP       tests/phdr-dump (default: TESTS_BUILDDIR/phdr-dump, compiled
#                   on the fly into a scratch directory when missing)
#
# Results: pass/fail/skip print one "PASS: ...", "FAIL: ..." or "SKIP: ..."
# line each and count; finish prints a summary and exits with the automake
# convention: 1 if anything failed, 77 if nothing passed and something was
# skipped, else 0.  A broken test environment (no tool to test) is a hard
# error: exit 99.

export LC_ALL=C

TESTS_SRCDIR=${TESTS_SRCDIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)}
TESTS_BUILDDIR=${TESTS_BUILDDIR:-$TESTS_SRCDIR}
ELFPMD=${ELFPMD:-$TESTS_BUILDDIR/../src/elfpmd}
PHDR_DUMP=${PHDR_DUMP:-$TESTS_BUILDDIR/phdr-dump}

n_pass=0
n_fail=0
n_skip=0

pass () { echo "PASS: $*"; n_pass=$((n_pass + 1)); }
fail () { echo "FAIL: $*"; n_fail=$((n_fail + 1)); }
skip () { echo "SKIP: $*"; n_skip=$((n_skip + 1)); }
note () { echo "      $*"; }

# hard_error MESSAGE: the test cannot run at all for a reason that is not a
# missing optional tool; automake reports it as ERROR.
hard_error () { echo "ERROR: $*"; exit 99; }

# check DESCRIPTION COMMAND...: PASS if COMMAND succeeds, else FAIL.
check () {
	local what=$1
	shift
	if "$@"; then pass "$what"; else fail "$what"; fi
}

# finish: print the summary and exit with the automake status.
finish () {
	echo "# pass $n_pass, fail $n_fail, skip $n_skip"
	if [ "$n_fail" -gt 0 ]; then exit 1; fi
	if [ "$n_pass" -eq 0 ] && [ "$n_skip" -gt 0 ]; then exit 77; fi
	exit 0
}

have () { command -v "$1" >/dev/null 2>&1; }

# require_elfpmd: make sure $ELFPMD can be run, or stop with a hard error.
require_elfpmd () {
	[ -x "$ELFPMD" ] || hard_error "ELFPMD=$ELFPMD is not an executable file (build the tool first)"
}

# require_phdr_dump SCRATCHDIR: make sure $PHDR_DUMP exists; when run by hand
# before 'make check' built it, compile tests/phdr-dump.c into SCRATCHDIR.
require_phdr_dump () {
	[ -x "$PHDR_DUMP" ] && return 0
	local cc=${CC:-cc}
	mkdir -p "$1" || hard_error "cannot create $1"
	"$cc" -O2 -o "$1/phdr-dump" "$TESTS_SRCDIR/phdr-dump.c" \
		|| hard_error "PHDR_DUMP=$PHDR_DUMP is missing and $TESTS_SRCDIR/phdr-dump.c does not compile"
	PHDR_DUMP=$1/phdr-dump
}

# file_signature FILE: inode, size, modification time (ns) and change time of
# FILE, to prove that a command left it alone.
file_signature () { stat -c '%i %s %y %z' -- "$1"; }

# phdr_without_align FILE: phdr-dump of FILE with the p_align column blanked,
# for comparing everything else.
phdr_without_align () {
	"$PHDR_DUMP" "$1" | awk '$1 == "ehdr" { print; next } { $8 = "-"; print }'
}

# load_aligns FILE: "INDEX ALIGN" of every PT_LOAD of FILE.
load_aligns () { "$PHDR_DUMP" "$1" | awk '$2 == "LOAD" { print $1, $8 }'; }

# expected_aligns RULE PMD FILE: "INDEX ALIGN" that RULE (relaxed or kernel)
# predicts for every PT_LOAD of FILE.
expected_aligns () { "$PHDR_DUMP" "--expect-$1" "$2" "$3" | awk '{ print $1, $2 }'; }

# elflint_messages FILE: eu-elflint --gnu-ld's messages about FILE, one per
# line, with the file name replaced by FILE so that two files' messages
# compare; nothing for a clean file.
elflint_messages () {
	eu-elflint --gnu-ld -- "$1" 2>&1 | F=$1 awk '
		$0 == "No errors" || $0 == "" { next }
		{
			f = ENVIRON["F"]
			while ((i = index($0, f)) > 0)
				$0 = substr($0, 1, i - 1) "FILE" substr($0, i + length(f))
			print
		}'
}

# elflint_count FILE: the number of eu-elflint --gnu-ld messages about FILE.
elflint_count () { elflint_messages "$1" | wc -l | tr -d ' '; }
