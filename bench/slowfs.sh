# A slow file system for what-if replays (sourced; definitions only):
# ext4 on a loop device whose I/O a cgroup throttles (cgroup v2 io.max in
# a group of its own where the io controller is there; else the v1
# blkio.throttle rule of the device in the root group, where the flusher
# and the journal's thread are, every task's I/O to it held). Needs root.
#
#   slowfs_make IOPS BPS   mounts it on $slow_mnt, the cgroup $slow_cg
#                          (returns non-zero, $slow_why saying why, when
#                          it cannot)
#   slowfs_rate IOPS BPS   changes the throttle
#   slowfs_fresh           makes the file system again, empty (before
#                          every measured run: see there)
#   slow_run CMD...        runs CMD in the throttled cgroup
#   slowfs_drop            undoes everything (call it from a trap)
# The image goes in $SLOWFS_DIR (default /var/tmp), never in memory.

slowfs_drop() {
	cd / || return
	if [ -n "$slow_cg" ] && [ -d "$slow_cg" ] && [ "$slow_cg" != "$slow_v1root" ]; then
		# processes left in it go back to the parent first
		parent=$(dirname "$slow_cg")
		for p in $(cat "$slow_cg/cgroup.procs" 2>/dev/null); do
			echo "$p" > "$parent/cgroup.procs" 2>/dev/null
		done
		rmdir "$slow_cg" 2>/dev/null
	fi
	# the device's rules go before the device (0: no rule)
	if [ -n "$slow_v1root" ] && [ -n "$slow_dev" ]; then
		for f in write_iops read_iops write_bps read_bps; do
			echo "$slow_dev 0" > "$slow_v1root/blkio.throttle.${f}_device" 2>/dev/null
		done
	fi
	[ -n "$slow_mnt" ] && mountpoint -q "$slow_mnt" && umount "$slow_mnt"
	[ -n "$slow_mnt" ] && rmdir "$slow_mnt" 2>/dev/null
	[ -n "$slow_loop" ] && losetup -d "$slow_loop" 2>/dev/null
	[ -n "$slow_img" ] && rm -f "$slow_img"
	slow_cg= slow_mnt= slow_loop= slow_img= slow_v1root= slow_dev=
}

slowfs_make() {
	iops=$1 bps=$2
	slow_why=
	[ "$(id -u)" = 0 ] || { slow_why="not root"; return 1; }
	command -v losetup > /dev/null && command -v mkfs.ext4 > /dev/null ||
		{ slow_why="no losetup or mkfs.ext4"; return 1; }
	slow_img=$(mktemp "${SLOWFS_DIR:-/var/tmp}/island-slowfs.XXXXXX") || { slow_why="no image"; return 1; }
	truncate -s "${SLOWFS_SIZE:-1G}" "$slow_img" &&
		slow_loop=$(losetup -f --show "$slow_img" 2>/dev/null) ||
		{ slow_why="no loop device"; slowfs_drop; return 1; }
	slowfs_mkfs || { slow_why="mkfs failed"; slowfs_drop; return 1; }
	slow_mnt=$(mktemp -d /tmp/island-slowfs-mnt.XXXXXX)
	mount "$slow_loop" "$slow_mnt" || { slow_why="mount failed"; slowfs_drop; return 1; }
	slow_iops=$iops slow_bps=$bps
	dev=$(lsblk -dno MAJ:MIN "$slow_loop" | tr -d ' ')
	slow_dev=$dev
	v2=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)
	v1=$(awk '$3 == "cgroup" && $4 ~ /blkio/ { print $2; exit }' /proc/mounts)
	if [ -n "$v2" ] && grep -qw io "$v2/cgroup.controllers" 2>/dev/null &&
	   { grep -qw io "$v2/cgroup.subtree_control" || echo +io > "$v2/cgroup.subtree_control"; } 2>/dev/null; then
		slow_cg=$(mktemp -d "$v2/island-slowfs.XXXXXX")
		slow_dev=$dev
		echo "$dev wiops=$iops riops=$iops wbps=$bps rbps=$bps" > "$slow_cg/io.max" ||
			{ slow_why="io.max refused"; slowfs_drop; return 1; }
		slow_how="cgroup v2 io.max"
	elif [ -n "$v1" ] && [ -e "$v1/blkio.throttle.write_iops_device" ]; then
		# v1 attributes buffered writeback to the flusher and the
		# journal to jbd2, both in the root group: the device's rule
		# is set there, for every task (the device is ours alone),
		# and taken back by slowfs_drop
		slow_cg=$v1	# its tasks run in the root group too
		slow_v1root=$v1
		for f in write_iops read_iops; do
			echo "$dev $iops" > "$v1/blkio.throttle.${f}_device" || { slow_why="blkio refused"; slowfs_drop; return 1; }
		done
		for f in write_bps read_bps; do
			echo "$dev $bps" > "$v1/blkio.throttle.${f}_device" || { slow_why="blkio refused"; slowfs_drop; return 1; }
		done
		slow_how="cgroup v1 blkio.throttle (the device's, every task)"
	else
		slow_why="no io controller (cgroup v2 io or v1 blkio)"
		slowfs_drop
		return 1
	fi
	return 0
}

# Initialised whole now (inode tables, journal): else ext4lazyinit
# zeroes them in the background, in the measured runs' I/O budget.
slowfs_mkfs() {
	mkfs.ext4 -q -F -E lazy_itable_init=0,lazy_journal_init=0 "$slow_loop" > /dev/null 2>&1
}

# Every measured run starts on a file system made for it. On one used
# before, where a run's files went (which block groups, what the journal
# and the allocator had left) set its time: sqlite's 100 transactions at
# 200 IOPS took 6.6 s on the first run after mkfs and 7.1-7.7 s on later
# ones, as directories of their own or the same one made again, with no
# other work between them, and the replays' 6.6-7.3 s likewise; the
# what-if replays compared two draws of that, 5-7 % apart in their
# medians of 3. Made again before each: 6.57-6.60 s real, 6.60-6.65 s
# replayed (4 of each). Unthrottled meanwhile (mkfs writes the tables).
slowfs_fresh() {
	umount "$slow_mnt" || return 1
	slowfs_rate 0 0
	slowfs_mkfs && mount "$slow_loop" "$slow_mnt" && sync -f "$slow_mnt" || return 1
	slowfs_rate "$slow_iops" "$slow_bps"
}

# (0 0: none, for a while; the rate otherwise kept for slowfs_fresh)
slowfs_rate() {
	[ "$1" = 0 ] || slow_iops=$1 slow_bps=$2
	if [ -n "$slow_v1root" ]; then
		for f in write_iops read_iops; do echo "$slow_dev $1" > "$slow_v1root/blkio.throttle.${f}_device"; done
		for f in write_bps read_bps; do echo "$slow_dev $2" > "$slow_v1root/blkio.throttle.${f}_device"; done
	elif [ "$1" = 0 ]; then
		echo "$slow_dev wiops=max riops=max wbps=max rbps=max" > "$slow_cg/io.max"
	else
		echo "$slow_dev wiops=$1 riops=$1 wbps=$2 rbps=$2" > "$slow_cg/io.max"
	fi
}

slow_run() {
	sh -c 'echo $$ > "$1/cgroup.procs" && shift && exec "$@"' slow_run "$slow_cg" "$@"
}
