#!/bin/bash
# smartcp -a copies a tree exactly as cp -a does: types, modes (with the
# sticky bit), owners, sizes, hard links, nanosecond mtimes of files,
# directories and symlinks, symlink targets (relative, absolute,
# dangling), FIFOs, device nodes, extended attributes, POSIX ACLs
# (access and default), names with spaces and newlines.  And -r and -rp
# leave what cp -r and cp -rp leave.
set -eu
. "$(dirname "$0")/lib.sh"
need_root "makes device nodes and files owned by others"
need_cmd setfattr getfattr setfacl getfacl mknod

GNU_CP=$(command -v cp)
"$GNU_CP" --version 2>/dev/null | grep -q 'GNU coreutils' || skip "needs GNU cp"

# Extended attributes and ACLs need a filesystem that has them: ext4.
W=$T/fs
mount_ext4 "$W"
cd "$W"
umask 022

ts='2020-01-01 12:00:00.123456789'
mkdir -p src/a/b/c src/odd0705 src/odd0750 src/sticky 'src/with space' \
	"src/$(printf 'new\nline')" src/acl-dir
printf 'plain\n' >src/a/file
head -c 70000 /dev/urandom >src/a/b/c/big
printf 'x' >'src/with space/f i l e'
printf 'nl\n' >"src/$(printf 'new\nline')/$(printf 'also\nnew')"
printf 'hl\n' >src/a/h1
ln src/a/h1 src/a/b/h2
ln src/a/h1 'src/with space/h3'
ln -s file src/a/rel-link
ln -s ../a/b/c/big src/odd0705/up-link
ln -s "$W/src/a/file" src/a/abs-link
ln -s does-not-exist src/a/dangling
mkfifo src/a/fifo
mknod src/a/null c 1 3
printf 'o\n' >src/odd0750/owned
chown 65534:65534 src/odd0750/owned
ln -s owned src/odd0750/owned-link
chown -h 65534:65534 src/odd0750/owned-link
printf 's\n' >src/a/setuid
chmod 4755 src/a/setuid
printf 'g\n' >src/a/setgid
chmod 2750 src/a/setgid
setfattr -n user.x -v hello src/a/file
setfattr -n user.empty src/a/b/c/big
setfattr -n user.dir -v d src/a/b
printf 'acl\n' >src/a/acl-file
setfacl -m u:nobody:r src/a/acl-file
setfacl -m u:nobody:rx src/acl-dir
setfacl -d -m u:nobody:rx src/acl-dir
setfacl -d -m g:nogroup:r src/acl-dir 2>/dev/null ||
	setfacl -d -m g:65534:r src/acl-dir
chmod 0705 src/odd0705
chmod 0750 src/odd0750
chmod 1777 src/sticky
chmod 0600 src/a/file
# times last: on files, on symlinks themselves, then directories deepest
# first (creating entries changed them)
find src ! -type d ! -type l -exec touch -d "$ts" {} +
find src -type l -exec touch -h -d '2019-06-06 06:06:06.987654321' {} +
touch -d '2018-03-03 03:03:03.000000001' src/a/b/c/big
find src -depth -type d -exec touch -d '2021-02-02 02:02:02.222222222' {} +

# tree_listing DIR [NOTIME]: everything about the tree below DIR, sorted;
# run from inside DIR so the two copies compare equal.
tree_listing() {
	local fmt='%p %y %m %u %g %s %n %T@ %l\n'
	[ "${2:-}" = notime ] && fmt='%p %y %m %u %g %s %n %l\n'
	(
		cd "$1"
		echo '--- find'
		find . -printf "$fmt" | LC_ALL=C sort
		echo '--- md5'
		find . -type f -print0 | LC_ALL=C sort -z | xargs -0 -r md5sum
		echo '--- xattrs'
		getfattr -R -d -m - -h . 2>&1 | grep -v '^security\.selinux' |
			awk 'BEGIN{RS=""} {print}' | LC_ALL=C sort
		echo '--- acls'
		getfacl -R -p -P . 2>&1 | awk 'BEGIN{RS=""} {gsub(/\n/, " | "); print}' |
			LC_ALL=C sort
	)
}

# compare WHAT SMARTCP-OPTS CP-OPTS [notime]
compare() {
	local what=$1 ours=$2 gnus=$3 nt=${4:-}
	say "smartcp $ours vs cp $gnus"
	rm -rf ours gnu
	mkdir ours gnu
	assert_exit 0 "$SMARTCP" $ours src ours/tree
	"$GNU_CP" $gnus src gnu/tree 2>"$T/gnu.err" ||
		{ cat "$T/gnu.err" >&2; fail "cp $gnus failed"; }
	tree_listing ours/tree $nt >"$T/ours.$what"
	tree_listing gnu/tree $nt >"$T/gnu.$what"
	[ -s "$T/ours.$what" ] || fail "empty listing"
	if ! diff -u --label "cp $gnus" --label "smartcp $ours" \
		"$T/gnu.$what" "$T/ours.$what" >"$T/diff.$what"; then
		cat "$T/diff.$what" >&2
		echo "$what" >>"$T/failed"
		say "DIFF: smartcp $ours differs from cp $gnus (above: - cp, + smartcp)"
		return 0
	fi
	pass "smartcp $ours == cp $gnus ($(grep -c '' "$T/ours.$what") lines)"
}

