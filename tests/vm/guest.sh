#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 The elfpmd authors
# shellcheck disable=SC3043  # busybox sh has local
# guest.sh: the measurement the VM harness runs inside the guest (busybox sh;
# tests/vm/README).  /init runs it after loading the modules.  It reads
# /etc/vm.conf, written by the host:
#
#   DISKS   LABEL:DEVICE:FSTYPE:MOUNTOPTIONS ... (ext4:vda:ext4:defaults ...)
#   OVERLAYS  LABEL:LOWER[:FLAG,...] ...: overlayfs mounts measured as
#           file systems of their own after the DISKS (default none): at
#           /mnt/LABEL, lowerdir /mnt/LOWER (the mount of the DISKS label
#           LOWER), upperdir and workdir on a tmpfs of its own at
#           /ovl/LABEL (a "fresh" copy lands there); disk reads are counted
#           on LOWER's device.  FLAGs: "same": every layer on LOWER's file
#           system, as a container engine lays them out (overlayfs's
#           "samefs": st_dev is the overlay's): lowerdir
#           /mnt/LOWER/.ovl/lower, a tree of hard links to /mnt/LOWER's
#           BINS directories (the same inodes, so the same page cache),
#           upperdir and workdir in /mnt/LOWER/.ovl/LABEL (not inside
#           lowerdir, which overlayfs refuses); "hidden": each measurement
#           on it runs in a mount namespace of its own (unshare -m) where
#           /mnt/LOWER and /ovl/LABEL are lazily unmounted (umount -l), as
#           in a container whose /proc/self/mountinfo has no mount of the
#           layers' file systems; the overlay itself goes on working.
#           Needs the overlay module (lib.sh VM_OPT_MODULES).
#           (ovl-ext4:ext4 ovlh-ext4:ext4:hidden ovls-xfs:xfs:same ...)
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
#   LOCKS   rounds of the lock measurement (R lock; 0: none)
#   PROBE   yes: try PAGEMAP_SCAN, MADV_POPULATE_READ and MADV_COLLAPSE
#   NOASLR  yes: address-space randomisation off in the guest (TCG then
#           translates each program's code once; see below)
#   STRACE  yes: list the system calls of a warm start of EMPTY (R strace),
#           where the host put strace into /bin (VM_STRACE)
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
#   R calls fs=L thp=M uname_us=.. statfs_us=.. collapse_us=.. getppid_us=..
#                                      (STRACE=yes: vmtime calls, what each
#                                      of those system calls costs here)
#   R callstart fs=L thp=M call=C (vmtime pairs keys)  (STRACE=yes: each
#                                      of those calls, and all three, made
#                                      once by a fresh process against
#                                      none: a_us none, b_us C)
#   R strace fs=L thp=M bin=BIN calls=NAME,...  (STRACE=yes and /bin/strace:
#                                      the system calls of one warm start
#                                      of EMPTY, orig and each CMP, in order)
#   R reads fs=L thp=M runs=N orig_kb=K mad_kb=K b=CMP  (sectors read from
#                                      DEVICE during N warm starts of each;
#                                      mad_kb is CMP's)
#   R lock fs=L thp=M round=N free_us=.. held_us=.. holder=held  (LOCKS:
#                                      a start of mad's EMPTY from a cache
#                                      in 4 KiB folios while vmtime hold
#                                      holds another file (free) and the
#                                      file itself (held))
#   R time fs=L thp=M a_us=.. b_us=.. ratio=.. b=CMP  (vmtime pairs: a orig,
#                                      b CMP)
#   R rusage fs=L thp=M orig_minflt=N orig_rss_kb=K b_minflt=N b_rss_kb=K b=CMP
#                                      one more warm start of EMPTY each
#                                      after the pairs (busybox time -v):
#                                      minor page faults, maximum RSS
#   R mount fs=L dev=D type=T opts=O read_ahead_kb=N  a mounted DISKS
#                                      label (type=overlay: an OVERLAYS
#                                      label, dev its LOWER's, opts
#                                      lower=LOWER,hidden=yes|no,
#                                      upper=tmpfs|lower)
#   R ovl fs=L lower=LOWER lower_dev=MAJ:MIN ovl_dev=MAJ:MIN
#         evict_ovl_kb=K evict_lower_kb=K size_kb=K  (OVERLAYS, after the
#                                      mounts, in the initial namespace: the
#                                      kB read from LOWER's device by a read
#                                      of the lower file orig/PROG after
#                                      POSIX_FADV_DONTNEED through the
#                                      overlay's file (pagecache evict), and
#                                      after the same through the lower file,
#                                      the file cached before each)
#   R maps fs=L thp=M what=orig|fresh dev=MAJ:MIN ino=N path=P mountinfo=TYPE|none
#          st_dev=MAJ:MIN st_ino=N
#                                      OVERLAYS: the mapping of the
#                                      original's text (orig: its cold
#                                      reference run; fresh: its run in the
#                                      fresh state, a copy in the upper
#                                      layer), the /proc/PID/maps header of
#                                      its smaps copy, device in decimal,
#                                      and the type of the mount of that
#                                      device in the measuring process's
#                                      /proc/self/mountinfo (what the stub
#                                      finds there); st_dev and st_ino:
#                                      stat(2) of its path
#   R note ...                         something worth knowing
#   R error ...                        something that stopped a measurement

