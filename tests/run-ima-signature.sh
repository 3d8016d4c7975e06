#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-ima-signature.sh: a file whose security.ima holds a signature (an
# IMA/EVM digital signature, type 0x03, or an fs-verity one, 0x06) is
# refused before anything is written, in a dry run, with --json, with
# --madvise and with -v --no-sync too: exit status 1, one line on stderr
# naming the file and the reason, the file byte for byte as it was with
# the same inode, dates and attributes (lib.sh: ima_refused); the JSON
# report says "ima":"refused".
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

ima_start
ima_fresh sig
ima set "$W/sig" sig
ima_refused "signature (0x03)" sig 'carries an IMA/EVM signature \(security\.ima\) that a rewrite would invalidate: rewrite the file before signing it, or sign it again after \(evmctl\)$'
ima_refused "signature, --dry-run" sig 'carries an IMA/EVM signature' -n
ima_refused "signature, -n --json" sig 'carries an IMA/EVM signature' -n --json
ima_json_is "signature, -n --json" "$W/sig.out" 'R["status"], R["ima"], R["changed"]' "('error', 'refused', False)"
ima_refused "signature, --madvise" sig 'carries an IMA/EVM signature' --madvise
ima_refused "signature, -v --no-sync" sig 'carries an IMA/EVM signature' -v --no-sync
ima_fresh verity
ima set "$W/verity" verity
ima_refused "fs-verity signature (0x06)" verity 'carries an IMA/EVM signature \(security\.ima\)'
test_finish
