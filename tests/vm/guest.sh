#!/bin/sh
# shellcheck disable=SC3043  # busybox sh has local
# guest.sh: the measurement the VM harness runs inside the guest (busybox sh;
# tests/vm/README).  /init runs it after loading the modules.  It reads
# /etc/vm.conf, written by the host:
#
#   DISKS   LABEL:DEVICE:FSTYPE:MOUNTOPTIONS ... (ext4:vda:ext4:defaults ...)
#   THPS    THP modes to measure in, in order (madvise, always)
#   STATES  page cache states: cold warm order0 fresh concurrent thpoff
#           (thpoff: a start under PR_SET_THP_DISABLE, /bin/thp-off, with
#           the cache as the state before left it: warm after the others)
#   STATES_BIN  the states of binary BIN, when not STATES (STATES_copy=...)
#   BINS    the binaries, each a directory /mnt/LABEL/BIN holding PROG
#           (and EMPTY): orig (the original; always first: the reference),
#           align (elfpmd's rewrite without stub), mad (elfpmd --madvise),
#           copy (elfpmd --madvise=copy), self (a program that madvises its
#           own text); default "orig mad"
#   PROG    the fixture's file name (mad-pie) under /mnt/LABEL/BIN
#   EMPTY   the same text with a main that returns at once (warm-start
#           timing), or empty for none
#   CMP     the binaries measured against orig for disk reads and timing,
#           one after the other (default mad)
#   PAIRS   timed A/B pairs of warm starts of EMPTY
#   BATCH   warm starts in each half of a pair (timed together)
#   READS   warm starts of PROG counted for the disk reads
#   PROBE   yes: try PAGEMAP_SCAN, MADV_POPULATE_READ and MADV_COLLAPSE
#   INV     the second fixture's file name (inv-pie: an exported function
#           mid in a whole chunk) under /mnt/LABEL/BIN, or empty for none;
#           with INV_BINS (orig first), INV_FS (labels), INV_THP (the THP
#           mode), INV_STATES (cold warm order0), INV_OFF_BIN (mid's offset
#           from the load base of BIN's file, for vmtime break) and
#           INV_FOFF_BIN (its file offset, for a uprobe), each binary runs
#           plain, with LD_PRELOAD=/bin/invpatch.so (patches mid to return
#           99), under vmtime break (a breakpoint on mid set at the execve,
#           as gdb sets one) and with a uprobe on mid registered before the
#           start (when the kernel has uprobe events)
#
# Every result is one line "R WHAT key=value ...", for the host to parse:
#   R thp default=MODE pmd=BYTES       the kernel's THP mode at boot, its
#                                      PMD size (hpage_pmd_size)
#   R probe fs=L pagemap_scan=.. populate_read=.. collapse=.. collapse_pmd_kb=N
#   R ref fs=L thp=M status=S md5=SUM  the original's cold output (with
#                                      its "exit status N" line)
#   R run fs=L thp=M bin=BIN state=S same=yes|no status=S pmd_kb=N anon_kb=N
#                                      pmd_kb: FilePmdMapped of PROG's
#                                      mappings; anon_kb: AnonHugePages of
#                                      the anonymous executable mappings
#                                      (the text --madvise=copy copied)
#   R diff ...                         the first lines of a differing output
#   R inv fs=L thp=M bin=BIN state=S how=plain|preload|break|uprobe
#         same=yes|no status=S mid=N hits=N pmd_kb=N anon_kb=N
#                                      INV's runs: same compares with orig's
#                                      run of the same how and state; mid
#                                      what mid() returned last; hits the
#                                      breakpoint's or uprobe's ("-": none)
#   R reads fs=L thp=M runs=N orig_kb=K mad_kb=K b=CMP  (sectors read from
#                                      DEVICE during N warm starts of each;
#                                      mad_kb is CMP's)
#   R time fs=L thp=M a_us=.. b_us=.. ratio=.. b=CMP  (vmtime pairs: a orig,
#                                      b CMP)
#   R note ...                         something worth knowing
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

