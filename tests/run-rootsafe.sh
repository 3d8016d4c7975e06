#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# elfpmd as root over a tree another user owns (elfpmd(1), RUNNING AS ROOT):
# no name that user controls can redirect what root writes, opens or waits
# for.  The user is played by fixtures/racer.c, an LD_PRELOAD library in
# elfpmd that swaps a directory of the tree for a symbolic link to a
# directory of root's (or a file for a FIFO) right before the call where
# the swap hurts most; the tree belongs to nobody, the victim to root:
#   1. hard links tree/x/prog and tree/y/prog, tree/y swapped right before
#      the link made beside tree/y/prog: root's victim/prog stays as it was;
#   2. the walk: tree/walkme swapped right before it is read: root's
#      set-user-ID victim/prog is not rewritten, the directory is reported;
#   3. a file named on the command line, its directory swapped right before
#      the temporary file is made; 4. the same for -o;
#   5. elfpmd status of a process of nobody's that maps a file, deletes it
#      and puts a symbolic link to a FIFO at "FILE (deleted)": status (as
#      root, and as nobody) ends within 20 s and never opens the FIFO (a
#      writer waiting for a reader stays blocked);
#   6. elfpmd prime of a file exchanged for a FIFO after its first open,
#      and of a name in a list exchanged after its first look: it ends
#      within 20 s; a name in a list through a symbolic link of nobody's
#      is refused (exit 1, "1 failed");
#   7. names are bytes: "caf\xe9" and "café" (UTF-8) in one --json run come
#      out as two names, each mapping back to its file's exact bytes;
#   8. strace -f of `elfpmd -r` over the tree: no open, stat, link, rename
#      or unlink names a path inside the tree; every one is a name in a
#      directory held open;
#   9. nobody runs the same over its own tree: the files are rewritten;
#  10. reapply: a listed file of nobody's tree, replaced
#      by an upgrade, becomes a symbolic link of root's to root's victim
#      right before the elfpmd reapply runs looks at it: refused (exit 1),
#      the victim untouched; the sanity arm: the same race against
#      elfpmd --madvise NAME converts the victim;
#  11. revert: nobody's directory of the file becomes a link to
#      root's victim directory right before the rename: the original goes
#      back into the directory held open, the victim untouched; the sanity
#      arm: the same race against mv replaces the victim;
#  12. strace -f of reapply and revert: no call names a path inside the
#      tree, no rename or link by path; the name is replaced by renameat in
#      the directory held open.
# Each case checks that the racer did swap (else the case proves nothing).
# Needs root, the user nobody (setpriv or runuser), a directory under /tmp
# others can reach; strace for case 8.  Skips (77) without them.
. "${TESTS_SRCDIR:-$(dirname "$0")}/lib.sh"

O=$TESTS_BUILDDIR/rootsafe-build
cleanup_on_exit

require_elfpmd
[ "$(id -u)" = 0 ] || skip_all "needs root (elfpmd as root over another user's tree)"
[ "$(uname -m)" = x86_64 ] || skip_all "the fixtures are x86-64 only"
find_as_nobody || skip_all "cannot run a command as nobody (no such user, or neither setpriv nor runuser works)"
rm -rf "$O"
mkdir -p "$O" || hard_error "cannot create $O"
build_fixture inv-pie || skip_all "cannot build inv-pie: $(tail -1 "$O/inv-pie.log")"
build_fixture rootsafe-tools || skip_all "cannot build fixtures/racer.c, mapper.c: $(tail -1 "$O/rootsafe-tools.log")"
ELF=$O/inv-pie
W=$(mktemp -d /tmp/elfpmd-rootsafe.XXXXXX) || hard_error "cannot make a directory under /tmp"
CLEANUP+=("rm -rf '$W'")
chmod 755 "$W"
T=$W/tree V=$W/victim

