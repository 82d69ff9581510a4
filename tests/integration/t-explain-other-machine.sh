#!/bin/bash
# --explain about another machine: --kernel and --assume-fs feed the plan
# facts that were assumed, not observed, and say so; the plan for them is
# what the rule table (--rules) says, row by row; facts assumed to be
# those of this machine give this machine's plan; without the options
# nothing changes; bad values and a real copy with them are refused.
set -eu
. "$(dirname "$0")/lib.sh"

need_cmd python3
cd "$T"
printf 'hello\n' >f
running=$(uname -r)

# plan_of ARGS...: the "plan:" line of --explain ARGS f out, without label
plan_of() {
	assert_exit 0 "$SMARTCP" --explain "$@" f out
	sed -n 's/^  plan:    //p' "$OUT"
}
# skipped_of ARGS...: the "skipped:" line likewise
skipped_of() {
	assert_exit 0 "$SMARTCP" --explain "$@" f out
	sed -n 's/^  skipped: //p' "$OUT"
}

say "a /proc source on 5.4, 5.19 and 6.1: read until read() returns 0"
for k in 5.4 5.19 6.1; do
	assert_exit 0 "$SMARTCP" --explain --kernel=$k /proc/cpuinfo out
	assert_line "  plan:    read_write" "$OUT"
	assert_line "  kernel:  assumed Linux $k" "$OUT"
	assert_grep '^  source:  proc on /proc \(generated content' "$OUT"
	cp "$OUT" "proc-$k"
done
assert_grep 'copy_file_range \(generated source: Linux 5.3 to 5.18 copy 0 bytes of it and report success\)' proc-5.4
assert_grep 'copy_file_range \(generated source: st_size is not its length\)' proc-5.19
assert_grep 'copy_file_range \(generated source: st_size is not its length\)' proc-6.1
[ ! -e out ] || fail "--explain created out"
pass "read_write on every kernel; 5.4 says why copy_file_range would lie"

say "ext4 -> ext4, one filesystem"
assert_eq "$(plan_of --assume-fs=ext4 --kernel=6.1)" "copy_file_range, read_write" "ext4 on 6.1"
assert_eq "$(plan_of --assume-fs=ext4 --kernel=4.4)" "splice, read_write" "ext4 on 4.4"
assert_eq "$(skipped_of --assume-fs=ext4 --kernel=4.4)" \
	"clone (filesystem cannot share extents), copy_file_range (not in this kernel (added in Linux 4.5))" \
	"ext4 on 4.4, skipped"
pass "copy_file_range from 4.5 on, splice before"

say "tmpfs -> ext4 on 5.10 (copy_file_range across filesystems) and 6.1 (EXDEV)"
assert_eq "$(plan_of --assume-fs=tmpfs:ext4 --kernel=5.10)" "copy_file_range, read_write" "5.10"
assert_eq "$(plan_of --assume-fs=tmpfs:ext4 --kernel=6.1)" "splice, read_write" "6.1"
assert_grep 'copy_file_range \(different filesystems \(EXDEV since Linux 5.19\)\)' "$OUT"
assert_line "  source:  assumed tmpfs (memory, 6 bytes)" "$OUT"
assert_line "  dest:    assumed ext4 (local)" "$OUT"
pass "5.10 copy_file_range, 6.1 splice"

say "nfs4 -> nfs4: server-side copy between two mounts"
assert_eq "$(plan_of --assume-fs=nfs4:nfs4 --kernel=6.1)" "copy_file_range, splice, read_write" "nfs4:nfs4 on 6.1"
assert_eq "$(plan_of --assume-fs=nfs4:ext4 --kernel=6.1)" "splice, read_write" "nfs4:ext4 on 6.1"
assert_eq "$(plan_of --assume-fs=fuse.sshfs:fuse.sshfs --kernel=6.1)" "copy_file_range, splice, read_write" "sshfs on 6.1"
pass "copy_file_range between two nfs4 (and two sshfs) mounts, not nfs4 to ext4"

