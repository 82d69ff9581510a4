#!/bin/bash
# --explain copies nothing and creates nothing: a tree explained onto an
# absent destination leaves it absent and the source as it was; a file
# explained onto an existing destination leaves it byte-identical, same
# inode, same mtime.  And the plan is honest: its first road is the road
# -v then reports for the same copy (when no fallback happened).
set -eu
. "$(dirname "$0")/lib.sh"

cd "$T"

# listing PATH: names, sizes, mtimes (ns), modes, link targets
listing() {
	find "$1" -printf '%p %s %T@ %m %y %l\n' | sort
}

say "--explain -r of a tree onto an absent destination"
mkdir -p src/sub/deeper src/empty
random_file src/a 4096
random_file src/sub/b 70000
printf 'x\n' >src/sub/deeper/c
: >src/zero
ln -s a src/link
ln -s ../nowhere src/sub/dangling
chmod 0750 src/sub
touch -d '2001-02-03 04:05:06.123456789' src/a src/sub
listing src >before
assert_exit 0 "$SMARTCP" --explain -r src dst
[ ! -e dst ] && [ ! -L dst ] || fail "--explain -r created dst: $(find dst | head)"
listing src >after
diff before after >&2 || fail "--explain -r changed the source (diff above)"
assert_grep "^'src/sub/b' -> 'dst/sub/b'\$" "$OUT"
assert_grep '^  plan: ' "$OUT"
pass "dst still absent, source unchanged, $(grep -c -- ' -> ' "$OUT") entries explained"

say "--explain -r into an existing directory creates nothing in it"
mkdir into
listing into >before
assert_exit 0 "$SMARTCP" --explain -r src into
listing into >after
diff before after >&2 || fail "--explain -r src into/ changed into/ (diff above)"
pass "into/ unchanged"

say "--explain of a file onto an existing destination"
random_file new 12345
random_file old 777
touch -d '2010-10-10 10:10:10.987654321' old
cp -p old old.ref
st_before=$(stat -c '%i %s %y %z %a' old)
sleep 0.01
assert_exit 0 "$SMARTCP" --explain new old
assert_same old old.ref
assert_eq "$(stat -c '%i %s %y %z %a' old)" "$st_before" \
	"inode size mtime ctime mode of the destination"
assert_exit 0 "$SMARTCP" --explain -f --remove-destination -b new old
assert_same old old.ref
assert_eq "$(stat -c '%i %s %y %z %a' old)" "$st_before" \
	"inode size mtime ctime mode after --explain -f --remove-destination -b"
[ ! -e old~ ] || fail "--explain -b made a backup"
pass "destination untouched (inode, mtime, ctime, bytes)"

# plan_vs_v NAME SRC DST WANT: the first road of --explain's plan is WANT
# and is the road -v reports for the same copy.
plan_vs_v() {
	local name=$1 src=$2 dst=$3 want=$4 plan first chain road
	say "$name: plan's first road is the road taken"
	rm -f -- "$dst"
	assert_exit 0 "$SMARTCP" --explain "$src" "$dst"
	[ ! -e "$dst" ] || fail "$name: --explain created $dst"
	plan=$(sed -n 's/^  plan: *//p' "$OUT")
	[ -n "$plan" ] || { _show "$OUT"; fail "$name: no plan: line"; }
	first=${plan%%,*}
	assert_exit 0 "$SMARTCP" -v "$src" "$dst"
	chain=$(sed -n 's/.*\[\([^]]*\)\]$/\1/p' "$OUT")
	road=$(v_road "$OUT")
	[ -n "$road" ] || { _show "$OUT"; fail "$name: no road on the -v line"; }
	case $chain in
	*→*) fail "$name: -v shows a fallback ($chain); plan was '$plan'" ;;
	esac
	assert_eq "$first" "$road" "$name: first road of plan '$plan' vs -v road"
	assert_eq "$road" "$want" "$name: road"
	pass "$name: plan '$plan', took $road"
}

if [ "$(id -u)" -ne 0 ]; then
	say "SKIPPED (not root, needs mounts): plan vs -v on ext4, btrfs, tmpfs"
	plan_vs_v "/proc/cpuinfo -> $(fs_type "$T")" /proc/cpuinfo "$T/cpuinfo" \
		read_write
	exit 0
fi

E=$T/ext4 B=$T/btrfs M=$T/tmpfs
mount_ext4 "$E"
mount_tmpfs "$M" 64M
random_file "$E/f" $((3 * 1024 * 1024 + 5))
truncate -s 16M "$E/sparse"
printf 'data' | dd of="$E/sparse" bs=1 seek=$((5 * 1024 * 1024)) \
	conv=notrunc status=none
assert_le "$(blocks "$E/sparse")" 1024 "blocks of the sparse file"

plan_vs_v "/proc/cpuinfo -> ext4" /proc/cpuinfo "$E/cpuinfo" read_write
plan_vs_v "ext4 -> same ext4" "$E/f" "$E/f2" copy_file_range
assert_same "$E/f" "$E/f2"
plan_vs_v "ext4 -> tmpfs" "$E/f" "$M/f" splice
assert_same "$E/f" "$M/f"
plan_vs_v "sparse ext4 -> ext4" "$E/sparse" "$E/sparse2" copy_file_range
assert_same "$E/sparse" "$E/sparse2"
assert_exit 0 "$SMARTCP" --explain "$E/sparse" "$E/sparse3"
assert_grep '^  source: .*, sparse\)$' "$OUT"
[ ! -e "$E/sparse3" ] || fail "--explain created $E/sparse3"

if command -v mkfs.btrfs >/dev/null 2>&1; then
	mount_btrfs "$B"
	random_file "$B/f" $((2 * 1024 * 1024))
	plan_vs_v "btrfs -> btrfs" "$B/f" "$B/f2" clone
	assert_same "$B/f" "$B/f2"
else
	say "SKIPPED: btrfs -> btrfs (no mkfs.btrfs)"
fi