# fresh: a new tree of nobody's and a new victim directory of root's, with
# root's set-user-ID copy of the fixture at victim/prog (and victim/new).
fresh () {
	rm -rf "$T" "$T".* "$V" "$W/racer.log"
	mkdir -p "$T" "$V"
	cp "$ELF" "$V/prog" && chmod 4755 "$V/prog" && cp "$ELF" "$V/new"
	sha256sum "$V/prog" "$V/new" >"$W/victim.sum"
	stat -c '%n %u %a %i' "$V/prog" "$V/new" >"$W/victim.stat"
}
# nobody_tree CMD: shell code run as nobody in the tree (to make it).
nobody_tree () { chown nobody "$T" && "${AS_NOBODY[@]}" sh -c "cd '$T' && $1"; }
# victim_untouched WHAT: root's files as they were.
victim_untouched () {
	if sha256sum -c --quiet "$W/victim.sum" >/dev/null 2>&1 \
		&& [ "$(stat -c '%n %u %a %i' "$V/prog" "$V/new")" = "$(cat "$W/victim.stat")" ] \
		&& [ -z "$(find "$V" -name '.elfpmd*')" ]; then
		pass "$1: root's files outside the tree untouched"
	else
		fail "$1: root's files outside the tree changed: $(ls -la "$V" | tr '\n' ' ')"
	fi
}
# raced WHAT: the racer did swap (else the case proves nothing).
raced () {
	if grep -q '^racer: swapped' "$W/racer.log" 2>/dev/null; then
		pass "$1: the directory was swapped ($(sed 's/^racer: //' "$W/racer.log" | head -1))"
	else
		fail "$1: the racer never swapped ($(cat "$W/racer.log" 2>/dev/null)): this case proves nothing"
	fi
}
# racing DIR TARGET AT MATCH COMMAND...: COMMAND (elfpmd) with the racer.
racing () {
	local dir=$1 target=$2 at=$3 match=$4
	shift 4
	env LD_PRELOAD="$O/racer.so" RACER_DIR="$dir" RACER_TARGET="$target" RACER_AT="$at" \
		RACER_MATCH="$match" RACER_LOG="$W/racer.log" "$@"
}

echo "# 1. hard-link relink"
fresh
nobody_tree "mkdir x y && cp '$ELF' x/prog && ln x/prog y/prog"
racing "$T/y" "$V" linkat,link .elfpmd-link "$ELFPMD" -q -j1 -r "$T" >"$W/out" 2>&1
echo "exit status $?" >>"$W/out"
raced "relink"
victim_untouched "relink"
note "$(tr '\n' ' ' <"$W/out")"

echo "# 2. the walk"
fresh
nobody_tree "mkdir walkme && cp '$ELF' walkme/prog"
racing "$T/walkme" "$V" openat,opendir,scandir walkme "$ELFPMD" -q -j1 -r "$T" >"$W/out" 2>&1
rc=$?
raced "walk"
victim_untouched "walk"
holds "walk: the swapped directory is reported (exit $rc: $(head -c 200 "$W/out" | tr '\n' ' '))" \
	'[ "$rc" -eq 1 ] && grep -q "walkme" "$W/out"'

echo "# 3. a file named on the command line"
fresh
nobody_tree "mkdir dir && cp '$ELF' dir/prog"
cp "$ELF" "$V/prog.tmp" 2>/dev/null; rm -f "$V/prog.tmp"
racing "$T/dir" "$V" openat,mkostemp .elfpmd. "$ELFPMD" -q "$T/dir/prog" >"$W/out" 2>&1
raced "single file"
victim_untouched "single file"

echo "# 4. -o"
fresh
nobody_tree "mkdir out"
racing "$T/out" "$V" openat,mkostemp .elfpmd. "$ELFPMD" -q -o "$T/out/new" "$ELF" >"$W/out" 2>&1
raced "-o"
victim_untouched "-o"

