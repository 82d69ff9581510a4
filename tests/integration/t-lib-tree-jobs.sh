#!/bin/bash
# -j4 through libsmartcp's tree copy (tests/lib/treecp.c, built against
# make install DESTDIR=...: lib-installed.sh) and through smartcp, on
# t-jobs-stress.sh's kind of tree: 800 small files in 40 directories on
# ext4, with user.* xattrs, POSIX ACLs (access and default), other
# owners, hard links within and across directories, and 10 files whose
# reads fail (the fault shim's EIO).  Both copy with -a -j4; treecp also
# with -a -j1, its reference for the order.  Each: exit 1 (the failed
# files), one message for each of them, and a copy that holds exactly
# what GNU cp -a makes of the readable files (modes, owners, times,
# xattrs and ACLs, bytes, hard links), nothing of the failed ones.
# treecp -j4's lines and messages are -j1's, in the same order: the
# library hands the workers' files to its callbacks in the walk's order,
# and what they printed meanwhile (sc_tree_streams()) comes back through
# the output callback in its place.  strace: treecp -j4 ran threads, and
# the data was copied on more than one of them.
set -eu
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-installed.sh"

serialize install "make install in the build tree (the install hook links src/smartcp-inst there)"
need_root "mounts ext4 and gives files to other owners"
need_cmd python3 strace
need_shim
need_treecp
GNU_CP=$(command -v cp)
"$GNU_CP" --version 2>/dev/null | grep -q 'GNU coreutils' || skip "needs GNU cp"

W=$T/fs
mount_ext4 "$W" 200M
cd "$W"

python3 - <<'EOF'
import os, struct

def acl(entries):
    return struct.pack('<I', 2) + b''.join(
        struct.pack('<HHI', t, p, i) for t, p, i in entries)

ANY = 0xffffffff
USER_OBJ, USER, GROUP_OBJ, GROUP, MASK, OTHER = 1, 2, 4, 8, 0x10, 0x20
for d in range(40):
    dd = 'src/d%02d' % d
    os.makedirs(dd)
    if d % 10 == 3:
        os.setxattr(dd, 'system.posix_acl_default', acl([
            (USER_OBJ, 7, ANY), (USER, 5, 65534), (GROUP_OBJ, 5, ANY),
            (MASK, 5, ANY), (OTHER, 5, ANY)]))
    os.setxattr(dd, 'user.dir', b'%d' % d)
    for f in range(20):
        name = '%s/%s%02d' % (dd, 'bad' if f == 7 and d % 4 == 0 else 'f', f)
        with open(name, 'wb') as fh:
            fh.write(os.urandom((d * 37 + f * 211) % 4096 + 1))
        os.chmod(name, 0o640 if f % 3 else 0o604)
        os.setxattr(name, 'user.n', b'%d-%d' % (d, f))
        if f % 2 == 0:
            os.setxattr(name, 'system.posix_acl_access', acl([
                (USER_OBJ, 6, ANY), (USER, 4, 65534), (GROUP_OBJ, 4, ANY),
                (GROUP, 6, 65534), (MASK, 6, ANY), (OTHER, 0, ANY)]))
        if f % 6 == 1:
            os.chown(name, 65534, 65534)
    os.link('%s/f02' % dd, '%s/same-dir-link' % dd)
for d in range(0, 40, 2):
    os.link('src/d%02d/f01' % d, 'src/d%02d/link-from-prev' % (d + 1))
EOF

