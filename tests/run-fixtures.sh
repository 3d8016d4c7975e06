#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-fixtures.sh: build real programs and libraries with more than 4 MiB of
# text (tests/fixtures), rewrite them with elfpmd, and check that
#   - the rewritten files still run and print exactly what the originals print;
#   - eu-elflint --gnu-ld finds no more to complain about than in the originals;
#   - only p_align fields changed, and each PT_LOAD's new p_align is the one
#     that tests/phdr-dump, an independent reader, predicts for the rule;
#   - the fixtures that GNU ld lays out congruently really are aligned;
#   - a second run, -o, --dry-run --json, modes, owners and file capabilities
#     behave as documented, and strip/eu-strip keep the rewritten file working.
#
# Run by 'make check' with ELFPMD, PHDR_DUMP, TESTS_SRCDIR and TESTS_BUILDDIR
# set, or by hand from the source tree: bash tests/run-fixtures.sh
# (see tests/lib.sh for the defaults).  Fixtures this machine cannot build are
# skipped with the reason; exit 77 when none can be built.

# shellcheck source=tests/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

PMD=0x200000
ARGS=(alpha "beta gamma")	# arguments of every fixture run
O=$TESTS_BUILDDIR/fixtures-build
WORK=$O/work

require_elfpmd
rm -rf "$WORK"
mkdir -p "$WORK" || hard_error "cannot create $WORK"

# This script checks what raising p_align alone does, against phdr-dump's
# predictions of the rules; moving file contents is run-padding-*.sh's part.
# So every run here is elfpmd --no-pad.
printf '#!/bin/sh\nexec "%s" --no-pad "$@"\n' "$ELFPMD" > "$WORK/elfpmd-no-pad"
chmod +x "$WORK/elfpmd-no-pad"
ELFPMD=$WORK/elfpmd-no-pad
require_phdr_dump "$WORK/tools"

have_elflint=false
if have eu-elflint; then have_elflint=true; else skip "eu-elflint not found: elflint checks skipped"; fi
have_python=false
if have python3 && python3 -c 'import json' 2>/dev/null; then have_python=true
else skip "python3 not found: JSON parse checks skipped"; fi
am_root=false
[ "$(id -u)" = 0 ] && am_root=true

# The fixtures, one per line:
#   NAME  FILE  PROGRAM  TYPE  RELAXED  KERNEL
# NAME is the make target; FILE is the file rewritten; PROGRAM is what runs
# (the file itself, or a program that needs the library FILE from
# LD_LIBRARY_PATH); TYPE is the "type" the JSON report must give; RELAXED and
# KERNEL say whether that rule must change an alignment ("yes"), or whether
# only agreement with phdr-dump's prediction is checked ("-").  lld places the
# text at an offset not congruent with its address, so nothing is asserted for
# the lld fixtures yet.
FIXTURES='
pie            pie             pie             pie            yes  -
nopie          nopie           nopie           executable     yes  -
static         static          static          executable     yes  -
static-pie     static-pie      static-pie      pie            yes  -
libbig         libbig.so       usebig          shared_object  yes  -
pie-noseparate pie-noseparate  pie-noseparate  pie            yes  yes
lld-pie        lld-pie         lld-pie         pie            -    -
libbiglld      libbiglld.so    usebig-lld      shared_object  -    -
'

# check_phdrs RESULT RULE: everything but p_align is as in the original and
# every PT_LOAD's p_align is what phdr-dump predicts for RULE.
check_phdrs () {
	local result=$1 rule=$2
	if diff <(phdr_without_align "$w/orig/$file") <(phdr_without_align "$result") >"$w/diff" 2>&1
	then pass "$name: $rule: ELF header and program headers unchanged but for p_align"
	else fail "$name: $rule: ELF or program headers changed beyond p_align"; sed 's/^/      /' "$w/diff" | head -20
	fi
	if diff <(expected_aligns "$rule" "$PMD" "$w/orig/$file") <(load_aligns "$result") >"$w/diff" 2>&1
	then pass "$name: $rule: PT_LOAD alignments are the predicted ones ($(load_aligns "$result" | tr '\n' ' ' | sed 's/ $//'))"
	else fail "$name: $rule: PT_LOAD alignments differ from phdr-dump --expect-$rule (< predicted, > written)"
	     sed 's/^/      /' "$w/diff" | head -20
	fi
}