echo "# 5. elfpmd status and a planted link"
fresh
nobody_tree "mkdir m && head -c 4194304 /dev/urandom > m/blob"
# status_run WHO...: status of nobody's mapper, run by WHO (empty: root).
status_run () {
	local what=$1 writer mpid rc
	shift
	"${AS_NOBODY[@]}" "$O/mapper" "$T/m/blob" >"$W/mapper.out" 2>&1 &
	mpid=$!
	for ((k = 0; k < 50; k++)); do grep -qs mapped "$W/mapper.out" && break; sleep 0.1; done
	"${AS_NOBODY[@]}" sh -c "rm -f '$T/m/blob' && rm -f '$T/fifo' && mkfifo '$T/fifo' \
		&& ln -s '$T/fifo' '$T/m/blob (deleted)'"
	# A writer that waits for a reader: it ends only if someone opens the FIFO.
	timeout 60 sh -c "echo x > '$T/fifo'" &
	writer=$!
	{ timeout -k 5 20 "$@" "$ELFPMD" status --json "$mpid" >"$W/status.out" 2>&1; rc=$?; } 2>/dev/null
	sleep 0.5
	if [ "$rc" -ne 124 ] && [ "$rc" -ne 137 ] && kill -0 "$writer" 2>/dev/null; then
		pass "status as $what: ends (exit $rc) and never opens the FIFO the link points to"
	else
		fail "status as $what: exit $rc; the FIFO's writer $(kill -0 "$writer" 2>/dev/null && echo 'still waits' || echo 'was let through: the FIFO was opened')"
	fi
	kill "$writer" "$mpid" 2>/dev/null
	wait "$writer" "$mpid" 2>/dev/null
	rm -f "$T/m/blob (deleted)"
	"${AS_NOBODY[@]}" sh -c "head -c 4194304 /dev/urandom > '$T/m/blob'"
}
status_run root
status_run nobody "${AS_NOBODY[@]}"

echo "# 6. elfpmd prime of a file exchanged for a FIFO"
fresh
nobody_tree "mkdir p && cp '$ELF' p/prog"
"$ELFPMD" -q "$T/p/prog" >/dev/null 2>&1
{ racing "$T/p/prog" "" open,openat "$T/p/prog" env RACER_SKIP=1 RACER_FIFO=1 \
	timeout -k 5 20 "$ELFPMD" prime -q "$T/p/prog" >"$W/out" 2>&1; rc=$?; } 2>/dev/null
holds "prime: ends within 20 s (exit $rc)" '[ "$rc" -ne 124 ] && [ "$rc" -ne 137 ]'
rm -f "$T/p/prog"
# The same from a list (what the dpkg trigger and the systemd unit run):
# the name resolved in its directory and looked at (an O_PATH open of
# "prog"), then exchanged before it is opened.
rm -rf "$T/p/prog" "$T/p/prog".* "$W/racer.log"
"${AS_NOBODY[@]}" cp "$ELF" "$T/p/prog"
printf '%s\n' "$T/p/prog" > "$W/prime.list"
{ racing "$T/p/prog" "" open,openat prog env RACER_SKIP=1 RACER_FIFO=1 \
	timeout -k 5 20 "$ELFPMD" prime -q -T "$W/prime.list" >"$W/out" 2>&1; rc=$?; } 2>/dev/null
raced "prime -T LIST"
holds "prime -T LIST: ends within 20 s (exit $rc: $(head -1 "$W/out"))" '[ "$rc" -ne 124 ] && [ "$rc" -ne 137 ]'
rm -f "$T/p/prog"
# A name in a list through a symbolic link of nobody's (which nobody could
# point anywhere at any moment) is refused, as on the command line of the
# rewrite: root reads and evicts no file nobody chose.
rm -rf "$T/p" "$W/racer.log"
nobody_tree "mkdir p && cp '$ELF' p/prog && ln -s p link"
printf '%s\n' "$T/link/prog" > "$W/prime.list"
{ timeout -k 5 20 "$ELFPMD" prime -T "$W/prime.list" >"$W/out" 2>&1; rc=$?; } 2>/dev/null
holds "prime -T LIST: a name through nobody's symbolic link is refused (exit $rc: $(grep -m1 'elfpmd prime:' "$W/out"))" \
	'[ "$rc" -eq 1 ] && grep -q "^elfpmd prime: $T/link/prog: the symbolic link link on the way belongs to another user" "$W/out" \
	 && grep -q "1 failed" "$W/out"'

