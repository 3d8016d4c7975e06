/* SPDX-License-Identifier: GPL-3.0-or-later
   Copyright (C) 2026 The elfpmd authors  */
/* mutate.c -- deterministic ELF mutator for elfpmd's malformed-input tests.
 *
 * Plain C, no libelf: it parses the ELF header, the program header table and
 * the section header table itself (ELF32 and ELF64, either byte order), every
 * access bounds-checked, so that it also works on inputs that are already
 * broken.  The same MODE, SEED and input always give the same output.
 *
 * Usage: mutate MODE SEED IN OUT [ARG]
 *
 *   truncate SEED IN OUT N   first N bytes of IN (SEED unused)
 *   flip     SEED IN OUT [K] flip K bytes (default 1..8, from SEED); positions
 *                            biased toward the ELF header, the program header
 *                            table and the section header table
 *   field    SEED IN OUT     one header field (chosen by SEED) set to an absurd
 *                            or inconsistent value; prints what it did
 *   fields   SEED IN OUT [K] K (default 2..4) field mutations at once
 *   noshdr   SEED IN OUT     drop the section header table from the header
 *                            (e_shoff, e_shnum, e_shstrndx = 0): still valid
 *   set      SEED IN OUT F=V[,F=V...]
 *                            set the named header fields to the given values
 *                            (SEED unused), for inputs a test needs exactly:
 *                            F is an ELF header field (e_phnum), a program
 *                            header field phdr[I].p_NAME or a section header
 *                            field shdr[I].sh_NAME; I is an index, or a type
 *                            (PT_LOAD, PT_DYNAMIC, PT_INTERP, PT_NOTE,
 *                            PT_PHDR, PT_TLS, PT_GNU_EH_FRAME, PT_GNU_STACK,
 *                            PT_GNU_RELRO, PT_GNU_PROPERTY) for the first
 *                            entry of that type, or TYPE:K for its K-th
 *                            (from 0); V is a decimal or 0x number (a
 *                            negative one counts modulo 2^64).  Also
 *                            dyn[I].d_tag or .d_val (entry I of the first
 *                            PT_DYNAMIC; I may be DT_NAME or DT_NAME+K, the
 *                            K-th entry after the first with that tag),
 *                            byte[OFFSET]=V, and add[OFFSET:SIZE]=DELTA (add
 *                            DELTA to the SIZE-byte number at OFFSET).
 *                            Tables are found as the input has them; exit 3
 *                            when an entry or byte does not exist
 *   swap     SEED IN OUT     convert to the other byte order: ELF header,
 *                            program and section headers, dynamic entries and
 *                            note headers (so a valid file stays valid)
 *   offsets  SEED IN -       print interesting file offsets (header and table
 *                            boundaries, segment and section starts/ends),
 *                            one per line, for truncation tests
 *   info     SEED IN -       print a summary of the ELF header, one line
 *                            per program header and one per section header
 *   verify   SEED CASE DIR RC1,RC3[,strict]
 *                            the checks of one malformed case at once (lib.sh, mal_case)
 *                            (see do_verify); prints one line per problem
 *   check    SEED ORIG NEW [strict]
 *                            verify that NEW is a plausible in-place rewrite of
 *                            ORIG: same size, ELF magic; with "strict", every
 *                            changed byte must lie in the p_align field of a
 *                            PT_LOAD entry, or in the desc of a GNU build-id
 *                            note (elfpmd derives a new one), and the new
 *                            p_align must be a power of two larger than the
 *                            old one, with p_vaddr congruent to p_offset
 *                            modulo it
 *
 * Field mutations (SEED modulo their number picks one, the next that applies
 * if it does not): EI_CLASS, EI_DATA, other ident bytes, e_type, e_machine,
 * e_version, e_phoff/e_shoff (0, past EOF, near 2^64, unaligned, pointing at
 * the other table), e_ehsize, e_phentsize, e_phnum (0, PN_XNUM, huge),
 * e_shentsize, e_shnum (incl. extended numbering), e_shstrndx (incl.
 * SHN_XINDEX), PN_XNUM with sh_info; PT_LOAD p_offset, p_filesz, p_memsz,
 * p_vaddr (wrapping, incongruent), p_align (0, not a power of two, huge),
 * p_flags, p_type; a non-load turned PT_LOAD, overlapping, reordered and
 * duplicated PT_LOADs, no PT_LOAD at all; PT_DYNAMIC out of the file, other
 * special segments, note and interpreter contents, dynamic entries without
 * DT_NULL; sh_offset, sh_size, sh_type, sh_name/link/info, sh_entsize and
 * sh_addralign, the section name table, section 0; no section headers; any
 * header field set to a generic absurd value; text segments made almost
 * eligible (huge p_memsz, covering the whole file, PMD-aligned but not
 * congruent, writable).
 *
 * Environment: MUTATE_ALSO=PATH[:PATH...] writes the result to these files
 * too (mode 0750), MUTATE_CHOWN=UID:GID gives those copies that owner.
 *
 * Exit status: 0 done, 1 check failed, 2 usage or I/O error, 3 the mutation
 * does not apply to this input (e.g. no program headers): skip the case.
 */

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "elfdata.h"

#define EXIT_CHECKFAIL 1
#define EXIT_USAGE 2
#define EXIT_NA 3

/* ELF constants (own copies: this file must not depend on <elf.h>). */
enum {
	CLS32 = 1, CLS64 = 2, LSB = 1, MSB = 2,
	PT_NULL = 0, PT_LOAD = 1, PT_DYNAMIC = 2, PT_INTERP = 3, PT_NOTE = 4,
	PT_PHDR = 6, PT_TLS = 7,
	SHT_NULL = 0, SHT_PROGBITS = 1, SHT_SYMTAB = 2, SHT_STRTAB = 3,
	SHT_DYNAMIC = 6, SHT_NOTE = 7, SHT_NOBITS = 8, SHT_DYNSYM = 11,
	SHT_SYMTAB_SHNDX = 18,
	PF_X = 1, PF_W = 2, PF_R = 4,
	DT_NULL = 0, DT_DEBUG = 21
};
#define PT_GNU_EH_FRAME 0x6474e550u
#define PT_GNU_STACK 0x6474e551u
#define PT_GNU_RELRO 0x6474e552u
#define PT_GNU_PROPERTY 0x6474e553u

/* ---------------------------------------------------------------- PRNG */

struct rng {
	uint64_t s;
};

