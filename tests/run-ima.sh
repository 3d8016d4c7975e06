#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-ima.sh: what a rewrite in place does with IMA's and EVM's extended
# attributes (doc/design.md, IMA and EVM).  The fixture pie (and lld-pie, padded
# with a hole) gets security.ima values made here with Python's hashlib,
# independently of elfpmd:
#   - a hash (type 0x04 with SHA-256 or SHA-1, legacy type 0x01 with SHA-1;
#     SHA-256 also with --madvise and on the padded lld-pie): the rewrite's
#     security.ima is the same type and algorithm holding the hash of the
#     new bytes, the report says "ima":"rehashed-ALG" ("would-rehash-ALG"
#     in a dry run, which changes nothing), other attributes are kept, and
#     the program prints what the original prints;
#   - a signature (0x03, 0x06), another type, a malformed hash, a hash of an
#     algorithm the kernel cannot compute (rmd128), any security.evm:
#     refused before anything is written, in a dry run too: exit status 1,
#     one line on stderr naming the file and the reason, the file byte for
#     byte as it was with the same inode, dates and attributes; a batch run
#     counts it as failed;
#   - a signed file elfpmd would not change, -o (a new file: no extended
#     attributes), a file without the attributes: unaffected.
# The hash comes from the kernel's crypto API (AF_ALG).  Where this kernel
# has none (CONFIG_CRYPTO_USER_API_HASH unset), the hash cases here must be
# refused with that reason, and the rehash cases run instead in Debian 12's
# own kernel booted in qemu (the VM harness, tests/vm/lib.sh: its kernel
# package fetched once with af_alg and algif_hash added), on an ext4 disk
# made with the files and their attributes: there elfpmd rewrites them,
# the programs run, then an IMA policy that appraises every program run
# from that disk (appraise func=BPRM_CHECK fsmagic=0xef53) is loaded and
# they run again: the rewrites must run, and a rewrite carrying the
# original's hash (what copying the attribute made) must be refused by the
# kernel.  The host reads the results from the disk image.
# ELFPMD_IMA_VM=yes runs the VM part also where the host has AF_ALG, =no
# never.
#
# Needs root (security.* attributes) and a file system that stores them;
# skips (77) otherwise.
. "${TESTS_SRCDIR:-$(dirname "$0")}/lib.sh"

ARGS=(alpha "beta gamma")
O=$TESTS_BUILDDIR/ima-build
cleanup_on_exit

require_elfpmd
[ "$(id -u)" = 0 ] || skip_all "needs root (setting security.* extended attributes)"
have python3 || skip_all "python3 is needed to make and check the attributes"

rm -rf "$O"
mkdir -p "$O" || hard_error "cannot create $O"
W=$O/work
mkdir -p "$W"

# The attributes, made and checked with Python's hashlib (not elfpmd's code).
IMA_PY=$O/ima.py
cat >"$IMA_PY" <<'EOF'
import hashlib, json, os, socket, sys

ALGOS = {"md5": 1, "sha1": 2, "sha256": 4, "sha512": 6}

def expected(path, kind):
    data = open(path, "rb").read()
    if kind == "legacy":
        return b"\x01" + hashlib.sha1(data).digest()
    return bytes([4, ALGOS[kind]]) + hashlib.new(kind, data).digest()

def value(kind, path):
    if kind in ALGOS or kind == "legacy":
        return expected(path, kind)
    rnd = os.urandom(256)
    return {
        # EVM_IMA_XATTR_DIGSIG v2: version, hash algo, key id, size, signature
        "sig": b"\x03\x02\x04\x12\x34\x56\x78\x01\x00" + rnd,
        "verity": b"\x06\x02\x04\x12\x34\x56\x78\x01\x00" + rnd,
        "rmd128": b"\x04\x08" + rnd[:16],
        "short": b"\x04\x04" + rnd[:10],
        "type2": b"\x02" + rnd[:20],
        "hmac": b"\x02" + rnd[:20],
        "portable": b"\x05\x02\x04\x12\x34\x56\x78\x01\x00" + rnd,
    }[kind]

