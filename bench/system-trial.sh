#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# bench/system-trial.sh: the whole-system trial a release engineer runs
# before turning elfpmd on over a system (on demand, not in CI; root; about
# 20 minutes and 25 GB under WORK on this machine).
#
#   1. Two copies of this system's /usr (and /etc) as chroot roots under
#      WORK: orig and conv, with the same paths inside.
#   2. conv's /usr converted: elfpmd -r --madvise --machine=host
#      --machine=i386 -jN, with --json=FILE (the text summary on the
#      terminal, the per-file JSON kept) and --manifest; its exit status,
#      summary and run time.
#   3. Every converted program (the manifest's executable entries not named
#      like a shared library: gcc's cc1 too) run with --version in both
#      roots (its own mount, network and PID namespaces, 10 s at most, no
#      input): standard output and exit status compared.
#   4. Every converted shared library dlopened (RTLD_NOW, by the root's own
#      python3) in both roots: the outcome compared.
#   5. zlib's and xz-utils' upstream test suites (Debian's source packages,
#      from SRCDIR or fetched with apt-get source through a private list of
#      the machine's own deb sources, security suites left out) built and
#      run in both roots, at the same path, with the root's compilers (conv:
#      the converted cc1, as, ld...): the test results compared, and the
#      built libraries and programs compared byte for byte.
#
# Usage: bench/system-trial.sh [-w WORK] [-s SRCDIR] [-j N] [-k]
#   -w WORK    scratch directory (default /var/tmp/elfpmd-trial; emptied)
#   -s SRCDIR  a directory holding zlib-*/ and xz-utils-*/ source trees
#   -j N       jobs for elfpmd and make (default: the CPUs)
#   -k         keep WORK afterwards (default: remove the copies)
# ELFPMD names the tool (default: the build tree's, else elfpmd in PATH).
# The result is printed and written to WORK/result.txt.
set -u
export LC_ALL=C
here=$(cd "$(dirname "$0")" && pwd)
W=/var/tmp/elfpmd-trial SRCDIR= JOBS=$(nproc) KEEP=false
while getopts w:s:j:k o; do
	case $o in
	w) W=$OPTARG ;;
	s) SRCDIR=$OPTARG ;;
	j) JOBS=$OPTARG ;;
	k) KEEP=true ;;
	*) echo "usage: $0 [-w WORK] [-s SRCDIR] [-j N] [-k]" >&2; exit 64 ;;
	esac
done
if [ -z "${ELFPMD:-}" ]; then
	ELFPMD=$here/../_build/src/elfpmd
	[ -x "$ELFPMD" ] || ELFPMD=$(command -v elfpmd)
fi
[ -x "$ELFPMD" ] || { echo "system-trial: no elfpmd (set ELFPMD)" >&2; exit 1; }
[ "$(id -u)" = 0 ] || { echo "system-trial: needs root (chroot, namespaces)" >&2; exit 77; }
for t in unshare chroot cmp sha256sum python3; do
	command -v $t >/dev/null || { echo "system-trial: needs $t" >&2; exit 77; }
done
case $W in /|/usr*|/etc*|"") echo "system-trial: refusing WORK=$W" >&2; exit 64 ;; esac

R=$W/result.txt
say () { printf '%s\n' "$*" | tee -a "$R"; }
mounted=()
cleanup () {
	local m
	for m in "${mounted[@]}"; do umount -l "$m" 2>/dev/null; done
	if ! $KEEP; then rm -rf "$W/orig" "$W/conv"; fi
}
trap cleanup EXIT
rm -rf "$W"
mkdir -p "$W" || exit 1
: >"$R"
say "# elfpmd whole-system trial, $(date -u +%Y-%m-%dT%H:%MZ), $("$ELFPMD" --version | head -1), kernel $(uname -r)"