static uint64_t rnext(struct rng *r)
{
	/* splitmix64 */
	uint64_t z = (r->s += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static uint64_t rbelow(struct rng *r, uint64_t n)
{
	return n ? rnext(r) % n : 0;
}

/* ---------------------------------------------------------------- image */

struct img {
	unsigned char *b;
	size_t n;
	int cls;   /* CLS32 or CLS64; 0 when the header cannot be parsed */
	int msb;   /* big-endian */
	/* layout, captured once from the (pristine) input */
	uint64_t phoff, phent, phnum; /* phnum: entries that fit in the file */
	uint64_t shoff, shent, shnum;
	uint64_t ehsize;
};

/* Field positions and byte order come from the test side's one decoder
 * (elfdata.h); these helpers apply them to an image. */
static bool is64(const struct img *im)
{
	return im->cls == CLS64;
}

static unsigned fsz(const struct img *im, const struct elf_field *f)
{
	return elf_field_size(f, is64(im));
}

static unsigned foff(const struct img *im, const struct elf_field *f)
{
	return elf_field_off(f, is64(im));
}

/* Raw access at a file offset; out-of-range reads give 0, writes do nothing. */
static int inb(const struct img *im, uint64_t off, unsigned sz)
{
	return off <= im->n && sz <= im->n - off;
}

static uint64_t rd(const struct img *im, uint64_t off, unsigned sz)
{
	return inb(im, off, sz) ? elf_get(im->b + off, sz, im->msb) : 0;
}

static int wr(struct img *im, uint64_t off, unsigned sz, uint64_t v)
{
	if (!inb(im, off, sz))
		return -1;
	elf_put(im->b + off, sz, im->msb, v);
	return 0;
}

static uint64_t eget(const struct img *im, int f)
{
	return rd(im, foff(im, &elf_ehdr_fields[f]), fsz(im, &elf_ehdr_fields[f]));
}

static void eset(struct img *im, int f, uint64_t v)
{
	wr(im, foff(im, &elf_ehdr_fields[f]), fsz(im, &elf_ehdr_fields[f]), v & elf_ones(fsz(im, &elf_ehdr_fields[f])));
}

static uint64_t pbase(const struct img *im, uint64_t i)
{
	return im->phoff + i * im->phent;
}

static uint64_t pget(const struct img *im, uint64_t i, int f)
{
	return rd(im, pbase(im, i) + foff(im, &elf_phdr_fields[f]), fsz(im, &elf_phdr_fields[f]));
}

static void pset(struct img *im, uint64_t i, int f, uint64_t v)
{
	wr(im, pbase(im, i) + foff(im, &elf_phdr_fields[f]), fsz(im, &elf_phdr_fields[f]),
	   v & elf_ones(fsz(im, &elf_phdr_fields[f])));
}

static uint64_t sbase(const struct img *im, uint64_t i)
{
	return im->shoff + i * im->shent;
}

static uint64_t sget(const struct img *im, uint64_t i, int f)
{
	return rd(im, sbase(im, i) + foff(im, &elf_shdr_fields[f]), fsz(im, &elf_shdr_fields[f]));
}

static void sset(struct img *im, uint64_t i, int f, uint64_t v)
{
	wr(im, sbase(im, i) + foff(im, &elf_shdr_fields[f]), fsz(im, &elf_shdr_fields[f]),
	   v & elf_ones(fsz(im, &elf_shdr_fields[f])));
}

static unsigned nat_ehsize(const struct img *im) { return elf_ehdr_size(is64(im)); }
static unsigned nat_phent(const struct img *im) { return elf_phdr_size(is64(im)); }
static unsigned nat_shent(const struct img *im) { return elf_shdr_size(is64(im)); }
static unsigned wordsz(const struct img *im) { return elf_word(is64(im)); }

/* Parse the layout; tolerant: a table that does not fit is clamped. */
static void parse(struct img *im)
{
	im->cls = 0;
	im->msb = 0;
	im->phoff = im->phent = im->phnum = 0;
	im->shoff = im->shent = im->shnum = 0;
	im->ehsize = 0;
	if (im->n < 16 || memcmp(im->b, "\177ELF", 4) != 0)
		return;
	if (im->b[4] != CLS32 && im->b[4] != CLS64)
		return;
	im->cls = im->b[4];
	im->msb = im->b[5] == MSB;
	if (im->n < nat_ehsize(im)) {
		im->cls = 0;
		return;
	}
	im->ehsize = nat_ehsize(im);
	im->phoff = eget(im, E_PHOFF);
	im->phent = eget(im, E_PHENTSIZE);
	if (im->phent < nat_phent(im))
		im->phent = nat_phent(im);
	im->phnum = eget(im, E_PHNUM);
	if (im->phoff >= im->n)
		im->phnum = 0;
	else if (im->phnum > (im->n - im->phoff) / im->phent)
		im->phnum = (im->n - im->phoff) / im->phent;
	im->shoff = eget(im, E_SHOFF);
	im->shent = eget(im, E_SHENTSIZE);
	if (im->shent < nat_shent(im))
		im->shent = nat_shent(im);
	im->shnum = eget(im, E_SHNUM);
	if (im->shoff == 0 || im->shoff >= im->n)
		im->shnum = 0;
	else if (im->shnum > (im->n - im->shoff) / im->shent)
		im->shnum = (im->n - im->shoff) / im->shent;
}

/* ---------------------------------------------------------------- I/O */

static void die(int code, const char *fmt, ...)
	__attribute__((format(printf, 2, 3), noreturn));
static void die(int code, const char *fmt, ...)
{
	va_list ap;

	fputs("mutate: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(code);
}

/* Read PATH into IM; on failure return -1 with a reason in WHY. */
static int try_load(struct img *im, const char *path, const char **why)
{
	int fd = open(path, O_RDONLY);
	struct stat st;
	size_t got = 0;

	if (fd < 0) {
		*why = strerror(errno);
		return -1;
	}
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		*why = "not a regular file";
		close(fd);
		return -1;
	}
	if ((uint64_t)st.st_size > (UINT64_C(1) << 32)) {
		*why = "too large for mutate";
		close(fd);
		return -1;
	}
	im->n = (size_t)st.st_size;
	im->b = malloc(im->n ? im->n : 1);
	if (!im->b)
		die(EXIT_USAGE, "out of memory");
	while (got < im->n) {
		ssize_t r = read(fd, im->b + got, im->n - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			*why = "read failed";
			close(fd);
			return -1;
		}
		got += (size_t)r;
	}
	close(fd);
	parse(im);
	return 0;
}

static void load(struct img *im, const char *path)
{
	const char *why = "";

	if (try_load(im, path, &why) != 0)
		die(EXIT_USAGE, "%s: %s", path, why);
}

static void save(const struct img *im, const char *path, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	size_t done = 0;

	if (fd < 0)
		die(EXIT_USAGE, "%s: %s", path, strerror(errno));
	while (done < len) {
		ssize_t w = write(fd, im->b + done, len - done);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			die(EXIT_USAGE, "%s: write failed", path);
		done += (size_t)w;
	}
	if (close(fd) != 0)
		die(EXIT_USAGE, "%s: close failed", path);
}

/* Write the result to OUT and, for the test script's convenience, to every
 * file named in $MUTATE_ALSO (colon-separated): saves a cp per copy.  Those
 * copies get mode 0750 and, when $MUTATE_CHOWN is UID:GID, that owner, so
 * that the test can see whether a rewrite keeps mode and owner. */
static void save_all(const struct img *im, const char *out, size_t len)
{
	const char *also = getenv("MUTATE_ALSO"), *own = getenv("MUTATE_CHOWN");
	unsigned uid = 0, gid = 0;
	int do_chown = own && sscanf(own, "%u:%u", &uid, &gid) == 2;
	char path[4096];

	save(im, out, len);
	while (also && *also) {
		const char *end = strchr(also, ':');
		size_t l = end ? (size_t)(end - also) : strlen(also);
		if (l > 0 && l < sizeof path) {
			memcpy(path, also, l);
			path[l] = 0;
			save(im, path, len);
			if (chmod(path, 0750) != 0)
				die(EXIT_USAGE, "%s: chmod: %s", path, strerror(errno));
			if (do_chown && chown(path, (uid_t)uid, (gid_t)gid) != 0)
				die(EXIT_USAGE, "%s: chown: %s", path, strerror(errno));
		}
		also += l + (end ? 1 : 0);
	}
}

/* ---------------------------------------------------------------- helpers */

struct desc {
	char s[1024];
	size_t len;
};

static void say(struct desc *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(struct desc *d, const char *fmt, ...)
{
	va_list ap;
	int w;

	if (d->len >= sizeof d->s - 1)
		return;
	if (d->len) {
		d->s[d->len++] = ';';
		d->s[d->len++] = ' ';
		d->s[d->len] = 0;
	}
	va_start(ap, fmt);
	w = vsnprintf(d->s + d->len, sizeof d->s - d->len, fmt, ap);
	va_end(ap);
	if (w > 0)
		d->len += (size_t)w < sizeof d->s - d->len ? (size_t)w : sizeof d->s - d->len - 1;
}

static uint64_t pick(struct rng *r, const uint64_t *v, size_t n)
{
	return v[rbelow(r, n)];
}
#define PICK(r, ...) \
	pick((r), (const uint64_t[]){__VA_ARGS__}, \
	     sizeof((const uint64_t[]){__VA_ARGS__}) / sizeof(uint64_t))

/* A generic absurd value for a field of SZ bytes whose current value is CUR. */
static uint64_t absurd(const struct img *im, struct rng *r, unsigned sz, uint64_t cur)
{
	uint64_t m = elf_ones(sz), n = im->n;
	uint64_t v = PICK(r, 0, m, 1, cur + 1, cur - 1, cur ^ (UINT64_C(1) << (8 * sz - 1)),
			  n, n + 1, n - 1, m - 7, m >> 1, (m >> 1) + 1, cur * 2,
			  cur << 12, 0x80000000u, UINT64_C(0x100000000), rnext(r),
			  rbelow(r, 4096), rbelow(r, n + 1), cur | 0x200000, 0x200000, 3);
	return v & m;
}

static uint64_t count_type(const struct img *im, uint64_t type)
{
	uint64_t i, c = 0;

	for (i = 0; i < im->phnum; i++)
		c += pget(im, i, P_TYPE) == type;
	return c;
}

/* Index of a random phdr of TYPE (with 50% preference for an executable one
 * when TYPE is PT_LOAD); -1 when none. */
static int64_t pick_phdr(const struct img *im, struct rng *r, uint64_t type)
{
	uint64_t c = count_type(im, type), k, i;

	if (c == 0)
		return -1;
	if (type == PT_LOAD && rbelow(r, 2) == 0) {
		for (i = 0; i < im->phnum; i++)
			if (pget(im, i, P_TYPE) == PT_LOAD && (pget(im, i, P_FLAGS) & PF_X))
				return (int64_t)i;
	}
	k = rbelow(r, c);
	for (i = 0; i < im->phnum; i++)
		if (pget(im, i, P_TYPE) == type && k-- == 0)
			return (int64_t)i;
	return -1;
}

static int64_t pick_nonload(const struct img *im, struct rng *r)
{
	uint64_t c = im->phnum - count_type(im, PT_LOAD), k, i;

	if (im->phnum == 0 || c == 0)
		return -1;
	k = rbelow(r, c);
	for (i = 0; i < im->phnum; i++)
		if (pget(im, i, P_TYPE) != PT_LOAD && k-- == 0)
			return (int64_t)i;
	return -1;
}

static int64_t pick_shdr_type(const struct img *im, struct rng *r, uint64_t type)
{
	uint64_t i, c = 0, k;

	for (i = 0; i < im->shnum; i++)
		c += sget(im, i, SH_TYPE) == type;
	if (c == 0)
		return -1;
	k = rbelow(r, c);
	for (i = 0; i < im->shnum; i++)
		if (sget(im, i, SH_TYPE) == type && k-- == 0)
			return (int64_t)i;
	return -1;
}

static void swap_entries(struct img *im, uint64_t a, uint64_t b)
{
	unsigned char tmp[256];
	uint64_t e = im->phent < sizeof tmp ? im->phent : sizeof tmp;

	if (!inb(im, pbase(im, a), (unsigned)e) || !inb(im, pbase(im, b), (unsigned)e))
		return;
	memcpy(tmp, im->b + pbase(im, a), e);
	memcpy(im->b + pbase(im, a), im->b + pbase(im, b), e);
	memcpy(im->b + pbase(im, b), tmp, e);
}

#define PSET(i, f, v) do { \
	uint64_t v_ = (v); \
	pset(im, (uint64_t)(i), (f), v_); \
	say(d, "phdr[%" PRId64 "](type %#" PRIx64 ").%s = %#" PRIx64, (int64_t)(i), \
	    pget(im, (uint64_t)(i), P_TYPE), elf_phdr_fields[f].name, pget(im, (uint64_t)(i), (f))); \
} while (0)
#define ESET(f, v) do { \
	eset(im, (f), (v)); \
	say(d, "%s = %#" PRIx64, elf_ehdr_fields[f].name, eget(im, (f))); \
} while (0)
#define SSET(i, f, v) do { \
	sset(im, (uint64_t)(i), (f), (v)); \
	say(d, "shdr[%" PRId64 "].%s = %#" PRIx64, (int64_t)(i), elf_shdr_fields[f].name, \
	    sget(im, (uint64_t)(i), (f))); \
} while (0)