echo "# 7. names are bytes"
fresh
nobody_tree "cp '$ELF' \"\$(printf 'caf\\351')\" && cp '$ELF' 'café'"
"$ELFPMD" -n --json -r "$T" >"$W/names.json" 2>"$W/names.err"
if python3 - "$W/names.json" "$T" <<'EOF'
import json, os, sys
names = set()
for line in open(sys.argv[1], encoding="utf-8"):
    r = json.loads(line)
    if "file" not in r:
        continue
    raw = bytes.fromhex(r["file_hex"]) if "file_hex" in r else r["file"].encode()
    names.add(raw)
want = {os.path.join(os.fsencode(sys.argv[2]), n) for n in os.listdir(os.fsencode(sys.argv[2]))}
sys.exit(0 if names == want and len(names) == 2 else 1)
EOF
then
	pass "names: caf\\xe9 and café are two names in the JSON, each its file's exact bytes"
else
	fail "names: the JSON does not map back to the two files: $(cat "$W/names.json")"
fi

echo "# 8. every operation relative to a directory held open"
if have strace; then
	fresh
	nobody_tree "mkdir -p a/b && cp '$ELF' a/b/prog && ln a/b/prog a/prog2 && cp '$ELF' top"
	strace -f -qq -o "$W/strace.log" -e trace=open,openat,openat2,stat,lstat,newfstatat,statx,link,linkat,rename,renameat,renameat2,unlink,unlinkat,readlink,readlinkat,mkdir,mkdirat,chmod,fchmodat,chown,fchownat,utimensat,truncate \
		"$ELFPMD" -q -j2 -r "$T" >"$W/out" 2>&1
	paths=$(grep -F "\"$T" "$W/strace.log" | sed 's/^[0-9]* *//' | head -5)
	calls=$(grep -cE '(openat|newfstatat|linkat|renameat|unlinkat)\([0-9]+, "[^"/]+"' "$W/strace.log")
	if [ -z "$paths" ] && [ "$calls" -gt 0 ]; then
		pass "strace: no call names a path inside the tree; $calls name a file in a directory held open"
	else
		fail "strace: calls by path inside the tree: $paths"
	fi
	holds "strace: the run rewrote the files ($(tr '\n' ' ' <"$W/out"))" \
		'[ "$(stat -c %i "$T/a/b/prog")" = "$(stat -c %i "$T/a/prog2")" ] && ! cmp -s "$ELF" "$T/top"'
else
	skip "strace not found (Debian: strace)"
fi

echo "# 10. reapply: the listed file swapped after its check"
# Root converted tree/d/prog with --manifest; nobody replaced it (an
# upgrade).  Right before the elfpmd that reapply runs looks at the name
# (its first fstatat of "prog"), the name becomes a symbolic link of root's
# to root's victim/prog: the conversion must refuse it.
# The sanity arm: the same race against the command reapply ran before
# (elfpmd --madvise NAME, no --expect-inode) converts root's file.
reapply_setup () {
	fresh
	rm -f "$W/M"
	nobody_tree "mkdir d && cp '$ELF' d/prog"
	"$ELFPMD" -q --madvise --manifest="$W/M" "$T/d/prog" || hard_error "cannot convert $T/d/prog"
	nobody_tree "cp '$ELF' d/prog.new && mv d/prog.new d/prog"
}
reapply_setup
racing "$T/d/prog" "$V/prog" fstatat,newfstatat,lstat prog "$ELFPMD" reapply -q --manifest="$W/M" >"$W/out" 2>&1
rc=$?
raced "reapply"
victim_untouched "reapply"
holds "reapply: exit 1, the swapped name refused ($(head -1 "$W/out"))" '[ $rc -eq 1 ] && grep -q "replaced while the run was under way" "$W/out"'
reapply_setup
racing "$T/d/prog" "$V/prog" fstatat,newfstatat,lstat prog "$ELFPMD" -q --madvise "$T/d/prog" >"$W/out" 2>&1
if grep -q '^racer: swapped' "$W/racer.log" 2>/dev/null && ! sha256sum -c --quiet "$W/victim.sum" >/dev/null 2>&1; then
	pass "sanity: the same race against elfpmd --madvise NAME (reapply's command before) converts root's victim/prog"
