#!/bin/bash
# What -a keeps of each kind of entry, by smartcp and by libsmartcp's
# tree copy through a program of its own (tests/lib/treecp.c, built
# against make install DESTDIR=...: lib-installed.sh; its -a is the
# copier's SC_COPY_KEEP_MODE|OWNER|TIMES|XATTR and SC_TREE_HARDLINKS).
# One tree on ext4, copied by each into ext4 (the same filesystem) and
# into tmpfs (another one), and each copy checked for the same outcome:
#   - hard links: three names of one file in two directories are one
#     inode in the copy (3 links); a file whose other name is outside the
#     tree is a file of one name;
#   - sparse files: 64 MiB with five runs of data, and 16 MiB that is all
#     hole: the same size and bytes, no more blocks than the source (a
#     little slack), the all-hole one none;
#   - xattrs and ACLs: user.* (one binary), trusted.*, an access ACL on a
#     file and a default ACL on a directory: getfattr -d -m - and getfacl
#     give the same;
#   - special files: a FIFO, a socket, a character and a block device
#     (mknod'ed here, never the machine's /dev), of other owners and
#     modes: the same type, mode, owner and device numbers (stat);
#   - everything: tests/treecmp -a (contents, symlinks, modes, owners,
#     times, user.* xattrs, hard links);
#   - exit 0, nothing said; treecp's sc_tree_copy() and sc_tree_finish()
#     returned 0.
# And what treecp's lines claim, strace sees: the road its line names for
# the sparse file moved its data (copy_file_range on ext4, the road the
# report names into tmpfs), holes were looked for with SEEK_DATA, and the
# special files were made with mknodat of their type and numbers, never
# opened.
set -eu
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-installed.sh"

serialize install "make install in the build tree (the install hook links src/smartcp-inst there)"
need_root "mounts ext4 and tmpfs, makes device nodes and gives files to other owners"
need_cmd getfattr setfattr getfacl setfacl python3 strace
need_treecmp
need_treecp

MiB=$((1024 * 1024))
slack=64	# 512-byte blocks a copy may allocate beyond its source

mount_ext4 "$T/ext4"
mount_tmpfs "$T/tmpfs" 200M
S=$T/ext4/src
mkdir -p "$S/hl" "$S/other" "$S/sparse" "$S/x" "$S/sp"

# hard links: a, b and other/c one file; out has its other name outside
random_file "$S/hl/a" 70000
ln "$S/hl/a" "$S/hl/b"
ln "$S/hl/a" "$S/other/c"
printf 'one name in the tree\n' >"$S/hl/out"
ln "$S/hl/out" "$T/ext4/outside"

# sparse: five runs of data in 64 MiB; 16 MiB of hole
truncate -s $((64 * MiB)) "$S/sparse/s1"
for off in 0 5 17 40 63; do
	dd if=/dev/urandom of="$S/sparse/s1" bs=64K count=1 seek=$((off * 16)) \
		conv=notrunc status=none
done
truncate -s $((16 * MiB)) "$S/sparse/empty"

# xattrs and ACLs
printf 'with attributes\n' >"$S/x/f"
setfattr -n user.plain -v hello "$S/x/f"
setfattr -n user.binary -v 0x00ff7f80 "$S/x/f"
setfattr -n trusted.root -v only "$S/x/f"
setfacl -m u:65534:r--,g:65534:rw- "$S/x/f"
setfacl -d -m u:65534:r-x "$S/x"
setfattr -n user.dir -v d "$S/x"

# special files, made here
mkfifo -m 0640 "$S/sp/fifo"
python3 -c 'import socket, sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])' "$S/sp/sock"
mknod -m 0604 "$S/sp/chr" c 1 3
mknod -m 0600 "$S/sp/blk" b 7 200
chown 65534:65534 "$S/sp/fifo" "$S/sp/chr"
chown 0:65534 "$S/sp/sock"
ln -s ../x/f "$S/sp/link"
touch -d '2001-02-03 04:05:06' "$S/sp/fifo" "$S/sp/chr" "$S/x/f"
sync
[ $(($(blocks "$S/sparse/s1") * 512)) -lt $((8 * MiB)) ] ||
	skip "ext4 did not keep $S/sparse/s1 sparse"

# attrs FILE: its xattrs (hex, all namespaces, not followed) and ACLs
attrs() {
	getfattr -h -d -m - -e hex --absolute-names "$1" 2>/dev/null |
		grep -v '^# file:'
	getfacl -n -p --omit-header "$1" 2>/dev/null
}

