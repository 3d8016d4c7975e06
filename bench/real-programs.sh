#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# real-programs.sh -- how much of the text of large real programs and shared
# libraries, which nobody here wrote, ends up PMD-mapped once they have been
# rewritten with `elfpmd --madvise`?
#
# For each object found on this machine (gcc's cc1plus, cc1, lto1; gdb;
# LLVM 14's lld; node; kubectl (Go); the Cloud Spanner emulator; libLLVM-14,
# libclang-cpp, libz3 (loaded by clang-14), libLLVM-15, libclang-14, the
# HotSpot libjvm; and a few that are too small to gain, reported only), it
# copies the object into WORK/orig and WORK/pmd, rewrites the pmd copy in place
# with `elfpmd --madvise` (recording its summary: padding, hook, moved
# program header table, address-space bits lost) and runs a real job with
# each copy.  Programs run from the copy; shared libraries are loaded from
# the copy directory by a real program (clang-14, java from a JDK tree whose
# lib/server/libjvm.so is the copy) through LD_LIBRARY_PATH, or by dlhold, a
# small program built here that dlopens the copy and drives it through its C
# API (LLVM: generate code for a module; libclang: tokenize a unit).
#
# Every job is gated: the program opens a FIFO (its input file, a response
# file @FIFO, a flags file, ...) after its startup, including the stub, and
# blocks there until the script has copied /proc/PID/smaps of the process
# that maps the copy; then the job's input is written and the job runs to
# the end.  Coverage is FilePmdMapped of the copy's executable VMAs against
# the ideal: the whole 2 MiB chunks inside its executable PT_LOADs.  Runs,
# in this order:
#   fresh  the rewritten copy, first run after elfpmd wrote it (page cache
#          as elfpmd's writes left it: the case of a package just installed)
#   orig   the unmodified copy, after one untimed run (control)
#   cold   the rewritten copy after sync + echo 3 > drop_caches
#   warm   the rewritten copy again, right after the cold run
#   order0 the rewritten copy after a cache drop and a read of every page
#          of it through a MADV_RANDOM mapping (cached in 4 KiB folios)
#   3@once three instances started together, after the copy was written anew
#          by elfpmd (as in fresh: a parallel build right after the rewrite)
#   dirty  the first run of a new cp of the rewritten copy, its page cache
#          still dirty (installed with cp or install, without fsync)
# The outputs of all these jobs must be the same as the original's (paths of
# the copy directory and process ids masked), and so must the --version-style
# output of both copies.  Besides the table, one line per object and run
# says "state NAME LABEL pmd_kib=N reached_kib=M": the lowest FilePmdMapped
# of the run's processes, and how much of the whole chunks that process had
# reached (a page of them mapped) at its gate.  Every run holds the lock /tmp/elfpmd-bench.lock (or
# $ELFPMD_BENCH_LOCK; flock) from its cache drop to its end.
#
# Usage: bench/real-programs.sh [-d DIR] [-k] [-o NAME,...] [-l]
#   -d DIR       work directory parent (default /var/tmp); needs ~1 GiB
#   -k           keep the work directory (snapshots, outputs, reports)
#   -o NAMES     only these sets (comma-separated; -l lists them)
#   ELFPMD=path  the tool (default: ../src/elfpmd beside this script)
# Needs root (drop_caches, /proc/PID/smaps of every process), cc, readelf,
# flock.  Not a test: a few minutes.

set -eu
export LC_ALL=C

PARENT=/var/tmp
KEEP=0
ONLY=
LIST=0
LOCK=${ELFPMD_BENCH_LOCK:-/tmp/elfpmd-bench.lock}
PMD=2097152
JOB_TIMEOUT=120
while getopts 'd:ko:lh' opt; do
	case $opt in
	d) PARENT=$OPTARG ;;
	k) KEEP=1 ;;
	o) ONLY=,$OPTARG, ;;
	l) LIST=1 ;;
	*) sed -n '2,/^$/p' "$0" | sed 's/^# \{0,1\}//'; exit 64 ;;
	esac
done

# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"
bench_find_elfpmd
ELFPMD=$(cd "$(dirname "$ELFPMD")" && pwd)/$(basename "$ELFPMD")

