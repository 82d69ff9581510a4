#!/bin/bash
# --sparse=always makes holes of zero runs even where the source has no
# holes, as GNU cp does: the plan keeps copy_file_range and splice out
# (they copy zeros as data), read_write leaves a hole for every zero block
# of the destination's st_blksize, a short zero block at the end included,
# and ftruncate gives the file its size.  Checked against GNU cp's block
# counts between tmpfs (4 KiB blocks) and ext4 (1 KiB blocks on these small
# images), and on btrfs, where cp (--reflink=auto) still clones first.
# A block device cannot hold holes, so there every byte is written.
set -eu
. "$(dirname "$0")/lib.sh"
need_root
need_cmd strace

GNU_CP=$(command -v cp)
"$GNU_CP" --version 2>/dev/null | grep -q 'GNU coreutils' || skip "needs GNU cp"

mount_tmpfs "$T/tmpfs" 64M
mount_ext4 "$T/ext4"

KiB=1024
MiB=$((1024 * KiB))

# The files: the shape from the bug report (one byte, then 255 KiB of
# written zeros), zeros between data, zeros at the end ending in a short
# block, and nothing but zeros.  Every block of each is allocated.
make_files() {
	local d=$1
	printf x >"$d/k"
	dd bs=1k seek=1 of="$d/k" count=255 </dev/zero status=none
	{ head -c 5000 /dev/urandom; head -c $MiB /dev/zero
	  head -c 7000 /dev/urandom; } >"$d/mid"
	{ head -c 5000 /dev/urandom; head -c $((MiB + 123)) /dev/zero; } \
		>"$d/end"
	head -c $MiB /dev/zero >"$d/zero"
	sync
	[ $(($(blocks "$d/k") * 512)) -ge $((256 * KiB)) ] ||
		fail "$d/k is not allocated ($(blocks "$d/k") blocks)"
}

# check_like_cp SRC DST [OPTIONS...]: GNU cp and smartcp, both with
# --sparse=always and OPTIONS, give the same bytes, size and block count,
# and smartcp called neither copy_file_range nor splice.
check_like_cp() {
	local src=$1 dst=$2 gb sb
	shift 2
	rm -f "$dst.cp" "$dst"
	"$GNU_CP" --sparse=always "$@" "$src" "$dst.cp" ||
		fail "cp --sparse=always $* $src exited $?"
	trace_smartcp "$T/log" --sparse=always "$@" "$src" "$dst" ||
		fail "smartcp --sparse=always $* $src $dst exited $?"
	assert_size "$dst" "$(stat -c %s "$src")"
	assert_same "$src" "$dst"
	assert_calls "$T/log" copy_file_range -eq 0
	assert_calls "$T/log" splice -eq 0
	sync
	gb=$(blocks "$dst.cp")
	sb=$(blocks "$dst")
	assert_eq "$sb" "$gb" \
		"blocks of $dst ($(fs_type "$dst")), GNU cp's $dst.cp"
	pass "${src#"$T"/} -> ${dst#"$T"/}: $sb blocks as cp, of $(blocks "$src"); no copy_file_range, no splice"
}

make_files "$T/tmpfs"
make_files "$T/ext4"
mkdir "$T/tmpfs/out" "$T/ext4/out"

for from in tmpfs ext4; do
	for to in tmpfs ext4; do
		say "$from -> $to, --reflink=never --sparse=always"
		for f in k mid end zero; do
			check_like_cp "$T/$from/$f" "$T/$to/out/$f.$from" \
				--reflink=never
		done
	done
done

say "the file from the report: 8 blocks on tmpfs, with the default --reflink"
check_like_cp "$T/ext4/k" "$T/tmpfs/out/k.auto"
assert_eq "$(blocks "$T/tmpfs/out/k.auto")" 8 "blocks of k.auto"

say "--explain names the rule"
assert_exit 0 "$SMARTCP" --explain --sparse=always "$T/ext4/mid" \
	"$T/ext4/out/explained"
assert_grep 'copy_file_range \(--sparse=always: zero runs must be seen to become holes\)' "$OUT"
assert_grep 'splice \(--sparse=always: zero runs must be seen to become holes\)' "$OUT"
pass "--explain: copy_file_range and splice skipped for --sparse=always"

say "--road beats the rule: copy_file_range copies the zeros as data"
rm -f "$T/ext4/out/forced"
trace_smartcp "$T/log" --sparse=always --road=copy_file_range \
	"$T/ext4/k" "$T/ext4/out/forced" || fail "smartcp --road exited $?"
assert_same "$T/ext4/k" "$T/ext4/out/forced"
assert_ok_calls "$T/log" copy_file_range -ge 1
pass "--road=copy_file_range --sparse=always: $(roads_called "$T/log")"

say "a block device cannot hold holes: every byte is written, as by cp"
need_cmd losetup
truncate -s $MiB "$T/bdev.img"
dev=$(losetup -f --show "$T/bdev.img") || fail "losetup failed"
_register loop "$dev"
truncate -s 300K "$T/ext4/sparse"		# a hole, data, a hole
head -c 3000 /dev/urandom | dd of="$T/ext4/sparse" bs=1K seek=100 \
	conv=notrunc status=none
sync
# fill_dev: 0xff everywhere, so a skipped block shows.
fill_dev() {
	head -c $MiB /dev/zero | tr '\0' '\377' |
		dd of="$dev" bs=64K oflag=direct status=none ||
		fail "cannot fill $dev"
}
# check_dev SRC [OPTIONS...]: the device holds SRC's bytes after the copy.
check_dev() {
	local src=$1
	shift
	fill_dev
	assert_exit 0 "$SMARTCP" "$@" "$src" "$dev"
	cmp -n "$(stat -c %s "$src")" "$src" "$dev" ||
		fail "smartcp $* ${src#"$T"/} $dev: the device differs from the source"
	pass "smartcp $* ${src#"$T"/} $dev: every byte written"
}
check_dev "$T/ext4/k" --sparse=always --road=read_write
check_dev "$T/ext4/zero" --sparse=always
check_dev "$T/ext4/sparse"

if ! command -v mkfs.btrfs >/dev/null 2>&1; then
	say "mkfs.btrfs not installed: clone with --sparse=always not checked"
	exit 0
fi
mount_btrfs "$T/btrfs"
make_files "$T/btrfs"

say "btrfs: --sparse=always still clones, as cp --reflink=auto does"
for f in k mid; do
	rm -f "$T/btrfs/$f.cp" "$T/btrfs/$f.clone"
	strace -f -qq -e trace=ioctl -o "$T/cplog" \
		"$GNU_CP" --sparse=always "$T/btrfs/$f" "$T/btrfs/$f.cp" ||
		fail "cp --sparse=always exited $?"
	assert_ok_calls "$T/cplog" FICLONE -ge 1
	trace_smartcp "$T/log" --sparse=always "$T/btrfs/$f" \
		"$T/btrfs/$f.clone" || fail "smartcp --sparse=always exited $?"
	assert_same "$T/btrfs/$f" "$T/btrfs/$f.clone"
	assert_ok_calls "$T/log" FICLONE -ge 1
	assert_calls "$T/log" copy_file_range -eq 0
	assert_calls "$T/log" splice -eq 0
	pass "btrfs/$f: cloned, as cp: $(roads_called "$T/log")"
done

say "btrfs: --reflink=never --sparse=always makes the holes cp makes"
for f in k mid end zero; do
	check_like_cp "$T/btrfs/$f" "$T/btrfs/$f.never" --reflink=never
done
