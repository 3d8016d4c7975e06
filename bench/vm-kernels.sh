#!/bin/bash
# vm-kernels.sh -- elfpmd --madvise on the kernels users run: Debian's own
# kernel packages booted unchanged in qemu-system-x86_64 (the long form of
# the VM harness, tests/vm/README; tests/run-vm.sh is the short form that
# 'make check' runs on one kernel).
#
# For each Debian release (default: bullseye 5.10, bookworm 6.1, trixie
# 6.12) it fetches linux-image-amd64's kernel with apt-get download through
# a private apt configuration whose mirror is read from this machine's,
# boots it (KVM where a probe boot through /dev/kvm works, else TCG) with a
# busybox initramfs and two disk images made on the host, ext4 and xfs (and
# with -j an ext4 mounted data=journal), each holding the 17 MiB-text PIE
# fixture mad-pie and its `elfpmd -q --madvise` rewrite, and in each THP
# mode runs original and rewrite in the states cold, warm, order-0 (file
# cached in 4 KiB folios), fresh (first run of a copy just written with dd
# bs=4k) and 3 at once (on an order-0 cache).  It prints, per kernel, the
# configuration the stub depends on and what the kernel offers it
# (PAGEMAP_SCAN, MADV_POPULATE_READ, MADV_COLLAPSE, tried in the guest), and
# at the end one markdown table, kernel x fs x THP mode:
#   - the rewrite's FilePmdMapped in % of the ideal (whole 2 MiB chunks of
#     its text) per state (3 at once: the lowest of the three);
#   - outputs identical: every run of original and rewrite printed what the
#     original prints on the host and exited 42;
#   - warm start rewrite/original: median of PAIRS interleaved pairs of
#     batches of BATCH warm starts of mad-empty (the same text, a main that
#     returns at once); TCG timing moves by 5-10% between runs;
#   - extra MiB read per warm start: sectors read from the guest's disk
#     during READS warm starts of the rewrite, minus the original's, per
#     start.
#
# Usage: bench/vm-kernels.sh [-s SUITES] [-t THPS] [-n PAIRS] [-b BATCH]
#                            [-r READS] [-j] [-d WORKDIR] [-k]
#   -s SUITES  Debian releases, space-separated (default "bullseye bookworm trixie")
#   -t THPS    THP modes (default "madvise always"; Debian boots in always)
#   -n PAIRS   timed warm-start pairs per file system (default 20)
#   -b BATCH   warm starts timed together in each half of a pair (default 5)
#   -r READS   warm starts counted for the disk reads (default 3)
#   -j         a third disk: ext4 mounted data=journal
#   -d WORKDIR directory to work in (default: mktemp -d under /var/tmp)
#   -k         keep the work directory (console logs, results, images)
#   ELFPMD=path  the tool (default: ../src/elfpmd beside this script, else PATH)
#   ELFPMD_VM_CACHE, ELFPMD_VM_ACCEL, ...: see tests/vm/lib.sh
# Needs no root.  Each guest boot holds the benchmark lock
# ($ELFPMD_BENCH_LOCK, default /tmp/elfpmd-bench.lock) when flock exists.
# About 1 minute per kernel under TCG here (2 CPUs), plus the downloads the
# first time (~250 MB) and a 20 s KVM probe per kernel where /dev/kvm exists
# but does not boot it.

set -u
export LC_ALL=C

SUITES="bullseye bookworm trixie"
THPS="madvise always"
PAIRS=20
BATCH=5
READS=3
JOURNAL=0
WORK=
KEEP=0
while getopts 's:t:n:b:r:jd:kh' opt; do
	case $opt in
	s) SUITES=$OPTARG ;;
	t) THPS=$OPTARG ;;
	n) PAIRS=$OPTARG ;;
	b) BATCH=$OPTARG ;;
	r) READS=$OPTARG ;;
	j) JOURNAL=1 ;;
	d) WORK=$OPTARG ;;
	k) KEEP=1 ;;
	*) sed -n '2,/^$/p' "$0" | sed 's/^# \{0,1\}//'; exit 64 ;;
	esac
done
shift $((OPTIND - 1))
[ $# = 0 ] || { echo "no arguments expected; -h for help" >&2; exit 64; }
case $PAIRS in '' | *[!0-9]*) echo "-n wants a number" >&2; exit 64 ;; esac
case $READS in '' | *[!0-9]*) echo "-r wants a number" >&2; exit 64 ;; esac
case $BATCH in '' | *[!0-9]*) echo "-b wants a number" >&2; exit 64 ;; esac
[ "$READS" -ge 1 ] || { echo "-r wants at least 1" >&2; exit 64; }

# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=tests/vm/lib.sh
. "$(dirname "$0")/../tests/vm/lib.sh"
bench_find_elfpmd
LOCK=${ELFPMD_BENCH_LOCK:-/tmp/elfpmd-bench.lock}
[ "$(uname -m)" = x86_64 ] || bench_die "needs an x86-64 host"
vm_have_tools || bench_die "$VM_WHY"
bench_workdir vm-kernels
started=$SECONDS

echo "elfpmd:   $ELFPMD ($("$ELFPMD" --version 2>/dev/null | head -n 1))"
echo "work dir: $WORK, cache $VM_CACHE"
echo "host:     $(uname -r), $(nproc) CPUs; THP modes $THPS; $PAIRS timing pairs of $BATCH, $READS counted warm starts"

vm_payload "$WORK/build" "$WORK/stage" || bench_die "$VM_WHY"
ideal=$(vm_ideal_kb "$WORK/stage/mad/mad-pie")
ref=$(vm_reference "$WORK/stage/orig/mad-pie")
echo "fixture:  mad-pie, ideal $ideal kB ($((ideal / 2048)) whole 2 MiB chunks)"
disks="ext4:vda:ext4:defaults xfs:vdb:xfs:defaults"
[ "$JOURNAL" = 1 ] && disks="$disks ext4j:vdc:ext4:data=journal"
vm_conf "$WORK/vm.conf" "$disks" "cold warm order0 fresh concurrent"

rows=$WORK/rows
: >"$rows"
for suite in $SUITES; do
	echo
	echo "== $suite ($(vm_series "$suite"))"
	t0=$SECONDS
	if ! vm_fetch_kernel "$suite"; then
		echo "   skipped: $VM_WHY"
		continue
	fi
	kernel=$(cat "$VM_KDIR/release")
	echo "   package: $(cat "$VM_KDIR/package")"
	echo "   config:  $(vm_config_line "$VM_KDIR")"
	k=$WORK/$suite
	mkdir -p "$k"
	vm_initramfs "$VM_KDIR" "$k/initrd" "$WORK/vm.conf" "${VM_GUEST_BINS[@]}" || bench_die "$VM_WHY"
	vm_disks "$k" "$WORK/stage" || bench_die "$VM_WHY"
	images=("$k/ext4.img" "$k/xfs.img")
	if [ "$JOURNAL" = 1 ]; then
		cp --sparse=always "$k/ext4.img" "$k/ext4j.img"
		images+=("$k/ext4j.img")
	fi
	vm_accel "$VM_KDIR" "$k/initrd" "$k"
	echo "   accel:   $VM_ACCEL ($VM_ACCEL_WHY)"
	if command -v flock >/dev/null; then
		exec 9>"$LOCK"
		flock -w 3600 9 || bench_die "could not take the lock $LOCK in an hour"
	fi
	b0=$SECONDS
	vm_qemu "$VM_ACCEL" "$VM_KDIR" "$k/initrd" "$k/console.log" 1800 measure "${images[@]}"
	status=$?
	command -v flock >/dev/null && exec 9>&-
	if ! vm_results "$k/console.log" >"$k/results"; then
		echo "   the guest did not finish (qemu status $status); last console lines:"
		tr -d '\r' <"$k/console.log" | tail -10 | sed 's/^/     /'
		KEEP=1
		continue
	fi
	echo "   guest:   $((SECONDS - b0)) s ($((SECONDS - t0)) s with fetch and set-up)"
	echo "   thp at boot: $(vm_field "$(grep -m1 '^R thp ' "$k/results")" default)"
	grep '^R probe ' "$k/results" | sed 's/^R probe /   offers: /'
	grep '^R error' "$k/results" | sed 's/^R /   /'
	grep '^R ref ' "$k/results" | while read -r line; do
		if [ "$(vm_field "$line" status)" != 42 ] || [ "$(vm_field "$line" md5)" != "$ref" ]; then
			echo "   the original's output in the guest differs from the host's: ${line#R ref }"
		fi
	done
	grep -E '^R (run .*same=no|diff )' "$k/results" | head -20 | sed 's/^R /   /'
	grep '^R reads ' "$k/results" | sed 's/^R /   /'
	grep '^R time ' "$k/results" | sed 's/^R /   /'
	vm_table_rows "$(vm_series "$suite") ($kernel)" "$ideal" "$k/results" >>"$rows"
	rm -f "$k"/*.img
done

echo
echo "coverage: FilePmdMapped of the rewrite in % of $ideal kB; elfpmd $("$ELFPMD" --version 2>/dev/null | head -n 1)"
vm_table_header
cat "$rows"
echo
echo "run time $((SECONDS - started)) s"
