#!/bin/sh
# shellcheck disable=SC3043  # busybox sh has local
# guest.sh: the measurement the VM harness runs inside the guest (busybox sh;
# tests/vm/README).  /init runs it after loading the modules.  It reads
# /etc/vm.conf, written by the host:
#
#   DISKS   LABEL:DEVICE:FSTYPE:MOUNTOPTIONS ... (ext4:vda:ext4:defaults ...)
#   THPS    THP modes to measure in, in order (madvise, always)
#   STATES  page cache states: cold warm order0 fresh concurrent
#   BINS    the binaries, each a directory /mnt/LABEL/BIN holding PROG
#           (and EMPTY): orig (the original; always first: the reference),
#           align (elfpmd's rewrite without stub), mad (elfpmd --madvise),
#           self (a program that madvises its own text); default "orig mad"
#   PROG    the fixture's file name (mad-pie) under /mnt/LABEL/BIN
#   EMPTY   the same text with a main that returns at once (warm-start
#           timing), or empty for none
#   CMP     the binary measured against orig for disk reads and timing
#           (default mad)
#   PAIRS   timed A/B pairs of warm starts of EMPTY
#   BATCH   warm starts in each half of a pair (timed together)
#   READS   warm starts of PROG counted for the disk reads
#   PROBE   yes: try PAGEMAP_SCAN, MADV_POPULATE_READ and MADV_COLLAPSE
#
# Every result is one line "R WHAT key=value ...", for the host to parse:
#   R thp default=MODE pmd=BYTES       the kernel's THP mode at boot, its
#                                      PMD size (hpage_pmd_size)
#   R probe fs=L pagemap_scan=.. populate_read=.. collapse=.. collapse_pmd_kb=N
#   R ref fs=L thp=M status=S md5=SUM  the original's cold output (with
#                                      its "exit status N" line)
#   R run fs=L thp=M bin=BIN state=S same=yes|no status=S pmd_kb=N
#   R diff ...                         the first lines of a differing output
#   R reads fs=L thp=M runs=N orig_kb=K mad_kb=K b=CMP  (sectors read from
#                                      DEVICE during N warm starts of each;
#                                      mad_kb is CMP's)
#   R time fs=L thp=M a_us=.. b_us=.. ratio=.. b=CMP  (vmtime pairs: a orig,
#                                      b CMP)
#   R error ...                        something that stopped a measurement

# shellcheck source=/dev/null
. /etc/vm.conf
BINS=${BINS:-orig mad}
CMP=${CMP:-mad}

r () { echo "R $*"; }
drop () { sync; echo 3 >/proc/sys/vm/drop_caches; }
thp=/sys/kernel/mm/transparent_hugepage/enabled

# pmd_kb SMAPS PATH: FilePmdMapped summed over PATH's mappings in SMAPS.
pmd_kb () {
	[ -s "$1" ] || { echo none; return; }
	awk -v p="$2" '/^[0-9a-f]+-[0-9a-f]+ / { cur = ($6 == p); next }
		cur && $1 == "FilePmdMapped:" { kb += $2 }
		END { print kb + 0 }' "$1"
}

# start PATH OUT SMAPS: run the fixture PATH with the arguments every run
# gets, its stdout and "exit status N" into OUT, its smaps copy into SMAPS.
start () {
	rm -f "$3"
	FIXTURE_SMAPS=$3 timeout 300 "$1" alpha "beta gamma" >"$2" 2>"$2.err"
	echo "exit status $?" >>"$2"
}

# record STATE PATH OUT SMAPS: the result line of one run.
record () {
	local same=no
	cmp -s /tmp/ref.out "$3" && same=yes
	r run fs="$label" thp="$mode" bin="$bin" state="$1" same=$same \
		status="$(tail -n 1 "$3" | sed 's/exit status //')" pmd_kb="$(pmd_kb "$4" "$2")"
	if [ $same = no ]; then
		diff /tmp/ref.out "$3" | head -n 6 | sed 's/^/R diff /'
		head -n 3 "$3.err" | sed 's/^/R diff stderr: /'
	fi
}

# one STATE PATH: run PATH once and record it as STATE.
one () {
	start "$2" /tmp/out /tmp/smaps
	record "$1" "$2" /tmp/out /tmp/smaps
}

