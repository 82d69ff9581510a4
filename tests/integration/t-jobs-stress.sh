#!/bin/bash
# -j under stress: 2,000 small files in 100 directories, each with
# extended attributes (some that /etc/xattr.conf skips) and a POSIX ACL,
# hard links across directories, and files whose read fails (the fault
# shim's EIO), copied with -a -j8 again and again.  Eight workers meet
# their first attribute, ACL, hard link and error at the same moment.
# Every run must give exactly what one thread gives: the same -v lines
# and messages in the same order, exit 1 (the failed files), the same
# attributes, ACLs, modes, owners, contents and hard links as cp -a of
# the readable files, and nothing of the failed ones.  Under
# ThreadSanitizer (tests/run-all.sh) a data race fails the run.
# STRESS_RUNS sets the number of runs (default 5; tests/run-all.sh runs it
# 20 times under ThreadSanitizer).
set -eu
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/../shim/lib-shim.sh"
need_root "mounts ext4 and gives files to other owners"
need_cmd python3 setfattr

GNU_CP=$(command -v cp)
"$GNU_CP" --version 2>/dev/null | grep -q 'GNU coreutils' || skip "needs GNU cp"
runs=${STRESS_RUNS:-5}

W=$T/fs
mount_ext4 "$W" 400M
cd "$W"

# The tree, made in one python process (2,000 setfattr calls would take
# longer than the copies).
python3 - <<'EOF'
import os, struct

def acl(entries):
    # Linux's xattr form of a POSIX ACL: version 2, then (tag, perm, id)
    return struct.pack('<I', 2) + b''.join(
        struct.pack('<HHI', t, p, i) for t, p, i in entries)

ANY = 0xffffffff
USER_OBJ, USER, GROUP_OBJ, GROUP, MASK, OTHER = 1, 2, 4, 8, 0x10, 0x20
for d in range(100):
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
            fh.write(os.urandom((d * 37 + f * 211) % 4096))
        os.chmod(name, 0o640 if f % 3 else 0o604)
        os.setxattr(name, 'user.n', b'%d-%d' % (d, f))
        os.setxattr(name, 'user.big', b'x' * (f * 20))
        os.setxattr(name, 'trusted.t', b't')
        if f % 5 == 0:
            os.setxattr(name, 'trusted.SGI_ACL_FILE', b'skipped')
        if f % 2 == 0:
            os.setxattr(name, 'system.posix_acl_access', acl([
                (USER_OBJ, 6, ANY), (USER, 4, 65534), (GROUP_OBJ, 4, ANY),
                (GROUP, 6, 65534), (MASK, 6, ANY), (OTHER, 0, ANY)]))
        if f % 6 == 1:
            os.chown(name, 65534, 65534)
    os.link('%s/f02' % dd, '%s/same-dir-link' % dd)
for d in range(0, 100, 2):
    # a hard link into the next directory
    os.link('src/d%02d/f01' % d, 'src/d%02d/link-from-prev' % (d + 1))
EOF

# snapshot DIR: everything -a keeps, in name order, one line a file; hard
# links as the list of names sharing an inode.
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

# What cp -a makes of the readable files is the reference.
"$GNU_CP" -a src ref
find ref -name 'bad*' -exec rm -f {} +
snapshot ref >ref.snap
nbad=$(find src -name 'bad*' | wc -l)
[ "$nbad" -eq 25 ] || fail "the tree has $nbad failing files, expected 25"
grep -q 'trusted.SGI_ACL_FILE' ref.snap && fail "cp -a kept trusted.SGI_ACL_FILE"
grep -q 'links' ref.snap || fail "no hard links in the reference"

# One thread's output is the reference for the order.
# A file whose reads fail fails in copy_file_range too (the kernel reads
# it): both are injected, since the end of a file that held still is not
# read again after copy_file_range (issue 30).
export SMARTCP_FAULT='cfr=eio,read=eio' SMARTCP_FAULT_MATCH_SRC='/bad'
rc=0
LD_PRELOAD=$SHIM "$SMARTCP" -a -v -j1 src one >one.out 2>one.err || rc=$?
assert_eq "$rc" 1 "-j1 exit status with failing files"
assert_eq "$(grep -c "error reading '.*bad[0-9]*': Input/output error" one.err)" \
	"$nbad" "-j1: one message per failing file"
snapshot one >one.snap
cmp -s ref.snap one.snap || { diff ref.snap one.snap | head >&2;
	fail "-j1 differs from cp -a"; }

for n in $(seq 1 "$runs"); do
	rm -rf many
	rc=0
	LD_PRELOAD=$SHIM "$SMARTCP" -a -v -j8 src many >many.out 2>many.err ||
		rc=$?
	assert_eq "$rc" 1 "run $n: exit status"
	sed 's|many|one|g' many.out | cmp -s - one.out ||
		{ diff one.out many.out | head >&2; fail "run $n: -v lines differ from -j1"; }
	sed 's|many|one|g' many.err | cmp -s - one.err ||
		{ diff one.err many.err | head >&2; fail "run $n: messages differ from -j1"; }
	snapshot many >many.snap
	cmp -s ref.snap many.snap ||
		{ diff ref.snap many.snap | head >&2; fail "run $n: the copy differs"; }
done
pass "$runs runs of -a -j8: output, messages, attributes, ACLs, links as -j1 and cp -a"