say "btrfs -> btrfs: clone; overlay: clone is tried"
assert_eq "$(plan_of --assume-fs=btrfs --kernel=6.1)" "clone, copy_file_range, read_write" "btrfs"
assert_eq "$(plan_of --assume-fs=btrfs:btrfs --kernel=6.1)" "splice, read_write" "two btrfs"
assert_eq "$(plan_of --assume-fs=overlay --kernel=6.1)" "clone, copy_file_range, read_write" "overlay"
assert_eq "$(plan_of --assume-fs=ext4 --kernel=6.1 --reflink=never)" "splice, read_write" "ext4 --reflink=never"
pass "clone first on one btrfs, and on overlay"

say "--json marks what was assumed"
assert_exit 0 "$SMARTCP" --explain --json --kernel=5.10 --assume-fs=tmpfs:ext4 f out
python3 - "$OUT" <<'PY' || fail "JSON of an assumed plan (above)"
import json, sys
rec = json.loads(open(sys.argv[1]).readline())
assert rec["kernel"] == {"version": "5.10", "assumed": True}, rec
assert rec["source_fs"] == {"type": "tmpfs", "class": "memory", "uuid": None,
                            "mount": None, "assumed": True}, rec
assert rec["destination_fs"]["assumed"] is True, rec
assert rec["plan"] == ["copy_file_range", "read_write"], rec
PY
pass "kernel and both filesystems carry \"assumed\": true"

say "without the options nothing changes"
assert_exit 0 "$SMARTCP" --explain f out
cp "$OUT" plain
assert_no_grep 'assumed|kernel:' plain
assert_exit 0 "$SMARTCP" --explain --kernel="$running" f out
grep -v '^  kernel:  assumed Linux ' "$OUT" >same-kernel
diff plain same-kernel >&2 || fail "--kernel=$running changed more than the kernel line"
assert_exit 0 "$SMARTCP" --explain --json f out
assert_no_grep '"assumed"|"kernel"' "$OUT"
pass "plain --explain has no assumed facts; --kernel=\$(uname -r) gives the same plan"

# Facts assumed to be this machine's give this machine's plan: a file on
# a tmpfs explained onto the root filesystem, seen and assumed.
here=$(df --output=fstype . | tail -n1)
if [ -d /dev/shm ] && [ "$(df --output=fstype /dev/shm | tail -n1)" = tmpfs ] &&
   [ "$here" != tmpfs ]; then
	say "assumed facts equal observed ones (tmpfs -> $here)"
	cp f /dev/shm/smartcp-explain-$$
	assert_exit 0 "$SMARTCP" --explain /dev/shm/smartcp-explain-$$ out
	rm -f /dev/shm/smartcp-explain-$$
	seen=$(sed -n 's/^  \(plan\|skipped\): //p' "$OUT")
	assert_exit 0 "$SMARTCP" --explain --assume-fs=tmpfs:"$here" f out
	assumed=$(sed -n 's/^  \(plan\|skipped\): //p' "$OUT")
	assert_eq "$assumed" "$seen" "plan and reasons, assumed vs seen"
	pass "the same plan and reasons"
else
	say "SKIP: no tmpfs on /dev/shm, or this directory is on one too: assumed vs observed not compared"
fi

say "every row of --rules is what --explain plans for its facts"
"$SMARTCP" --rules --json >rules.json || fail "--rules --json exited $?"
python3 - "$SMARTCP" rules.json >py.out <<'PY' || { cat py.out >&2; fail "--rules and --explain disagree (above)"; }
import json, subprocess, sys
prog, rows = sys.argv[1], [json.loads(l) for l in open(sys.argv[2])]
checked = 0
for row in rows:
    if row["source"] != "file" or row["destination"] != "file" or \
       row["relation"] == "two mounts":
        continue                # not something --assume-fs describes
    s, d = row["source_fs"]["type"], row["destination_fs"]["type"]
    fs = s if row["relation"] == "one filesystem" else s + ":" + d
    for k in (row["kernel"]["from"], row["kernel"]["to"] or "7.0"):
        out = subprocess.run([prog, "--explain", "--json", "--kernel=" + k,
                              "--assume-fs=" + fs, "f", "out"],
                             capture_output=True, text=True, check=True)
        rec = json.loads(out.stdout.splitlines()[0])
        if rec["plan"] != row["plan"] or rec["skipped"] != row["skipped"]:
            print("row:", row, "\nexplain:", rec)
            sys.exit(1)
        checked += 1