cmd, args = sys.argv[1], sys.argv[2:]
if cmd == "set":		# set PATH KIND: security.ima for PATH's contents
    os.setxattr(args[0], "security.ima", value(args[1], args[0]))
elif cmd == "evm":		# evm PATH KIND
    os.setxattr(args[0], "security.evm", value(args[1], args[0]))
elif cmd == "copy":		# copy FROM TO: FROM's security.ima onto TO
    os.setxattr(args[1], "security.ima", os.getxattr(args[0], "security.ima"))
elif cmd == "expect":		# expect PATH KIND: security.ima is KIND's hash of PATH
    have = os.getxattr(args[0], "security.ima")
    want = expected(args[0], args[1])
    print("security.ima %s, the %s hash of the contents %s" % (have.hex()[:24] + "...",
          args[1], want.hex()[:24] + "..."))
    sys.exit(0 if have == want else 1)
elif cmd == "dump":		# dump PATH: every attribute, name=hex, sorted
    for n in sorted(os.listxattr(args[0])):
        print("%s=%s" % (n, os.getxattr(args[0], n).hex()))
elif cmd == "has":		# has PATH NAME
    sys.exit(0 if args[1] in os.listxattr(args[0]) else 1)
elif cmd == "json":		# json FILE EXPR: EXPR over the last JSON line R
    R = json.loads(open(args[0]).read().strip().splitlines()[-1])
    print(eval(args[1]))
elif cmd == "afalg":		# afalg: whether the kernel's crypto API hashes here
    try:
        s = socket.socket(socket.AF_ALG, socket.SOCK_SEQPACKET, 0)
        s.bind(("hash", "sha256"))
        op, _ = s.accept()
        op.sendall(b"abc")
        ok = op.recv(32) == hashlib.sha256(b"abc").digest()
        print("AF_ALG sha256 " + ("works" if ok else "gives a wrong digest"))
        sys.exit(0 if ok else 1)
    except (OSError, AttributeError) as e:
        print("no AF_ALG hash interface: %s" % e)
        sys.exit(1)
EOF
# The interpreter itself, not a version manager's shim (a second each).
PY=$(python3 -c 'import sys; print(sys.executable)' 2>/dev/null)
[ -x "$PY" ] || PY=python3
ima () { "$PY" "$IMA_PY" "$@"; }

# Can security.* attributes be set here?
printf 'probe\n' >"$W/probe"
if ! err=$(ima set "$W/probe" sha256 2>&1) || ! ima has "$W/probe" security.ima; then
	skip_all "cannot set security.ima on $(df -PT "$W" | awk 'NR == 2 { print $2 }') here: ${err##*$'\n'}"
fi
if ! err=$(ima evm "$W/probe" portable 2>&1); then
	skip_all "cannot set security.evm here: ${err##*$'\n'}"
fi
rm -f "$W/probe"

build_fixture pie || skip_all "cannot build the fixture pie: $(tail -1 "$O/pie.log")"
have_lld=false
build_fixture lld-pie && have_lld=true
PIE=$O/pie

# run_prog FILE OUT: FILE's output and "exit status N" into OUT.
run_prog () {
	timeout 60 "$1" "${ARGS[@]}" </dev/null >"$2" 2>"$2.err"
	echo "exit status $?" >>"$2"
}
run_prog "$PIE" "$W/orig.out"
[ "$(tail -1 "$W/orig.out")" = "exit status 42" ] || hard_error "the fixture pie does not run here: $(head -3 "$W/orig.out.err")"

if afalg=$(ima afalg); then host_afalg=true; else host_afalg=false; fi
note "this kernel ($(uname -r)): $afalg"

# fresh NAME [FROM]: a copy of FROM (default the fixture pie) at $W/NAME,
# without attributes.
fresh () { rm -f "$W/$1"; cp "${2:-$PIE}" "$W/$1"; }

