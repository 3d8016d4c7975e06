#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# run-ima-no-afalg.sh: where this kernel offers no AF_ALG hash interface
# (CONFIG_CRYPTO_USER_API_HASH unset) elfpmd cannot renew a SHA-256 hash:
# the file is refused with that reason, before anything is written, with
# -n --json too ("ima":"refused").  Skipped where the kernel has it
# (run-ima-rehash.sh rehashes there).
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

ima_start
$host_afalg && skip_all "this kernel hashes with AF_ALG: run-ima-rehash.sh renews the hashes"
ima_fresh noalg
ima set "$W/noalg" sha256
ima_refused "SHA-256 hash, no AF_ALG here" noalg 'cannot renew its IMA hash \(security\.ima, sha256\): the kernel offers no AF_ALG hash interface'
ima_refused "SHA-256 hash, no AF_ALG here, -n --json" noalg 'no AF_ALG' -n --json
ima_json_is "no AF_ALG, -n --json" "$W/noalg.out" 'R["status"], R["ima"]' "('error', 'refused')"
test_finish