# anon_kb SMAPS: AnonHugePages summed over the anonymous executable
# mappings in SMAPS (r-x, inode 0, unnamed or named "[anon:elfpmd copy of
# PATH]"; not [vdso] or [vsyscall]): the text --madvise=copy copied.
anon_kb () {
	[ -s "$1" ] || { echo none; return; }
	awk '/^[0-9a-f]+-[0-9a-f]+ / {
			cur = $2 ~ /^r-x/ && $5 == 0 && (NF == 5 || $0 ~ / \[anon:elfpmd copy of /); next }
		cur && $1 == "AnonHugePages:" { kb += $2 }
		END { print kb + 0 }' "$1"
}

# start PATH OUT SMAPS: run the fixture PATH with the arguments every run
# gets, its stdout and "exit status N" into OUT, its smaps copy into SMAPS.
# PATH may be preceded by a wrapper and its arguments, one word each
# ("/bin/thp-off /mnt/ext4/copy/mad-pie").
start () {
	rm -f "$3"
	# shellcheck disable=SC2086  # the wrapper's words
	FIXTURE_SMAPS=$3 timeout 300 $1 alpha "beta gamma" >"$2" 2>"$2.err"
	echo "exit status $?" >>"$2"
}

# record STATE PATH OUT SMAPS: the result line of one run.
record () {
	local same=no
	cmp -s /tmp/ref.out "$3" && same=yes
	r run fs="$label" thp="$mode" bin="$bin" state="$1" same=$same \
		status="$(tail -n 1 "$3" | sed 's/exit status //')" pmd_kb="$(pmd_kb "$4" "$2")" \
		anon_kb="$(anon_kb "$4")"
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

# prep STATE PATH: put PATH in the page cache state STATE before a run:
# cold (dropped), warm (after one run), order0 (cached in 4 KiB folios).
prep () {
	case $1 in
	cold) drop ;;
	warm) start "$2" /tmp/out /tmp/smaps ;;
	order0)
		drop
		/bin/pagecache order0 "$2" >/dev/null 2>&1 || r error "pagecache order0 $2 failed" ;;
	esac
}

measure_fs () {
	local d="/mnt/$label" k t0 b bstates
	t0=$(date +%s)
	drop
	start "$d/orig/$PROG" /tmp/ref.out /tmp/smaps
	r ref fs="$label" thp="$mode" status="$(tail -n 1 /tmp/ref.out | sed 's/exit status //')" \
		md5="$(md5sum /tmp/ref.out | cut -d ' ' -f 1)"
	for bin in $BINS; do
		p=$d/$bin/$PROG
		eval "bstates=\${STATES_$bin-\$STATES}"
		for state in $bstates; do
			case $state in
			cold | warm | order0)
				prep "$state" "$p"
				one "$state" "$p" ;;
			thpoff)
				# A start under PR_SET_THP_DISABLE (inherited
				# across execve), the file cached by the states
				# before: the stub must do nothing at all.
				start "/bin/thp-off $p" /tmp/out /tmp/smaps
				record thpoff "$p" /tmp/out /tmp/smaps ;;
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
	# /sys/block/DEV/stat) during READS starts of each, after one each;
	# then the warm-start time, the original (a) against CMP (b); for each
	# binary of CMP.
	sync
	for b in $CMP; do
		if [ "${READS:-0}" -gt 0 ] && [ -x "$d/$b/$PROG" ]; then
			vmtime run 1 "$d/orig/$PROG" >/dev/null
			vmtime run 1 "$d/$b/$PROG" >/dev/null
			s0=$(awk '{ print $3 }' "/sys/block/$dev/stat")
			vmtime run "$READS" "$d/orig/$PROG" alpha "beta gamma" >/dev/null
			s1=$(awk '{ print $3 }' "/sys/block/$dev/stat")
			vmtime run "$READS" "$d/$b/$PROG" alpha "beta gamma" >/dev/null
			s2=$(awk '{ print $3 }' "/sys/block/$dev/stat")
			r reads fs="$label" thp="$mode" runs="$READS" orig_kb=$(((s1 - s0) / 2)) mad_kb=$(((s2 - s1) / 2)) b="$b"
		fi
		if [ -n "$EMPTY" ] && [ "${PAIRS:-0}" -gt 0 ] && [ -x "$d/$b/$EMPTY" ]; then
			vmtime run 2 "$d/orig/$EMPTY" >/dev/null
			vmtime run 2 "$d/$b/$EMPTY" >/dev/null
			# shellcheck disable=SC2046  # vmtime prints key=value words
			r time fs="$label" thp="$mode" $(vmtime pairs "$PAIRS" "${BATCH:-1}" "$d/orig/$EMPTY" "$d/$b/$EMPTY") b="$b"
		fi
	done
	case " $INV_FS " in
	*" $label "*) [ -n "$INV" ] && [ "$mode" = "$INV_THP" ] && measure_inv ;;
	esac
	r elapsed fs="$label" thp="$mode" seconds=$(($(date +%s) - t0))
}

