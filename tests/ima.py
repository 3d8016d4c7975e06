#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# ima.py: IMA's and EVM's extended attributes for the IMA scripts
# (tests/run-ima-*.sh), made and checked with Python's hashlib,
# independently of elfpmd:
#
#   ima.py set PATH KIND      security.ima of KIND for PATH's contents: a
#                             hash (md5, sha1, sha256, sha512: type 0x04;
#                             legacy: type 0x01, SHA-1) or a value elfpmd
#                             must refuse (sig, verity, rmd128, short,
#                             type2)
#   ima.py evm PATH KIND      security.evm (portable, hmac)
#   ima.py copy FROM TO       FROM's security.ima onto TO
#   ima.py expect PATH KIND   exit 0 if security.ima is KIND's hash of PATH
#   ima.py dump PATH          every attribute, name=hex, sorted
#   ima.py has PATH NAME      exit 0 if PATH has the attribute NAME
#   ima.py json FILE EXPR     the Python expression EXPR over R, the last
#                             JSON line of FILE
#   ima.py afalg              exit 0 if the kernel's crypto API (AF_ALG)
#                             hashes here
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
