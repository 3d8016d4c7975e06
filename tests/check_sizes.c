/* Unit tests of size parsing and printing.  */
#include <check.h>
#include <stdlib.h>

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

int
main (void)
{
  Suite *s = suite_create ("sizes");
  TCase *tc = tcase_create ("sizes");
  tcase_add_loop_test (tc, test_parse, 0, sizeof size_cases / sizeof size_cases[0]);
  tcase_add_test (tc, test_format);
  tcase_add_test (tc, test_power_of_2);
  suite_add_tcase (s, tc);
  SRunner *sr = srunner_create (s);
  srunner_run_all (sr, CK_NORMAL);
  int failed = srunner_ntests_failed (sr);
  srunner_free (sr);
  return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