/* ---------------------------------------------------------------- field mutations
 * Each returns 0 when applied, -1 when it does not apply to this input. */

typedef int mut_fn(struct img *, struct rng *, struct desc *);

static int m_class(struct img *im, struct rng *r, struct desc *d)
{
	im->b[4] = (unsigned char)PICK(r, 0, 3, 0xff, im->cls == CLS32 ? CLS64 : CLS32);
	say(d, "EI_CLASS = %u", im->b[4]);
	return 0;
}

static int m_data(struct img *im, struct rng *r, struct desc *d)
{
	im->b[5] = (unsigned char)PICK(r, 0, 3, 0xff, im->msb ? LSB : MSB);
	say(d, "EI_DATA = %u", im->b[5]);
	return 0;
}

static int m_ident(struct img *im, struct rng *r, struct desc *d)
{
	switch (rbelow(r, 4)) {
	case 0:
		im->b[6] = (unsigned char)PICK(r, 0, 2, 0xff);
		say(d, "EI_VERSION = %u", im->b[6]);
		break;
	case 1:
		im->b[7] = (unsigned char)PICK(r, 0xff, 97, 3);
		say(d, "EI_OSABI = %u", im->b[7]);
		break;
	case 2: {
		unsigned i = 1 + (unsigned)rbelow(r, 3);
		im->b[i] ^= 0x20;
		say(d, "magic byte %u = %#x", i, im->b[i]);
		break;
	}
	default:
		memset(im->b + 9, 0xff, 7);
		say(d, "EI_PAD = ff...");
		break;
	}
	return 0;
}

static int m_type(struct img *im, struct rng *r, struct desc *d)
{
	uint64_t t = eget(im, E_TYPE);
	ESET(E_TYPE, PICK(r, 0, 1, 4, 0xfe00, 0xff00, 0xffff, t == 2 ? 3 : 2));
	return 0;
}

static int m_machine(struct img *im, struct rng *r, struct desc *d)
{
	/* none, 386, x86-64, aarch64, ppc64, ppc, s390, riscv, loongarch, ia64, sparcv9, garbage */
	ESET(E_MACHINE, PICK(r, 0, 3, 62, 183, 21, 20, 22, 243, 258, 50, 43, 0xffff, 0x1234));
	return 0;
}

static int m_version(struct img *im, struct rng *r, struct desc *d)
{
	ESET(E_VERSION, PICK(r, 0, 2, 0xffffffffu));
	return 0;
}

static uint64_t off_value(struct img *im, struct rng *r, uint64_t cur, uint64_t ent, unsigned sz)
{
	uint64_t n = im->n;
	return PICK(r, 0, 1, n, n - 1, n - ent + 1, n - ent, elf_ones(sz), elf_ones(sz) - 7,
		    elf_ones(sz) - ent + 1, UINT64_C(1) << (8 * sz - 1), cur + 1, cur + 4,
		    cur + ent / 2, UINT64_C(0x100000000), im->ehsize - 8, im->shoff, im->phoff);
}

static int m_phoff(struct img *im, struct rng *r, struct desc *d)
{
	ESET(E_PHOFF, off_value(im, r, eget(im, E_PHOFF), im->phent, fsz(im, &elf_ehdr_fields[E_PHOFF])));
	return 0;
}

static int m_shoff(struct img *im, struct rng *r, struct desc *d)
{
	ESET(E_SHOFF, off_value(im, r, eget(im, E_SHOFF), im->shent, fsz(im, &elf_ehdr_fields[E_SHOFF])));
	return 0;
}

static int m_ehsize(struct img *im, struct rng *r, struct desc *d)
{
	unsigned n = nat_ehsize(im);
	ESET(E_EHSIZE, PICK(r, 0, 1, 0xffff, n + 1, n - 1, n == 64 ? 52 : 64));
	return 0;
}

static int m_phentsize(struct img *im, struct rng *r, struct desc *d)
{
	unsigned n = nat_phent(im);
	ESET(E_PHENTSIZE, PICK(r, 0, 1, n - 1, n + 1, n + 8, n * 2, 0xffff, n == 56 ? 32 : 56));
	return 0;
}

static int m_phnum(struct img *im, struct rng *r, struct desc *d)
{
	uint64_t c = eget(im, E_PHNUM);
	ESET(E_PHNUM, PICK(r, 0, 0xffff, 0xfffe, c + 1, c * 100, im->n / im->phent + 1, 1));
	return 0;
}

static int m_shentsize(struct img *im, struct rng *r, struct desc *d)
{
	unsigned n = nat_shent(im);
	ESET(E_SHENTSIZE, PICK(r, 0, 1, n - 1, n + 8, 0xffff, n == 64 ? 40 : 64));
	return 0;
}

static int m_shnum(struct img *im, struct rng *r, struct desc *d)
{
	uint64_t c = eget(im, E_SHNUM);
	switch (rbelow(r, 3)) {
	case 0:
		ESET(E_SHNUM, PICK(r, 0xffff, 0xff00, c + 1, c + 1000, 1));
		break;
	case 1:
		ESET(E_SHNUM, 0);
		break;
	default:
		/* extended numbering: e_shnum 0, real count in shdr[0].sh_size */
		if (im->shnum == 0)
			return -1;
		ESET(E_SHNUM, 0);
		SSET(0, SH_SIZE, PICK(r, 0, c, c + 1, 0xffffffffu, UINT64_MAX, 0x10000));
		break;
	}
	return 0;
}

static int m_shstrndx(struct img *im, struct rng *r, struct desc *d)
{
	uint64_t c = eget(im, E_SHNUM);
	uint64_t v = PICK(r, c, c + 1, 0xffff, 0xff00, 0xfff1, 0, 1);
	ESET(E_SHSTRNDX, v);
	if (v == 0xffff && im->shnum > 0)
		SSET(0, SH_LINK, PICK(r, 0, c, 0xffffffffu, c - 1));
	return 0;
}

static int m_pnxnum(struct img *im, struct rng *r, struct desc *d)
{
	uint64_t c = eget(im, E_PHNUM);
	if (im->shnum == 0)
		return -1;
	ESET(E_PHNUM, 0xffff);
	SSET(0, SH_INFO, PICK(r, 0, c, c + 1, 0xffffffffu, 0x10000, c * 1000));
	return 0;
}

static int m_load_offset(struct img *im, struct rng *r, struct desc *d)
{
	int64_t i = pick_phdr(im, r, PT_LOAD);
	uint64_t o, fs, m;
	if (i < 0)
		return -1;
	o = pget(im, (uint64_t)i, P_OFFSET);
	fs = pget(im, (uint64_t)i, P_FILESZ);
	m = elf_ones(fsz(im, &elf_phdr_fields[P_OFFSET]));
	PSET(i, P_OFFSET, PICK(r, im->n, im->n + 1, m, UINT64_C(1) << (8 * wordsz(im) - 1),
			       m - fs / 2, o + 1, o + 0x1000, 0, im->n - fs / 2, o + 0x200000));
	return 0;
}

static int m_load_filesz(struct img *im, struct rng *r, struct desc *d)
{
	int64_t i = pick_phdr(im, r, PT_LOAD);
	uint64_t o, ms;
	if (i < 0)
		return -1;
	o = pget(im, (uint64_t)i, P_OFFSET);
	ms = pget(im, (uint64_t)i, P_MEMSZ);
	PSET(i, P_FILESZ, PICK(r, 0, UINT64_MAX, ms + 1, ms * 2 + 4096, im->n + 1,
			       im->n - o + 1, im->n - o, UINT64_C(1) << 63, 0x200000, 0x400000));
	return 0;
}

static int m_load_memsz(struct img *im, struct rng *r, struct desc *d)
{
	int64_t i = pick_phdr(im, r, PT_LOAD);
	uint64_t fs, ms;
	if (i < 0)
		return -1;
	fs = pget(im, (uint64_t)i, P_FILESZ);
	ms = pget(im, (uint64_t)i, P_MEMSZ);
	PSET(i, P_MEMSZ, PICK(r, 0, UINT64_MAX, fs - 1, UINT64_C(1) << 63, ms + 0x400000,
			      ms + 0x200000, 0x200000, UINT64_MAX - 0xfff));
	return 0;
}

