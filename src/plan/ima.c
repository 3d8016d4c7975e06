/* SPDX-License-Identifier: GPL-3.0-or-later
   Copyright (C) 2026 The elfpmd authors  */
/* IMA's and EVM's extended attributes of a file elfpmd rewrites in place.
   security.ima holds IMA's hash of the contents, or a signature;
   security.evm EVM's HMAC or signature over the file's security attributes
   and inode.  A rewrite changes the contents, so a copy of either would
   make an appraising kernel (ima_appraise=enforce) refuse the new file: a
   hash is renewed (computed by the kernel's crypto API through an AF_ALG
   socket, once every byte is written), anything else makes elfpmd refuse
   the file before it writes anything.  */
#include <config.h>

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#ifdef HAVE_SYS_XATTR_H
# include <sys/xattr.h>
#endif
#if defined __has_include
# if __has_include (<linux/if_alg.h>)
#  include <linux/if_alg.h>
#  define HAVE_AF_ALG 1
# endif
#endif

#include "ima.h"

/* The attributes' names, and the first byte of their values: the type
   (enum evm_ima_xattr_type of the kernel's security/integrity/integrity.h).  */
#define IMA_XATTR "security.ima"
#define EVM_XATTR "security.evm"
#define IMA_XATTR_DIGEST 0x01		/* legacy: an MD5 or SHA-1 digest follows */
#define EVM_XATTR_HMAC 0x02
#define EVM_IMA_XATTR_DIGSIG 0x03
#define IMA_XATTR_DIGEST_NG 0x04	/* a hash_algo byte, then the digest */
#define EVM_XATTR_PORTABLE_DIGSIG 0x05
#define IMA_VERITY_DIGSIG 0x06
#define IMA_MAX_DIGEST 64
#define IMA_MAX_VALUE (2 + IMA_MAX_DIGEST + 8)

/* The kernel's hash algorithms (enum hash_algo of <linux/hash_info.h>, in
   its order), with their crypto API names and digest sizes (crypto/hash_info.c).  */
static const struct
{
  const char *name;
  unsigned char size;
} hash_algos[] = {
  { "md4", 16 }, { "md5", 16 }, { "sha1", 20 }, { "rmd160", 20 }, { "sha256", 32 },
  { "sha384", 48 }, { "sha512", 64 }, { "sha224", 28 }, { "rmd128", 16 }, { "rmd256", 32 },
  { "rmd320", 40 }, { "wp256", 32 }, { "wp384", 48 }, { "wp512", 64 }, { "tgr128", 16 },
  { "tgr160", 20 }, { "tgr192", 24 }, { "sm3", 32 }, { "streebog256", 32 },
  { "streebog512", 64 }, { "sha3-256", 32 }, { "sha3-384", 48 }, { "sha3-512", 64 },
};
#define HASH_ALGO_MD5 1
#define HASH_ALGO_SHA1 2
#define NHASH_ALGOS (sizeof hash_algos / sizeof hash_algos[0])

static const char resign_advice[] =
  "rewrite the file before signing it, or sign it again after (evmctl)";

#ifdef HAVE_SYS_XATTR_H
/* The extended attribute NAME of FD, in *VALUE (malloc'd, NULL when FD has
   none).  Return its length (0 when there is none), or -1 with the reason
   in *ERR.  */
static ssize_t
read_xattr (int fd, const char *name, unsigned char **value, struct diag *err)
{
  *value = NULL;
  for (int attempt = 0; attempt < 8; attempt++)
    {
      ssize_t len = fgetxattr (fd, name, NULL, 0);
      if (len < 0 && (errno == ENODATA || errno == ENOTSUP || errno == ENOSYS))
	return 0;
      if (len < 0)
	break;
      unsigned char *buf = malloc ((size_t) len + 1);
      if (buf == NULL)
	return diag_set (err, "out of memory");
      ssize_t n = fgetxattr (fd, name, buf, (size_t) len);
      if (n >= 0)
	{
	  *value = buf;
	  return n;
	}
      free (buf);
      if (errno == ENODATA)
	return 0;
      if (errno != ERANGE)	/* ERANGE: it grew meanwhile */
	break;
    }
  return diag_set (err, "cannot read extended attribute %s: %s", name, strerror (errno));
}
#endif

#if defined HAVE_SYS_XATTR_H && defined HAVE_AF_ALG
/* A socket of the kernel's crypto API bound to the hash ALG, or -1 with the
   reason in *ERR.  */
