#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-ima-evm-refusal.sh: any security.evm is refused before anything is
# written (lib.sh: ima_refused): a portable signature beside an IMA hash,
# in a dry run too, and an HMAC alone.
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

ima_start
ima_fresh evm
ima set "$W/evm" sha256
ima evm "$W/evm" portable
ima_refused "security.evm (portable signature) beside a hash" evm 'carries an EVM portable signature \(security\.evm\) that a rewrite would invalidate: .*\(evmctl\)$'
ima_refused "security.evm, --dry-run" evm 'carries an EVM portable signature' -n
ima_fresh hmac
ima evm "$W/hmac" hmac
ima_refused "security.evm (HMAC) alone" hmac 'carries an EVM HMAC \(security\.evm\)'
test_finish