# 1. The roots.
t0=$SECONDS
for root in orig conv; do
	r=$W/$root
	mkdir -p "$r/proc" "$r/dev" "$r/tmp" "$r/root" "$r/var/tmp" "$r/run"
	chmod 1777 "$r/tmp" "$r/var/tmp"
	cp -a /usr "$r/usr" && cp -a /etc "$r/etc" || { echo "system-trial: copying /usr failed" >&2; exit 1; }
	for l in bin sbin lib lib32 lib64 libx32; do
		[ -L "/$l" ] && ln -s "$(readlink "/$l")" "$r/$l"
	done
	for d in null zero random urandom; do
		cp -a "/dev/$d" "$r/dev/$d"
	done
done
say "copies of /usr and /etc: $((SECONDS - t0)) s, $(du -sh "$W/conv/usr" | cut -f1) each"

# 2. The conversion.
t0=$SECONDS
"$ELFPMD" -r --madvise --machine=host --machine=i386 -j"$JOBS" --times --json="$W/convert.json" \
	--manifest="$W/manifest" "$W/conv/usr" >"$W/convert.txt" 2>"$W/convert.err"
st=$?
say "conversion: exit $st in $((SECONDS - t0)) s; $(tail -1 "$W/convert.txt")"
grep -q '^elfpmd: startup stub:' "$W/convert.txt" && say "  $(grep '^elfpmd: startup stub:' "$W/convert.txt")"
[ -s "$W/convert.err" ] && say "  stderr: $(wc -l <"$W/convert.err") lines, first: $(head -1 "$W/convert.err")"
python3 - "$W/manifest" "$W/conv" >"$W/converted.list" <<'PY'
import json, sys
seen = set()
for l in open(sys.argv[1]):
    d = json.loads(l)
    p = bytes.fromhex(d["file_hex"]).decode("utf-8", "surrogateescape")
    if d["action"] == "convert" and p.startswith(sys.argv[2] + "/") and p not in seen:
        seen.add(p)
        print(p[len(sys.argv[2]):])
PY
say "converted files: $(wc -l <"$W/converted.list")"

# in_root ROOT OUT COMMAND...: COMMAND in ROOT, its own namespaces, 10 s.
in_root () {
	local root=$1 out=$2
	shift 2
	timeout -k 2 10 unshare -mnpf --mount-proc="$W/$root/proc" chroot "$W/$root" \
		env -i PATH=/usr/bin:/usr/sbin HOME=/root LC_ALL=C "$@" </dev/null >"$out" 2>"$out.err"
	echo "exit $?" >>"$out"
}

# 3. Programs.
same=0 diff=0
: >"$W/programs.diff"
while IFS= read -r p; do
	case $p in *.so|*.so.*) continue ;; esac
	[ -x "$W/conv$p" ] || continue
	in_root orig "$W/p.orig" "$p" --version
	in_root conv "$W/p.conv" "$p" --version
	if cmp -s "$W/p.orig" "$W/p.conv"; then
		same=$((same + 1))
	else
		diff=$((diff + 1))
		{ echo "== $p"; diff "$W/p.orig" "$W/p.conv" | head -5; } >>"$W/programs.diff"
	fi
done <"$W/converted.list"
say "programs run with --version: $same same output and status, $diff different"
[ "$diff" = 0 ] || sed 's/^/  /' "$W/programs.diff" | head -20 | tee -a "$R"

# 4. Libraries.
same=0 diff=0 both_fail=0
: >"$W/libraries.diff"
while IFS= read -r p; do
	case $p in *.so|*.so.*) ;; *) continue ;; esac
	for root in orig conv; do
		in_root $root "$W/l.$root" /usr/bin/python3 -c \
			'import ctypes, sys; ctypes.CDLL(sys.argv[1], mode=ctypes.RTLD_GLOBAL); print("loaded")' "$p"
	done
	if cmp -s "$W/l.orig" "$W/l.conv"; then
		same=$((same + 1))
		grep -q loaded "$W/l.orig" || both_fail=$((both_fail + 1))
	else
		diff=$((diff + 1))
		{ echo "== $p"; cat "$W/l.orig.err" "$W/l.conv.err" | head -4; } >>"$W/libraries.diff"
	fi