# check_changed RULE MUST RESULT: when MUST is yes, RULE has to change some
# PT_LOAD's p_align: the prediction says so and RESULT shows it.
check_changed () {
	[ "$2" = yes ] || return 0
	local predicted
	predicted=$("$PHDR_DUMP" "--expect-$1" "$PMD" "$w/orig/$file" | grep -c ' eligible$')
	if [ "$predicted" -gt 0 ] && ! cmp -s "$w/orig/$file" "$3"; then
		pass "$name: $1: $predicted segment(s) eligible and the file changed"
	else
		fail "$name: $1: expected an aligned segment: $predicted predicted eligible, file $(cmp -s "$w/orig/$file" "$3" && echo unchanged || echo changed)"
	fi
}

# unchanged_since COPY FILE SIGNATURE: FILE has COPY's bytes and still the
# file_signature SIGNATURE.
unchanged_since () { cmp -s "$1" "$2" && test "$3" = "$(file_signature "$2")"; }

has_cap_net_raw () { getcap "$1" | grep -q 'cap_net_raw[+=]ep'; }

# rewrite WHAT FILE ARGS...: run elfpmd -q ARGS... FILE in place, expect exit 0
# and no output on stdout.
rewrite () {
	local what=$1 target=$2 status
	shift 2
	"$ELFPMD" -q "$@" "$target" >"$target.stdout" 2>"$target.stderr"
	status=$?
	if [ $status -eq 0 ] && [ ! -s "$target.stdout" ]; then
		pass "$name: $what: elfpmd -q${*:+ $*} exits 0, silently"
		rm -f "$target.stdout" "$target.stderr"
		return 0
	fi
	fail "$name: $what: elfpmd -q${*:+ $*} exited $status"
	sed 's/^/      stdout: /' "$target.stdout" | head -5
	sed 's/^/      stderr: /' "$target.stderr" | head -5
	rm -f "$target.stdout" "$target.stderr"
	return 1
}

# check_json REPORT: the --dry-run --json report of the original is one JSON
# object that agrees with phdr-dump's view of the file.
check_json () {
	python3 - "$1" "$w/orig/$file" "$type" "$must_relaxed" "$PMD" \
		<(load_aligns "$w/orig/$file") <(expected_aligns relaxed "$PMD" "$w/orig/$file") \
		<("$PHDR_DUMP" "$w/orig/$file" | head -1) <<'EOF'
import json, sys
report, path, want_type, must, pmd, old_f, new_f, ehdr_f = sys.argv[1:]
pmd = int(pmd, 0)
want_type = want_type.replace("_", " ")
errors = []
lines = open(report).read().splitlines()
if len(lines) != 1:
    sys.exit("expected exactly one line of output, got %d" % len(lines))
try:
    r = json.loads(lines[0])
except ValueError as e:
    sys.exit("not JSON: %s" % e)
if not isinstance(r, dict):
    sys.exit("not a JSON object")
for key in ("file", "machine", "class", "byte_order", "type", "pmd_size", "changed",
            "segments", "pmd_chunks_before", "pmd_chunks_after", "aslr_bits_lost"):
    if key not in r:
        errors.append("key %r missing" % key)
if errors:
    sys.exit("; ".join(errors))
old = {int(i): int(a, 16) for i, a in (l.split() for l in open(old_f))}
new = {int(i): int(a, 16) for i, a in (l.split() for l in open(new_f))}
exec_type = "type=EXEC" in open(ehdr_f).read()
would_change = any(new[i] != old[i] for i in old)
if r["file"] != path:
    errors.append("file is %r, not %r" % (r["file"], path))
if r["type"] != want_type:
    errors.append("type is %r, not %r" % (r["type"], want_type))
if r["pmd_size"] != pmd:
    errors.append("pmd_size is %r, not %d" % (r["pmd_size"], pmd))
if r["changed"] is not would_change:
    errors.append("changed is %r, phdr-dump predicts %r" % (r["changed"], would_change))
if must == "yes" and r["changed"] is not True:
    errors.append("changed must be true for this fixture")
seen = set()
for s in r["segments"] if isinstance(r["segments"], list) else []:
    i = s.get("index")
    if i in new:
        seen.add(i)
        if s.get("align") != old[i]:
            errors.append("segment %d: align %r, file says %#x" % (i, s.get("align"), old[i]))
        if s.get("new_align") != new[i]:
            errors.append("segment %d: new_align %r, predicted %#x" % (i, s.get("new_align"), new[i]))
if seen != set(new):
    errors.append("segments lists PT_LOADs %s, the file has %s" % (sorted(seen), sorted(new)))
b, a = r["pmd_chunks_before"], r["pmd_chunks_after"]
if not (isinstance(b, int) and isinstance(a, int) and 0 <= b <= a):
    errors.append("pmd_chunks_before %r, pmd_chunks_after %r" % (b, a))
if would_change and not a > 0:
    errors.append("pmd_chunks_after is %r although a segment gets aligned" % a)
# A PIE or shared object's load base is aligned to its largest p_align.
bits = 0
if not exec_type:
    before, after = max(old.values()), max(new.values())
    while before and after > before:
        before *= 2
        bits += 1
if r["aslr_bits_lost"] != bits:
    errors.append("aslr_bits_lost %r, expected %d" % (r["aslr_bits_lost"], bits))
if errors:
    sys.exit("; ".join(errors))
print("changed=%s type=%r chunks %d -> %d, aslr_bits_lost %d" % (r["changed"], r["type"], b, a, bits))
EOF
}