# check_copy DST: DST, a copy of $S, holds what -a keeps.
check_copy() {
	local d=$1 f sb db
	"$TREECMP" -a "$S" "$d" >"$T/.cmp" 2>&1 ||
		{ cut -c1-300 "$T/.cmp" >&2; fail "$d differs from $S (treecmp -a)"; }
	# hard links
	assert_eq "$(stat -c '%i %h' "$d/hl/b")" "$(stat -c '%i %h' "$d/hl/a")" "hl/b against hl/a in $d"
	assert_eq "$(stat -c '%i %h' "$d/other/c")" "$(stat -c '%i 3' "$d/hl/a")" "other/c against hl/a in $d"
	assert_eq "$(stat -c %h "$d/hl/out")" 1 "links of hl/out in $d"
	# sparse
	for f in s1 empty; do
		assert_size "$d/sparse/$f" "$(stat -c %s "$S/sparse/$f")"
		assert_same "$S/sparse/$f" "$d/sparse/$f"
	done
	sync
	sb=$(blocks "$S/sparse/s1")
	db=$(blocks "$d/sparse/s1")
	assert_le "$db" $((sb + slack)) "blocks of $d/sparse/s1 (source: $sb)"
	assert_eq "$(blocks "$d/sparse/empty")" 0 "blocks of $d/sparse/empty"
	# xattrs and ACLs
	for f in x/f x; do
		assert_eq "$(attrs "$d/$f")" "$(attrs "$S/$f")" "xattrs and ACLs of $d/$f"
	done
	getfacl -n -p --omit-header "$d/x" | grep -q '^default:user:65534:r-x' ||
		fail "no default ACL on $d/x"
	# special files
	for f in fifo sock chr blk; do
		assert_eq "$(stat -c '%F %a %u %g %t:%T' "$d/sp/$f")" \
			"$(stat -c '%F %a %u %g %t:%T' "$S/sp/$f")" "$d/sp/$f"
	done
}

# run_copy NAME PROGRAM DST: PROGRAM -a $S DST under strace (into
# $T/NAME.trace); exit 0, nothing said.
run_copy() {
	local name=$1 prog=$2 d=$3 rc=0
	rm -rf "$d"
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
	strace -f -qq -y -o "$T/$name.trace" \
		-e trace=copy_file_range,ioctl,splice,lseek,mknodat,openat,open \
		"$prog" -a "$S" "$d" >"$OUT" 2>"$ERR" || rc=$?
	[ "$rc" -eq 0 ] || { _show "$ERR"; fail "$name: '$prog -a $S $d' exited $rc"; }
	[ ! -s "$ERR" ] || { _show "$ERR"; fail "$name: something was said"; }
	# hl/out's other name goes while the copy is compared (treecmp
	# compares link counts), and comes back for the next copy
	rm "$T/ext4/outside"
	check_copy "$d"
	ln "$S/hl/out" "$T/ext4/outside"
}

# trace_claims NAME DST: what treecp's lines say, strace saw.
trace_claims() {
	local name=$1 d=$2 tr=$T/$1.trace line road
	tail -n 2 "$OUT" | paste -sd' ' | grep -qx 'returned: 0 finished: 0' ||
		{ _show "$OUT"; fail "$name: the library did not return 0"; }
	line=$(grep -F "'$S/sparse/s1' -> '$d/sparse/s1' [" "$OUT") ||
		{ _show "$OUT"; fail "$name: no line for sparse/s1"; }
	road=${line##*[[ >]}
	road=${road%]}
	road=${road%%:*}
	grep -F "$S/sparse/s1>" "$tr" >"$T/s1.trace" || true
	case $road in
	copy_file_range) assert_ok_calls "$T/s1.trace" copy_file_range -ge 1 ;;
	splice) assert_ok_calls "$T/s1.trace" splice -ge 2 ;;
	clone) assert_ok_calls "$T/s1.trace" FICLONE -ge 1 ;;
	read_write)
		assert_ok_calls "$T/s1.trace" copy_file_range -eq 0
		assert_ok_calls "$T/s1.trace" splice -eq 0 ;;
	*) fail "$name: unknown road in: $line" ;;
	esac
	grep -q 'SEEK_DATA' "$T/s1.trace" ||
		fail "$name: sparse/s1's holes were not looked for with SEEK_DATA"
	grep -Eq "mknodat\(.*\"fifo\", S_IFIFO\|0[0-7]*\)" "$tr" &&
	grep -Eq "mknodat\(.*\"sock\", S_IFSOCK\|" "$tr" &&
	grep -Eq "mknodat\(.*\"chr\", S_IFCHR\|0[0-7]*, makedev\(0x1, 0x3\)\)" "$tr" &&
	grep -Eq "mknodat\(.*\"blk\", S_IFBLK\|0[0-7]*, makedev\(0x7, 0xc8\)\)" "$tr" ||
		{ grep mknodat "$tr" >&2; fail "$name: the special files were not made with mknodat"; }
	# by its directory's descriptor or by path, for reading or writing
	grep -E "open(at)?\(.*($S/sp>, \"|\"$S/sp/)(fifo|chr|blk|sock)\", O_" "$tr" |
		grep -v O_PATH >"$T/opened" || true
	[ ! -s "$T/opened" ] ||
		fail "$name: a special file of the source was opened: $(head -n 3 "$T/opened")"
	pass "$name: sparse/s1 by $road (strace agrees, SEEK_DATA), the special files by mknodat"
}

for to in ext4 tmpfs; do
	say "smartcp -a into $to"
	run_copy "smartcp-$to" "$SMARTCP" "$T/$to/by-smartcp"
	pass "smartcp -a into $to: links, holes, xattrs, ACLs, special files kept"
	say "treecp -a into $to"
	run_copy "treecp-$to" "$TREECP" "$T/$to/by-treecp"
	trace_claims "treecp-$to" "$T/$to/by-treecp"
	pass "treecp -a into $to: links, holes, xattrs, ACLs, special files kept"
done