# ------------------------------------------------------------------ objects
GCCLIB=$(dirname "$(gcc -print-prog-name=cc1 2>/dev/null || echo /usr/lib/gcc/x86_64-linux-gnu/12/cc1)")
LIBDIR=/usr/lib/x86_64-linux-gnu
# The distribution's JDK (Debian's java-N-openjdk-ARCH), the newest, else
# any other there (a vendor's build).
JDK=$( (ls -d /usr/lib/jvm/java-*-openjdk-*/lib/server/libjvm.so 2>/dev/null | sort -V | tail -n 1
	ls -d /usr/lib/jvm/*/lib/server/libjvm.so 2>/dev/null | sort -V | tail -n 1) | head -n 1 |
	sed 's|/lib/server/libjvm.so$||')
CLANG14=/usr/lib/llvm-14/bin/clang
SPANNER=$(ls /usr/lib/google-cloud-sdk/bin/cloud_spanner_emulator/emulator_main 2>/dev/null || :)
KUBECTL=$(ls /usr/lib/google-cloud-sdk/bin/kubectl 2>/dev/null || :)

# SET|NAME|KIND|PATH IN THE COPY DIRECTORY|SOURCE
OBJECTS=(
	"cc1plus|cc1plus|program|cc1plus|$GCCLIB/cc1plus"
	"cc1|cc1|program|cc1|$GCCLIB/cc1"
	"lto1|lto1|program|lto1|$GCCLIB/lto1"
	"gdb|gdb|program (PIE)|gdb|$(command -v gdb || :)"
	"lld|lld|program|lld|/usr/lib/llvm-14/bin/lld"
	"node|node|program|node|$(command -v node || :)"
	"kubectl|kubectl|program (Go, static)|kubectl|$KUBECTL"
	"spanner|emulator_main|program (PIE)|emulator_main|$SPANNER"
	"clang|libLLVM-14.so.1|library|libLLVM-14.so.1|$LIBDIR/libLLVM-14.so.1"
	"clang|libclang-cpp.so.14|library|libclang-cpp.so.14|$(readlink -f $LIBDIR/libclang-cpp.so.14 2>/dev/null || :)"
	"clang|libz3.so.4|library|libz3.so.4|$(readlink -f $LIBDIR/libz3.so.4 2>/dev/null || :)"
	"llvm15|libLLVM-15.so.1|library|libLLVM-15.so.1|$LIBDIR/libLLVM-15.so.1"
	"libclang|libclang-14.so|library|libclang-14.so|$(readlink -f $LIBDIR/libclang-14.so.1 2>/dev/null || ls $LIBDIR/libclang-14.so.14* 2>/dev/null | head -n 1 || :)"
	"jvm|libjvm.so|library|jdk/lib/server/libjvm.so|${JDK:+$JDK/lib/server/libjvm.so}"
	# Reported only: elfpmd finds nothing to do in these (checked below).
	"-|clang (binary)|program|-|$CLANG14"
	"-|python3.11|program|-|$(readlink -f /usr/bin/python3.11 2>/dev/null || :)"
	"-|perl|program|-|$(readlink -f /usr/bin/perl 2>/dev/null || :)"
	"-|libstdc++.so.6|library|-|$(readlink -f $LIBDIR/libstdc++.so.6 2>/dev/null || :)"
	"-|libc.so.6|library|-|$(readlink -f $LIBDIR/libc.so.6 2>/dev/null || :)"
	"-|libpython3.11.so|library|-|$(readlink -f $LIBDIR/libpython3.11.so.1.0 2>/dev/null || :)"
	"-|libicudata.so.72|library|-|$(readlink -f $LIBDIR/libicudata.so.72 2>/dev/null || :)"
)
SETS=(cc1plus cc1 lto1 gdb lld node kubectl spanner clang llvm15 libclang jvm)
if [ "$LIST" = 1 ]; then
	for o in "${OBJECTS[@]}"; do
		IFS='|' read -r set name kind rel src <<<"$o"
		printf '%-9s %-20s %-22s %s\n' "$set" "$name" "$kind" "${src:-(not installed)}"
	done
	exit 0
fi
wanted() { [ -z "$ONLY" ] || [[ $ONLY == *,$1,* ]]; }

PY=$(command -v /usr/bin/python3 || command -v python3) || { echo "python3 is needed" >&2; exit 1; }
for t in cc gcc readelf flock; do
	command -v "$t" >/dev/null || { echo "$t is needed" >&2; exit 1; }
done
[ -w /proc/sys/vm/drop_caches ] || { echo "needs root (drop_caches)" >&2; exit 1; }

mkdir -p "$PARENT"
WORK=$(mktemp -d "$PARENT/real-programs.XXXXXX")
cleanup() {
	[ -n "${WPID:-}" ] && kill $WPID 2>/dev/null
	[ -n "${CPID:-}" ] && kill $CPID 2>/dev/null
	[ "$KEEP" = 1 ] && echo "kept $WORK" || rm -rf "$WORK"
}
trap cleanup EXIT
mkdir "$WORK/orig" "$WORK/pmd" "$WORK/in" "$WORK/out" "$WORK/snap"
cd "$WORK"
IN=$WORK/in

echo "elfpmd:   $ELFPMD ($("$ELFPMD" --version 2>/dev/null | head -n 1))"
echo "work dir: $WORK ($(df -T . | awk 'NR == 2 { print $2 " on " $1 }'))"
echo "kernel:   $(uname -r), $(nproc) CPUs, THP $(sed 's/.*\[\(.*\)\].*/\1/' \
	/sys/kernel/mm/transparent_hugepage/enabled), glibc $(getconf GNU_LIBC_VERSION | cut -d' ' -f2)"

# ------------------------------------------------------------------ inputs
cat >"$IN/job.cc" <<'EOF'
#include <map>
#include <string>
#include <variant>
#include <vector>
template <int N> struct Fib { static constexpr long v = Fib<N - 1>::v + Fib<N - 2>::v; };
template <> struct Fib<1> { static constexpr long v = 1; };
template <> struct Fib<0> { static constexpr long v = 0; };
template <class K, class V> long use(int n) {
  std::map<K, std::vector<V>> m;
  std::vector<std::variant<K, V, std::string>> vs;
  for (int i = 0; i < n; i++) { m[K(i % 5)].push_back(V(i)); vs.emplace_back(V(i)); }
  long s = 0;
  for (auto &[k, v] : m) s += (long)k + (long)v.size();
  for (auto &x : vs) if (auto *p = std::get_if<V>(&x)) s += (long)*p;
  return s + Fib<40>::v;
}
long f1(int n) { return use<int, long>(n) + use<long, short>(n) + use<char, double>(n); }
long f2(int n) { return use<unsigned, float>(n) + use<short, int>(n); }
EOF
cat >"$IN/job.c" <<'EOF'
struct node { struct node *next; long key, val; };
static long hash(const char *s) { long h = 5381; while (*s) h = h * 33 + *s++; return h; }
long lookup(struct node **tab, unsigned n, const char *k)
{
	long h = hash(k);
	for (struct node *p = tab[(unsigned long)h % n]; p; p = p->next)
		if (p->key == h) return p->val;
	return -1;
}
int sum(const int *a, int n) { int s = 0; for (int i = 0; i < n; i++) s += a[i] * a[i] ^ (s >> 3); return s; }
EOF
cat >"$IN/hello.c" <<'EOF'
#include <stdio.h>
int main(void)
{
	int s = 0;
	for (int i = 0; i < 10; i++)
		s += i * i;
	printf("%d\n", s);
	return 0;
}
EOF
gcc -g -O0 -o "$IN/hello" "$IN/hello.c"
# Output-gated jobs must write more than a pipe holds (64 KiB), so that they
# block on the gate until it is read: 1000 small functions.
for ((i = 0; i < 1000; i++)); do
	echo "int g$i(int *a, int n) { int s = $i; for (int i = 0; i < n; i++) s = s * 31 + (a[i] ^ $i); return s; }"
done >"$IN/big.c"
gcc -flto -O2 -fPIC -c "$IN/big.c" -o "$IN/big_lto.o"
gcc -O2 -fPIC -c "$IN/big.c" -o "$IN/big_pic.o"
cat >"$IN/Hello.java" <<'EOF'
public class Hello {
  public static void main(String[] a) {
    long s = 0;
    for (int i = 0; i < 1000000; i++) s = (s * 31 + i) % 1000003;
    System.out.println("java " + s + " " + java.util.List.of(1, 2, 3) + " " + String.join("-", a));
  }
}
EOF
# dlhold MODE GATE LIB...: dlopen each LIB (RTLD_NOW), read GATE to its end
# (this is where it blocks), then drive the last LIB through its C API.
cat >"$IN/dlhold.c" <<'EOF'
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void *lib;
static void *need(const char *s)
{
	void *p = dlsym(lib, s);
	if (!p) { fprintf(stderr, "dlhold: %s\n", dlerror()); exit(2); }
	return p;
}
#define FN(ret, name, args) ret(*name) args = (ret(*) args) need(#name)

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	if (!f) { perror(path); exit(2); }
	size_t n = 0, cap = 4096;
	char *b = malloc(cap);
	for (size_t got; (got = fread(b + n, 1, cap - n - 1, f)) > 0;)
		if ((n += got) + 1 == cap) b = realloc(b, cap *= 2);
	b[n] = 0;
	fclose(f);
	return b;
}

/* LLVM C API: build N functions, emit x86-64 assembly at -O2.  */
static int llvm(const char *in)
{
	typedef void *R;
	FN(void, LLVMInitializeX86TargetInfo, (void));
	FN(void, LLVMInitializeX86Target, (void));
	FN(void, LLVMInitializeX86TargetMC, (void));
	FN(void, LLVMInitializeX86AsmPrinter, (void));
	FN(int, LLVMGetTargetFromTriple, (const char *, R *, char **));
	FN(R, LLVMCreateTargetMachine, (R, const char *, const char *, const char *, int, int, int));
	FN(R, LLVMModuleCreateWithName, (const char *));
	FN(R, LLVMInt64Type, (void));
	FN(R, LLVMFunctionType, (R, R *, unsigned, int));
	FN(R, LLVMAddFunction, (R, const char *, R));
	FN(R, LLVMAppendBasicBlock, (R, const char *));
	FN(R, LLVMCreateBuilder, (void));
	FN(void, LLVMPositionBuilderAtEnd, (R, R));
	FN(R, LLVMGetParam, (R, unsigned));
	FN(R, LLVMConstInt, (R, unsigned long long, int));
	FN(R, LLVMBuildMul, (R, R, R, const char *));
	FN(R, LLVMBuildAdd, (R, R, R, const char *));
	FN(R, LLVMBuildXor, (R, R, R, const char *));
	FN(R, LLVMBuildLShr, (R, R, R, const char *));
	FN(R, LLVMBuildRet, (R, R));
	FN(int, LLVMTargetMachineEmitToMemoryBuffer, (R, R, int, char **, R *));
	FN(const char *, LLVMGetBufferStart, (R));
	FN(size_t, LLVMGetBufferSize, (R));
	int n = atoi(in);
	char *err = 0;
	R t, m, b, buf;
	LLVMInitializeX86TargetInfo(); LLVMInitializeX86Target();
	LLVMInitializeX86TargetMC(); LLVMInitializeX86AsmPrinter();
	if (LLVMGetTargetFromTriple("x86_64-pc-linux-gnu", &t, &err)) { fprintf(stderr, "%s\n", err); return 1; }
	R tm = LLVMCreateTargetMachine(t, "x86_64-pc-linux-gnu", "x86-64", "", 2, 2, 0);
	m = LLVMModuleCreateWithName("m");
	R i64 = LLVMInt64Type(), params[2] = { i64, i64 };
	R ft = LLVMFunctionType(i64, params, 2, 0);
	b = LLVMCreateBuilder();
	for (int i = 0; i < n; i++) {
		char name[32];
		snprintf(name, sizeof name, "f%d", i);
		R f = LLVMAddFunction(m, name, ft);
		LLVMPositionBuilderAtEnd(b, LLVMAppendBasicBlock(f, "entry"));
		R x = LLVMGetParam(f, 0), y = LLVMGetParam(f, 1);
		for (int j = 0; j < 8 + i % 8; j++) {
			x = LLVMBuildMul(b, x, LLVMBuildAdd(b, y, LLVMConstInt(i64, i * 31 + j, 0), ""), "");
			x = LLVMBuildXor(b, x, LLVMBuildLShr(b, x, LLVMConstInt(i64, 7 + j % 5, 0), ""), "");
		}
		LLVMBuildRet(b, x);
	}
	if (LLVMTargetMachineEmitToMemoryBuffer(tm, m, 0, &err, &buf)) { fprintf(stderr, "%s\n", err); return 1; }
	fwrite(LLVMGetBufferStart(buf), 1, LLVMGetBufferSize(buf), stdout);
	return 0;
}

/* libclang: parse the input as job.c, print the version, the number of
   diagnostics and every token.  */
typedef struct { const void *data; unsigned flags; } CXString;
typedef struct { const char *name, *contents; unsigned long length; } CXUnsavedFile;
typedef struct { int kind, xdata; const void *data[3]; } CXCursor;
typedef struct { const void *ptr[2]; unsigned b, e; } CXSourceRange;
typedef struct { unsigned d[4]; void *p; } CXToken;
static int libclang(const char *in)
{
	FN(CXString, clang_getClangVersion, (void));
	FN(const char *, clang_getCString, (CXString));
	FN(void *, clang_createIndex, (int, int));
	FN(void *, clang_parseTranslationUnit, (void *, const char *, const char *const *, int, CXUnsavedFile *, unsigned, unsigned));
	FN(unsigned, clang_getNumDiagnostics, (void *));
	FN(CXCursor, clang_getTranslationUnitCursor, (void *));
	FN(CXSourceRange, clang_getCursorExtent, (CXCursor));
	FN(void, clang_tokenize, (void *, CXSourceRange, CXToken **, unsigned *));
	FN(CXString, clang_getTokenSpelling, (void *, CXToken));
	printf("%s\n", clang_getCString(clang_getClangVersion()));
	CXUnsavedFile u = { "job.c", in, strlen(in) };
	const char *args[] = { "-O2" };
	void *tu = clang_parseTranslationUnit(clang_createIndex(0, 0), "job.c", args, 1, &u, 1, 0);
	if (!tu) { fprintf(stderr, "parse failed\n"); return 1; }
	CXToken *tok;
	unsigned nt;
	clang_tokenize(tu, clang_getCursorExtent(clang_getTranslationUnitCursor(tu)), &tok, &nt);
	printf("%u diagnostics, %u tokens:", clang_getNumDiagnostics(tu), nt);
	for (unsigned i = 0; i < nt; i++)
		printf(" %s", clang_getCString(clang_getTokenSpelling(tu, tok[i])));
	printf("\n");
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 4) { fprintf(stderr, "usage: dlhold llvm|libclang|none GATE LIB...\n"); return 64; }
	for (int i = 3; i < argc; i++)
		if (!(lib = dlopen(argv[i], RTLD_NOW | RTLD_GLOBAL))) { fprintf(stderr, "dlhold: %s\n", dlerror()); return 1; }
	char *in = slurp(argv[2]);
	if (!strcmp(argv[1], "llvm")) return llvm(in);
	if (!strcmp(argv[1], "libclang")) return libclang(in);
	printf("%zu bytes read\n", strlen(in));
	return 0;
}
EOF
cc -O2 -o "$IN/dlhold" "$IN/dlhold.c" -ldl
# order0 FILE...: cache each FILE in order-0 folios: map it with
# MADV_RANDOM (every fault reads one page, no readahead) and read one byte
# of every page.  Run right after a cache drop.
cat >"$IN/order0.c" <<'EOF'
#include <fcntl.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
int main(int argc, char **argv) {
	for (int i = 1; i < argc; i++) {
		int fd = open(argv[i], O_RDONLY);
		struct stat st;
		if (fd < 0 || fstat(fd, &st) != 0) { perror(argv[i]); return 1; }
		volatile const char *p = mmap(NULL, st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
		if (p == MAP_FAILED) { perror(argv[i]); return 1; }
		madvise((void *) p, st.st_size, MADV_RANDOM);
		for (off_t o = 0; o < st.st_size; o += 4096) (void) p[o];
		munmap((void *) p, st.st_size);
		close(fd);
	}
	return 0;
}
EOF
cc -O2 -o "$IN/order0" "$IN/order0.c"

# ------------------------------------------------------------------ sets
# For each set: content_SET (what is written into the gate), run_SET (the
# gated job; $D is the copy directory), ver_SET (a --version-style check),
# env LD_LIBRARY_PATH=$D where libraries come from the copy directory.
# cc1plus run without the gcc driver gets no multiarch include directory
# (Debian's /usr/include/x86_64-linux-gnu: asm/errno.h); gcc-multilib's
# /usr/include/asm link used to hide that, and setup.sh installs no
# gcc-multilib any more (it conflicts with the cross compilers).
MULTIARCH=$(gcc -print-multiarch 2>/dev/null || :)
content_cc1plus=$IN/job.cc
run_cc1plus() { "$D/cc1plus" -quiet -O2 ${MULTIARCH:+-imultiarch "$MULTIARCH"} -o - "$FIFO"; }
ver_cc1plus() { "$D/cc1plus" -quiet -version -o /dev/null </dev/null; }
content_cc1=$IN/job.c
run_cc1() { "$D/cc1" -quiet -O2 -o - "$FIFO"; }
ver_cc1() { "$D/cc1" -quiet -version -o /dev/null </dev/null; }
# GCC's response files and lld's cannot be FIFOs (they seek, or open twice):
# these two are gated on their output file instead.
GATE_lto1=out
run_lto1() { "$D/lto1" -quiet -O2 -fPIC "$IN/big_lto.o" -o "$FIFO"; }
ver_lto1() { "$D/lto1" -quiet -version -O2 "$IN/big_lto.o" -o /dev/null; }
printf 'break main\nrun\nnext\nnext\nnext\ninfo locals\nbt\ncontinue\n' >"$IN/gdb.cmds"
content_gdb=$IN/gdb.cmds
run_gdb() { "$D/gdb" -nx -q -batch -ex "shell cat $FIFO >$FIFO.cmds" -x "$FIFO.cmds" "$IN/hello"; }
ver_gdb() { "$D/gdb" --version; }
GATE_lld=out
GATE_OUT_lld="sha256sum"
run_lld() { "$D/lld" -flavor gnu -shared "$IN/big_pic.o" -o "$FIFO"; }
ver_lld() { "$D/lld" -flavor gnu --version; }
cat >"$IN/job.js" <<'EOF'
let s = 0;
for (let i = 0; i < 1e6; i++) s = (s * 31 + i) % 1000003;
const m = new Map([...Array(100).keys()].map(k => [k, k * k]));
console.log("node", s, JSON.stringify([1, 2, { a: 3 }]), [...m.values()].reduce((a, b) => a + b));
EOF
content_node=$IN/job.js
run_node() { "$D/node" -e 'eval(require("fs").readFileSync(process.argv[1], "utf8"))' "$FIFO"; }
ver_node() { "$D/node" --version; }
printf 'key: value\nlist: [1, 2, 3]\n' >"$IN/kubectl.data"
content_kubectl=$IN/kubectl.data
run_kubectl() { "$D/kubectl" create configmap demo --from-file=data="$FIFO" --dry-run=client -o yaml; }
ver_kubectl() { "$D/kubectl" version --client -o yaml; }
printf -- '--host_port=127.0.0.1:0\n' >"$IN/spanner.flags"
content_spanner=$IN/spanner.flags
NOCMP_spanner=1 # a server: killed after 3 s, its log has times and ids
run_spanner() { timeout -s TERM 3 "$D/emulator_main" --flagfile="$FIFO" || [ $? = 124 ]; }
ver_spanner() { "$D/emulator_main" --helpfull; }
printf -- '-S -O2 -o - %s\n' "$IN/job.c" >"$IN/clang.rsp"
content_clang=$IN/clang.rsp
run_clang() { LD_LIBRARY_PATH=$D "$CLANG14" @"$FIFO"; }
ver_clang() { LD_LIBRARY_PATH=$D "$CLANG14" --version; }
echo 40 >"$IN/llvm.n"
content_llvm15=$IN/llvm.n
run_llvm15() { "$IN/dlhold" llvm "$FIFO" "$D/libLLVM-15.so.1"; }
ver_llvm15() { echo 1 | "$IN/dlhold" llvm /dev/stdin "$D/libLLVM-15.so.1"; }
content_libclang=$IN/job.c
run_libclang() { "$IN/dlhold" libclang "$FIFO" "$D/libclang-14.so"; }
ver_libclang() { "$IN/dlhold" libclang /dev/null "$D/libclang-14.so"; }
# Gated on a compile command file, which the JVM opens (and a FIFO blocks)
# while it starts, after libjvm.so is loaded (JDK 17 reads a FIFO given as
# -XX:VMOptionsFile as if it were empty); the job is Hello.java where the
# JDK can run source files (jdk.compiler), else -version.
echo 'quiet' >"$IN/jvm.commands"
content_jvm=$IN/jvm.commands
run_jvm() {
	if [ -e "$JDK/bin/javac" ]; then
		"$D/jdk/bin/java" -Xshare:auto -XX:CompileCommandFile="$FIFO" "$IN/Hello.java" a b
	else
		"$D/jdk/bin/java" -Xshare:auto -XX:CompileCommandFile="$FIFO" -version
	fi
}
ver_jvm() { "$D/jdk/bin/java" -version; }
# A JDK tree whose libjvm.so is the copy: the launcher finds the JVM next
# to its own (real) path, the JVM finds the rest through symlinks.
prep_jvm() { # DIR
	local e
	mkdir -p "$1/jdk/bin" "$1/jdk/lib/server"
	for e in "$JDK"/*; do
		case ${e##*/} in bin | lib) ;; *) ln -s "$e" "$1/jdk/" ;; esac
	done
	for e in "$JDK"/lib/*; do
		[ "${e##*/}" = server ] || ln -s "$e" "$1/jdk/lib/"
	done
	for e in "$JDK"/lib/server/*; do
		[ "${e##*/}" = libjvm.so ] || ln -s "$e" "$1/jdk/lib/server/"
	done
	cp "$JDK/bin/java" "$1/jdk/bin/java"
}

