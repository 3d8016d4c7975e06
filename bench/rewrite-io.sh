#!/bin/bash
# rewrite-io.sh -- what does rewriting a big binary cost, next to copying it?
#
# Builds a ~1 GiB ELF executable whose read-only executable PT_LOAD elfpmd
# will change (random data linked into .text), then, with a warm page cache,
# interleaves ROUNDS rounds of four timed steps:
#
#   cp IN A                       the reference for --no-sync
#   elfpmd --no-sync -o B IN      elfpmd without fsync
#   cp IN C && sync C             the reference for the default (GNU sync FILE
#                                 fsyncs that one file)
#   elfpmd -o D IN                elfpmd with its default fsync
#
# and prints the median of each, the ratios elfpmd --no-sync / cp and
# elfpmd / (cp + sync) (of the medians, and per place in the pair: on a disk
# whose speed depends on what was just written, the second step of a pair is
# slower whatever it is), and apparent and allocated sizes of input and outputs.
# A global `sync` (not timed) runs before every step, so that no step pays for
# the dirty pages of the previous one; outputs are removed between rounds.
# Each pair runs in ABBA order across rounds (odd rounds the reference first,
# even rounds elfpmd first), after one uncounted warm-up round.
#
# Usage: bench/rewrite-io.sh [-n ROUNDS] [-s SIZE_MIB] [-d WORKDIR] [-k]
#   -n ROUNDS    counted rounds (default 6; keep it even for balanced ABBA)
#   ELFPMD=path  the tool (default: ../src/elfpmd beside this script, else PATH)
#   -d WORKDIR   directory to work in (default: mktemp -d under /var/tmp); it
#                must have room for the input and four outputs (5 x SIZE)
#   -k           keep the work directory
#   -l           link the input with lld, whose layout needs padding: the
#                rewrite then inserts a hole and moves everything after it
# Not a test: it takes a minute or two and writes several GiB.

set -eu
export LC_ALL=C

ROUNDS=6
SIZE_MIB=1024
WORK=
KEEP=0
PAD=0
while getopts 'n:s:d:klh' opt; do
	case $opt in
	n) ROUNDS=$OPTARG ;;
	s) SIZE_MIB=$OPTARG ;;
	d) WORK=$OPTARG ;;
	k) KEEP=1 ;;
	l) PAD=1 ;;
	*) sed -n '2,/^$/p' "$0" | sed 's/^# \{0,1\}//'; exit 64 ;;
	esac
done

# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"
bench_find_elfpmd
for t in cc objcopy; do
	command -v "$t" >/dev/null || { echo "$t is needed" >&2; exit 1; }
done

bench_workdir rewrite-io

echo "elfpmd:   $ELFPMD ($("$ELFPMD" --version 2>/dev/null | head -n 1))"
echo "work dir: $WORK ($(df -T "$WORK" | awk 'NR == 2 { print $2 " on " $1 }'))"
echo "kernel:   $(uname -r), $(nproc) CPUs"

# ------------------------------------------------------------------ input
cd "$WORK"
echo "building a ${SIZE_MIB} MiB input..."
head -c "$((SIZE_MIB * 1024 * 1024))" /dev/urandom >blob
objcopy -I binary -O elf64-x86-64 -B i386:x86-64 \
	--rename-section .data=.text.big,alloc,load,readonly,code,contents blob blob.o
cat >main.c <<'EOF'
#include <stdio.h>
extern const char _binary_blob_start[], _binary_blob_end[];
int main(void)
{
	printf("%ld bytes of text\n", (long)(_binary_blob_end - _binary_blob_start));
	return 0;
}
EOF
if [ "$PAD" = 1 ]; then
	# lld places the text 4 KiB apart from its address modulo 2 MiB, so
	# elfpmd must insert a hole before it and move the whole file's tail.
	clang -O1 -fPIE -pie -fuse-ld=lld -Wl,-z,noexecstack -o IN main.c blob.o
else
	cc -O1 -fPIE -pie -Wl,-z,noexecstack -o IN main.c blob.o
fi
rm -f blob blob.o
./IN
if ! "$ELFPMD" -n --json IN | grep -q '"status":"would change"'; then
	echo "elfpmd would not change the input; its report:" >&2
	"$ELFPMD" -n IN >&2 || true
	exit 1
fi
"$ELFPMD" -n IN | grep -E 'result|PMD-mappable|moved to' | sed 's/^ */  /'

# ------------------------------------------------------------------ rounds
now() { date +%s.%N; }
declare -A T
POS=first
run() { # NAME COMMAND...: time one step, after an untimed global sync; the
	# time is also filed under NAME@POS (its place in its pair: first/second)
	local name=$1 t0 t1 dt
	shift
	sync
	t0=$(now)
	"$@"
	t1=$(now)
	dt=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.4f", b - a }')
	T[$name]+="$dt "
	T[$name@$POS]+="$dt "
}
cp_sync() { cp IN C && sync C; }

