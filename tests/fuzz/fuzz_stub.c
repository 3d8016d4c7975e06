/* SPDX-License-Identifier: GPL-3.0-or-later
   Copyright (C) 2026 The elfpmd authors  */
/* fuzz_stub.c: a libFuzzer target over the startup stub's readers, built
   for the host against the fake kernel (stub/host-syscall.h,
   tests/stub/fake_kernel.c), with ASan and UBSan.  The first byte of an
   input picks the reader, the second how many bytes one read(2) returns
   (0: all it asks for), the rest is the file it reads:
     0 /proc/self/maps      find_mapping, at two addresses;
     1 /proc/self/smaps     smaps_value and the BTI guard (text_prot);
     2 /proc/self/mountinfo mount_of, ext4_journals_data;
     3 /proc/self/environ   perf_map_wanted;
     4 /proc/self/auxv      read_auxv;
     5 uname's release      kernel_version;
     6 a sysfs number, THP's setting: read_number, thp_never;
     7 the object's file    write_perf_map, for a copy at an address taken
			    from the input.
   Besides the sanitizers' findings, it aborts when a reader's result breaks
   its contract: a path not ended within its buffer, a perf map line that is
   not "HEX HEX NAME".  */
#include "runtime.h"

#include <stdlib.h>
#include <string.h>

#include "fake_kernel.h"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

static const struct stub_params params = { .pmd = (uint64_t) 2 << 20, .flags = STUB_FLAG_EXE };

static uint64_t
take (const uint8_t *data, size_t size, size_t at)
{
  uint64_t v = 0;
  for (size_t k = 0; k < 8 && at + k < size; k++)
    v |= (uint64_t) data[at + k] << (8 * k);
  return v;
}

/* Every line of what the stub wrote is "HEX HEX NAME", NAME without a
   newline or NUL, at most 255 bytes.  */
static void
check_perf_map (void)
{
  size_t at = 0;
  while (at < fake.nwritten)
    {
      const char *line = fake.written + at, *end = memchr (line, '\n', fake.nwritten - at);
      if (end == NULL)
	abort ();
      const char *s = line;
      for (int field = 0; field < 2; field++)
	{
	  const char *start = s;
	  while (s < end && ((*s >= '0' && *s <= '9') || (*s >= 'a' && *s <= 'f')))
	    s++;
	  if (s == start || s - start > 16 || s == end || *s != ' ')
	    abort ();
	  s++;
	}
      if (end - s > 255 || memchr (s, '\0', (size_t) (end - s)) != NULL)
	abort ();
      at = (size_t) (end - fake.written) + 1;
    }
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  if (size < 2)
    return 0;
  int which = data[0] % 8;
  long max_read = data[1];
  const uint8_t *body = data + 2;
  size_t len = size - 2;
  fake_reset ();
  struct stub st = {
    .p = &params, .self = 0x400000, .pmd = (uint64_t) 2 << 20, .page = 4096, .pagemap = -2,
    .scan = -1, .file = -2, .exe = -2, .cachestat = -1, .guard = -2, .secure = -1,
  };
  static const char *const paths[] = {
    "/proc/self/maps", "/proc/self/smaps", "/proc/self/mountinfo", "/proc/self/environ",
    "/proc/self/auxv", NULL, "/sys/x", "/proc/self/exe",
  };
  if (paths[which] != NULL)
    fake_file (paths[which], len != 0 ? body : NULL, len)->max_read = max_read;
  char value[256], release[65];
  int journal;
  switch (which)
    {
    case 0:
      for (int k = 0; k < 2; k++)
	{
	  st.self = k == 0 ? 0x400000 : (uintptr_t) take (body, len, 0);
	  if (find_mapping (&st, st.self) == 0 && memchr (st.scratch->line, '\0', MAPS_LINE) == NULL)
	    abort ();
	}
      break;
    case 1:
      if (smaps_value (&st, 0x400000, "VmFlags:", value, sizeof value) == 0
	  && memchr (value, '\0', sizeof value) == NULL)
	abort ();
      text_prot (&st, (uintptr_t) take (body, len, 0));
      break;
    case 2:
      mount_of (&st, take (body, len, 0) & 0xfff, take (body, len, 2) & 0xfffff, &journal);
      st.map.found = 1;
      st.fs = EXT4_SUPER_MAGIC;
      st.map.dev_major = 8;
      st.map.dev_minor = 1;
      ext4_journals_data (&st);
      break;
    case 3:
      perf_map_wanted ();
      break;
    case 4:
      read_auxv (&st);
      break;
    case 5:
      memset (release, 0, sizeof release);
      memcpy (release, body, len < sizeof release - 1 ? len : sizeof release - 1);
      fake.release = release;
      kernel_version ();
      break;
    case 6:
      read_number ("/sys/x");
      fake_file ("/sys/kernel/mm/transparent_hugepage/enabled", len != 0 ? body : NULL, len)
	->max_read = max_read;
      thp_never ();
      break;
    case 7:
      st.file = (int) syscall6 (SYS_openat, AT_FDCWD, (long) "/proc/self/exe", O_RDONLY, 0, 0, 0);
      if (st.file < 0 || scratch (&st) == NULL)
	abort ();
      st.scratch->copies[0] = (struct copy) {
	.start = (uintptr_t) take (body, len, 16), .length = take (body, len, 24) & 0xffffffff,
	.file_offset = take (body, len, 32) & 0xffffff,
      };
      st.ncopies = 1;
      write_perf_map (&st);
      check_perf_map ();
      break;
    }
  scratch_free (&st);
  return 0;
}