static int m_load_vaddr(struct img *im, struct rng *r, struct desc *d)
{
	int64_t i = pick_phdr(im, r, PT_LOAD);
	uint64_t v, ms, m;
	if (i < 0)
		return -1;
	v = pget(im, (uint64_t)i, P_VADDR);
	ms = pget(im, (uint64_t)i, P_MEMSZ);
	m = elf_ones(fsz(im, &elf_phdr_fields[P_VADDR]));
	PSET(i, P_VADDR, PICK(r, 0, m, v + 1, v + 0x1000, v + 0x800, m - ms / 2, m - 0xfff,
			      UINT64_C(1) << 47, UINT64_C(1) << (8 * wordsz(im) - 1),
			      (v + 0x200000) & ~UINT64_C(0x1fffff), v + 0x200000, v - 0x1000));
	return 0;
}

static int m_load_align(struct img *im, struct rng *r, struct desc *d)
{
	int64_t i = pick_phdr(im, r, PT_LOAD);
	if (i < 0)
		return -1;
	PSET(i, P_ALIGN, PICK(r, 0, 1, 2, 3, 0x1001, 0x3000, 0x200000, 0x400000,
			      UINT64_C(1) << 63, UINT64_MAX, UINT64_C(1) << 40, 0x10000,
			      0x200001, 0x80000000u, 0x2000000, 0x4000000));
	return 0;
}

static int m_load_flags(struct img *im, struct rng *r, struct desc *d)
{
	int64_t i = pick_phdr(im, r, PT_LOAD);
	if (i < 0)
		return -1;
	PSET(i, P_FLAGS, PICK(r, 0, 0xffffffffu, PF_R, PF_R | PF_W, PF_R | PF_X,
			      PF_R | PF_W | PF_X, PF_X, PF_W, 0x0ff00000u | PF_R | PF_X));
	return 0;
}

static int m_load_type(struct img *im, struct rng *r, struct desc *d)
{
	int64_t i = pick_phdr(im, r, PT_LOAD);
	if (i < 0)
		return -1;
	PSET(i, P_TYPE, PICK(r, PT_NULL, PT_NOTE, 0xffffffffu, PT_GNU_RELRO, PT_DYNAMIC, PT_TLS,
			     PT_PHDR, 0x60000000u));
	return 0;
}

static int m_to_load(struct img *im, struct rng *r, struct desc *d)
{
	int64_t i = pick_nonload(im, r);
	if (i < 0)
		return -1;
	PSET(i, P_TYPE, PT_LOAD);
	if (rbelow(r, 2))
		PSET(i, P_ALIGN, PICK(r, 0, 0x1000, 0x200000, 3));
	return 0;
}

static int m_overlap(struct img *im, struct rng *r, struct desc *d)
{
	int64_t a = pick_phdr(im, r, PT_LOAD), b = pick_phdr(im, r, PT_LOAD);
	uint64_t va, oa, ma;
	if (a < 0 || b < 0)
		return -1;
	if (a == b) {
		uint64_t i;
		for (i = 0; i < im->phnum; i++)
			if ((int64_t)i != a && pget(im, i, P_TYPE) == PT_LOAD)
				b = (int64_t)i;
		if (a == b)
			return -1;
	}
	va = pget(im, (uint64_t)a, P_VADDR);
	oa = pget(im, (uint64_t)a, P_OFFSET);
	ma = pget(im, (uint64_t)a, P_MEMSZ);
	switch (rbelow(r, 4)) {
	case 0:
		PSET(b, P_VADDR, va);
		break;
	case 1:
		PSET(b, P_VADDR, va + (ma / 2 & ~UINT64_C(0xfff)));
		PSET(b, P_OFFSET, oa + (ma / 2 & ~UINT64_C(0xfff)));
		break;
	case 2:
		PSET(b, P_OFFSET, oa);
		PSET(b, P_VADDR, va);
		break;
	default:
		PSET(b, P_VADDR, va + 0x10);
		PSET(b, P_OFFSET, oa + 0x10);
		PSET(b, P_MEMSZ, ma * 2 + 0x400000);
		break;
	}
	return 0;
}

static int m_reorder(struct img *im, struct rng *r, struct desc *d)
{
	uint64_t i, first = UINT64_MAX, other = UINT64_MAX;

	if (count_type(im, PT_LOAD) < 2)
		return -1;
	for (i = 0; i < im->phnum; i++) {
		if (pget(im, i, P_TYPE) != PT_LOAD)
			continue;
		if (first == UINT64_MAX)
			first = i;
		else if (other == UINT64_MAX || rbelow(r, 2))
			other = i;
	}
	swap_entries(im, first, other);
	say(d, "swapped PT_LOAD phdr[%" PRIu64 "] and phdr[%" PRIu64 "]", first, other);
	return 0;
}

static int m_duplicate(struct img *im, struct rng *r, struct desc *d)
{
	int64_t a = pick_phdr(im, r, PT_LOAD);
	uint64_t b;
	if (a < 0 || im->phnum < 2)
		return -1;
	b = rbelow(r, im->phnum);
	if ((int64_t)b == a)
		b = (b + 1) % im->phnum;
	if (!inb(im, pbase(im, b), (unsigned)im->phent))
		return -1;
	memmove(im->b + pbase(im, b), im->b + pbase(im, (uint64_t)a), im->phent);
	say(d, "phdr[%" PRIu64 "] = copy of PT_LOAD phdr[%" PRId64 "]", b, a);
	return 0;
}

static int m_dynamic(struct img *im, struct rng *r, struct desc *d)
{
	int64_t i = pick_phdr(im, r, PT_DYNAMIC);
	uint64_t m = elf_ones(wordsz(im));
	if (i < 0)
		return -1;
	switch (rbelow(r, 4)) {
	case 0:
		PSET(i, P_OFFSET, PICK(r, im->n, im->n + 8, m, m - 7, im->n - 8, 1));
		break;
	case 1:
		PSET(i, P_FILESZ, PICK(r, 0, m, im->n, im->n + 1, 1, 3));
		break;
	case 2:
		PSET(i, P_VADDR, PICK(r, 0, m, pget(im, (uint64_t)i, P_VADDR) + 0x10000000));
		break;
	default:
		PSET(i, P_MEMSZ, PICK(r, 0, m, 1));
		break;
	}
	return 0;
}

static int m_special_phdr(struct img *im, struct rng *r, struct desc *d)
{
	static const uint64_t types[] = {PT_PHDR, PT_INTERP, PT_NOTE, PT_GNU_RELRO, PT_TLS,
					 PT_GNU_STACK, PT_GNU_PROPERTY};
	int64_t i = -1;
	unsigned k;
	uint64_t start = rbelow(r, 7);
	for (k = 0; k < 7 && i < 0; k++)
		i = pick_phdr(im, r, types[(start + k) % 7]);
	if (i < 0)
		return -1;
	{
		int f = (int)PICK(r, P_OFFSET, P_FILESZ, P_MEMSZ, P_VADDR, P_ALIGN);
		PSET(i, f, absurd(im, r, fsz(im, &elf_phdr_fields[f]), pget(im, (uint64_t)i, f)));
	}
	return 0;
}

/* Content of a note: first note header namesz/descsz absurd. */
static int m_note_content(struct img *im, struct rng *r, struct desc *d)
{
	int64_t i = pick_phdr(im, r, PT_NOTE);
	uint64_t o;
	if (i < 0)
		return -1;
	o = pget(im, (uint64_t)i, P_OFFSET);
	if (!inb(im, o, 12))
		return -1;
	if (rbelow(r, 2)) {
		wr(im, o, 4, PICK(r, 0xffffffffu, 0x7fffffff, 0x1001));
		say(d, "note at %#" PRIx64 ": namesz = %#" PRIx64, o, rd(im, o, 4));
	} else {
		wr(im, o + 4, 4, PICK(r, 0xffffffffu, 0xfffffffcu, 0x1000));
		say(d, "note at %#" PRIx64 ": descsz = %#" PRIx64, o, rd(im, o + 4, 4));
	}
	return 0;
}

static int m_interp_content(struct img *im, struct rng *r, struct desc *d)
{
	int64_t i = pick_phdr(im, r, PT_INTERP);
	uint64_t o, fs;
	(void)r;
	if (i < 0)
		return -1;
	o = pget(im, (uint64_t)i, P_OFFSET);
	fs = pget(im, (uint64_t)i, P_FILESZ);
	if (fs == 0 || !inb(im, o, (unsigned)(fs > 4096 ? 4096 : fs)))
		return -1;
	im->b[o + fs - 1] = 'A';
	say(d, "PT_INTERP string not NUL-terminated");
	return 0;
}

static int m_no_loads(struct img *im, struct rng *r, struct desc *d)
{
	uint64_t i;
	int all = (int)rbelow(r, 2);
	if (im->phnum == 0)
		return -1;
	for (i = 0; i < im->phnum; i++)
		if (all || pget(im, i, P_TYPE) == PT_LOAD)
			pset(im, i, P_TYPE, PT_NULL);
	say(d, all ? "every phdr = PT_NULL" : "every PT_LOAD = PT_NULL");
	return 0;
}

static int m_any_phdr(struct img *im, struct rng *r, struct desc *d)
{
	uint64_t i;
	int f;
	if (im->phnum == 0)
		return -1;
	i = rbelow(r, im->phnum);
	f = (int)rbelow(r, P_NFIELDS);
	PSET(i, f, absurd(im, r, fsz(im, &elf_phdr_fields[f]), pget(im, i, f)));
	return 0;
}

static int m_sh_offset(struct img *im, struct rng *r, struct desc *d)
{
	uint64_t i, m = elf_ones(wordsz(im)), sz;
	if (im->shnum < 2)
		return -1;
	i = 1 + rbelow(r, im->shnum - 1);
	sz = sget(im, i, SH_SIZE);
	SSET(i, SH_OFFSET, PICK(r, im->n, im->n + 1, m, m - sz / 2, im->n - sz / 2, 1,
			       UINT64_C(1) << (8 * wordsz(im) - 1)));
	return 0;
}

