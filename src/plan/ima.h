/* SPDX-License-Identifier: GPL-3.0-or-later
   Copyright (C) 2026 The elfpmd authors  */
/* IMA's and EVM's extended attributes of a file rewritten in place
   (ima.c).  */
#ifndef ELFPMD_IMA_H
#define ELFPMD_IMA_H

#include <stdbool.h>
#include <stddef.h>

#include "diag.h"
#include "elf_file.h"

/* What becomes of the input's IMA attribute (security.ima) when it is
   rewritten in place.  The attribute holds IMA's hash of the contents, or a
   signature; the contents change, so a copy of it would make an appraising
   kernel (ima_appraise=enforce) refuse the new file.  */
enum ima_action
{
  IMA_NONE,			/* no security.ima (nor security.evm) */
  IMA_REHASH,			/* a hash: the new file gets the hash of its contents */
  IMA_REFUSED,			/* a signature, security.evm, or a hash elfpmd cannot renew */
};

struct ima_plan
{
  enum ima_action action;
  unsigned char type;		/* IMA_REHASH: 0x01 (IMA_XATTR_DIGEST) or 0x04 (IMA_XATTR_DIGEST_NG) */
  unsigned char algo;		/* enum hash_algo of <linux/hash_info.h> */
  const char *alg;		/* its name in the kernel's crypto API: "sha256" */
  size_t digest_len;		/* bytes of digest */
  size_t value_len;		/* bytes of the new attribute */
};

/* Decide, before anything is written, what becomes of the IMA and EVM
   attributes of FILE when it is rewritten in place, into *IMA.  A hash is
   renewed (IMA_REHASH), when the kernel's crypto API (AF_ALG) can compute
   it here; anything else is refused, as is any security.evm: the new file
   could only carry a signature or HMAC that no longer matches.  Return 0
   (IMA_NONE or IMA_REHASH), or -1 with the reason in *ERR (IMA_REFUSED, or
   IMA_NONE when the attributes cannot be read).  */
int ima_plan_build (const struct elf_file *file, struct ima_plan *ima, struct diag *err);

/* Whether NAME is one of the attributes ima.c decides about (never copied
   as it is).  */
bool ima_own_xattr (const char *name);

/* Give OUT, the rewrite of FILE whose contents are final, the IMA attribute
   IMA says (the hash of its contents), once FILE's attributes are checked
   to be still what ima_plan_build saw.  Return 0, or -1 with the reason in
   *ERR.  */
int ima_finish (const struct elf_file *file, int out, const struct ima_plan *ima,
		struct diag *err);

#endif