done <"$W/converted.list"
say "libraries dlopened: $same same outcome ($both_fail of them fail to load in both roots), $diff different"
[ "$diff" = 0 ] || sed 's/^/  /' "$W/libraries.diff" | head -20 | tee -a "$R"

# 5. Test suites built with each root's compilers.
if [ -z "$SRCDIR" ]; then
	SRCDIR=$W/src
	mkdir -p "$SRCDIR/lists/partial" "$SRCDIR/parts"
	python3 - >"$SRCDIR/parts/src.sources" <<'PY'
import glob
out = []
for f in glob.glob("/etc/apt/sources.list.d/*.sources"):
    for st in open(f).read().split("\n\n"):
        if "Types: deb" in st and "security" not in st:
            out.append(st.replace("Types: deb", "Types: deb-src").strip())
print("\n\n".join(out))
PY
	apt_src=(-o Dir::Etc::SourceList=/dev/null -o Dir::Etc::SourceParts="$SRCDIR/parts"
		 -o Dir::State::Lists="$SRCDIR/lists")
	(cd "$SRCDIR" && apt-get -q "${apt_src[@]}" update && apt-get -q "${apt_src[@]}" source zlib xz-utils) \
		>"$W/apt-source.log" 2>&1 || say "apt-get source failed: $(tail -1 "$W/apt-source.log")"
fi
suite () { # NAME BUILD-COMMANDS OUTPUTS...
	local name=$1 cmds=$2 src
	shift 2
	src=$(ls -d "$SRCDIR/$name"-*/ 2>/dev/null | head -1)
	if [ -z "$src" ]; then
		say "$name: no source tree in $SRCDIR: skipped"
		return
	fi
	for root in orig conv; do
		rm -rf "$W/$root/build/$name"
		mkdir -p "$W/$root/build"
		cp -a "$src" "$W/$root/build/$name"
		local t0=$SECONDS
		timeout 1800 unshare -mnpf --mount-proc="$W/$root/proc" chroot "$W/$root" \
			env -i PATH=/usr/bin:/usr/sbin HOME=/root LC_ALL=C MAKEFLAGS=-j"$JOBS" \
			sh -c "cd /build/$name && $cmds" </dev/null >"$W/$name.$root.log" 2>&1
		echo "exit $?" >>"$W/$name.$root.log"
		eval "t_$root=\$((SECONDS - t0))"
	done
	local res_o res_c same=0 differ=""
	res_o=$(grep -E '^(PASS|FAIL|XFAIL|ERROR|SKIP):|^# (TOTAL|PASS|FAIL|SKIP|XFAIL|XPASS|ERROR):|\*\*\* zlib|^exit ' "$W/$name.orig.log" | sort | md5sum)
	res_c=$(grep -E '^(PASS|FAIL|XFAIL|ERROR|SKIP):|^# (TOTAL|PASS|FAIL|SKIP|XFAIL|XPASS|ERROR):|\*\*\* zlib|^exit ' "$W/$name.conv.log" | sort | md5sum)
	for f in "$@"; do
		if cmp -s "$W/orig/build/$name/$f" "$W/conv/build/$name/$f"; then
			same=$((same + 1))
		else
			differ="$differ $f"
		fi
	done
	say "$name: $(tail -1 "$W/$name.orig.log") / $(tail -1 "$W/$name.conv.log") (orig / conv, $t_orig s / $t_conv s);" \
		"test results $([ "$res_o" = "$res_c" ] && echo identical || echo DIFFERENT);" \
		"$same of $# outputs byte-identical${differ:+ (differ:$differ)}"
	grep -E '^# (TOTAL|PASS|FAIL|ERROR):|\*\*\* zlib' "$W/$name.conv.log" | head -6 | sed 's/^/  conv: /' | tee -a "$R"
}
suite zlib "./configure && make && make test" libz.so.1.2.13 libz.a example minigzip example64 minigzip64
suite xz-utils "./configure --disable-doc && make && make check" src/liblzma/.libs/liblzma.so.5.4.1 \
	src/xz/.libs/xz src/xz/xz src/xzdec/xzdec
say "# done; logs and the per-file JSON in $W"