# refused WHAT NAME PATTERN OPTION...: elfpmd OPTION... $W/NAME exits 1
# with one line on stderr naming the file and matching PATTERN (grep -E),
# and leaves the file as it was: bytes, inode, dates, attributes.
refused () {
	local what=$1 f=$W/$2 pattern=$3 status sig attrs
	shift 3
	cp "$f" "$f.before"
	sig=$(file_signature "$f")
	attrs=$(ima dump "$f")
	"$ELFPMD" "$@" "$f" </dev/null >"$f.out" 2>"$f.err"
	status=$?
	if [ "$status" -eq 1 ] && [ "$(wc -l <"$f.err")" -eq 1 ] \
		&& grep -q "^elfpmd: $f: " "$f.err" && grep -Eq "$pattern" "$f.err"; then
		pass "$what: refused (exit 1): $(cut -d: -f3- "$f.err")"
	else
		fail "$what: exit $status, expected 1 and one line matching /$pattern/"
		sed 's/^/      stderr: /' "$f.err" | head -5
	fi
	holds "$what: the file is byte for byte, inode, dates and attributes as it was" \
		'cmp -s "$f" "$f.before" && [ "$sig" = "$(file_signature "$f")" ] && [ "$attrs" = "$(ima dump "$f")" ]'
	[ -z "$(find "$W" -name '.elfpmd.*')" ] || fail "$what: a temporary file was left behind"
	rm -f "$f.before"
}

# json_is WHAT FILE EXPR WANT: the Python expression EXPR over the JSON
# report R (FILE's last line) prints WANT.
json_is () {
	local got
	got=$(ima json "$2" "$3" 2>&1)
	if [ "$got" = "$4" ]; then pass "$1: $3 is $4"; else fail "$1: $3 is '$got', expected '$4'"; fi
}

# ---------------------------------------------------------------------------
# Refusals: signatures, other types, malformed hashes, security.evm.
fresh sig
ima set "$W/sig" sig
refused "signature (0x03)" sig 'carries an IMA/EVM signature \(security\.ima\) that a rewrite would invalidate: rewrite the file before signing it, or sign it again after \(evmctl\)$'
refused "signature, --dry-run" sig 'carries an IMA/EVM signature' -n
refused "signature, -n --json" sig 'carries an IMA/EVM signature' -n --json
json_is "signature, -n --json" "$W/sig.out" 'R["status"], R["ima"], R["changed"]' "('error', 'refused', False)"
refused "signature, --madvise" sig 'carries an IMA/EVM signature' --madvise
refused "signature, -v --no-sync" sig 'carries an IMA/EVM signature' -v --no-sync
fresh verity
ima set "$W/verity" verity
refused "fs-verity signature (0x06)" verity 'carries an IMA/EVM signature \(security\.ima\)'
fresh type2
ima set "$W/type2" type2
refused "security.ima of type 0x02" type2 'carries an IMA attribute \(security\.ima\) of type 0x02 .*evmctl'
fresh short
ima set "$W/short" short
refused "malformed hash (0x04 0x04 and 10 bytes)" short 'malformed IMA hash \(security\.ima, 12 bytes for sha256\)'
fresh rmd128
ima set "$W/rmd128" rmd128
refused "hash of an algorithm the kernel lacks (rmd128)" rmd128 'cannot renew its IMA hash \(security\.ima, rmd128\)'
refused "rmd128, --dry-run" rmd128 'cannot renew its IMA hash \(security\.ima, rmd128\)' -n
fresh evm
ima set "$W/evm" sha256
ima evm "$W/evm" portable
refused "security.evm (portable signature) beside a hash" evm 'carries an EVM portable signature \(security\.evm\) that a rewrite would invalidate: .*\(evmctl\)$'
refused "security.evm, --dry-run" evm 'carries an EVM portable signature' -n
fresh hmac
ima evm "$W/hmac" hmac
refused "security.evm (HMAC) alone" hmac 'carries an EVM HMAC \(security\.evm\)'
if ! $host_afalg; then
	fresh noalg
	ima set "$W/noalg" sha256
	refused "SHA-256 hash, no AF_ALG here" noalg 'cannot renew its IMA hash \(security\.ima, sha256\): the kernel offers no AF_ALG hash interface'
	refused "SHA-256 hash, no AF_ALG here, -n --json" noalg 'no AF_ALG' -n --json
	json_is "no AF_ALG, -n --json" "$W/noalg.out" 'R["status"], R["ima"]' "('error', 'refused')"
fi