# inv_run HOW STATE BIN: one run of INV's binary BIN, prepared in the
# page cache state STATE, plain, under the preload, under vmtime break or
# with a uprobe on mid; its result line.  orig's run of each HOW and STATE
# is the reference of the others' (/tmp/inv.HOW.STATE).
inv_run () {
	local how="$1" state="$2" bin="$3" p="/mnt/$label/$3/$INV" off foff hits=- ev ref mid same=no
	eval "off=\$INV_OFF_$bin foff=\$INV_FOFF_$bin"
	prep "$state" "$p"
	case $how in
	plain) start "$p" /tmp/inv.out /tmp/inv.smaps ;;
	preload) start "env LD_PRELOAD=/bin/invpatch.so $p" /tmp/inv.out /tmp/inv.smaps ;;
	break)
		start "/bin/vmtime break $off $p" /tmp/inv.out /tmp/inv.smaps
		hits=$(sed -n 's/^vmtime break: hits=//p' /tmp/inv.out.err)
		[ -n "$hits" ] || hits='?' ;;
	uprobe)
		ev=elfpmd_vm/$bin
		if ! echo "p:$ev $p:$foff" >>"$TRACEFS/uprobe_events" 2>/tmp/uprobe.err; then
			r error "uprobe $p:$foff: $(cat /tmp/uprobe.err)"
			return
		fi
		echo 1 >"$TRACEFS/events/$ev/enable"
		: >"$TRACEFS/trace"
		start "$p" /tmp/inv.out /tmp/inv.smaps
		hits=$(grep -c " $bin: " "$TRACEFS/trace")
		echo 0 >"$TRACEFS/events/$ev/enable"
		echo "-:$ev" >>"$TRACEFS/uprobe_events" ;;
	esac
	ref=/tmp/inv.$how.$state
	[ "$bin" = "${INV_BINS%% *}" ] && cp /tmp/inv.out "$ref"
	cmp -s "$ref" /tmp/inv.out && same=yes
	mid=$(sed -n 's/^mid() = //p' /tmp/inv.out | tail -n 1)
	r inv fs="$label" thp="$mode" bin="$bin" state="$state" how="$how" same=$same \
		status="$(tail -n 1 /tmp/inv.out | sed 's/exit status //')" mid="${mid:-?}" hits="$hits" \
		pmd_kb="$(pmd_kb /tmp/inv.smaps "$p")" anon_kb="$(anon_kb /tmp/inv.smaps)"
	if [ $same = no ]; then
		diff "$ref" /tmp/inv.out | head -n 6 | sed 's/^/R diff /'
		head -n 3 /tmp/inv.out.err | sed 's/^/R diff stderr: /'
	fi
}

# measure_inv: INV's runs on this file system, every HOW, STATE and BIN.
measure_inv () {
	local how state bin
	for how in plain preload break uprobe; do
		if [ "$how" = uprobe ] && [ -z "$TRACEFS" ]; then
			r note "no uprobe runs: $TRACEFS_WHY"
			continue
		fi
		for state in $INV_STATES; do
			for bin in $INV_BINS; do
				inv_run "$how" "$state" "$bin"
			done
		done
	done
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

# uprobes for INV's runs: tracefs, mounted where the kernel has it.
TRACEFS='' TRACEFS_WHY=''
if [ -n "$INV" ]; then
	if [ -e /sys/kernel/tracing/uprobe_events ] \
		|| { mount -t tracefs nodev /sys/kernel/tracing 2>/tmp/tracefs.err && [ -e /sys/kernel/tracing/uprobe_events ]; }; then
		TRACEFS=/sys/kernel/tracing
	else
		TRACEFS_WHY="no tracefs with uprobe_events ($(cat /tmp/tracefs.err 2>/dev/null))"
	fi
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