static int m_sh_size(struct img *im, struct rng *r, struct desc *d)
{
	uint64_t i, m = elf_ones(wordsz(im)), o;
	if (im->shnum < 2)
		return -1;
	i = 1 + rbelow(r, im->shnum - 1);
	o = sget(im, i, SH_OFFSET);
	SSET(i, SH_SIZE, PICK(r, m, m >> 1, im->n + 1, im->n - o + 1, 0, 1,
			     UINT64_C(1) << (8 * wordsz(im) - 1)));
	return 0;
}

static int m_sh_type(struct img *im, struct rng *r, struct desc *d)
{
	uint64_t i;
	if (im->shnum < 2)
		return -1;
	i = 1 + rbelow(r, im->shnum - 1);
	SSET(i, SH_TYPE, PICK(r, SHT_NULL, SHT_NOBITS, 0xffffffffu, SHT_DYNAMIC, SHT_SYMTAB_SHNDX,
			     SHT_SYMTAB, SHT_NOTE, SHT_STRTAB, SHT_PROGBITS));
	return 0;
}

static int m_sh_links(struct img *im, struct rng *r, struct desc *d)
{
	uint64_t i;
	if (im->shnum < 2)
		return -1;
	i = 1 + rbelow(r, im->shnum - 1);
	switch (rbelow(r, 3)) {
	case 0:
		SSET(i, SH_NAME, PICK(r, 0xffffffffu, 0x7fffffff, 0x10000));
		break;
	case 1:
		SSET(i, SH_LINK, PICK(r, 0xffffffffu, im->shnum, im->shnum + 1, i));
		break;
	default:
		SSET(i, SH_INFO, PICK(r, 0xffffffffu, im->shnum, 0));
		break;
	}
	return 0;
}

static int m_sh_ent(struct img *im, struct rng *r, struct desc *d)
{
	static const uint64_t types[] = {SHT_SYMTAB, SHT_DYNSYM, SHT_DYNAMIC, SHT_PROGBITS};
	int64_t i = pick_shdr_type(im, r, types[rbelow(r, 4)]);
	if (i < 0)
		return -1;
	if (rbelow(r, 2))
		SSET(i, SH_ENTSIZE, PICK(r, 0, 1, elf_ones(wordsz(im)), 7, 0x1000));
	else
		SSET(i, SH_ADDRALIGN, PICK(r, 3, elf_ones(wordsz(im)), UINT64_C(1) << 31, 0x1001));
	return 0;
}

static int m_shstrtab(struct img *im, struct rng *r, struct desc *d)
{
	uint64_t k = eget(im, E_SHSTRNDX), o, sz;
	if (k == 0 || k >= im->shnum)
		return -1;
	o = sget(im, k, SH_OFFSET);
	sz = sget(im, k, SH_SIZE);
	switch (rbelow(r, 3)) {
	case 0:
		if (sz == 0 || !inb(im, o, 1) || sz > im->n - o)
			return -1;
		memset(im->b + o, 'A', sz);
		say(d, "shstrtab contents = AAA... (no NUL)");
		break;
	case 1:
		SSET(k, SH_TYPE, PICK(r, SHT_NOBITS, SHT_PROGBITS, SHT_NULL));
		break;
	default:
		SSET(k, SH_SIZE, PICK(r, 0, 1, elf_ones(wordsz(im))));
		break;
	}
	return 0;
}

static int m_shdr0(struct img *im, struct rng *r, struct desc *d)
{
	int f;
	if (im->shnum == 0)
		return -1;
	f = (int)PICK(r, SH_SIZE, SH_LINK, SH_INFO, SH_OFFSET, SH_TYPE, SH_FLAGS);
	SSET(0, f, absurd(im, r, fsz(im, &elf_shdr_fields[f]), sget(im, 0, f)));
	return 0;
}

static int m_dyn_content(struct img *im, struct rng *r, struct desc *d)
{
	int64_t i = pick_phdr(im, r, PT_DYNAMIC);
	uint64_t o, fs, w = wordsz(im), n, k;
	if (i < 0)
		return -1;
	o = pget(im, (uint64_t)i, P_OFFSET);
	fs = pget(im, (uint64_t)i, P_FILESZ);
	if (o >= im->n || fs > im->n - o || fs < 2 * w)
		return -1;
	n = fs / (2 * w);
	switch (rbelow(r, 3)) {
	case 0:
		/* no DT_NULL terminator anywhere */
		for (k = 0; k < n; k++)
			if (rd(im, o + k * 2 * w, (unsigned)w) == DT_NULL)
				wr(im, o + k * 2 * w, (unsigned)w, DT_DEBUG);
		say(d, "PT_DYNAMIC without DT_NULL");
		break;
	case 1:
		k = rbelow(r, n);
		wr(im, o + k * 2 * w, (unsigned)w, PICK(r, elf_ones((unsigned)w), 0x7fffffff, 12, 25));
		say(d, "dyn[%" PRIu64 "].d_tag = %#" PRIx64, k, rd(im, o + k * 2 * w, (unsigned)w));
		break;
	default:
		k = rbelow(r, n);
		wr(im, o + k * 2 * w + w, (unsigned)w, PICK(r, elf_ones((unsigned)w), 0, im->n, 1));
		say(d, "dyn[%" PRIu64 "].d_val = %#" PRIx64, k, rd(im, o + k * 2 * w + w, (unsigned)w));
		break;
	}
	return 0;
}

static int m_strip_shdrs(struct img *im, struct rng *r, struct desc *d)
{
	switch (rbelow(r, 3)) {
	case 0: /* valid: no section headers at all */
		ESET(E_SHOFF, 0);
		ESET(E_SHNUM, 0);
		ESET(E_SHSTRNDX, 0);
		break;
	case 1:
		ESET(E_SHOFF, 0);
		break;
	default:
		ESET(E_SHNUM, 0);
		break;
	}
	return 0;
}

static int m_any_ehdr(struct img *im, struct rng *r, struct desc *d)
{
	int f = (int)rbelow(r, E_NFIELDS);
	ESET(f, absurd(im, r, fsz(im, &elf_ehdr_fields[f]), eget(im, f)));
	return 0;
}

static int m_any_shdr(struct img *im, struct rng *r, struct desc *d)
{
	uint64_t i;
	int f;
	if (im->shnum == 0)
		return -1;
	i = rbelow(r, im->shnum);
	f = (int)rbelow(r, SH_NFIELDS);
	SSET(i, f, absurd(im, r, fsz(im, &elf_shdr_fields[f]), sget(im, i, f)));
	return 0;
}

/* Keep the file valid-looking but move the executable PT_LOAD so that it
 * would be eligible except for one detail. */
static int m_near_eligible(struct img *im, struct rng *r, struct desc *d)
{
	int64_t i = -1;
	uint64_t k;
	for (k = 0; k < im->phnum; k++)
		if (pget(im, k, P_TYPE) == PT_LOAD && (pget(im, k, P_FLAGS) & PF_X))
			i = (int64_t)k;
	if (i < 0)
		return -1;
	switch (rbelow(r, 4)) {
	case 0: /* huge memsz, file part stays */
		PSET(i, P_MEMSZ, pget(im, (uint64_t)i, P_FILESZ) + 0x600000);
		break;
	case 1: /* covers the rest of the file */
		PSET(i, P_FILESZ, im->n - pget(im, (uint64_t)i, P_OFFSET));
		PSET(i, P_MEMSZ, im->n - pget(im, (uint64_t)i, P_OFFSET) + 0x400000);
		break;
	case 2: /* already PMD-aligned but not congruent */
		PSET(i, P_ALIGN, 0x200000);
		PSET(i, P_VADDR, pget(im, (uint64_t)i, P_OFFSET) + 0x201000);
		break;
	default: /* writable text */
		PSET(i, P_FLAGS, PF_R | PF_W | PF_X);
		PSET(i, P_MEMSZ, pget(im, (uint64_t)i, P_MEMSZ) + 0x400000);
		break;
	}
	return 0;
}

static mut_fn *const mutations[] = {
	m_class, m_data, m_ident, m_type, m_machine, m_version, m_phoff, m_shoff,
	m_ehsize, m_phentsize, m_phnum, m_shentsize, m_shnum, m_shstrndx, m_pnxnum,
	m_load_offset, m_load_filesz, m_load_memsz, m_load_vaddr, m_load_align,
	m_load_flags, m_load_type, m_to_load, m_overlap, m_reorder, m_duplicate,
	m_dynamic, m_special_phdr, m_note_content, m_interp_content, m_no_loads,
	m_any_phdr, m_sh_offset, m_sh_size, m_sh_type, m_sh_links, m_sh_ent,
	m_shstrtab, m_shdr0, m_dyn_content, m_strip_shdrs, m_any_ehdr, m_any_shdr,
	m_near_eligible,
};
#define NMUT (sizeof mutations / sizeof mutations[0])

/* Apply mutation number K (mod NMUT), or the next one that applies. */
static int apply_field(struct img *im, struct rng *r, uint64_t k, struct desc *d)
{
	size_t t;
	for (t = 0; t < NMUT; t++) {
		struct rng sub = {rnext(r)};
		if (mutations[(k + t) % NMUT](im, &sub, d) == 0)
			return 0;
	}
	return -1;
}

/* ---------------------------------------------------------------- flip */