# A batch run counts a refusal as failed, and still rewrites the others.
mkdir -p "$W/tree/bin"
cp "$W/sig" "$W/tree/bin/signed"
ima copy "$W/sig" "$W/tree/bin/signed"
cp "$PIE" "$W/tree/bin/plain"
cp "$W/tree/bin/signed" "$W/signed.before"
"$ELFPMD" -r "$W/tree" >"$W/batch.out" 2>"$W/batch.err"
status=$?
holds "batch run (-r): exit 1, the signed file failed and named, the other changed" \
	'[ $status -eq 1 ] && grep -q "1 changed, .* 1 failed$" "$W/batch.out" && [ "$(wc -l <"$W/batch.err")" -eq 1 ] && grep -q "^elfpmd: $W/tree/bin/signed: carries an IMA/EVM signature" "$W/batch.err"'
holds "batch run: the signed file is untouched, the other aligned" \
	'cmp -s "$W/tree/bin/signed" "$W/signed.before" && ! cmp -s "$W/tree/bin/plain" "$PIE"'
"$ELFPMD" -r --json -n "$W/tree" >"$W/batch.json" 2>/dev/null
json_is "batch run, -n --json" "$W/batch.json" 'R["summary"]["failed"], R["summary"]["skipped"]' "(1, 0)"
find "$W/tree" -type f | sort >"$W/list"
"$ELFPMD" -n --files-from="$W/list" >"$W/list.out" 2>"$W/list.err"
status=$?
holds "--files-from -n: exit 1, the signed file counted as failed" \
	'[ $status -eq 1 ] && grep -q " 1 failed$" "$W/list.out" && grep -q "signed: carries an IMA/EVM signature" "$W/list.err"'

# ---------------------------------------------------------------------------
# What a signature does not stop: nothing to rewrite, -o.
fresh done
"$ELFPMD" -q "$W/done" || fail "cannot align a copy to sign"
ima set "$W/done" sig
cp "$W/done" "$W/done.before"
attrs=$(ima dump "$W/done")
"$ELFPMD" "$W/done" >"$W/done.out" 2>"$W/done.err"
status=$?
holds "a signed file already aligned: exit 0, nothing said on stderr, untouched" \
	'[ $status -eq 0 ] && [ ! -s "$W/done.err" ] && grep -q "already aligned" "$W/done.out" && cmp -s "$W/done" "$W/done.before" && [ "$attrs" = "$(ima dump "$W/done")" ]'
fresh osig
ima set "$W/osig" sig
attrs=$(ima dump "$W/osig")
rm -f "$W/osig.new"
"$ELFPMD" --json -o "$W/osig.new" "$W/osig" >"$W/osig.json" 2>"$W/osig.err"
status=$?
holds "-o from a signed file: exit 0, the input untouched, the output without security.* attributes" \
	'[ $status -eq 0 ] && [ "$attrs" = "$(ima dump "$W/osig")" ] && cmp -s "$W/osig" "$PIE" && [ -z "$(ima dump "$W/osig.new")" ]'
json_is "-o" "$W/osig.json" '"ima" in R' False

# A file without the attributes: rewritten as before, other attributes kept.
fresh plain
"$PY" -c 'import os, sys; os.setxattr(sys.argv[1], "user.elfpmd", b"kept")' "$W/plain"
"$ELFPMD" --json "$W/plain" >"$W/plain.json" 2>"$W/plain.err"
status=$?
check "no IMA attribute: exit 0" [ $status -eq 0 ]
json_is "no IMA attribute" "$W/plain.json" 'R["status"], "ima" in R' "('changed', False)"
holds "no IMA attribute: user.elfpmd kept, no security.ima made" \
	'[ "$(ima dump "$W/plain")" = "user.elfpmd=$(printf kept | od -An -tx1 | tr -d " \n")" ]'
run_prog "$W/plain" "$W/plain.run"
check "no IMA attribute: the rewrite prints what the original prints" cmp -s "$W/orig.out" "$W/plain.run"

