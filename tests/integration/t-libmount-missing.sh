#!/bin/bash
# Issue 30: smartcp copies without libmount and libblkid.  In a private
# mount namespace both libraries are replaced by empty files (dlopen
# fails on them); smartcp still starts, copies ext4 -> the same ext4 and
# ext4 -> tmpfs by the roads it takes with the libraries there, a tree
# too, and --explain still names the filesystems from statmount's
# fields (without a UUID).
set -eu
. "$(dirname "$0")/lib.sh"
need_root "makes a mount namespace and mounts"
need_cmd unshare cmp ldconfig perl
case $(uname -m) in
x86_64) SYS_MOUNT=165 ;;
aarch64 | riscv64 | loongarch64) SYS_MOUNT=40 ;;
*) skip "mount(2)'s number on $(uname -m) is not known here" ;;
esac

E=$T/ext4
M=$T/tmpfs
mount_ext4 "$E"
mount_tmpfs "$M" 64M
random_file "$E/a" 70000
mkdir -p "$E/tree/d"
printf 'x\n' >"$E/tree/d/f"

libs=$(PATH=$PATH:/sbin:/usr/sbin ldconfig -p |
	awk '$1 ~ /^lib(mount|blkid)\.so\.1$/ { print $NF }' | sort -u)
[ -n "$libs" ] || skip "ldconfig does not list libmount.so.1"

# copies OUTDIR: the same copies each time, -v and --explain into OUTDIR.
cat >"$T/copies.sh" <<'EOS'
set -eu
o=$1
mkdir -p "$o"
rm -rf "$E/a2" "$M/a" "$M/tree" "$M/x"
"$SMARTCP" -v "$E/a" "$E/a2" >"$o/v" 2>&1
"$SMARTCP" -v "$E/a" "$M/a" >>"$o/v" 2>&1
"$SMARTCP" -r -v -j2 "$E/tree" "$M/tree" >>"$o/v" 2>&1
"$SMARTCP" --explain "$E/a" "$M/x" >"$o/explain" 2>&1
cmp "$E/a" "$E/a2"
cmp "$E/a" "$M/a"
cmp "$E/tree/d/f" "$M/tree/d/f"
EOS
export E M SMARTCP SYS_MOUNT

say "with the libraries"
bash "$T/copies.sh" "$T/with" || fail "the copies failed with the libraries"

say "without them (empty files bound over $(echo $libs))"
: >"$T/empty"
# One perl process binds both (mount(8) itself needs libmount and
# libblkid: it cannot start again once the first is gone).
# shellcheck disable=SC2016 # expanded inside
unshare -m --propagation private bash -c '
	perl -e "my (\$nr, \$src, @l) = @ARGV;
		for (@l) { syscall(\$nr, \$src, \$_, 0, 4096, 0) == 0 or die \"bind \$_: \$!\\n\" }" \
		"$SYS_MOUNT" "$2" $1 || exit 1
	bash "$3" "$4"' _ "$libs" "$T/empty" "$T/copies.sh" "$T/without" ||
	{ cat "$T/without/v" "$T/without/explain" >&2 2>/dev/null || true
	  fail "the copies failed without libmount and libblkid"; }

cmp -s "$T/with/v" "$T/without/v" || {
	diff "$T/with/v" "$T/without/v" >&2 || true
	fail "-v differs without libmount"
}
pass "same roads without libmount and libblkid (-v equal)"
assert_grep "^  source: +ext4 $IMAGE_LOOP on $E \\(local" "$T/without/explain"
assert_grep "^  dest: +tmpfs on $M \\(memory" "$T/without/explain"
assert_no_grep " uuid " "$T/without/explain"
assert_grep "^  plan: +splice, read_write$" "$T/without/explain"
# the plan and its reasons as with the libraries
# where the facts came from: libmount with it, statmount and fstatfs's
# magic without it
assert_grep "^  facts: +source type libmount, class libmount," "$T/with/explain"
assert_grep "^  facts: +source type statmount, class statmount, identity statmount, mount statmount; dest type statmount, class statmount," \
	"$T/without/explain"
grep -v '^  source:\|^  dest:\|^  facts:' "$T/with/explain" >"$T/with.plan"
grep -v '^  source:\|^  dest:\|^  facts:' "$T/without/explain" >"$T/without.plan"
cmp -s "$T/with.plan" "$T/without.plan" || {
	diff "$T/with.plan" "$T/without.plan" >&2 || true
	fail "--explain's plan differs without libmount"
}
pass "--explain without them: names from statmount, no UUID, the same plan"