else
	fail "sanity: the race against elfpmd --madvise NAME did not reach root's file ($(cat "$W/racer.log" 2>/dev/null)): case 10 proves nothing"
fi

echo "# 11. revert: the directory swapped before the rename"
# Root converted tree/d/prog keeping its original in a directory of root's;
# right before revert renames the original back over the name, nobody's
# tree/d becomes a symbolic link to root's victim directory: the rename
# happens in the directory revert holds open.  The sanity
# arm: the same race against a rename by path (mv) replaces root's
# victim/prog.
revert_setup () {
	fresh
	rm -rf "$W/M" "$W/K"
	nobody_tree "mkdir d && cp '$ELF' d/prog"
	"$ELFPMD" -q --madvise --manifest="$W/M" --keep-originals="$W/K" "$T/d/prog" \
		|| hard_error "cannot convert $T/d/prog"
}
revert_setup
racing "$T/d" "$V" renameat,rename prog "$ELFPMD" revert -q --manifest="$W/M" >"$W/out" 2>&1
rc=$?
raced "revert"
victim_untouched "revert"
holds "revert: exit 0, the original back in the directory it held ($(head -1 "$W/out"))" \
	'[ $rc -eq 0 ] && cmp -s "$ELF" "$T/d.orig/prog"'
revert_setup
cp "$ELF" "$W/prog.x" && printf x >>"$W/prog.x" && cp "$W/prog.x" "$W/prog.want"
racing "$T/d" "$V" renameat,rename,renameat2 prog mv "$W/prog.x" "$T/d/prog" >"$W/out" 2>&1
if grep -q '^racer: swapped' "$W/racer.log" 2>/dev/null && cmp -s "$V/prog" "$W/prog.want"; then
	pass "sanity: the same race against a rename by path (mv) replaces root's victim/prog"
elif ! grep -q '^racer: swapped' "$W/racer.log" 2>/dev/null; then
	skip "sanity: mv renamed through a call the racer does not wrap ($(cat "$W/out"))"
else
	fail "sanity: the race against mv did not reach root's file: case 11 proves less"
fi
rm -f "$W/prog.x" "$W/prog.want"

echo "# 12. reapply and revert: every operation relative to a directory held open"
if have strace; then
	for verb in reapply revert; do
		${verb}_setup
		strace -f -qq -o "$W/strace.$verb" -e trace=open,openat,openat2,stat,lstat,newfstatat,statx,link,linkat,rename,renameat,renameat2,unlink,unlinkat,truncate \
			"$ELFPMD" $verb -q --manifest="$W/M" >"$W/out" 2>&1
		rc=$?
		paths=$(grep -F "\"$T" "$W/strace.$verb" | sed 's/^[0-9]* *//' | head -3)
		byname=$(grep -cE '(rename|renameat|renameat2|link|linkat)\((AT_FDCWD, )?"/' "$W/strace.$verb")
		renames=$(grep -cE 'renameat2?\([0-9]+, "[^"/]+", [0-9]+, "prog"' "$W/strace.$verb")
		holds "strace $verb: exit 0 (got $rc), no call names a path inside the tree, no rename or link by path ($byname), the name replaced through the directory held ($renames) ${paths:+: $paths}" \
			'[ $rc -eq 0 ] && [ -z "$paths" ] && [ "$byname" -eq 0 ] && [ "$renames" -ge 1 ]'
	done
else
	skip "strace not found (Debian: strace)"
fi

echo "# 9. nobody over its own tree"
fresh
nobody_tree "mkdir -p d && cp '$ELF' d/prog && ln -s d dlink"
"${AS_NOBODY[@]}" "$ELFPMD" -q -r "$T" >"$W/out" 2>&1
rc=$?
"${AS_NOBODY[@]}" "$ELFPMD" -q "$T/dlink/prog" >>"$W/out" 2>&1
rc2=$?
holds "nobody: -r over its tree and a name through its own link work (exit $rc, $rc2: $(tr '\n' ' ' <"$W/out"))" \
	'[ "$rc" -eq 0 ] && [ "$rc2" -eq 0 ] && ! cmp -s "$ELF" "$T/d/prog"'

finish