static int
hash_socket (const char *alg, struct diag *err)
{
  int tfm = socket (AF_ALG, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
  if (tfm < 0)
    return diag_set (err, "cannot renew its IMA hash (" IMA_XATTR ", %s): the kernel offers "
		     "no AF_ALG hash interface (%s)", alg, strerror (errno));
  struct sockaddr_alg sa = { .salg_family = AF_ALG, .salg_type = "hash" };
  snprintf ((char *) sa.salg_name, sizeof sa.salg_name, "%s", alg);
  if (bind (tfm, (struct sockaddr *) &sa, sizeof sa) != 0)
    {
      int e = errno;
      close (tfm);
      return diag_set (err, "cannot renew its IMA hash (" IMA_XATTR ", %s): the kernel's crypto "
		       "API has no %s here (AF_ALG: %s)", alg, alg, strerror (e));
    }
  return tfm;
}
#endif

/* Decide what IMA (security.ima) holds into *IMA: a hash elfpmd can renew,
   or a refusal with the reason in *ERR.  VALUE is the attribute, LEN its
   length.  */
static int
classify_ima (const unsigned char *value, ssize_t len, struct ima_plan *ima, struct diag *err)
{
  ima->action = IMA_REFUSED;
  if (len < 1)
    return diag_set (err, "carries an empty IMA attribute (" IMA_XATTR ") that a rewrite would "
		     "not renew: remove it, or rewrite the file before it gets one");
  unsigned char type = value[0];
  size_t algo;
  size_t need;
  switch (type)
    {
    case IMA_XATTR_DIGEST_NG:
      if (len < 2)
	return diag_set (err, "carries a malformed IMA hash (" IMA_XATTR ", %zd bytes): a rewrite "
			 "would make it valid; remove it or fix it first", len);
      algo = value[1];
      if (algo >= NHASH_ALGOS)
	return diag_set (err, "carries an IMA hash (" IMA_XATTR ") of hash algorithm %zu, which "
			 "elfpmd does not know: it cannot renew it", algo);
      need = 2 + hash_algos[algo].size;
      /* The kernel accepts a longer value (MD5 once took 20 bytes), not a
	 shorter one.  */
      if ((size_t) len < need || (size_t) len > IMA_MAX_VALUE)
	return diag_set (err, "carries a malformed IMA hash (" IMA_XATTR ", %zd bytes for %s): a "
			 "rewrite would make it valid; remove it or fix it first", len,
			 hash_algos[algo].name);
      ima->value_len = need;
      break;
    case IMA_XATTR_DIGEST:
      /* As the kernel reads it (ima_get_hash_algo): 20 bytes of SHA-1, or
	 of MD5 and 4 zero bytes; 16 bytes of MD5.  */
      if (len == 21)
	algo = value[17] == 0 && value[18] == 0 && value[19] == 0 && value[20] == 0
	       ? HASH_ALGO_MD5 : HASH_ALGO_SHA1;
      else if (len == 17)
	algo = HASH_ALGO_MD5;
      else
	return diag_set (err, "carries a malformed IMA hash (" IMA_XATTR ", %zd bytes of legacy "
			 "type 0x01): a rewrite would make it valid; remove it or fix it first", len);
      ima->value_len = (size_t) len;
      break;
    case EVM_IMA_XATTR_DIGSIG:
    case IMA_VERITY_DIGSIG:
      return diag_set (err, "carries an IMA/EVM signature (" IMA_XATTR ") that a rewrite would "
		       "invalidate: %s", resign_advice);
    default:
      return diag_set (err, "carries an IMA attribute (" IMA_XATTR ") of type 0x%02x that a "
		       "rewrite would invalidate and elfpmd cannot renew: %s", type, resign_advice);
    }
  ima->action = IMA_REHASH;
  ima->type = type;
  ima->algo = (unsigned char) algo;
  ima->alg = hash_algos[algo].name;
  ima->digest_len = hash_algos[algo].size;
  return 0;
}

/* ima_plan_build, asking the kernel whether it can compute the hash when
   PROBE.  */
static int
read_ima_plan (int fd, struct ima_plan *ima, bool probe, struct diag *err)
{
  memset (ima, 0, sizeof *ima);
  ima->action = IMA_NONE;
#ifdef HAVE_SYS_XATTR_H
  unsigned char *value;
  ssize_t len = read_xattr (fd, IMA_XATTR, &value, err);
  if (len < 0)
    return -1;
  int ret = value != NULL ? classify_ima (value, len, ima, err) : 0;
  free (value);
  if (ret != 0)
    return -1;
  len = read_xattr (fd, EVM_XATTR, &value, err);
  if (len < 0)
    return -1;
  if (value != NULL)
    {
      ima->action = IMA_REFUSED;
      const char *what = len < 1 ? "attribute"
			 : value[0] == EVM_XATTR_HMAC ? "HMAC"
			 : value[0] == EVM_IMA_XATTR_DIGSIG ? "signature"
			 : value[0] == EVM_XATTR_PORTABLE_DIGSIG ? "portable signature" : "attribute";
      free (value);
      return diag_set (err, "carries an EVM %s (" EVM_XATTR ") that a rewrite would invalidate: %s",
		       what, resign_advice);
    }
  if (ima->action == IMA_REHASH && probe)
    {
# ifdef HAVE_AF_ALG
      int tfm = hash_socket (ima->alg, err);
      if (tfm < 0)
	{
	  ima->action = IMA_REFUSED;
	  return -1;
	}
      close (tfm);
# else
      ima->action = IMA_REFUSED;
      return diag_set (err, "cannot renew its IMA hash (" IMA_XATTR ", %s): elfpmd was built "
		       "without AF_ALG (<linux/if_alg.h>)", ima->alg);
# endif
    }
#else
  (void) fd;
  (void) probe;
  (void) err;
  (void) classify_ima;
#endif
  return 0;
}

int
ima_plan_build (const struct elf_file *file, struct ima_plan *ima, struct diag *err)
{
  return read_ima_plan (file->fd, ima, true, err);
}

#if defined HAVE_SYS_XATTR_H && defined HAVE_AF_ALG
/* Give OUT, whose contents are final, the attribute IMA says: the hash of
   its contents, computed by the kernel's crypto API.  */
static int
set_ima_hash (int out, const struct ima_plan *ima, struct diag *err)
{
  int tfm = hash_socket (ima->alg, err);
  if (tfm < 0)
    return -1;
  int op = accept4 (tfm, NULL, NULL, SOCK_CLOEXEC);
  int ret = 0;
  char *buf = NULL;
  if (op < 0)
    {
      ret = diag_set (err, "cannot renew its IMA hash (" IMA_XATTR ", %s): AF_ALG accept: %s",
		      ima->alg, strerror (errno));
      goto out;
    }
  size_t bufsize = (size_t) 1 << 20;
  buf = malloc (bufsize);
  if (buf == NULL)
    {
      ret = diag_set (err, "out of memory");
      goto out;
    }
  /* Every piece with MSG_MORE: the hash is final only when it is read.  */
  for (off_t off = 0;;)
    {
      ssize_t n = pread (out, buf, bufsize, off);
      if (n < 0 && errno == EINTR)
	continue;
      if (n < 0)
	{
	  ret = diag_set (err, "cannot read the output back: %s", strerror (errno));
	  goto out;
	}
      if (n == 0)
	break;
      for (ssize_t done = 0; done < n;)
	{
	  ssize_t w = send (op, buf + done, (size_t) (n - done), MSG_MORE | MSG_NOSIGNAL);
	  if (w < 0 && errno == EINTR)
	    continue;
	  if (w <= 0)
	    {
	      ret = diag_set (err, "cannot compute the IMA hash (%s): AF_ALG send: %s", ima->alg,
			      w == 0 ? "no progress" : strerror (errno));
	      goto out;
	    }
	  done += w;
	}
      off += n;
    }
  unsigned char value[IMA_MAX_VALUE] = { 0 };
  size_t at = ima->type == IMA_XATTR_DIGEST_NG ? 2 : 1;
  ssize_t got;
  while ((got = read (op, value + at, IMA_MAX_DIGEST)) < 0 && errno == EINTR)
    ;
  if (got < 0 || (size_t) got != ima->digest_len)
    {
      ret = diag_set (err, "cannot compute the IMA hash (%s): AF_ALG gave %s", ima->alg,
		      got < 0 ? strerror (errno) : "a digest of another size");
      goto out;
    }
  /* A legacy MD5 value keeps its 4 zero bytes (VALUE's zeros).  A legacy
     SHA-1 digest that ends in 4 zero bytes (one in 2^32) would read as MD5
     to the kernel, as it would have had the kernel written it.  */
  value[0] = ima->type;
  if (ima->type == IMA_XATTR_DIGEST_NG)
    value[1] = ima->algo;
  if (fsetxattr (out, IMA_XATTR, value, ima->value_len, 0) != 0)
    ret = diag_set (err, "cannot set the new IMA hash (" IMA_XATTR "): %s", strerror (errno));
out:
  free (buf);
  if (op >= 0)
    close (op);
  close (tfm);
  return ret;
}
#endif

bool
ima_own_xattr (const char *name)
{
  return strcmp (name, IMA_XATTR) == 0 || strcmp (name, EVM_XATTR) == 0;
}

int
ima_finish (const struct elf_file *file, int out, const struct ima_plan *ima, struct diag *err)
{
#ifdef HAVE_SYS_XATTR_H
  /* What was planned must still be what the input carries: an attribute
     set or signed meanwhile is not dropped, nor given a hash.  */
  struct ima_plan now;
  struct diag why = { "" };
  if (read_ima_plan (file->fd, &now, false, &why) != 0)
    return diag_set (err, "the file's IMA or EVM attributes changed while being rewritten: it %s",
		     why.msg);
  enum ima_action planned = ima != NULL ? ima->action : IMA_NONE;
  if (now.action != planned
      || (planned == IMA_REHASH && (now.type != ima->type || now.algo != ima->algo
				    || now.value_len != ima->value_len)))
    return diag_set (err, "the file's IMA or EVM attributes changed while being rewritten");
  if (planned != IMA_REHASH)
    return 0;
# ifdef HAVE_AF_ALG
  return set_ima_hash (out, ima, err);
# else
  return diag_set (err, "cannot renew its IMA hash (" IMA_XATTR ", %s): elfpmd was built "
		   "without AF_ALG (<linux/if_alg.h>)", ima->alg);
# endif
#else
  (void) file, (void) out, (void) ima, (void) err;
  return 0;
#endif
}