# ---------------------------------------------------------------------------
# Rehash cases: NAME KIND FIXTURE OPTIONS (one line each).
CASES=$O/cases
{
	echo "sha256 sha256 pie"
	echo "sha1 sha1 pie"
	echo "legacy legacy pie"
	[ "$(uname -m)" = x86_64 ] && echo "mad256 sha256 pie --madvise"
	$have_lld && echo "lld256 sha256 lld-pie"
} >"$CASES"

# rehash_checks DIR NAME KIND DRYSTATUS STATUS: what must hold of case NAME
# after elfpmd -n --json OPTS (exit DRYSTATUS, report DIR/NAME.dry.json) and
# elfpmd --json OPTS (exit STATUS, report DIR/NAME.json) rewrote DIR/NAME,
# and DIR/NAME.run is what the rewrite printed; DIR/NAME.orig is the file
# before, with its attributes in DIR/NAME.attrs.
rehash_checks () {
	local d=$1 name=$2 kind=$3 alg=$3 what="rehash $2"
	[ "$kind" = legacy ] && alg=sha1
	if [ "$4" -eq 0 ] && [ "$(ima json "$d/$name.dry.json" 'R["status"], R["ima"]')" = "('would change', 'would-rehash-$alg')" ]; then
		pass "$what: -n --json says \"ima\":\"would-rehash-$alg\""
	else
		fail "$what: -n --json: exit $4, $(ima json "$d/$name.dry.json" 'R.get("status"), R.get("ima"), R.get("error")' 2>&1)"
	fi
	if [ "$5" -eq 0 ] && [ "$(ima json "$d/$name.json" 'R["status"], R["ima"]')" = "('changed', 'rehashed-$alg')" ]; then
		pass "$what: exit 0, the report says \"ima\":\"rehashed-$alg\""
	else
		fail "$what: exit $5, $(ima json "$d/$name.json" 'R.get("status"), R.get("ima"), R.get("error")' 2>&1)"
		sed 's/^/      stderr: /' "$d/$name.err" 2>/dev/null | head -3
	fi
	cmp -s "$d/$name" "$d/$name.orig" && fail "$what: the file did not change"
	local res
	if res=$(ima expect "$d/$name" "$kind"); then
		pass "$what: $res"
	else
		fail "$what: $res"
	fi
	holds "$what: the other attributes kept, no security.evm" \
		'[ "$(ima dump "$d/$name" | grep -v "^security\.ima=")" = "$(grep -v "^security\.ima=" "$d/$name.attrs")" ] && ! ima has "$d/$name" security.evm'
	if cmp -s "$W/orig.out" "$d/$name.run"; then
		pass "$what: the rewrite prints what the original prints"
	else
		fail "$what: the rewrite prints something else"
		diff "$W/orig.out" "$d/$name.run" | head -5 | sed 's/^/      /'
	fi
}

# stage_case DIR NAME KIND FIXTURE: DIR/NAME, a copy of FIXTURE with KIND's
# hash and a user attribute; DIR/NAME.orig and .attrs as rehash_checks reads.
stage_case () {
	cp "$O/$4" "$1/$2"
	ima set "$1/$2" "$3"
	"$PY" -c 'import os, sys; os.setxattr(sys.argv[1], "user.elfpmd", b"kept")' "$1/$2"
	cp "$1/$2" "$1/$2.orig"
	ima dump "$1/$2" >"$1/$2.attrs"
}

if $host_afalg; then
	while read -r name kind fix opts; do
		stage_case "$W" "$name" "$kind" "$fix"
		# shellcheck disable=SC2086  # options are words
		"$ELFPMD" -n --json $opts "$W/$name" </dev/null >"$W/$name.dry.json" 2>"$W/$name.dry.err"
		dry=$?
		cmp -s "$W/$name" "$W/$name.orig" && [ "$(ima dump "$W/$name")" = "$(cat "$W/$name.attrs")" ] \
			|| fail "rehash $name: the dry run changed the file"
		# shellcheck disable=SC2086
		"$ELFPMD" --json $opts "$W/$name" </dev/null >"$W/$name.json" 2>"$W/$name.err"
		st=$?
		run_prog "$W/$name" "$W/$name.run"
		rehash_checks "$W" "$name" "$kind" "$dry" "$st"
	done <"$CASES"
fi

