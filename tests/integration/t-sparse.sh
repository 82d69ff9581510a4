#!/bin/bash
# Holes survive the copy (--sparse=auto, the default) on every road and
# between filesystems: the copy has the exact size and bytes and does not
# allocate more than the source.  --sparse=never allocates every byte;
# --sparse=always makes holes from runs of zeros.
set -eu
. "$(dirname "$0")/lib.sh"
need_root
need_cmd strace

MiB=$((1024 * 1024))
slack=64	# 512-byte blocks the copy may allocate beyond the source

mount_ext4 "$T/ext4"
mount_btrfs "$T/btrfs"
mount_tmpfs "$T/tmpfs" 256M

# make_sparse FILE: 64 MiB + 5 bytes; 64 KiB of data at 0, 5, 17 and
# 40 MiB, 3000 bytes at 50 MiB + 1, and a hole at the end.
# make_sparse_tail FILE: the same shape but ending in data.
make_sparse() {
	local off
	: >"$1"
	truncate -s $((64 * MiB + 5)) "$1"
	for off in 0 5 17 40; do
		dd if=/dev/urandom of="$1" bs=64K count=1 seek=$((off * 16)) \
			conv=notrunc status=none
	done
	head -c 3000 /dev/urandom |
		dd of="$1" bs=1M seek=$((50 * MiB + 1)) oflag=seek_bytes \
			conv=notrunc status=none
	[ $(($(blocks "$1") * 512)) -lt $((8 * MiB)) ] ||
		fail "$1 is not sparse on $(fs_type "$1") ($(blocks "$1") blocks)"
}
make_sparse_tail() {
	make_sparse "$1"
	head -c 4099 /dev/urandom >>"$1"
}

for d in ext4 btrfs tmpfs; do
	make_sparse "$T/$d/hole-end"
	make_sparse_tail "$T/$d/data-end"
done
sync

# check_sparse SRC DST [OPTIONS...]: copy, trace into $T/log, and check
# size, bytes and allocation.
check_sparse() {
	local src=$1 dst=$2 sb db
	shift 2
	rm -f "$dst"
	trace_smartcp "$T/log" "$@" "$src" "$dst" ||
		fail "smartcp $* $src $dst exited $?"
	assert_size "$dst" "$(stat -c %s "$src")"
	assert_same "$src" "$dst"
	sync
	sb=$(blocks "$src")
	db=$(blocks "$dst")
	assert_le "$db" $((sb + slack)) \
		"blocks of $dst ($(fs_type "$dst")) vs $src ($(fs_type "$src"))"
	pass "${src#"$T"/} -> ${dst#"$T"/}${*:+ $*}: size, bytes, $db blocks <= $sb + $slack"
}

for f in hole-end data-end; do
	say "$f: sparse copies between filesystems (--sparse=auto)"
	check_sparse "$T/ext4/$f" "$T/ext4/$f.copy"
	check_sparse "$T/btrfs/$f" "$T/btrfs/$f.copy"
	check_sparse "$T/ext4/$f" "$T/tmpfs/$f.from-ext4"
	check_sparse "$T/tmpfs/$f" "$T/ext4/$f.from-tmpfs"

	say "$f: every road keeps holes (ext4 -> ext4)"
	check_sparse "$T/ext4/$f" "$T/ext4/$f.rw" --road=read_write
	assert_calls "$T/log" copy_file_range -eq 0
	assert_calls "$T/log" splice -eq 0
	assert_calls "$T/log" FICLONE -eq 0
	check_sparse "$T/ext4/$f" "$T/ext4/$f.splice" --road=splice
	assert_ok_calls "$T/log" splice -ge 1
	assert_calls "$T/log" copy_file_range -eq 0
	assert_calls "$T/log" FICLONE -eq 0
	check_sparse "$T/ext4/$f" "$T/ext4/$f.cfr" --road=copy_file_range
	assert_ok_calls "$T/log" copy_file_range -ge 1
	assert_calls "$T/log" splice -eq 0
	assert_calls "$T/log" FICLONE -eq 0
	pass "$f: read_write, splice and copy_file_range each took their road"
done

say "--sparse=never allocates every byte"
for dst in "$T/ext4/never" "$T/tmpfs/never"; do
	rm -f "$dst"
	"$SMARTCP" --sparse=never "$T/ext4/hole-end" "$dst" ||
		fail "smartcp --sparse=never exited $?"
	assert_same "$T/ext4/hole-end" "$dst"
	sync
	[ $(($(blocks "$dst") * 512)) -ge $((64 * MiB)) ] ||
		fail "--sparse=never copy $dst has only $(blocks "$dst") blocks"
	pass "${dst#"$T"/}: $(blocks "$dst") blocks"
	rm -f "$dst"
done

say "--sparse=always makes holes from zeros (read_write)"
src=$T/ext4/zeros
head -c $((8 * MiB)) /dev/zero >"$src"
head -c 5000 /dev/urandom >>"$src"
head -c $((8 * MiB)) /dev/zero >>"$src"
sync
[ $(($(blocks "$src") * 512)) -ge $((16 * MiB)) ] || fail "$src is not allocated"
"$SMARTCP" --sparse=always --road=read_write "$src" "$T/ext4/zeros.copy" ||
	fail "smartcp --sparse=always exited $?"
assert_same "$src" "$T/ext4/zeros.copy"
sync
[ $(($(blocks "$T/ext4/zeros.copy") * 512)) -lt $((1 * MiB)) ] ||
	fail "--sparse=always copy has $(blocks "$T/ext4/zeros.copy") blocks"
pass "zeros.copy: $(blocks "$T/ext4/zeros.copy") blocks of $(blocks "$src")"