# ------------------------------------------------------------------ helpers
# Whole PMD chunks inside the executable PT_LOADs of FILE, and their size.
text_info() { # FILE -> "TEXT_BYTES CHUNKS"
	local type off v f m fl rest c=0 s=0 n
	while read -r type off v f m fl rest; do
		[ "$type" = LOAD ] || continue
		case "$fl$rest" in *E*) ;; *) continue ;; esac
		s=$((s + m))
		n=$(((v + m) / PMD - (v + PMD - 1) / PMD))
		[ "$n" -gt 0 ] && c=$((c + n))
	done < <(readelf -lW "$1" 2>/dev/null)
	echo "$s $c"
}
# The pids whose maps include PATH.
pids_mapping() { # PATH
	local f
	for f in $(grep -lF -- "$1" /proc/[0-9]*/maps 2>/dev/null); do
		awk -v p="$1" '$6 == p { found = 1; exit } END { exit !found }' "$f" 2>/dev/null &&
			echo "${f//[!0-9]/}"
	done | sort -n
}
# From a smaps copy: FilePmdMapped KiB of PATH's executable VMAs, whether
# its lowest mapping is PMD-aligned, and its VMA count.
pmd_of() { # SMAPS PATH -> "TEXT_KIB ALIGNED VMAS"
	awk -v f="$2" -v P="$PMD" '
		/^[0-9a-f]+-[0-9a-f]+ / {
			cur = ($6 == f); x = ($2 ~ /x/)
			if (cur) { n++; split($1, r, "-"); if (n == 1) lo = r[1] }
			next }
		cur && /^FilePmdMapped:/ && x { t += $2 }
		END {
			# the low 21 bits of the first mapping address (hex)
			a = substr(lo, length(lo) - 5); v = 0
			for (i = 1; i <= length(a); i++) v = v * 16 + index("0123456789abcdef", substr(a, i, 1)) - 1
			print t + 0, (n ? (v % P == 0 ? "yes" : "no") : "-"), n + 0 }' "$1"
}
# From /proc/PID/pagemap (root): KiB of the whole PMD chunks of PATH's
# executable VMAs in process PID (address and offset PMD-aligned) that the
# process has reached, a page of them mapped.  The stub leaves a chunk
# nothing of which is cached to the program's own first fault, so a chunk
# not reached yet is not mapped at all.
reached_of() { # PID PATH -> KIB
	python3 - "$1" "$2" "$PMD" <<'PY' 2>/dev/null || echo 0
import struct, sys
pid, path, pmd = sys.argv[1], sys.argv[2], int(sys.argv[3])
kib = 0
with open("/proc/%s/pagemap" % pid, "rb") as pm:
    for line in open("/proc/%s/maps" % pid):
        f = line.split(None, 5)
        if len(f) < 6 or f[5].rstrip("\n") != path or "x" not in f[1]:
            continue
        lo, hi = (int(x, 16) for x in f[0].split("-"))
        off = int(f[2], 16)
        if (lo - off) % pmd:
            continue
        c = -(-lo // pmd) * pmd
        while c + pmd <= hi:
            pm.seek(c // 4096 * 8)
            entries = struct.unpack("%dQ" % (pmd // 4096), pm.read(pmd // 4096 * 8))
            if any(e >> 63 for e in entries):
                kib += pmd // 1024
            c += pmd
print(kib)
PY
}
normalize() {
	sed -e "s|$WORK/orig|DIR|g" -e "s|$WORK/pmd|DIR|g" -e 's/process [0-9][0-9]*/process N/g' \
		-e 's/gate[0-9][0-9]*/gate/g'
}
lock() { exec 9>"$LOCK"; flock 9; }
unlock() { flock -u 9; exec 9>&-; }

declare -A COV COVS REACH ALIGN NOTE TEXT IDEAL KIND SUMMARY RC GATE
# One gated run of SET with the copies in D: optional global cache drop,
# start K instances of the job at once (K = 1 unless given), wait until
# every one has opened its gate, copy smaps of every process mapping one of
# the set's objects, release the gates, wait for the ends.  COV is the
# lowest coverage among the instances, COVS all of them.
gated() { # SET D LABEL COLD [K]
	local set=$1 D=$2 label=$3 cold=$4 K=${5:-1} content name rel p pids t0 n0 rc a b k
	local -n objs=OBJS_$set
	local gate filter out=$WORK/out/$set.$label fifo
	local -a wpids=() cpids=()
	eval "content=\${content_$set:-} gate=\${GATE_$set:-in} filter=\${GATE_OUT_$set:-cat}"
	for ((k = 1; k <= K; k++)); do
		fifo=$WORK/gate$k
		rm -f "$fifo" "$fifo.opened" "$fifo.go" "$out.$k.gate"
		mkfifo "$fifo"
	done
	lock
	if [ "$cold" = 1 ]; then sync; echo 3 >/proc/sys/vm/drop_caches; fi
	if [ -n "${PRE:-}" ]; then $PRE; fi
	for ((k = 1; k <= K; k++)); do
		fifo=$WORK/gate$k
		if [ "$gate" = in ]; then
			# the job reads the FIFO: we are the writer
			(exec 3>"$fifo"; : >"$fifo.opened"
				while [ ! -e "$fifo.go" ]; do sleep 0.02; done
				cat "$content" >&3) 9>&- &
		else
			# the job writes the FIFO (its output file): we are the reader
			(exec 3<"$fifo"; : >"$fifo.opened"
				while [ ! -e "$fifo.go" ]; do sleep 0.02; done
				$filter <&3 >"$out.$k.gate") 9>&- &
		fi
		wpids+=($!)
	done
	WPID=${wpids[*]}
	n0=$(date +%s%N)
	for ((k = 1; k <= K; k++)); do
		(cd "$WORK/out" && FIFO=$WORK/gate$k D=$D run_"$set") >"$out.$k.out" 2>&1 9>&- &
		cpids+=($!)
	done
	CPID=${cpids[*]}
	t0=$SECONDS
	for ((k = 1; k <= K; k++)); do
		while [ ! -e "$WORK/gate$k.opened" ] && kill -0 "${cpids[k - 1]}" 2>/dev/null &&
			[ $((SECONDS - t0)) -lt 120 ]; do
			sleep 0.01
		done
		[ -e "$WORK/gate$k.opened" ] || echo "  $set $label: job $k never opened its gate" >&2
	done
	GATE[$set.$label]=$((($(date +%s%N) - n0) / 1000000))
	for name in "${objs[@]}"; do
		rel=$(objrel "$name")
		pids=$(pids_mapping "$D/$rel")
		COV[$name.$label]=- COVS[$name.$label]=
		if [ -z "$pids" ]; then
			if grep -qE "/${rel##*/}\$" /proc/[0-9]*/maps 2>/dev/null; then
				NOTE[$name]+="$label: the copy is not mapped, another file of that name is; "
			fi
			continue
		fi
		for p in $pids; do
			[ -e "$WORK/snap/$set.$label.$p" ] || cat "/proc/$p/smaps" >"$WORK/snap/$set.$label.$p" 2>/dev/null || :
			read -r a b _ < <(pmd_of "$WORK/snap/$set.$label.$p" "$D/$rel")
			COVS[$name.$label]+="$a "
			ALIGN[$name.$label]=$b
			if [ "${COV[$name.$label]}" = - ] || [ "$a" -lt "${COV[$name.$label]}" ]; then
				COV[$name.$label]=$a
				REACH[$name.$label]=$(reached_of "$p" "$D/$rel")
			fi
		done
		if [ "$(wc -w <<<"$pids")" != "$K" ]; then
			NOTE[$name]+="$label: $(wc -w <<<"$pids") processes map it, $K expected; "
		fi
	done
	for ((k = 1; k <= K; k++)); do : >"$WORK/gate$k.go"; done
	# a watchdog: a job that opens its gate twice, or hangs, is killed
	t0=$SECONDS
	for ((k = 1; k <= K; k++)); do
		while kill -0 "${cpids[k - 1]}" 2>/dev/null && [ $((SECONDS - t0)) -lt "$JOB_TIMEOUT" ]; do
			sleep 0.05
		done
	done
	if kill -0 ${cpids[*]} 2>/dev/null; then
		echo "  $set $label: a job still runs after ${JOB_TIMEOUT}s: killed" >&2
		for name in "${objs[@]}"; do
			for p in $(pids_mapping "$D/$(objrel "$name")"); do kill -9 "$p" 2>/dev/null || :; done
		done
		kill ${cpids[*]} 2>/dev/null || :
	fi
	RC[$set.$label]=0
	for ((k = 1; k <= K; k++)); do
		rc=0
		wait "${cpids[k - 1]}" || rc=$?
		[ "$rc" = 0 ] || RC[$set.$label]=$rc
		if [ "$gate" = out ]; then
			wait "${wpids[k - 1]}" 2>/dev/null || :
			cat "$out.$k.gate" >>"$out.$k.out" 2>/dev/null || :
		else
			kill "${wpids[k - 1]}" 2>/dev/null || :
			wait "${wpids[k - 1]}" 2>/dev/null || :
		fi
	done
	CPID= WPID=
	unlock
}
objrel() { # NAME -> path in the copy directory
	local o set name kind rel src
	for o in "${OBJECTS[@]}"; do
		IFS='|' read -r set name kind rel src <<<"$o"
		[ "$name" = "$1" ] && { echo "$rel"; return; }
	done
}
summary() { # JSON report line -> short text
	"$PY" -c '
import json, sys
d = json.loads(sys.stdin.read())
if d.get("status") == "error" or "error" in d:
    print("error: " + str(d.get("error"))); sys.exit()
st = d.get("stub") or {}
out = [d["status"].replace("would change", "changes")]
out.append("padded %d" % d.get("padded_segments", 0))
if st.get("injected"):
    out.append("hook " + st["hook"].split(",")[0])
    out.append("phdrs moved" if st.get("table_moved") else "phdrs stay")
    out.append("stub %d chunks" % st["chunks"])
else:
    r = str(st.get("reason", ""))
    out.append("no stub: " + ("no whole 2 MiB chunk of text" if r.startswith("no whole PMD chunk") else r))
if d.get("aslr_bits_lost"): out.append("-%d ASLR bits" % d["aslr_bits_lost"])
print(", ".join(out))' 2>/dev/null || echo "?"
}

# ------------------------------------------------------------------ run
declare -A SETOBJS
for o in "${OBJECTS[@]}"; do
	IFS='|' read -r set name kind rel src <<<"$o"
	KIND[$name]=$kind
	if [ -z "$src" ] || [ ! -e "$src" ]; then
		NOTE[$name]="not installed"
		continue
	fi
	read -r a b < <(text_info "$src")
	TEXT[$name]=$a IDEAL[$name]=$b
	SUMMARY[$name]=$("$ELFPMD" -n --json --madvise "$src" 2>/dev/null | summary)
	if [ "$set" != - ] && wanted "$set"; then
		SETOBJS[$set]+="$name "
	fi
done
ORDER=()
for o in "${OBJECTS[@]}"; do
	IFS='|' read -r set name kind rel src <<<"$o"
	if [ "$set" = - ] || wanted "$set"; then ORDER+=("$name"); fi
done

# Re-create the rewritten copies: elfpmd writes them anew (page cache as
# its writes and fsync leave it), or they are copied with cp (dirty pages).
rewrite_again() {
	local name rel
	for name in "${local_objs[@]}"; do
		rel=$(objrel "$name")
		cp "$WORK/orig/$rel" "$WORK/pmd/$rel.new"
		"$ELFPMD" -q --madvise "$WORK/pmd/$rel.new"
		mv -f "$WORK/pmd/$rel.new" "$WORK/pmd/$rel"
	done
}
# The rewritten copies cached in order-0 folios (after a cache drop).
order0_fill() {
	local name
	for name in "${local_objs[@]}"; do "$IN/order0" "$WORK/pmd/$(objrel "$name")"; done
}
# A new file written by cp (not renamed over an old one, not truncated: ext4's
# auto_da_alloc would start its writeback at once): dirty in the page cache.
copy_again() {
	local name rel
	for name in "${local_objs[@]}"; do
		rel=$(objrel "$name")
		mv -f "$WORK/pmd/$rel" "$WORK/pmd/$rel.old"
		cp "$WORK/pmd/$rel.old" "$WORK/pmd/$rel"
		rm -f "$WORK/pmd/$rel.old"
	done
}
LABELS="fresh cold warm order0 par3 dirty"
for set in "${SETS[@]}"; do
	[ -n "${SETOBJS[$set]:-}" ] || continue
	read -r -a "OBJS_$set" <<<"${SETOBJS[$set]}"
	read -r -a local_objs <<<"${SETOBJS[$set]}"
	echo
	echo "== $set: ${local_objs[*]}"
	if [ "$(type -t prep_"$set")" = function ]; then prep_"$set" "$WORK/orig"; prep_"$set" "$WORK/pmd"; fi
	for name in "${local_objs[@]}"; do
		rel=$(objrel "$name")
		for o in "${OBJECTS[@]}"; do
			IFS='|' read -r s n kind r src <<<"$o"
			[ "$n" = "$name" ] && break
		done
		mkdir -p "$WORK/orig/$(dirname "$rel")" "$WORK/pmd/$(dirname "$rel")"
		cp "$src" "$WORK/orig/$rel"
		cp "$src" "$WORK/pmd/$rel"
		"$ELFPMD" -n --json --madvise "$WORK/pmd/$rel" >"$WORK/out/$name.json" || :
		"$ELFPMD" --madvise "$WORK/pmd/$rel" | sed "s|^$WORK/pmd/|  |"
		read -r a b < <(text_info "$WORK/pmd/$rel")
		IDEAL[$name]=$b
	done
	gated "$set" "$WORK/pmd" fresh 0
	gated "$set" "$WORK/orig" warmup 0
	gated "$set" "$WORK/orig" orig 0
	gated "$set" "$WORK/pmd" cold 1
	gated "$set" "$WORK/pmd" warm 0
	PRE=order0_fill gated "$set" "$WORK/pmd" order0 1
	rewrite_again
	gated "$set" "$WORK/pmd" par3 0 3
	PRE=copy_again gated "$set" "$WORK/pmd" dirty 0
	# outputs
	ok=yes
	for label in orig $LABELS; do
		[ "${RC[$set.$label]}" = 0 ] || { ok=no; echo "  $label run: exit status ${RC[$set.$label]}"; }
	done
	if [ -z "$(eval echo "\${NOCMP_$set:-}")" ]; then
		normalize <"$WORK/out/$set.orig.1.out" >"$WORK/out/$set.orig.norm"
		for f in "$WORK/out/$set".{fresh,cold,warm,order0,par3,dirty}.[0-9].out; do
			normalize <"$f" >"${f%.out}.norm"
			cmp -s "$WORK/out/$set.orig.norm" "${f%.out}.norm" || {
				ok=no
				echo "  ${f##*/}: output differs from the original's:"
				diff "$WORK/out/$set.orig.norm" "${f%.out}.norm" | head -n 10 | sed 's/^/    /'
			}
		done
	fi
	(cd "$WORK/out" && D=$WORK/orig ver_"$set") 2>&1 | normalize >"$WORK/out/$set.ver.orig" || :
	(cd "$WORK/out" && D=$WORK/pmd ver_"$set") 2>&1 | normalize >"$WORK/out/$set.ver.pmd" || :
	cmp -s "$WORK/out/$set.ver.orig" "$WORK/out/$set.ver.pmd" ||
		{ ok=no; echo "  version output differs:"; diff "$WORK/out/$set.ver.orig" "$WORK/out/$set.ver.pmd" | head -n 10 | sed 's/^/    /'; }
	echo "  job: $(head -c 300 "$WORK/out/$set.orig.1.out" | tr '\n\t' '  ' | cut -c1-110)..."
	echo "  start to gate, ms (10 ms polls): fresh ${GATE[$set.fresh]}, orig warm-up ${GATE[$set.warmup]}," \
		"orig ${GATE[$set.orig]}, cold ${GATE[$set.cold]}, warm ${GATE[$set.warm]}, order-0 ${GATE[$set.order0]}," \
		"3 at once ${GATE[$set.par3]}, dirty ${GATE[$set.dirty]}"
	echo "  outputs (job $(wc -c <"$WORK/out/$set.orig.1.out") bytes, version $(wc -l <"$WORK/out/$set.ver.orig") lines) same as the original's: $ok"
	for name in "${local_objs[@]}"; do
		if [ "$ok" = no ]; then NOTE[$name]+="OUTPUT DIFFERS; "; fi
		# Where a run had not reached every chunk at its gate: how many of
		# those it had reached are PMD-mapped.
		for label in cold warm; do
			r=${REACH[$name.$label]:-}
			if [ -n "$r" ] && [ "${COV[$name.$label]}" != - ] && [ "$r" -lt $((IDEAL[$name] * 2048)) ]; then
				NOTE[$name]+="$label: ${COV[$name.$label]} of $r KiB reached PMD-mapped; "
			fi
		done
		# One line per state for scripts (tests/run-real-programs.sh):
		# the lowest FilePmdMapped of a run, and what that run had reached.
		for label in $LABELS; do
			echo "  state $name $label pmd_kib=${COV[$name.$label]:--} reached_kib=${REACH[$name.$label]:--}"
		done
		printf '  %-20s KiB PMD-mapped of %d: fresh %s  cold %s  warm %s  order-0 %s  3 at once %s dirty %s  orig %s; base aligned: %s\n' \
			"$name" $((IDEAL[$name] * 2048)) "${COV[$name.fresh]}" "${COV[$name.cold]}" "${COV[$name.warm]}" "${COV[$name.order0]}" \
			"${COVS[$name.par3]:--}" "${COV[$name.dirty]}" "${COV[$name.orig]}" "${ALIGN[$name.warm]:-?}"
	done
done

# ------------------------------------------------------------------ table
pct() { # KIB CHUNKS
	case $1 in -|'') echo - ;; *) awk -v k="$1" -v c="$2" 'BEGIN { if (c) printf "%.0f%%", 100 * k / 1024 / (2 * c); else print "-" }' ;; esac
}
echo
echo "FilePmdMapped text of each object (its copy) in % of the ideal (whole 2 MiB chunks of"
echo "its executable PT_LOADs); order0: the copy cached in 4 KiB folios before the run;"
echo "fresh: first run after elfpmd wrote it; 3@once: the lowest of"
echo "three started together after a new rewrite; dirty: first run of a cp'd copy; orig: the"
echo "unmodified copy, warm:"
hdr='%-19s %-20s %6s %5s %5s %5s %6s %5s %6s %5s %5s  %s\n'
printf "$hdr" name kind "text" ideal cold warm order0 fresh 3@once dirty orig "elfpmd --madvise; notes"
printf "$hdr" "" "" MiB chunk "" "" "" "" "" "" "" ""
for name in "${ORDER[@]}"; do
	if [ -z "${TEXT[$name]:-}" ]; then
		printf "$hdr" "$name" "${KIND[$name]}" - - - - - - - - - "${NOTE[$name]:-}"
		continue
	fi
	printf "$hdr" "$name" "${KIND[$name]}" \
		"$(awk -v t="${TEXT[$name]}" 'BEGIN { printf "%.1f", t / 1048576 }')" "${IDEAL[$name]}" \
		"$(pct "${COV[$name.cold]:-}" "${IDEAL[$name]}")" "$(pct "${COV[$name.warm]:-}" "${IDEAL[$name]}")" \
		"$(pct "${COV[$name.order0]:-}" "${IDEAL[$name]}")" "$(pct "${COV[$name.fresh]:-}" "${IDEAL[$name]}")" "$(pct "${COV[$name.par3]:-}" "${IDEAL[$name]}")" \
		"$(pct "${COV[$name.dirty]:-}" "${IDEAL[$name]}")" "$(pct "${COV[$name.orig]:-}" "${IDEAL[$name]}")" \
		"${SUMMARY[$name]}${NOTE[$name]:+; ${NOTE[$name]}}"
done
