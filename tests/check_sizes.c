/* SPDX-License-Identifier: GPL-3.0-or-later
   Copyright (C) 2026 The elfpmd authors  */
/* Unit tests of size parsing and printing.  */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>

#include <string.h>

#include "stub/check_main.h"
#include "sha256.h"
#include "sizes.h"

struct size_case
{
  const char *text;
  uint64_t value;		/* expected when OK */
  int ok;
};

static const struct size_case size_cases[] = {
  { "4096", 4096, 1 },
  { "4K", 4096, 1 },
  { "4k", 4096, 1 },
  { "64K", 65536, 1 },
  { "64KiB", 65536, 1 },
  { "2M", 2097152, 1 },
  { "2MB", 2097152, 1 },
  { "2mib", 2097152, 1 },
  { "0x200000", 2097152, 1 },
  { "0X200000", 2097152, 1 },
  { "1G", 1073741824, 1 },
  { "16T", (uint64_t) 16 << 40, 1 },
  /* Decimal or 0x-hexadecimal only, as the man page says: a leading 0 is
     not octal.  */
  { "010", 10, 1 },
  { "08", 8, 1 },
  { "0010K", 10240, 1 },
  { "0x10", 16, 1 },
  { "0x00ff", 255, 1 },
  { "0xAbC", 0xabc, 1 },
  { "0x1K", 1024, 1 },
  { "0xffffffffffffffff", UINT64_MAX, 1 },
  { "0x10000000000000000", 0, 0 },
  { "0x0x10", 0, 0 },
  { "0xg", 0, 0 },
  { "0b101", 0, 0 },
  { "1e3", 0, 0 },
  { "0", 0, 1 },
  { "18446744073709551615", UINT64_MAX, 1 },
  { "18446744073709551616", 0, 0 },
  { "16777216T", 0, 0 },
  { "", 0, 0 },
  { "M", 0, 0 },
  { "-2M", 0, 0 },
  { " 2M", 0, 0 },
  { "+2M", 0, 0 },
  { "2X", 0, 0 },
  { "2M ", 0, 0 },
  { "2Mx", 0, 0 },
  { "2 M", 0, 0 },
  { "0x", 0, 0 },
  { "2.5M", 0, 0 },
  { "2iB", 0, 0 },
};

START_TEST (test_parse)
{
  const struct size_case *c = &size_cases[_i];
  uint64_t v = 12345;
  const char *why = parse_size (c->text, &v);
  if (c->ok)
    {
      ck_assert_msg (why == NULL, "'%s' refused: %s", c->text, why);
      ck_assert_uint_eq (v, c->value);
    }
  else
    {
      ck_assert_msg (why != NULL, "'%s' accepted as %lu", c->text, (unsigned long) v);
      ck_assert_uint_eq (v, 12345);
    }
}
END_TEST

START_TEST (test_format)
{
  char buf[32];
  ck_assert_str_eq (format_size (2097152, buf, sizeof buf), "2 MiB");
  ck_assert_str_eq (format_size (4096, buf, sizeof buf), "4 KiB");
  ck_assert_str_eq (format_size (1536 * 1024, buf, sizeof buf), "1536 KiB");
  ck_assert_str_eq (format_size (512, buf, sizeof buf), "512 B");
  ck_assert_str_eq (format_size (0, buf, sizeof buf), "0 B");
  ck_assert_str_eq (format_size (4097, buf, sizeof buf), "0x1001 B");
  ck_assert_str_eq (format_size ((uint64_t) 1 << 63, buf, sizeof buf), "8 EiB");
}
END_TEST

START_TEST (test_power_of_2)
{
  ck_assert (!is_power_of_2 (0));
  ck_assert (is_power_of_2 (1));
  ck_assert (is_power_of_2 ((uint64_t) 1 << 63));
  ck_assert (!is_power_of_2 (3 << 10));
  ck_assert_uint_eq (log2_exact (2097152), 21);
}
END_TEST

/* SHA-256 against FIPS 180-2's vectors (and a long one fed in pieces of
   every length up to 130 bytes, across the block and padding edges).  */
START_TEST (test_sha256)
{
  static const struct { const char *msg; size_t repeat; const char *hex; } v[] = {
    { "", 1, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855" },
    { "abc", 1, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad" },
    { "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", 1,
      "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1" },
    { "a", 1000000, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0" },
  };
  for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
    {
      struct sha256_ctx s;
      sha256_init (&s);
      for (size_t r = 0; r < v[i].repeat; r++)
	sha256_update (&s, strlen (v[i].msg), (const uint8_t *) v[i].msg);
      unsigned char d[SHA256_DIGEST_SIZE];
      char hex[65];
      sha256_digest (&s, SHA256_DIGEST_SIZE, d);
      sha256_hex (d, hex);
      ck_assert_str_eq (hex, v[i].hex);
    }
  unsigned char buf[768];
  for (size_t i = 0; i < sizeof buf; i++)
    buf[i] = (unsigned char) i;
  for (size_t piece = 1; piece <= 130; piece++)
    {
      struct sha256_ctx s;
      sha256_init (&s);
      for (size_t at = 0; at < sizeof buf; at += piece)
	sha256_update (&s, piece < sizeof buf - at ? piece : sizeof buf - at, buf + at);
      unsigned char d[SHA256_DIGEST_SIZE];
      char hex[65];
      sha256_digest (&s, SHA256_DIGEST_SIZE, d);
      sha256_hex (d, hex);
      ck_assert_str_eq (hex, "f3a25aa93aa2fbba28d79260535bbd6a5eb0fc1c24a8b0f04e12b484c1dfe363");
    }
  /* sha256_fd over a file of 3,000,000 'a's: three reads of its 1 MiB
     buffer, the last short (the digest is Python hashlib's).  */
  FILE *f = tmpfile ();
  ck_assert_ptr_nonnull (f);
  memset (buf, 'a', sizeof buf);
  for (size_t left = 3000000; left > 0;)
    {
      size_t n = left < sizeof buf ? left : sizeof buf;
      ck_assert_uint_eq (fwrite (buf, 1, n, f), n);
      left -= n;
    }
  ck_assert_int_eq (fflush (f), 0);
  unsigned char d[SHA256_DIGEST_SIZE];
  char hex[65];
  ck_assert_int_eq (sha256_fd (fileno (f), d), 0);
  sha256_hex (d, hex);
  ck_assert_str_eq (hex, "2a152c894398719c0570f83fac34ac03a0f6e8e474b995c2403aa5434f7b9dd4");
  fclose (f);
}
END_TEST

int
main (void)
{
  Suite *s = suite_create ("sizes");
  TCase *tc = tcase_create ("sizes");
  tcase_add_loop_test (tc, test_parse, 0, sizeof size_cases / sizeof size_cases[0]);
  tcase_add_test (tc, test_format);
  tcase_add_test (tc, test_power_of_2);
  tcase_add_test (tc, test_sha256);
  suite_add_tcase (s, tc);
  return run_suite (s);
}