static void do_flip(struct img *im, struct rng *r, unsigned k, struct desc *d)
{
	unsigned i;
	for (i = 0; i < k && im->n > 0; i++) {
		uint64_t lo = 0, len = im->n, pos;
		unsigned region = (unsigned)rbelow(r, 100);
		if (region < 30 && im->n >= 16) {
			len = im->cls ? im->ehsize : (im->n < 64 ? im->n : 64);
		} else if (region < 60 && im->phnum > 0) {
			lo = im->phoff;
			len = im->phnum * im->phent;
		} else if (region < 85 && im->shnum > 0) {
			lo = im->shoff;
			len = im->shnum * im->shent;
		}
		if (lo >= im->n)
			lo = 0;
		if (len == 0 || len > im->n - lo)
			len = im->n - lo;
		pos = lo + rbelow(r, len);
		if (rbelow(r, 2))
			im->b[pos] ^= (unsigned char)(1u << rbelow(r, 8));
		else
			im->b[pos] ^= (unsigned char)(1 + rbelow(r, 255));
		say(d, "byte %#" PRIx64 " = %#x", pos, im->b[pos]);
	}
}

/* ---------------------------------------------------------------- swap */

static void swapfield(struct img *im, uint64_t off, unsigned sz)
{
	uint64_t v;
	if (!inb(im, off, sz))
		return;
	im->msb = !im->msb;
	v = rd(im, off, sz);
	im->msb = !im->msb;
	wr(im, off, sz, v);
}

static void swap_range_words(struct img *im, uint64_t off, uint64_t len, unsigned w)
{
	uint64_t k;
	if (off >= im->n || len > im->n - off)
		return;
	for (k = 0; k + w <= len; k += w)
		swapfield(im, off + k, w);
}

static void swap_notes(struct img *im, uint64_t off, uint64_t len)
{
	uint64_t p = 0;
	if (off >= im->n || len > im->n - off)
		return;
	while (p + 12 <= len) {
		uint64_t nsz, dsz;
		/* read in the current order, then swap */
		nsz = rd(im, off + p, 4);
		dsz = rd(im, off + p + 4, 4);
		swapfield(im, off + p, 4);
		swapfield(im, off + p + 4, 4);
		swapfield(im, off + p + 8, 4);
		p += 12 + ((nsz + 3) & ~UINT64_C(3)) + ((dsz + 3) & ~UINT64_C(3));
	}
}

static int do_swap(struct img *im, struct desc *d)
{
	uint64_t i;
	int f;
	if (!im->cls)
		return -1;
	/* contents first, while the headers still read in the old order */
	for (i = 0; i < im->phnum; i++) {
		uint64_t t = pget(im, i, P_TYPE);
		if (t == PT_DYNAMIC)
			swap_range_words(im, pget(im, i, P_OFFSET), pget(im, i, P_FILESZ), wordsz(im));
		else if (t == PT_NOTE)
			swap_notes(im, pget(im, i, P_OFFSET), pget(im, i, P_FILESZ));
	}
	for (i = 0; i < im->shnum; i++) {
		uint64_t t = sget(im, i, SH_TYPE);
		int in_seg = 0;
		uint64_t k, so = sget(im, i, SH_OFFSET);
		for (k = 0; k < im->phnum; k++) {
			uint64_t pt = pget(im, k, P_TYPE), po = pget(im, k, P_OFFSET);
			if ((pt == PT_DYNAMIC || pt == PT_NOTE) && so >= po &&
			    so < po + pget(im, k, P_FILESZ))
				in_seg = 1;
		}
		if (in_seg)
			continue;
		if (t == SHT_DYNAMIC)
			swap_range_words(im, so, sget(im, i, SH_SIZE), wordsz(im));
		else if (t == SHT_NOTE)
			swap_notes(im, so, sget(im, i, SH_SIZE));
	}
	for (i = 0; i < im->phnum; i++)
		for (f = 0; f < P_NFIELDS; f++)
			swapfield(im, pbase(im, i) + foff(im, &elf_phdr_fields[f]), fsz(im, &elf_phdr_fields[f]));
	for (i = 0; i < im->shnum; i++)
		for (f = 0; f < SH_NFIELDS; f++)
			swapfield(im, sbase(im, i) + foff(im, &elf_shdr_fields[f]), fsz(im, &elf_shdr_fields[f]));
	for (f = 0; f < E_NFIELDS; f++)
		swapfield(im, foff(im, &elf_ehdr_fields[f]), fsz(im, &elf_ehdr_fields[f]));
	im->msb = !im->msb;
	im->b[5] = im->msb ? MSB : LSB;
	say(d, "byte order -> %s", im->msb ? "MSB" : "LSB");
	return 0;
}

/* ---------------------------------------------------------------- offsets / info */

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

struct offs {
	uint64_t v[4096];
	size_t n;
	uint64_t max;
};

static void add_off(struct offs *o, uint64_t x)
{
	if (o->n < sizeof o->v / sizeof o->v[0] && x <= o->max)
		o->v[o->n++] = x;
}

static void do_offsets(const struct img *im)
{
	static struct offs ofs;
	uint64_t *v = ofs.v, i;
	size_t n;
	int f;

	ofs.max = im->n;
#define ADD(x) add_off(&ofs, (x))
	ADD(0);
	ADD(4);
	ADD(16);
	ADD(im->n);
	ADD(im->n - 1);
	if (im->cls) {
		for (f = 0; f < E_NFIELDS; f++) {
			ADD(foff(im, &elf_ehdr_fields[f]));
			ADD(foff(im, &elf_ehdr_fields[f]) + fsz(im, &elf_ehdr_fields[f]));
		}
		for (i = 0; i <= im->phnum; i++)
			ADD(pbase(im, i));
		for (i = 0; i < im->phnum && i < 2; i++)
			for (f = 0; f < P_NFIELDS; f++)
				ADD(pbase(im, i) + foff(im, &elf_phdr_fields[f]) + fsz(im, &elf_phdr_fields[f]));
		for (i = 0; i <= im->shnum; i++)
			if (i < 4 || i + 4 > im->shnum)
				ADD(sbase(im, i));
		if (im->shnum)
			for (f = 0; f < SH_NFIELDS; f++)
				ADD(sbase(im, 1) + foff(im, &elf_shdr_fields[f]));
		for (i = 0; i < im->phnum; i++) {
			uint64_t o = pget(im, i, P_OFFSET), s = pget(im, i, P_FILESZ);
			ADD(o);
			if (s <= im->n)
				ADD(o + s);
		}
		for (i = 1; i < im->shnum && i < 64; i++) {
			uint64_t o = sget(im, i, SH_OFFSET), s = sget(im, i, SH_SIZE);
			ADD(o);
			if (s <= im->n && sget(im, i, SH_TYPE) != SHT_NOBITS)
				ADD(o + s);
		}
	}
#undef ADD
	n = ofs.n;
	qsort(v, n, sizeof *v, cmp_u64);
	for (i = 0; i < n; i++)
		if (i == 0 || v[i] != v[i - 1])
			printf("%" PRIu64 "\n", v[i]);
}

static void do_info(const struct img *im)
{
	uint64_t i;
	if (!im->cls) {
		printf("not a parseable ELF file, %zu bytes\n", im->n);
		return;
	}
	printf("ELF%d %s size=%zu type=%" PRIu64 " machine=%" PRIu64 " phoff=%" PRIu64
	       " phnum=%" PRIu64 " shoff=%" PRIu64 " shnum=%" PRIu64 "\n",
	       im->cls == CLS32 ? 32 : 64, im->msb ? "MSB" : "LSB", im->n, eget(im, E_TYPE),
	       eget(im, E_MACHINE), im->phoff, im->phnum, im->shoff, im->shnum);
	for (i = 0; i < im->phnum; i++)
		printf("  phdr[%" PRIu64 "] type=%#" PRIx64 " flags=%" PRIu64 " off=%#" PRIx64
		       " vaddr=%#" PRIx64 " filesz=%#" PRIx64 " memsz=%#" PRIx64 " align=%#" PRIx64 "\n",
		       i, pget(im, i, P_TYPE), pget(im, i, P_FLAGS), pget(im, i, P_OFFSET),
		       pget(im, i, P_VADDR), pget(im, i, P_FILESZ), pget(im, i, P_MEMSZ),
		       pget(im, i, P_ALIGN));
	for (i = 0; i < im->shnum; i++)
		printf("  shdr[%" PRIu64 "] type=%#" PRIx64 " off=%#" PRIx64 " size=%#" PRIx64 "\n",
		       i, sget(im, i, SH_TYPE), sget(im, i, SH_OFFSET), sget(im, i, SH_SIZE));
}

/* ---------------------------------------------------------------- check */

static int is_pow2(uint64_t x)
{
	return x && !(x & (x - 1));
}

/* Whether byte POS of A lies in the desc of a GNU build-id note (type 3,
 * name "GNU") of one of its SHT_NOTE sections or PT_NOTE segments, the
 * notes walked from their headers: elfpmd gives a file it changes a new
 * build-id there, of the same length (--build-id). */