# ---------------------------------------------------------------------------
# The rehash cases in Debian 12's kernel, in qemu.
vm_part () {
	local V=$O/vm
	# shellcheck source=tests/vm/lib.sh
	. "$TESTS_SRCDIR/vm/lib.sh"
	vm_set_arch x86_64 || return 1
	[ "$(uname -m)" = x86_64 ] || { VM_WHY="the guest is x86-64, this machine $(uname -m)"; return 1; }
	vm_have_tools || return 1
	mkdir -p "$V/stage" "$V/here" || { VM_WHY="cannot create $V"; return 1; }
	# Debian 12's kernel with the crypto API's hash sockets (modules), its
	# package fetched once for them.
	local suite=bookworm pkg ver kdir deb
	vm_apt_setup "$suite" || return 1
	pkg=$(vm_apt "$suite" apt-cache show --no-all-versions "linux-image-$VM_FLAVOUR" 2>/dev/null \
		| sed -n 's/^Depends: \([^ ,]*\).*/\1/p' | head -1)
	ver=$(vm_apt "$suite" apt-cache show --no-all-versions "$pkg" 2>/dev/null | sed -n 's/^Version: //p' | head -1)
	[ -n "$pkg" ] && [ -n "$ver" ] || { VM_WHY="linux-image-$VM_FLAVOUR of $suite not found in the package lists"; return 1; }
	kdir=$VM_CACHE/kernels-ima/${pkg}_$ver
	if [ ! -f "$kdir/done" ]; then
		mkdir -p "$V/debs"
		if ! (cd "$V/debs" && vm_apt "$suite" apt-get -q download "$pkg") >"$V/download.log" 2>&1; then
			VM_WHY="cannot download $pkg: $(grep -m1 '^E:' "$V/download.log" || tail -1 "$V/download.log")"
			return 1
		fi
		deb=$(find "$V/debs" -name "${pkg}_*.deb" | head -1)
		VM_MODULES="crc32c_generic virtio_pci virtio_blk ext4 af_alg algif_hash" vm_unpack_kernel "$deb" "$kdir" || return 1
		rm -rf "$V/debs"
	fi
	# The disk: the cases, a reference, and what copying the attribute made.
	local stage=$V/stage progs="orig stale" name kind fix opts
	: >"$stage/cases"
	while read -r name kind fix opts; do
		stage_case "$stage" "$name" "$kind" "$fix"
		echo "$name $opts" >>"$stage/cases"
		progs="$progs $name"
	done <"$CASES"
	cp "$PIE" "$stage/orig"
	ima set "$stage/orig" sha256
	"$ELFPMD" -q -o "$stage/stale" "$PIE" || { VM_WHY="elfpmd -o failed"; return 2; }
	ima copy "$stage/orig" "$stage/stale"
	echo "$progs" >"$stage/progs"
	vm_disks "$V" "$stage" || return 1
	rm -f "$V/xfs.img" "$V/xfs.proto"	# ext4 only
	# /init of the harness, and this guest script.
	cp "$VM_HERE/init" "$V/here/init"
	cat >"$V/here/guest.sh" <<'EOF'
#!/bin/sh
# run-ima.sh's guest: rewrite the cases on the ext4 disk, run the programs,
# load an IMA appraisal policy for that disk, run them again.
mkdir -p /mnt/d
mount -t ext4 /dev/vda /mnt/d || { echo "R error mount"; exit 0; }
cd /mnt/d || exit 0
while read -r name opts; do
	elfpmd -n --json $opts "$name" >"$name.dry.json" 2>"$name.dry.err"
	dry=$?
	elfpmd --json $opts "$name" >"$name.json" 2>"$name.err"
	echo "R elfpmd case=$name dry=$dry status=$?"
done <cases
for p in $(cat progs); do
	./"$p" alpha "beta gamma" >"$p.run" 2>"$p.run.err"
	echo "exit status $?" >>"$p.run"
done
mkdir -p /sys/kernel/security
mount -t securityfs securityfs /sys/kernel/security 2>/dev/null
if echo "appraise func=BPRM_CHECK fsmagic=0xef53" >/sys/kernel/security/ima/policy 2>/tmp/policy.err; then
	echo "R policy loaded=yes"
else
	echo "R policy loaded=no why=$(cat /tmp/policy.err | tr ' ' _)"
fi
for p in $(cat progs); do
	./"$p" alpha "beta gamma" >"$p.enf" 2>"$p.enf.err"
	echo "R exec prog=$p status=$?"
done
cd /
umount /mnt/d
sync
EOF
	: >"$V/vm.conf"
	local here=$VM_HERE
	VM_HERE=$V/here
	vm_initramfs "$kdir" "$V/initrd" "$V/vm.conf" "$ELFPMD"
	local r=$?
	VM_HERE=$here
	[ $r -eq 0 ] || return 1
	vm_accel "$kdir" "$V/initrd" "$V"
	note "VM: $(cat "$kdir/package"), $VM_ACCEL ($VM_ACCEL_WHY)"
	vm_qemu "$VM_ACCEL" "$kdir" "$V/initrd" "$V/console.log" 300 measure "$V/ext4.img"
	if ! vm_results "$V/console.log" >"$V/results"; then
		VM_WHY="the guest did not finish (console: $V/console.log)"
		return 2
	fi
	return 0
}