: >"$T/failed"
# the source listing shows the tree is as rich as intended
tree_listing src >"$T/src.list"
grep -q ' p 644 ' "$T/src.list" || fail "no FIFO in the source"
grep -q ' c 644 ' "$T/src.list" || fail "no device in the source"
grep -q ' d 1777 ' "$T/src.list" || fail "no sticky directory in the source"
grep -q 'user.x="hello"' "$T/src.list" || fail "no xattr in the source"
grep -q 'default:user:nobody' "$T/src.list" || fail "no default ACL in the source"
grep -q '\.123456789' "$T/src.list" || fail "no ns timestamps in the source"

compare archive -a -a
# -a is the same as cp -a on the source too, so compare it with the source
tree_listing ours/tree >"$T/ours.again"
diff -u "$T/src.list" "$T/ours.again" >&2 &&
	pass "smartcp -a == the source itself" ||
	{ echo archive-vs-source >>"$T/failed"; say "DIFF: smartcp -a differs from the source"; }
compare recursive -r -r notime
compare preserve -rp -rp

# An ACL the destination cannot hold (ramfs has no xattrs) is reported
# and fails the copy, as cp does, even though the mode bits are set; a
# file with no ACL copies there without a word.  cp quotes this name with
# quote(), not as a shell word: ‘x’ in a UTF-8 locale.
do_mount "$T/ram" -t ramfs ramfs
for opt in -a -p --preserve=mode; do
	for tool in smartcp gnu; do
		rc=0
		if [ $tool = smartcp ]; then
			LC_ALL=C.UTF-8 "$SMARTCP" $opt src/a/acl-file "$T/ram/f$tool" 2>"$T/err.$tool" || rc=$?
			sed -i "s|^$SMARTCP: |cp: |" "$T/err.$tool"
		else
			LC_ALL=C.UTF-8 "$GNU_CP" $opt src/a/acl-file "$T/ram/f$tool" 2>"$T/err.$tool" || rc=$?
			sed -i "s|^$GNU_CP: |cp: |; s|fgnu|fsmartcp|" "$T/err.$tool"
		fi
		echo "status $rc" >>"$T/err.$tool"
	done
	diff -u "$T/err.gnu" "$T/err.smartcp" >&2 ||
		fail "$opt of a file with an ACL onto ramfs: smartcp differs from cp (above)"
	assert_line "cp: preserving permissions for ‘$T/ram/fsmartcp’: Operation not supported" "$T/err.smartcp"
	assert_eq "$(stat -c %a "$T/ram/fsmartcp")" "$(stat -c %a src/a/acl-file)" "mode on ramfs"
	rm -f "$T/ram/"*
done
assert_exit 0 "$SMARTCP" -a src/a/file "$T/ram/plain"
[ ! -s "$ERR" ] || { _show "$ERR"; fail "messages for a file without an ACL"; }
# A tree: its directory has no ACL (nothing to say about it), and two
# names of a file whose copy failed in part are copied each on its own,
# as cp does, not linked to the failed copy.
mkdir -p "$T/hl/d"
echo x >"$T/hl/d/a"
setfacl -m u:nobody:rw "$T/hl/d/a"
ln "$T/hl/d/a" "$T/hl/d/b"
for tool in smartcp gnu; do
	rc=0
	if [ $tool = smartcp ]; then
		"$SMARTCP" -a "$T/hl/d" "$T/ram/t$tool" 2>"$T/err.$tool" || rc=$?
		sed -i "s|^$SMARTCP: |cp: |" "$T/err.$tool"
	else
		"$GNU_CP" -a "$T/hl/d" "$T/ram/t$tool" 2>"$T/err.$tool" || rc=$?
		sed -i "s|^$GNU_CP: |cp: |; s|tgnu|tsmartcp|" "$T/err.$tool"
	fi
	sort -o "$T/err.$tool" "$T/err.$tool"
	echo "status $rc, links $(stat -c %h "$T/ram/t$tool/a") $(stat -c %h "$T/ram/t$tool/b")" >>"$T/err.$tool"
done
diff -u "$T/err.gnu" "$T/err.smartcp" >&2 ||
	fail "-a of a tree with a hard-linked ACL file onto ramfs: smartcp differs from cp (above)"
pass "a lost ACL is reported, as cp reports it"

if [ -s "$T/failed" ]; then
	fail "differences from GNU cp in: $(tr '\n' ' ' <"$T/failed")"
fi