built_any=false
while read -r name file prog type must_relaxed must_kernel <&3; do
	[ -n "$name" ] || continue
	echo "# fixture $name"
	build_or_skip "$name" "$name" || continue
	built_any=true
	w=$WORK/$name
	mkdir -p "$w"/{orig,relaxed,kernel,out,mode,cap}
	cp -p "$O/$file" "$w/orig/$file"
	pristine=$(file_signature "$w/orig/$file")
	fails_before=$n_fail

	# The original must run before its rewrite can be compared with it.
	check_original
	if [ "$prog" != "$file" ] && $can_run; then
		if LD_TRACE_LOADED_OBJECTS=1 LD_LIBRARY_PATH=$w/orig "$O/$prog" | grep -qF "$w/orig/$file"
		then pass "$name: $prog loads $file from the work directory"
		else fail "$name: $prog does not load $w/orig/$file"; fi
	fi
	$have_elflint && lint_before=$(elflint_count "$w/orig/$file")

	# Default (relaxed) rule, in place.
	r=$w/relaxed/$file
	cp -p "$w/orig/$file" "$r"
	if rewrite relaxed "$r"; then
		same_run "$w/relaxed" "rewritten (relaxed)"
		check_elflint "$r" relaxed
		check_phdrs "$r" relaxed
		check_changed relaxed "$must_relaxed" "$r"
		if cmp -s "$w/orig/$file" "$r"; then
			note "$name: relaxed rule left the file as it was"
		fi

		# A second run finds nothing to do and does not touch the file.
		cp -p "$r" "$w/relaxed.once"
		sig=$(file_signature "$r")
		if rewrite "second run" "$r"; then
			check "$name: second run leaves the bytes as they were" cmp -s "$w/relaxed.once" "$r"
			check "$name: second run leaves inode and times alone" \
				test "$sig" = "$(file_signature "$r")"
		fi

		# -o writes the same bytes elsewhere and leaves the input alone.
		out=$w/out/$file
		if "$ELFPMD" -q -o "$out" "$w/orig/$file" >"$w/out.log" 2>&1; then
			pass "$name: elfpmd -o exits 0"
			check "$name: -o output is identical to the in-place result" cmp -s "$w/relaxed.once" "$out"
			check "$name: -o output is executable like its input" test -x "$out"
			check "$name: -o leaves the input's bytes alone" cmp -s "$O/$file" "$w/orig/$file"
			check "$name: -o leaves the input's inode and times alone" \
				test "$pristine" = "$(file_signature "$w/orig/$file")"
			same_run "$w/out" "-o output"
		else
			fail "$name: elfpmd -o exited non-zero: $(head -3 "$w/out.log")"
		fi

		# strip and eu-strip run after elfpmd must leave a working file that
		# keeps the new alignment (patchelf's tracker has the opposite).
		for stripper in strip eu-strip; do
			if ! have $stripper; then skip "$name: $stripper not found"; continue; fi
			mkdir -p "$w/$stripper"
			cp -p "$r" "$w/$stripper/$file"
			if $stripper "$w/$stripper/$file" 2>"$w/strip.err"; then
				check "$name: $stripper keeps the PT_LOAD alignments" \
					cmp -s <(load_aligns "$r") <(load_aligns "$w/$stripper/$file")
				same_run "$w/$stripper" "rewritten and ${stripper}ped file"
			else
				fail "$name: $stripper fails on the rewritten file: $(head -1 "$w/strip.err")"
			fi
		done
	fi

	# The kernel rule.
	k=$w/kernel/$file
	cp -p "$w/orig/$file" "$k"
	if rewrite kernel "$k" --rule=kernel; then
		same_run "$w/kernel" "rewritten (kernel rule)"
		check_elflint "$k" kernel
		check_phdrs "$k" kernel
		check_changed kernel "$must_kernel" "$k"
		cp -p "$k" "$w/kernel.once"
		sig=$(file_signature "$k")
		if rewrite "kernel second run" "$k" --rule=kernel; then
			check "$name: kernel second run leaves bytes, inode and times alone" \
				unchanged_since "$w/kernel.once" "$k" "$sig"
		fi
	fi

	# --dry-run --json reports without writing.
	json=$w/report.json
	pristine=$(file_signature "$w/orig/$file")
	"$ELFPMD" -n --json "$w/orig/$file" >"$json" 2>"$w/report.err"
	status=$?
	check "$name: -n --json exits 0" test $status -eq 0
	check "$name: -n --json leaves the file's bytes alone" cmp -s "$O/$file" "$w/orig/$file"
	check "$name: -n --json leaves the file's inode and times alone" \
		test "$pristine" = "$(file_signature "$w/orig/$file")"
	if $have_python; then
		if msg=$(check_json "$json" 2>&1); then
			pass "$name: -n --json report agrees with phdr-dump: $msg"
		else
			fail "$name: -n --json report: $msg"
			head -c 600 "$json" | sed 's/^/      /'; echo
		fi
	fi

	# Mode (with the setuid bit) and owner survive an in-place rewrite.
	m=$w/mode/$file
	cp "$w/orig/$file" "$m"
	want_owner=$(stat -c %u:%g "$m")
	if $am_root; then chown 65534:65534 "$m" && want_owner=65534:65534; fi
	chmod 4755 "$m"
	if rewrite "setuid copy" "$m"; then
		check "$name: mode 4755 kept (got $(stat -c %a "$m"))" test "$(stat -c %a "$m")" = 4755
		check "$name: owner $want_owner kept (got $(stat -c %u:%g "$m"))" \
			test "$(stat -c %u:%g "$m")" = "$want_owner"
		check "$name: setuid copy has the same bytes as the in-place result" cmp -s "$m" "$r"
	fi

	# A file capability (security.capability xattr) survives too.
	c=$w/cap/$file
	cp "$w/orig/$file" "$c"
	if ! $am_root || ! have setcap || ! have getcap; then
		skip "$name: file capabilities not checked (needs root, setcap and getcap)"
	elif ! setcap cap_net_raw+ep "$c" 2>"$w/setcap.err"; then
		skip "$name: setcap does not work here: $(head -1 "$w/setcap.err")"
	elif rewrite "copy with capability" "$c"; then
		check "$name: file capability cap_net_raw+ep kept (getcap: $(getcap "$c" | sed "s|$c *||"))" \
			has_cap_net_raw "$c"
		check "$name: capability copy has the same bytes as the in-place result" cmp -s "$c" "$r"
	fi

	# Keep the work files of a failed fixture for a look, drop the others (they
	# are several MiB each).
	if [ "$n_fail" -eq "$fails_before" ]; then rm -rf "$w"; fi
done 3<<<"$FIXTURES" </dev/null

stop_unless_built
finish