# shellcheck source=/dev/null
. /etc/vm.conf
BINS=${BINS:-orig mad}
CMP=${CMP:-mad}
OVERLAYS=${OVERLAYS:-}

r () { echo "R $*"; }
drop () { sync; echo 3 >/proc/sys/vm/drop_caches; }
thp=/sys/kernel/mm/transparent_hugepage/enabled

# pmd_kb SMAPS PATH: FilePmdMapped summed over PATH's executable mappings
# in SMAPS (the text's; the stub's guard can give read-only data PMD
# mappings too).
pmd_kb () {
	[ -s "$1" ] || { echo none; return; }
	awk -v p="$2" '/^[0-9a-f]+-[0-9a-f]+ / { cur = ($6 == p && $2 ~ /x/); next }
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
# A run that has not ended after HANG_LIMIT seconds (a run takes at most a
# few here, even under TCG on a busy host) is reported as an error with
# what its processes are doing (hang_report) and killed, so that one stuck
# start costs HANG_LIMIT seconds and says why, not the guest's whole time.
# One that SIGKILL does not end either (asleep in the kernel) is left
# behind: the watchdog's SIGUSR1 ends this shell's wait, and the run's
# status is "stuck".
start () {
	local pid w status
	rm -f "$3"
	# shellcheck disable=SC2086  # the wrapper's words
	FIXTURE_SMAPS=$3 $1 alpha "beta gamma" >"$2" 2>"$2.err" &
	pid=$!
	watchdog "$pid" "$1" &
	w=$!
	trap 'stuck=yes' USR1
	stuck=no
	wait "$pid"
	status=$?
	[ $stuck = yes ] && status=stuck
	trap - USR1
	kill "$w" 2>/dev/null
	wait "$w" 2>/dev/null
	echo "exit status $status" >>"$2"
}

# watchdog PID WHAT: after HANG_LIMIT seconds with PID alive (not yet a
# zombie), report the hang and kill PID's processes; if PID lives on 10 s
# after that, say so and signal this shell (start) to stop waiting.
watchdog () {
	gone_within "$1" "${HANG_LIMIT:-120}" && exit 0
	hang_report "$1" "$2"
	for q in $(descendants "$1") "$1"; do kill -9 "$q" 2>/dev/null; done
	gone_within "$1" 10 && exit 0
	r error "hang: $2 survives SIGKILL (state $(proc_field "$1" 2)); left behind"
	kill -USR1 $$
}

# proc_field PID N: field N of /proc/PID/stat counted from the state (2)
# on, after the command name, which may hold spaces: 3 is the parent.
proc_field () { cut -d ')' -f 2 "/proc/$1/stat" 2>/dev/null | cut -d ' ' -f "$2"; }

# alive PID: whether PID exists and has not exited.
alive () {
	local st
	st=$(proc_field "$1" 2)
	[ -n "$st" ] && [ "$st" != Z ]
}

# gone_within PID SECONDS: whether PID ends (or is a zombie) within
# SECONDS, looked at once a second.
gone_within () {
	local n=0
	while [ $n -lt "$2" ]; do
		sleep 1
		alive "$1" || return 0
		n=$((n + 1))
	done
	return 1
}

# descendants PID: the processes below PID, one per line.
descendants () {
	local f pp
	for f in /proc/[0-9]*/stat; do
		f=${f#/proc/}
		pp=$(proc_field "${f%/stat}" 3)
		if [ "$pp" = "$1" ]; then
			echo "${f%/stat}"
			descendants "${f%/stat}"
		fi
	done
}

# hang_report PID WHAT: "R error hang" and, for PID and each process below
# it, its state, wait channel, kernel stack and system call; then the
# kernel's blocked tasks (sysrq w) from its log.
hang_report () {
	local q
	r error "hang: $2 still running after ${HANG_LIMIT:-120} s; killed"
	for q in "$1" $(descendants "$1"); do
		r hang pid="$q" comm="$(cat "/proc/$q/comm" 2>/dev/null)" \
			state="$(proc_field "$q" 2)" \
			wchan="$(cat "/proc/$q/wchan" 2>/dev/null)" syscall="$(cat "/proc/$q/syscall" 2>/dev/null)"
		sed 's/^/R hang stack: /' "/proc/$q/stack" 2>/dev/null | head -n 20
		grep -E '^(VmRSS|Threads|SigBlk|SigPnd|ShdPnd)' "/proc/$q/status" 2>/dev/null | sed 's/^/R hang status: /'
	done
	dmesg -c >/dev/null 2>&1
	{ echo w >/proc/sysrq-trigger; } 2>/dev/null
	dmesg 2>/dev/null | tail -n 60 | sed 's/^/R hang dmesg: /'
	grep -E '^(MemFree|Cached|AnonHugePages|FileHugePages)' /proc/meminfo | sed 's/^/R hang meminfo: /'
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

# mountinfo_type MAJ:MIN: the type of the mount of device MAJ:MIN (decimal)
# in this process's /proc/self/mountinfo, "none" when it has none.
mountinfo_type () {
	awk -v d="$1" '$3 == d { for (i = 7; i < NF; i++) if ($i == "-") { print $(i + 1); f = 1; exit } }
		END { if (!f) print "none" }' /proc/self/mountinfo
}

# maps_line SMAPS PATH: "dev=MAJ:MIN ino=N path=P mountinfo=TYPE" of the
# first mapping in SMAPS whose path is PATH or ends in PATH's last two
# components (a kernel that shows another path for an overlay's file),
# the device in decimal, and "st_dev=MAJ:MIN st_ino=N", what stat(2) of
# PATH says (the stub matches the two to find the mapped file).
maps_line () {
	local m
	m=$(awk -v p="$2" '
		function hex(s,  i, v) {
			v = 0; s = tolower(s)
			for (i = 1; i <= length(s); i++) v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
			return v }
		BEGIN { n = split(p, c, "/"); tail = "/" c[n - 1] "/" c[n] }
		/^[0-9a-f]+-[0-9a-f]+ / && ($6 == p || substr($6, length($6) - length(tail) + 1) == tail) {
			split($4, d, ":"); print hex(d[1]) ":" hex(d[2]), $5, $6; exit }' "$1")
	if [ -z "$m" ]; then
		echo "dev=? ino=? path=? mountinfo=?"
		return
	fi
	# shellcheck disable=SC2086  # three words
	set -- $m
	local st
	st=$(stat -L -c '%d %i' "$3" 2>/dev/null) || st="0 0"
	# shellcheck disable=SC2086  # two words
	set -- "$@" $st
	echo "dev=$1 ino=$2 path=$3 mountinfo=$(mountinfo_type "$1")" \
		"st_dev=$((($4 >> 8) & 4095)):$((($4 & 255) | (($4 >> 12) & 1048320))) st_ino=$5"
}

# minflt PROG: run PROG once (busybox time -v), print its minor page
# faults, and leave its maximum resident set size (kB) in /tmp/rss.
minflt () {
	busybox time -v "$1" >/dev/null 2>/tmp/rusage
	sed -n 's/.*Maximum resident set size (kbytes): //p' /tmp/rusage >/tmp/rss
	sed -n 's/.*Minor (reclaiming a frame) page faults: //p' /tmp/rusage
}

# syscall_names PROG: the names of the system calls one run of PROG makes,
# in order, separated by commas (strace, without arguments).
syscall_names () {
	strace -qq -o /tmp/strace.out "$1" >/dev/null 2>&1
	sed -e 's/(.*//' -e '/^[+-]/d' /tmp/strace.out | tr '\n' ',' | sed 's/,$//'
}

measure_fs () {
	local d="/mnt/$label" k t0 b bstates
	t0=$(date +%s)
	drop
	start "$d/orig/$PROG" /tmp/ref.out /tmp/smaps
	r ref fs="$label" thp="$mode" status="$(tail -n 1 /tmp/ref.out | sed 's/exit status //')" \
		md5="$(md5sum /tmp/ref.out | cut -d ' ' -f 1)"
	# shellcheck disable=SC2046  # key=value words
	[ "$type" = overlay ] && r maps fs="$label" thp="$mode" what=orig $(maps_line /tmp/smaps "$d/orig/$PROG")
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
				# on an overlay the copy is the upper layer's (tmpfs)
				# shellcheck disable=SC2046  # key=value words
				[ "$type" = overlay ] && [ "$bin" = orig ] \
					&& r maps fs="$label" thp="$mode" what=fresh $(maps_line /tmp/smaps "$d/fresh/$PROG")
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
			# what one more warm start of each costs in page faults
			# and memory (the stub's advice and touches show here)
			r rusage fs="$label" thp="$mode" orig_minflt="$(minflt "$d/orig/$EMPTY")" orig_rss_kb="$(cat /tmp/rss)" \
				b_minflt="$(minflt "$d/$b/$EMPTY")" b_rss_kb="$(cat /tmp/rss)" b="$b"
			# and, where strace is in the guest (STRACE=yes), every system
			# call of one warm start of each, by name, in order: the
			# host takes the stub's from the difference
			if [ "${STRACE:-}" = yes ] && [ -x /bin/strace ]; then
				for x in orig "$b"; do
					r strace fs="$label" thp="$mode" bin="$x" calls="$(syscall_names "$d/$x/$EMPTY")"
				done
			fi
		fi
	done
	# and what those calls cost here, each
	if [ "${STRACE:-}" = yes ]; then
		# shellcheck disable=SC2046  # vmtime prints key=value words
		r calls fs="$label" thp="$mode" $(vmtime calls "$d/orig/$PROG" 2>&1)
		# and each, and all three, in a fresh process, once, against none
		for c in none uname statfs collapse all; do ln -sf /bin/vmtime "/tmp/call-$c"; done
		for c in uname statfs collapse all; do
			# shellcheck disable=SC2046
			r callstart fs="$label" thp="$mode" call="$c" $(vmtime pairs "$PAIRS" "${BATCH:-1}" /tmp/call-none "/tmp/call-$c")
		done
	fi
	# The wait for another user's lock (stub/lock.c): LOCKS rounds of a
	# start of mad's EMPTY from a cache in 4 KiB folios, so that its stub
	# repairs (where the kernel can), while vmtime hold holds the file's
	# flock and grows a read lock on it every millisecond (held), and
	# while it does the same on another file (free: the holder's own cost
	# to the machine, without the lock).
	if [ "${LOCKS:-0}" -gt 0 ] && [ -n "$EMPTY" ] && [ -x "$d/mad/$EMPTY" ]; then
		e=$d/mad/$EMPTY
		i=0
		while [ $i -lt "$LOCKS" ]; do
			i=$((i + 1))
			for on in "$d/orig/$EMPTY" "$e"; do
				vmtime hold "$on" >/tmp/hold.out 2>&1 &
				h=$!
				n=0
				while ! grep -q held /tmp/hold.out && [ $n -lt 50 ]; do
					sleep 0.1
					n=$((n + 1))
				done
				/bin/pagecache evict "$e" >/dev/null 2>&1
				/bin/pagecache order0 "$e" >/dev/null 2>&1
				us=$(vmtime once "$e" | sed -n 's/^us=\([0-9]*\).*/\1/p')
				kill $h
				wait $h 2>/dev/null
				if [ "$on" = "$e" ]; then held=$us; else free=$us; fi
			done
			r lock fs="$label" thp="$mode" round=$i free_us="$free" held_us="$held" \
				holder="$(head -1 /tmp/hold.out)"
		done
	fi
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

# sh /guest.sh hidden LABEL DEV MODE LOWER: measure_fs for the OVERLAYS
# label LABEL in THP mode MODE, run by unshare -m in a mount namespace of
# its own, after lazily unmounting /mnt/LOWER and /ovl/LABEL there.
if [ "${1:-}" = hidden ]; then
	label=$2 dev=$3 mode=$4 type=overlay
	{ umount -l "/mnt/$5" && if awk -v m="/ovl/$label" '$5 == m { f = 1 } END { exit !f }' /proc/self/mountinfo; then
		umount -l "/ovl/$label"; fi; } 2>/tmp/hide.err \
		|| { r error "fs=$label: umount -l /mnt/$5 /ovl/$label: $(cat /tmp/hide.err)"; exit 1; }
	measure_fs
	exit 0
fi

# The disks appear shortly after virtio_blk is loaded.
for spec in $DISKS; do
	dev=$(echo "$spec" | cut -d: -f2)
	n=0
	while [ ! -b "/dev/$dev" ] && [ $n -lt 100 ]; do sleep 0.1; n=$((n + 1)); done
done

# NOASLR=yes: every process at the same addresses, run after run, so that
# TCG, which keys its translated code by virtual address (QEMU before 8.0
# on x86), translates a program's code once, not at every start: what
# remains of a warm start is closer to what the guest's instructions cost.
if [ "${NOASLR:-}" = yes ]; then
	echo 0 >/proc/sys/kernel/randomize_va_space || r error "cannot turn address-space randomisation off"
fi
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

# The overlays (OVERLAYS): over a mounted DISKS label, each with its own
# tmpfs for upperdir and workdir; "LABEL:DEV:overlay:LOWER:HIDDEN" in
# $overlays (DEV: LOWER's device, where the reads are counted).
overlays=
for spec in $OVERLAYS; do
	label=$(echo "$spec" | cut -d: -f1)
	lower=$(echo "$spec" | cut -d: -f2)
	flags=,$(echo "$spec" | cut -s -d: -f3),
	hidden=no upper=tmpfs
	case $flags in *,hidden,*) hidden=yes ;; esac
	case $flags in *,same,*) upper=lower ;; esac
	dev=
	for s in $mounted; do
		[ "$(echo "$s" | cut -d: -f1)" = "$lower" ] && dev=$(echo "$s" | cut -d: -f2)
	done
	if [ -z "$dev" ]; then
		r error "overlay $label: its lower file system $lower is not mounted"
		continue
	fi
	mkdir -p "/mnt/$label"
	: >/tmp/mount.err
	if [ $upper = tmpfs ]; then
		lowerdir=/mnt/$lower u=/ovl/$label
		mkdir -p "$u"
		mount -t tmpfs tmpfs "$u" 2>/tmp/mount.err || u=
	else
		# every layer on LOWER's file system: the lower tree hard links
		# to the disk's files, made once per LOWER
		lowerdir=/mnt/$lower/.ovl/lower u=/mnt/$lower/.ovl/$label
		if [ ! -d "$lowerdir" ]; then
			mkdir -p "$lowerdir.new"
			for b in "/mnt/$lower"/*; do
				case ${b##*/} in fresh | lost+found) continue ;; esac
				[ -d "$b" ] && cp -al "$b" "$lowerdir.new/" 2>>/tmp/mount.err
			done
			mv "$lowerdir.new" "$lowerdir" 2>>/tmp/mount.err
		fi
		[ -d "$lowerdir" ] || u=
	fi
	if [ -z "$u" ] || ! mkdir -p "$u/upper" "$u/work" 2>>/tmp/mount.err \
		|| ! mount -t overlay overlay -o "lowerdir=$lowerdir,upperdir=$u/upper,workdir=$u/work" \
			"/mnt/$label" 2>>/tmp/mount.err; then
		r error "mount -t overlay $label over $lowerdir: $(cat /tmp/mount.err)"
		continue
	fi
	overlays="$overlays $label:$dev:overlay:$lower:$hidden"
	r mount fs="$label" dev="$dev" type=overlay opts="lower=$lower,hidden=$hidden,upper=$upper" \
		read_ahead_kb="$(cat "/sys/block/$dev/queue/read_ahead_kb")"
done

# What POSIX_FADV_DONTNEED through an overlay's file does to the lower
# file's page cache (which the stub never asks for on overlayfs): the kB
# read from the lower device by a read of the lower file after it, and
# after the same through the lower file itself.
for spec in $overlays; do
	label=$(echo "$spec" | cut -d: -f1)
	dev=$(echo "$spec" | cut -d: -f2)
	lower=$(echo "$spec" | cut -d: -f4)
	f=orig/$PROG
	kb=
	for via in "/mnt/$label" "/mnt/$lower"; do
		cat "/mnt/$lower/$f" >/dev/null
		/bin/pagecache evict "$via/$f" >/dev/null 2>&1 || r error "pagecache evict $via/$f failed"
		s0=$(awk '{ print $3 }' "/sys/block/$dev/stat")
		cat "/mnt/$lower/$f" >/dev/null
		s1=$(awk '{ print $3 }' "/sys/block/$dev/stat")
		kb="$kb $(((s1 - s0) / 2))"
	done
	# shellcheck disable=SC2086  # two words
	set -- $kb
	r ovl fs="$label" lower="$lower" \
		lower_dev="$(awk -v m="/mnt/$lower" '$5 == m { print $3; exit }' /proc/self/mountinfo)" \
		ovl_dev="$(awk -v m="/mnt/$label" '$5 == m { print $3; exit }' /proc/self/mountinfo)" \
		evict_ovl_kb="$1" evict_lower_kb="$2" size_kb=$(($(wc -c <"/mnt/$lower/$f") / 1024))
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
		# No recording of command names: it hooks sched_switch, and
		# the kernel patches its own text (jump labels, text_poke_bp:
		# int3, then an IPI to the other CPU) each time the first
		# event is enabled or the last disabled.  Under TCG that
		# cross-modifying code once left one vCPU in the int3 entry
		# with interrupts off and the other waiting for its IPI
		# (6.1, 2 vCPUs: an RCU stall, the guest hung until it was
		# killed); the uprobe events themselves patch no kernel text.
		echo 0 >"$TRACEFS/options/record-cmd" 2>/dev/null \
			|| r note "cannot turn off tracefs options/record-cmd: enabling an event patches kernel text"
	else
		TRACEFS_WHY="no tracefs with uprobe_events ($(cat /tmp/tracefs.err 2>/dev/null))"
	fi
fi

for mode in $THPS; do
	echo "$mode" >$thp || r error "cannot set THP mode $mode"
	for spec in $mounted $overlays; do
		label=$(echo "$spec" | cut -d: -f1)
		dev=$(echo "$spec" | cut -d: -f2)
		type=$(echo "$spec" | cut -d: -f3)
		if [ "$type" = overlay ] && [ "$(echo "$spec" | cut -d: -f5)" = yes ]; then
			unshare -m sh /guest.sh hidden "$label" "$dev" "$mode" "$(echo "$spec" | cut -d: -f4)" \
				|| r error "fs=$label thp=$mode: unshare -m failed"
		else
			measure_fs
		fi
	done
done
for spec in $overlays; do
	label=$(echo "$spec" | cut -d: -f1)
	umount "/mnt/$label"
	[ -d "/ovl/$label" ] && umount "/ovl/$label"
done
for spec in $mounted; do
	umount "/mnt/$(echo "$spec" | cut -d: -f1)"
done