static int in_build_id(const struct img *a, uint64_t pos)
{
	uint64_t i, j, off, size, align, at;
	for (i = 0; i < a->phnum + a->shnum; i++) {
		int seg = i < a->phnum;
		j = seg ? i : i - a->phnum;
		if (seg ? pget(a, j, P_TYPE) != PT_NOTE : (j == 0 || sget(a, j, SH_TYPE) != SHT_NOTE))
			continue;
		off = seg ? pget(a, j, P_OFFSET) : sget(a, j, SH_OFFSET);
		size = seg ? pget(a, j, P_FILESZ) : sget(a, j, SH_SIZE);
		align = (seg ? pget(a, j, P_ALIGN) : sget(a, j, SH_ADDRALIGN)) == 8 ? 8 : 4;
		if (pos < off || off > a->n || size > a->n - off)
			continue;
		for (at = 0; at + 12 <= size;) {
			uint64_t namesz = rd(a, off + at, 4), descsz = rd(a, off + at + 4, 4);
			uint64_t type = rd(a, off + at + 8, 4);
			uint64_t desc = (at + 12 + namesz + align - 1) & ~(align - 1);
			uint64_t next = (desc + descsz + align - 1) & ~(align - 1);
			if (desc > size || descsz > size - desc || next <= at)
				break;
			if (type == 3 && namesz == 4 && memcmp(a->b + off + at + 12, "GNU", 4) == 0 &&
			    pos >= off + desc && pos < off + desc + descsz)
				return 1;
			at = next;
		}
	}
	return 0;
}

/* Is B a plausible in-place rewrite of A?  Problems are printed after PFX. */
static int do_check(const struct img *a, const struct img *b, int strict, const char *pfx)
{
	uint64_t pos, i;
	int bad = 0;

	/* Padding may grow the file; only a strict check (a run that cannot
	 * pad) insists on the same size. */
	if (a->n != b->n && (strict || b->n < a->n)) {
		printf("%ssize changed: %zu -> %zu\n", pfx, a->n, b->n);
		return EXIT_CHECKFAIL;
	}
	if (b->n < 4 || memcmp(b->b, "\177ELF", 4) != 0) {
		printf("%snot an ELF file\n", pfx);
		return EXIT_CHECKFAIL;
	}
	if (!strict)
		return 0;
	for (pos = 0; pos < a->n; pos++) {
		int ok = 0;
		if (a->b[pos] == b->b[pos])
			continue;
		if (a->cls && pos >= a->phoff && a->phent) {
			uint64_t e = (pos - a->phoff) / a->phent, fo;
			fo = pos - pbase(a, e);
			if (e < a->phnum && pget(a, e, P_TYPE) == PT_LOAD &&
			    fo >= foff(a, &elf_phdr_fields[P_ALIGN]) &&
			    fo < foff(a, &elf_phdr_fields[P_ALIGN]) + fsz(a, &elf_phdr_fields[P_ALIGN]))
				ok = 1;
		}
		if (!ok)
			ok = in_build_id(a, pos);
		if (!ok) {
			printf("%sbyte %#" PRIx64 " changed (%#x -> %#x) outside any PT_LOAD p_align and "
			       "build-id\n",
			       pfx, pos, a->b[pos], b->b[pos]);
			return EXIT_CHECKFAIL;
		}
	}
	for (i = 0; i < a->phnum; i++) {
		uint64_t o = pget(a, i, P_ALIGN), nw = pget(b, i, P_ALIGN);
		if (o == nw)
			continue;
		if (!is_pow2(nw) || nw < o) {
			printf("%sphdr[%" PRIu64 "].p_align %#" PRIx64 " -> %#" PRIx64
			       " (not a larger power of two)\n", pfx, i, o, nw);
			bad = 1;
		} else if ((pget(b, i, P_VADDR) - pget(b, i, P_OFFSET)) & (nw - 1)) {
			/* glibc < 2.35 rejects such a segment */
			printf("%sphdr[%" PRIu64 "].p_align raised to %#" PRIx64 " but p_vaddr %#" PRIx64
			       " is not congruent with p_offset %#" PRIx64 "\n", pfx, i, nw,
			       pget(b, i, P_VADDR), pget(b, i, P_OFFSET));
			bad = 1;
		}
	}
	return bad ? EXIT_CHECKFAIL : 0;
}

static int same(const struct img *a, const struct img *b)
{
	return a->n == b->n && (a->n == 0 || memcmp(a->b, b->b, a->n) == 0);
}

/* verify: the checks of one run-malformed case in one process.  DIR holds
 * in-place.elf (after the in-place run, exit RC1), dry.elf (after -n and -o)
 * and out.elf (after -o, exit RC3).  out.elf is removed afterwards. */
static int do_verify(const struct img *c, const char *dir, const char *arg)
{
	static struct img t, n, o;
	char pt[4096], pn[4096], po[4096];
	const char *why = "";
	int rc1 = -1, rc3 = -1, strict = 0, bad = 0;

	if (sscanf(arg, "%d,%d", &rc1, &rc3) != 2)
		die(EXIT_USAGE, "verify: ARG must be RC1,RC3[,strict]");
	strict = strstr(arg, "strict") != NULL;
	snprintf(pt, sizeof pt, "%s/in-place.elf", dir);
	snprintf(pn, sizeof pn, "%s/dry.elf", dir);
	snprintf(po, sizeof po, "%s/out.elf", dir);

	if (try_load(&t, pt, &why) != 0) {
		printf("in place: result unreadable: %s\n", why);
		bad = 1;
	} else if (rc1 == 1) {
		if (!same(c, &t)) {
			printf("in place: exit 1 but the file was modified\n");
			bad = 1;
		}
	} else if (rc1 == 0 && do_check(c, &t, strict, "in place: exit 0 but bad result: ") != 0) {
		bad = 1;
	}
	if (try_load(&n, pn, &why) != 0 || !same(c, &n)) {
		printf("-n or -o modified its input\n");
		bad = 1;
	}
	/* dry.elf was never replaced: the in-place result must keep its mode
	 * and owner (both copies were created alike) */
	{
		struct stat st, sn;
		if (stat(pt, &st) == 0 && stat(pn, &sn) == 0) {
			if ((st.st_mode & 07777) != (sn.st_mode & 07777)) {
				printf("in place: mode changed from %04o to %04o\n",
				       (unsigned)(sn.st_mode & 07777), (unsigned)(st.st_mode & 07777));
				bad = 1;
			}
			if (st.st_uid != sn.st_uid || st.st_gid != sn.st_gid) {
				printf("in place: owner changed from %u:%u to %u:%u\n",
				       (unsigned)sn.st_uid, (unsigned)sn.st_gid,
				       (unsigned)st.st_uid, (unsigned)st.st_gid);
				bad = 1;
			}
		}
	}
	if (rc3 == 0) {
		if (try_load(&o, po, &why) != 0) {
			printf("-o: exit 0 but no output: %s\n", why);
			bad = 1;
		} else if (rc1 == 0 && t.b && !same(&t, &o)) {
			printf("-o: output differs from the in-place result\n");
			bad = 1;
		} else if (rc1 != 0 && do_check(c, &o, strict, "-o: exit 0 but bad result: ") != 0) {
			bad = 1;
		}
	}
	unlink(po);
	return bad ? EXIT_CHECKFAIL : 0;
}

/* ---------------------------------------------------------------- main */

static void usage(void);
static uint64_t num(const char *s);

/* Program header types by name, for the set mode.  */
static const struct {
	const char *name;
	uint64_t type;
} ptypes[] = {
	{"PT_NULL", PT_NULL}, {"PT_LOAD", PT_LOAD}, {"PT_DYNAMIC", PT_DYNAMIC},
	{"PT_INTERP", PT_INTERP}, {"PT_NOTE", PT_NOTE}, {"PT_PHDR", PT_PHDR},
	{"PT_TLS", PT_TLS}, {"PT_GNU_EH_FRAME", PT_GNU_EH_FRAME},
	{"PT_GNU_STACK", PT_GNU_STACK}, {"PT_GNU_RELRO", PT_GNU_RELRO},
	{"PT_GNU_PROPERTY", PT_GNU_PROPERTY},
};

/* Index of the program header SEL names ("3", "PT_DYNAMIC", "PT_LOAD:2"),
 * or -1 when the input has no such entry. */
static int64_t phdr_select(const struct img *im, const char *sel)
{
	const char *colon = strchr(sel, ':');
	size_t len = colon ? (size_t)(colon - sel) : strlen(sel);
	uint64_t k = colon ? num(colon + 1) : 0, i;
	size_t t;

	if (sel[0] >= '0' && sel[0] <= '9') {
		i = num(sel);
		return i < im->phnum ? (int64_t)i : -1;
	}
	for (t = 0; t < sizeof ptypes / sizeof ptypes[0]; t++)
		if (strlen(ptypes[t].name) == len && strncmp(sel, ptypes[t].name, len) == 0)
			break;
	if (t == sizeof ptypes / sizeof ptypes[0])
		die(EXIT_USAGE, "unknown program header type: %s", sel);
	for (i = 0; i < im->phnum; i++)
		if (pget(im, i, P_TYPE) == ptypes[t].type && k-- == 0)
			return (int64_t)i;
	return -1;
}

/* Index of field NAME in TAB of N fields; dies when there is none. */
static int field_index(const struct elf_field *tab, int n, const char *name)
{
	int f = elf_field_index(tab, (size_t)n, name);

	if (f < 0)
		die(EXIT_USAGE, "unknown field: %s", name);
	return f;
}

/* The dynamic tags a set selector may name. */
static const struct {
	const char *name;
	uint64_t tag;
} dtags[] = {
	{"DT_NULL", 0}, {"DT_HASH", 4}, {"DT_INIT", 12}, {"DT_FINI", 13},
	{"DT_DEBUG", DT_DEBUG}, {"DT_INIT_ARRAY", 25}, {"DT_GNU_HASH", 0x6ffffef5},
	{"DT_FLAGS_1", 0x6ffffffb},
};