vm_checks () {
	local V=$O/vm R=$O/vm/results m=$O/vm/mnt line name dry st
	grep -q '^R error' "$R" && fail "VM: $(grep '^R error' "$R" | head -3 | tr '\n' ' ')"
	mkdir -p "$m"
	mount -o loop,ro "$V/ext4.img" "$m" || { fail "cannot mount the guest's disk image"; return; }
	CLEANUP+=("umount '$m'")
	while read -r name kind fix opts; do
		line=$(grep "^R elfpmd case=$name " "$R")
		[ -n "$line" ] || { fail "VM: no result for $name"; continue; }
		dry=$(vm_field "$line" dry)
		st=$(vm_field "$line" status)
		rehash_checks "$m" "$name" "$kind" "$dry" "$st"
	done <"$CASES"
	holds "VM: the original with its hash runs before the policy" 'cmp -s "$W/orig.out" "$m/orig.run"'
	if grep -q '^R policy loaded=yes' "$R"; then
		pass "VM: IMA policy loaded: appraise func=BPRM_CHECK fsmagic=0xef53"
		local p s
		for p in $(cat "$m/progs"); do
			s=$(vm_field "$(grep "^R exec prog=$p " "$R")" status)
			case $p in
			stale)
				if [ "$s" != 42 ] && grep -qi 'permission denied' "$m/stale.enf.err"; then
					pass "VM: under appraisal a rewrite carrying the original's hash is refused by the kernel (exit $s: $(head -1 "$m/stale.enf.err"))"
				else
					fail "VM: under appraisal the rewrite with the original's hash ran (exit $s): the policy does not appraise"
				fi ;;
			*)
				if [ "$s" = 42 ] && [ "$(cat "$m/$p.enf")" = "$(sed '$d' "$W/orig.out")" ]; then
					pass "VM: under appraisal $p runs and prints what the original prints"
				else
					fail "VM: under appraisal $p: exit ${s:-none}: $(head -1 "$m/$p.enf.err")"
				fi ;;
			esac
		done
	else
		fail "VM: the IMA policy could not be loaded: $(grep '^R policy' "$R")"
	fi
	umount "$m" && unset 'CLEANUP[${#CLEANUP[@]}-1]'
	# What a failure would need to be looked into, and nothing else.
	[ "$n_fail" -eq 0 ] && rm -rf "$V/stage" "$V/ext4.img" "$V/initrd"
}

want_vm=${ELFPMD_IMA_VM:-auto}
if [ "$want_vm" = no ]; then
	$host_afalg || skip "rehash cases: no AF_ALG here and ELFPMD_IMA_VM=no"
elif [ "$want_vm" = yes ] || ! $host_afalg; then
	vm_part
	case $? in
	0) vm_checks ;;
	1) skip "rehash cases in Debian 12's kernel (qemu): $VM_WHY" ;;
	*) fail "rehash cases in Debian 12's kernel (qemu): $VM_WHY"; tail -5 "$O/vm/console.log" 2>/dev/null | sed 's/^/      /' ;;
	esac
fi

finish