measure_fs () {
	local d="/mnt/$label" k t0
	t0=$(date +%s)
	drop
	start "$d/orig/$PROG" /tmp/ref.out /tmp/smaps
	r ref fs="$label" thp="$mode" status="$(tail -n 1 /tmp/ref.out | sed 's/exit status //')" \
		md5="$(md5sum /tmp/ref.out | cut -d ' ' -f 1)"
	for bin in $BINS; do
		p=$d/$bin/$PROG
		for state in $STATES; do
			case $state in
			cold)
				drop
				one cold "$p" ;;
			warm)
				start "$p" /tmp/out /tmp/smaps
				one warm "$p" ;;
			order0)
				drop
				/bin/pagecache order0 "$p" >/dev/null 2>&1 || r error "pagecache order0 $p failed"
				one order0 "$p" ;;
			fresh)
				# A copy written in 4 KiB writes, run at once: dirty
				# small folios, as a package manager leaves them.
				rm -rf "$d/fresh"
				mkdir -p "$d/fresh"
				dd if="$p" of="$d/fresh/$PROG" bs=4k 2>/dev/null
				chmod 755 "$d/fresh/$PROG"
				one fresh "$d/fresh/$PROG"
				rm -rf "$d/fresh" ;;
			concurrent)
				drop
				/bin/pagecache order0 "$p" >/dev/null 2>&1 || r error "pagecache order0 $p failed"
				for k in 1 2 3; do
					start "$p" /tmp/out.$k /tmp/smaps.$k &
				done
				wait
				for k in 1 2 3; do
					record concurrent "$p" /tmp/out.$k /tmp/smaps.$k
				done ;;
			esac
		done
	done

	# Disk reads of warm starts: sectors read from the disk (field 3 of
	# /sys/block/DEV/stat) during READS starts of each, after one each.
	sync
	if [ "${READS:-0}" -gt 0 ] && [ -x "$d/$CMP/$PROG" ]; then
		vmtime run 1 "$d/orig/$PROG" >/dev/null
		vmtime run 1 "$d/$CMP/$PROG" >/dev/null
		s0=$(awk '{ print $3 }' "/sys/block/$dev/stat")
		vmtime run "$READS" "$d/orig/$PROG" alpha "beta gamma" >/dev/null
		s1=$(awk '{ print $3 }' "/sys/block/$dev/stat")
		vmtime run "$READS" "$d/$CMP/$PROG" alpha "beta gamma" >/dev/null
		s2=$(awk '{ print $3 }' "/sys/block/$dev/stat")
		r reads fs="$label" thp="$mode" runs="$READS" orig_kb=$(((s1 - s0) / 2)) mad_kb=$(((s2 - s1) / 2)) b="$CMP"
	fi

	# Warm-start time, the original (a) against the rewrite (b).
	if [ -n "$EMPTY" ] && [ "${PAIRS:-0}" -gt 0 ] && [ -x "$d/$CMP/$EMPTY" ]; then
		vmtime run 2 "$d/orig/$EMPTY" >/dev/null
		vmtime run 2 "$d/$CMP/$EMPTY" >/dev/null
		# shellcheck disable=SC2046  # vmtime prints key=value words
		r time fs="$label" thp="$mode" $(vmtime pairs "$PAIRS" "${BATCH:-1}" "$d/orig/$EMPTY" "$d/$CMP/$EMPTY") b="$CMP"
	fi
	r elapsed fs="$label" thp="$mode" seconds=$(($(date +%s) - t0))
}

# The disks appear shortly after virtio_blk is loaded.
for spec in $DISKS; do
	dev=$(echo "$spec" | cut -d: -f2)
	n=0
	while [ ! -b "/dev/$dev" ] && [ $n -lt 100 ]; do sleep 0.1; n=$((n + 1)); done
done

r thp default="$(sed 's/.*\[\(.*\)\].*/\1/' $thp)" \
	pmd="$(cat /sys/kernel/mm/transparent_hugepage/hpage_pmd_size 2>/dev/null || echo unknown)"
mounted=
for spec in $DISKS; do
	label=$(echo "$spec" | cut -d: -f1)
	dev=$(echo "$spec" | cut -d: -f2)
	type=$(echo "$spec" | cut -d: -f3)
	opts=$(echo "$spec" | cut -d: -f4)
	mkdir -p "/mnt/$label"
	if mount -t "$type" -o "$opts" "/dev/$dev" "/mnt/$label" 2>/tmp/mount.err; then
		mounted="$mounted $spec"
		r mount fs="$label" dev="$dev" type="$type" opts="$opts" \
			read_ahead_kb="$(cat "/sys/block/$dev/queue/read_ahead_kb")"
	else
		r error "mount -t $type -o $opts /dev/$dev: $(cat /tmp/mount.err)"
	fi
done

if [ "$PROBE" = yes ]; then
	for spec in $mounted; do
		label=$(echo "$spec" | cut -d: -f1)
		drop
		# shellcheck disable=SC2046
		r probe fs="$label" $(vmtime probe "/mnt/$label/orig/$PROG" 2>&1)
	done
fi

for mode in $THPS; do
	echo "$mode" >$thp || r error "cannot set THP mode $mode"
	for spec in $mounted; do
		label=$(echo "$spec" | cut -d: -f1)
		dev=$(echo "$spec" | cut -d: -f2)
		measure_fs
	done
done
for spec in $mounted; do
	umount "/mnt/$(echo "$spec" | cut -d: -f1)"
done