assert checked >= 40, checked
print("checked", checked, "rows x kernels")
PY
pass "$(tail -n1 py.out)"

say "--rules --kernel shows one kernel's rows"
assert_exit 0 "$SMARTCP" --rules --kernel=5.10
assert_grep '^tmpfs -> ext4: ' "$OUT"
assert_line "  Linux 5.3 to 5.18: copy_file_range, read_write" "$OUT"
assert_no_grep 'Linux 5.19 and later' "$OUT"
pass "only the rows that hold for 5.10"

say "bad values: a clear message, exit 1, nothing written"
assert_exit 1 "$SMARTCP" --explain --kernel=5.25 f out
assert_grep "unknown kernel version .5\.25. for .--kernel." "$ERR"
assert_grep "5\.0 to 5\.19" "$ERR"
assert_exit 1 "$SMARTCP" --explain --kernel=five f out
assert_grep "invalid kernel version .five. for .--kernel." "$ERR"
assert_grep "Accepted forms: MAJOR\.MINOR" "$ERR"
assert_exit 1 "$SMARTCP" --explain --kernel=6 f out
assert_exit 0 "$SMARTCP" --explain --kernel=6.1.0-13-amd64 f out
assert_line "  kernel:  assumed Linux 6.1" "$OUT"
assert_exit 1 "$SMARTCP" --explain --assume-fs=zfs2 f out
assert_grep "unknown filesystem type .zfs2. for .--assume-fs." "$ERR"
assert_grep "ext4" "$ERR"
assert_exit 1 "$SMARTCP" --explain --assume-fs=ext4:xfs:btrfs f out
assert_grep "invalid argument .ext4:xfs:btrfs. for .--assume-fs." "$ERR"
assert_exit 1 "$SMARTCP" --explain --assume-fs=:ext4 f out
assert_exit 1 "$SMARTCP" --rules extra
assert_grep "extra operand 'extra'" "$ERR"
[ ! -e out ] || fail "a refused --explain wrote out"
pass "refused, naming the value and the accepted forms"

say "a real copy refuses assumed facts"
assert_exit 1 "$SMARTCP" --kernel=5.4 f out
assert_grep "[-]-kernel goes only with --explain" "$ERR"
assert_exit 1 "$SMARTCP" --assume-fs=nfs4 f out
assert_grep "[-]-assume-fs goes only with --explain" "$ERR"
assert_exit 1 "$SMARTCP" --json --kernel=6.1 f out
[ ! -e out ] || fail "a copy with assumed facts wrote out"
pass "exit 1, out not created"

say "README's install-hook example runs as written"
need_cmd jq
readme=$TEST_DIR/../../README
[ -f "$readme" ] || fail "no README at $readme"
# the indented lines of its section, with smartcp the one under test
sed -n '/^### The plan for another machine/,/^---/p' "$readme" |
	sed -n 's/^    //p' | sed 's#^smartcp #"$SMARTCP" #' >hook.sh
[ "$(grep -c '"$SMARTCP" --explain --json' hook.sh)" -ge 2 ] ||
	fail "README's example was not found (got: $(cat hook.sh))"
: >pkg.tar
assert_exit 0 bash -e -o pipefail hook.sh
# and its assertion can fail: the plan between nfs4 and ext4 is not
# a server-side copy
sed 's/nfs4:nfs4/nfs4:ext4/' hook.sh >hook-wrong.sh
assert_exit 1 bash -e -o pipefail hook-wrong.sh
pass "the example passes, and fails for facts where its claim is false"