sizes() { # FILE...
	local f
	for f; do
		printf '  %-3s apparent %12d B   allocated %12d B\n' "$f" \
			"$(stat -c %s "$f")" "$(( $(stat -c '%b * %B' "$f") ))"
	done
}

cat IN >/dev/null # warm the page cache
# Each pair (cp / elfpmd --no-sync, cp+sync / elfpmd) runs in ABBA order:
# odd rounds reference first, even rounds elfpmd first, so that neither side
# always follows the other's I/O.  Round 0 is a warm-up, not counted.
for ((r = 0; r <= ROUNDS; r++)); do
	if [ $((r % 2)) = 1 ] || [ "$r" = 0 ]; then
		POS=first run cp cp IN A
		POS=second run elfpmd_nosync "$ELFPMD" -q --no-sync -o B IN
		POS=first run cp_sync cp_sync
		POS=second run elfpmd "$ELFPMD" -q -o D IN
	else
		POS=first run elfpmd_nosync "$ELFPMD" -q --no-sync -o B IN
		POS=second run cp cp IN A
		POS=first run elfpmd "$ELFPMD" -q -o D IN
		POS=second run cp_sync cp_sync
	fi
	if [ "$r" = 0 ]; then
		echo "sizes:"
		sizes IN A B C D
		cmp -s A IN || echo "  warning: A differs from IN"
		cmp -s B D || echo "  warning: B and D differ"
		"$ELFPMD" -n D | grep -q 'already aligned' || echo "  warning: D is not aligned"
	fi
	rm -f A B C D
	sync
	printf 'round %d%s: cp %s  elfpmd --no-sync %s  cp+sync %s  elfpmd %s\n' "$r" \
		"$([ "$r" = 0 ] && echo ' (warm-up)')" \
		"$(echo "${T[cp]}" | awk '{ print $NF }')" \
		"$(echo "${T[elfpmd_nosync]}" | awk '{ print $NF }')" \
		"$(echo "${T[cp_sync]}" | awk '{ print $NF }')" \
		"$(echo "${T[elfpmd]}" | awk '{ print $NF }')"
	if [ "$r" = 0 ]; then
		T=()
	fi
done

median() { echo "$1" | tr ' ' '\n' | sed '/^$/d' | sort -g | awk '{ v[NR] = $1 } END {
	if (NR % 2) print v[(NR + 1) / 2]; else printf "%.4f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
spread() { echo "$1" | tr ' ' '\n' | sed '/^$/d' | sort -g | awk '{ v[NR] = $1 } END {
	printf "%s .. %s", v[1], v[NR]; if (v[1] > 0 && v[NR] / v[1] > 1.5) printf "  (noisy: max/min %.1f)", v[NR] / v[1] }'; }
m_cp=$(median "${T[cp]}")
m_en=$(median "${T[elfpmd_nosync]}")
m_cs=$(median "${T[cp_sync]}")
m_e=$(median "${T[elfpmd]}")
echo
echo "median of $ROUNDS rounds (seconds), ${SIZE_MIB} MiB input; min .. max:"
printf '  %-26s %8s   %s\n' \
	"cp IN A" "$m_cp" "$(spread "${T[cp]}")" \
	"elfpmd --no-sync -o B IN" "$m_en" "$(spread "${T[elfpmd_nosync]}")" \
	"cp IN C && sync C" "$m_cs" "$(spread "${T[cp_sync]}")" \
	"elfpmd -o D IN (fsync)" "$m_e" "$(spread "${T[elfpmd]}")"
# Ratios: of the medians, and, since the second step of a pair is often
# slower whatever it is, per place in the pair and their geometric mean.
ratio() { # LABEL ELFPMD-STEP REFERENCE-STEP
	local f1 r1 f2 r2
	f1=$(median "${T[$2@first]:-}") r1=$(median "${T[$3@first]:-}")
	f2=$(median "${T[$2@second]:-}") r2=$(median "${T[$3@second]:-}")
	awk -v l="$1" -v a="$(median "${T[$2]}")" -v b="$(median "${T[$3]}")" \
		-v f1="$f1" -v r1="$r1" -v f2="$f2" -v r2="$r2" 'BEGIN {
		printf "ratio %-28s %.2f of medians", l, a / b
		if (f1 > 0 && r1 > 0 && f2 > 0 && r2 > 0)
			printf "; both first %.2f, both second %.2f, balanced %.2f",
				f1 / r1, f2 / r2, sqrt(f1 / r1 * f2 / r2)
		printf "\n" }'
}
ratio "elfpmd --no-sync / cp:" elfpmd_nosync cp
ratio "elfpmd / (cp + sync):" elfpmd cp_sync
case "$(spread "${T[cp]}")$(spread "${T[elfpmd_nosync]}")$(spread "${T[cp_sync]}")$(spread "${T[elfpmd]}")" in
*noisy*)
	echo "noisy steps: the disk's recent write history dominates them; read the rounds,"
	echo "where each pair ran in the opposite order every other round" ;;
esac