/* File offset of dynamic entry SEL of the first PT_DYNAMIC: SEL is an
 * index, or DT_NAME[+K] for the K-th entry after the first with that tag.
 * Returns -1 when there is no such entry in the file. */
static int64_t dyn_select(const struct img *im, const char *sel)
{
	int64_t p = phdr_select(im, "PT_DYNAMIC");
	uint64_t off, n, k, want, after = 0;
	unsigned es = elf_dyn_size(is64(im)), t;
	char name[32];
	const char *plus;

	if (p < 0)
		return -1;
	off = pget(im, (uint64_t)p, P_OFFSET);
	n = pget(im, (uint64_t)p, P_FILESZ) / es;
	if (off > im->n || n > (im->n - off) / es)
		n = off > im->n ? 0 : (im->n - off) / es;
	if (strncmp(sel, "DT_", 3) != 0) {
		k = num(sel);
		return k < n ? (int64_t)(off + k * es) : -1;
	}
	plus = strchr(sel, '+');
	if ((size_t)(plus ? plus - sel : (ptrdiff_t)strlen(sel)) >= sizeof name)
		die(EXIT_USAGE, "unknown dynamic tag: %s", sel);
	snprintf(name, sizeof name, "%.*s", (int)(plus ? plus - sel : (ptrdiff_t)strlen(sel)), sel);
	if (plus)
		after = num(plus + 1);
	for (t = 0; t < sizeof dtags / sizeof dtags[0] && strcmp(dtags[t].name, name) != 0; t++)
		;
	if (t == sizeof dtags / sizeof dtags[0])
		die(EXIT_USAGE, "unknown dynamic tag: %s", name);
	want = dtags[t].tag;
	for (k = 0; k < n; k++)
		if (rd(im, off + k * es, wordsz(im)) == want)
			return k + after < n ? (int64_t)(off + (k + after) * es) : -1;
	return -1;
}

/* Apply one assignment A (its '=' already cut) with value V.  Returns 0,
 * or EXIT_NA when the selected entry or byte does not exist. */
static int set_one(struct img *im, char *a, uint64_t v, struct desc *d)
{
	char *open = strchr(a, '['), *close = open ? strchr(open, ']') : NULL;
	const char *sel, *field;
	int64_t i;
	int f;

	if (!open) {
		ESET(field_index(elf_ehdr_fields, E_NFIELDS, a), v);
		return 0;
	}
	if (!close)
		die(EXIT_USAGE, "set: '%s' lacks its ']'", a);
	*open = *close = 0;
	sel = open + 1;
	field = close[1] == '.' ? close + 2 : NULL;
	if (strcmp(a, "byte") == 0 && close[1] == 0) {
		uint64_t off = num(sel);

		if (!inb(im, off, 1))
			return EXIT_NA;
		im->b[off] = (unsigned char)v;
		say(d, "byte[%#" PRIx64 "] = %#" PRIx64, off, v & 0xff);
		return 0;
	}
	if (strcmp(a, "add") == 0 && close[1] == 0) {
		char *colon = strchr(sel, ':');
		uint64_t off, sz;

		if (!colon)
			die(EXIT_USAGE, "set: add[OFFSET:SIZE]=DELTA, not add[%s]", sel);
		*colon = 0;
		off = num(sel);
		sz = num(colon + 1);
		if (sz < 1 || sz > 8)
			die(EXIT_USAGE, "set: add[%s:%" PRIu64 "]: SIZE is 1 to 8", sel, sz);
		if (!inb(im, off, (unsigned)sz))
			return EXIT_NA;
		wr(im, off, (unsigned)sz, (rd(im, off, (unsigned)sz) + v) & elf_ones((unsigned)sz));
		say(d, "%" PRIu64 " bytes at %#" PRIx64 " = %#" PRIx64, sz, off,
		    rd(im, off, (unsigned)sz));
		return 0;
	}
	if (!field)
		die(EXIT_USAGE, "set: '%s[%s]' needs a .FIELD", a, sel);
	if (strcmp(a, "phdr") == 0) {
		f = field_index(elf_phdr_fields, P_NFIELDS, field);
		if ((i = phdr_select(im, sel)) < 0)
			return EXIT_NA;
		PSET(i, f, v);
	} else if (strcmp(a, "shdr") == 0) {
		f = field_index(elf_shdr_fields, SH_NFIELDS, field);
		i = (int64_t)num(sel);
		if ((uint64_t)i >= im->shnum)
			return EXIT_NA;
		SSET(i, f, v);
	} else if (strcmp(a, "dyn") == 0) {
		const struct elf_field *df;

		f = field_index(elf_dyn_fields, D_NFIELDS, field);
		df = &elf_dyn_fields[f];
		if ((i = dyn_select(im, sel)) < 0)
			return EXIT_NA;
		wr(im, (uint64_t)i + foff(im, df), fsz(im, df), v & elf_ones(fsz(im, df)));
		say(d, "dyn[%s].%s = %#" PRIx64, sel, df->name,
		    rd(im, (uint64_t)i + foff(im, df), fsz(im, df)));
	} else {
		die(EXIT_USAGE, "set: unknown table %s (phdr, shdr, dyn, byte, add)", a);
	}
	return 0;
}

/* The set mode: apply each FIELD=VALUE of SPEC (comma-separated).  Returns
 * 0, or EXIT_NA when a selected entry does not exist. */
static int do_set(struct img *im, const char *spec, struct desc *d)
{
	char buf[4096], *save = NULL, *a;
	int rc;

	if (strlen(spec) >= sizeof buf)
		die(EXIT_USAGE, "set: assignments too long");
	strcpy(buf, spec);
	for (a = strtok_r(buf, ",", &save); a; a = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(a, '=');

		if (!eq)
			die(EXIT_USAGE, "set: '%s' is not FIELD=VALUE", a);
		*eq = 0;
		if ((rc = set_one(im, a, num(eq + 1), d)) != 0)
			return rc;
	}
	return 0;
}

static void usage(void)
{
	fputs("usage: mutate MODE SEED IN OUT [ARG]\n"
	      "modes: truncate N | flip [K] | field | fields [K] | noshdr | set F=V[,F=V...] |"
	      " swap | offsets |"
	      " info |"
	      " check [strict] | verify RC1,RC3[,strict]\n", stderr);
	exit(EXIT_USAGE);
}

static uint64_t num(const char *s)
{
	char *end;
	unsigned long long v;
	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || *s == 0 || *end != 0)
		die(EXIT_USAGE, "bad number: %s", s);
	return v;
}

int main(int argc, char **argv)
{
	static struct img im; /* static: reachable until exit, no leak report */
	struct desc d;
	struct rng r;
	const char *mode, *in, *out, *arg;
	uint64_t seed;

	if (argc < 5 || argc > 6)
		usage();
	mode = argv[1];
	seed = num(argv[2]);
	in = argv[3];
	out = argv[4];
	arg = argc == 6 ? argv[5] : NULL;
	memset(&d, 0, sizeof d);
	r.s = seed * 0x2545f4914f6cdd1dULL + 0x1234567;
	rnext(&r);
	load(&im, in);

	if (strcmp(mode, "truncate") == 0) {
		uint64_t n;
		if (!arg)
			usage();
		n = num(arg);
		save_all(&im, out, n < im.n ? (size_t)n : im.n);
		printf("truncate %" PRIu64 "\n", n);
		return 0;
	}
	if (strcmp(mode, "flip") == 0) {
		unsigned k = arg ? (unsigned)num(arg) : 1 + (unsigned)rbelow(&r, 8);
		if (im.n == 0)
			return EXIT_NA;
		do_flip(&im, &r, k, &d);
	} else if (strcmp(mode, "field") == 0 || strcmp(mode, "fields") == 0) {
		unsigned k = 1, i;
		if (!im.cls)
			return EXIT_NA;
		if (mode[5] == 's')
			k = arg ? (unsigned)num(arg) : 2 + (unsigned)rbelow(&r, 3);
		for (i = 0; i < k; i++) {
			uint64_t which = i == 0 ? seed : rnext(&r);
			if (apply_field(&im, &r, which % NMUT, &d) != 0)
				return EXIT_NA;
		}
	} else if (strcmp(mode, "noshdr") == 0) {
		if (!im.cls)
			return EXIT_NA;
		eset(&im, E_SHOFF, 0);
		eset(&im, E_SHNUM, 0);
		eset(&im, E_SHSTRNDX, 0);
		say(&d, "no section headers");
	} else if (strcmp(mode, "set") == 0) {
		int rc;
		if (!im.cls || !arg)
			usage();
		if ((rc = do_set(&im, arg, &d)) != 0)
			return rc;
	} else if (strcmp(mode, "swap") == 0) {
		if (do_swap(&im, &d) != 0)
			return EXIT_NA;
	} else if (strcmp(mode, "offsets") == 0) {
		do_offsets(&im);
		return 0;
	} else if (strcmp(mode, "info") == 0) {
		do_info(&im);
		return 0;
	} else if (strcmp(mode, "verify") == 0) {
		if (!arg)
			usage();
		return do_verify(&im, out, arg);
	} else if (strcmp(mode, "check") == 0) {
		static struct img b;
		load(&b, out);
		return do_check(&im, &b, arg && strcmp(arg, "strict") == 0, "");
	} else {
		usage();
	}
	save_all(&im, out, im.n);
	printf("%s\n", d.len ? d.s : "(no change)");
	return 0;
}