# snapshot DIR: what -a keeps, a line a file; hard links as the names
# that share an inode.
snapshot() {
	python3 - "$1" <<'EOF'
import hashlib, os, sys
top = sys.argv[1]
inodes = {}
for root, dirs, files in os.walk(top):
    dirs.sort()
    for n in sorted(dirs) + sorted(files):
        p = os.path.join(root, n)
        st = os.lstat(p)
        rel = os.path.relpath(p, top)
        if not os.path.isdir(p):
            inodes.setdefault(st.st_ino, []).append(rel)
        attrs = sorted((a, os.getxattr(p, a).hex()) for a in os.listxattr(p))
        data = ''
        if os.path.isfile(p):
            with open(p, 'rb') as fh:
                data = hashlib.sha256(fh.read()).hexdigest()
        print(rel, oct(st.st_mode), st.st_uid, st.st_gid, st.st_size,
              st.st_mtime_ns if not os.path.isdir(p) else '-', data, attrs)
for names in sorted(inodes.values()):
    if len(names) > 1:
        print('links', sorted(names))
EOF
}

"$GNU_CP" -a src ref
find ref -name 'bad*' -exec rm -f {} +
snapshot ref >ref.snap
nbad=$(find src -name 'bad*' | wc -l)
assert_eq "$nbad" 10 "failing files in the tree"
grep -q '^links' ref.snap || fail "no hard links in the reference"

export SMARTCP_FAULT='cfr=eio,read=eio' SMARTCP_FAULT_MATCH_SRC='/bad'

# copy NAME PROGRAM OPTION...: PROGRAM -a OPTION... src NAME under the
# shim and strace (copy_file_range, into NAME.trace.TID: a file a
# thread): exit 1, a message for each failing file, the copy as cp -a's.
copy() {
	local name=$1 prog=$2 rc=0
	shift 2
	rm -rf "$name" "$name".trace.*
	LD_PRELOAD=$SHIM strace -ff -qq -o "$name.trace" \
		-e trace=copy_file_range \
		"$prog" -a "$@" src "$name" >"$name.out" 2>"$name.err" || rc=$?
	[ "$rc" -eq 1 ] || { _show "$name.err"; fail "$name: exit $rc, expected 1"; }
	assert_eq "$(grep -c "bad[0-9]*'.*Input/output error" "$name.err")" \
		"$nbad" "$name: messages naming a failing file"
	snapshot "$name" >"$name.snap"
	cmp -s ref.snap "$name.snap" ||
		{ diff ref.snap "$name.snap" | head >&2; fail "$name differs from cp -a's copy"; }
}

say "smartcp -a -j4"
copy by-smartcp "$SMARTCP" -j4
pass "smartcp -a -j4: as cp -a, $nbad failures said"

say "treecp -a -j1, then -a -j4"
copy one "$TREECP" -j1
copy many "$TREECP" -j4
pass "treecp -a -j1 and -j4: as cp -a, $nbad failures said"
# (the return values may differ: a worker's failure is what
# sc_tree_finish() returns, t-lib-tree-word)
lines() { grep -Ev '^(returned|finished): ' "$1" | sed 's|many|one|g'; }
lines many.out | cmp -s - <(lines one.out) ||
	{ diff <(lines one.out) <(lines many.out) | head >&2; fail "treecp -j4's lines differ from -j1's"; }
sed 's|many|one|g' many.err | cmp -s - one.err ||
	{ diff one.err many.err | head >&2; fail "treecp -j4's messages differ from -j1's"; }
assert_eq "$(grep -c "^'src/.*' \\[copy_file_range\\]\$" many.out)" \
	"$(find src -type f ! -name 'bad*' ! -name same-dir-link ! -name link-from-prev | wc -l)" \
	"files treecp -j4 said copied by copy_file_range"
pass "treecp -j4: $(wc -l <many.out) lines and $(wc -l <many.err) messages, in -j1's order"

# a file of strace's for each thread
threads=$(($(ls many.trace.* | wc -l) - 1))
[ "$threads" -ge 2 ] || fail "treecp -j4 started $threads threads"
tids=$(grep -lE '^copy_file_range\(.*\) = [1-9]' many.trace.* | wc -l)
[ "$tids" -ge 2 ] || fail "treecp -j4 copied data on $tids thread(s)"
assert_eq "$(ls one.trace.* | wc -l)" 1 "threads of treecp -j1, and its own"
pass "treecp -j4: $threads threads started, data copied on $tids of them"
