#!/bin/bash
# Filesystem facts in a mount namespace with thousands of mounts: smartcp
# looks up only the mounts of the files it copies (statmount(2), Linux
# 6.8+) instead of reading the whole table, and must still name the
# filesystems right.  A tmpfs source, an ext4 destination and a bind mount
# of it, each a mount among 2,000 others, give -v, --explain and --json
# output equal to the same copies outside the namespace; so do they when
# statmount fails (the fault shim plays a kernel before 6.8) and the whole
# table is read, as before.  strace proves the table is not read when
# statmount answers.
set -eu
. "$(dirname "$0")/lib.sh"
need_root "makes mount namespaces and mounts"
need_cmd unshare strace perl

need_shim
case $(uname -m) in
x86_64) SYS_MOUNT=165 ;;
aarch64 | riscv64 | loongarch64) SYS_MOUNT=40 ;;
*) skip "mount(2)'s number on $(uname -m) is not known here" ;;
esac

S=$T/src	# tmpfs
D=$T/dst	# ext4 on a loop device
B=$T/bind	# a bind mount of $D/sub
mount_tmpfs "$S" 16M
mount_ext4 "$D"
LOOP=$(findmnt -n -o SOURCE "$D")
mkdir -p "$D/sub"
do_mount "$B" --bind "$D/sub"

# fill: the same files in every namespace (a tmpfs made anew is empty).
fill() {
	mkdir -p "$S/tree/d"
	printf 'hello\n' >"$S/small"
	seq 1 20000 >"$S/tree/a"
	seq 5 7 >"$S/tree/d/b"
	printf 'on ext4\n' >"$D/sub/e"
}

# copies OUTDIR [ENV...]: the copies whose reports are compared, each to
# a fresh destination; their -v, --explain and --json (without the
# "seconds", which differ from run to run) in OUTDIR.
copies() {
	local o=$1
	shift
	mkdir -p "$o"
	rm -rf "$D/c" "$B/c" "$S/c"
	mkdir -p "$D/c" "$S/c"
	env "$@" "$SMARTCP" -v "$S/small" "$D/c/small" >"$o/v" 2>&1
	env "$@" "$SMARTCP" -v "$D/sub/e" "$B/e2" >>"$o/v" 2>&1
	env "$@" "$SMARTCP" -v "$B/e" "$S/c/e3" >>"$o/v" 2>&1
	env "$@" "$SMARTCP" --explain "$S/small" "$D/c/x" >"$o/explain" 2>&1
	env "$@" "$SMARTCP" --explain "$B/e" "$D/c/y" >>"$o/explain" 2>&1
	env "$@" "$SMARTCP" --explain "$D/sub/e" "$S/c/z" >>"$o/explain" 2>&1
	env "$@" "$SMARTCP" --json -r -j2 "$S/tree" "$B/tree" 2>&1 |
		sed 's/"seconds":[0-9.e+-]*/"seconds":_/g' >"$o/json"
	env "$@" "$SMARTCP" --json "$B/e" "$S/c/j" 2>&1 |
		sed 's/"seconds":[0-9.e+-]*/"seconds":_/g' >>"$o/json"
	rm -rf "$D/c" "$B/c" "$B/tree" "$B/e2" "$S/c"
}

# What runs inside the namespace: the test's mounts are made again in the
# middle of 2,000 others (1,000 before, 1,000 after), at the same places,
# from the same devices, so every report must come out the same.
cat >"$T/inside.sh" <<'EOF'
set -eu
crowd() { # FIRST LAST: tmpfs mounts $T/crowd/FIRST..LAST, by mount(2)
	perl -e '
		my ($nr, $dir, $a, $b) = @ARGV;
		for my $i ($a .. $b) {
			my ($s, $t, $ty, $o) = ("crowd$i", "$dir/$i", "tmpfs", "size=4k");
			mkdir $t;
			syscall($nr, $s, $t, $ty, 0, $o) == 0 or die "mount $t: $!\n";
		}' "$SYS_MOUNT" "$T/crowd" "$1" "$2"
}
mkdir -p "$T/crowd"
umount "$B" "$S" "$D"
crowd 1 1000
mount -t tmpfs -o size=16M tmpfs "$S"
mount -t ext4 "$LOOP" "$D"
mount --bind "$D/sub" "$B"
crowd 1001 2000
fill
echo "mounts: $(wc -l </proc/self/mountinfo)" >"$T/inside.mounts"
copies "$T/out.crowd"
copies "$T/out.enosys" LD_PRELOAD="$SHIM" SMARTCP_FAULT=statmount=enosys \
	SMARTCP_FAULT_LOG="$T/shim.log"
# the system calls of one copy, and of one with statmount failing
# (LeakSanitizer cannot run under ptrace: the sanitizer build checks
# leaks in the runs above)
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
strace -f -qq -o "$T/strace.statmount" "$SMARTCP" --json "$S/small" "$D/s1" >/dev/null
strace -f -qq -E LD_PRELOAD="$SHIM" -E SMARTCP_FAULT=statmount=enosys \
	-o "$T/strace.enosys" "$SMARTCP" --json "$S/small" "$D/s2" >/dev/null
rm -f "$D/s1" "$D/s2"
EOF

say "the reference: the same copies outside any new namespace"
fill
copies "$T/out.outside"
assert_grep "^  source: +tmpfs on $S " "$T/out.outside/explain"
assert_grep "^  facts: +source type libmount, class libmount," "$T/out.outside/explain"
assert_grep "^  dest: +ext4 $LOOP on $D " "$T/out.outside/explain"
assert_grep "^  source: +ext4 $LOOP on $B " "$T/out.outside/explain"
assert_grep "\"source_fs\":\\{\"type\":\"tmpfs\",[^}]*\"mount\":\"$S\"\\}" \
	"$T/out.outside/json"
assert_grep "\"destination_fs\":\\{\"type\":\"ext4\",[^}]*\"mount\":\"$B\"\\}" \
	"$T/out.outside/json"
assert_grep "'$D/sub/e' -> '$B/e2' \\[copy_file_range\\]" "$T/out.outside/v"
pass "tmpfs, ext4 and its bind mount named right outside"

say "in a namespace with 2,000 more mounts"
export T S D B LOOP SHIM SMARTCP SYS_MOUNT
export -f fill copies
unshare -m --propagation private bash "$T/inside.sh" ||
	fail "the copies in the crowded namespace failed"
n=$(sed 's/mounts: //' "$T/inside.mounts")
assert_le 2000 "$n" "mounts in the namespace"
for f in v explain json; do
	cmp -s "$T/out.outside/$f" "$T/out.crowd/$f" || {
		diff "$T/out.outside/$f" "$T/out.crowd/$f" | head -n 20 >&2
		fail "$f differs among $n mounts from outside"
	}
done
pass "-v, --explain and --json equal among $n mounts"

say "... and when statmount fails (a kernel before 6.8): the whole table"
grep -q "statmount(mnt_id=[0-9]*) -> ENOSYS (injected" "$T/shim.log" ||
	fail "the shim never failed a statmount call"
# the facts are the same; --explain says where they came from: the whole
# table now, libmount's reading of statmount's line before
assert_grep "^  facts: +source type mountinfo, class mountinfo," "$T/out.enosys/explain"
assert_no_grep "^  facts: .*libmount" "$T/out.enosys/explain"
for o in outside enosys; do
	grep -v '^  facts:' "$T/out.$o/explain" >"$T/out.$o/explain.nofacts"
done
for f in v explain.nofacts json; do
	cmp -s "$T/out.outside/$f" "$T/out.enosys/$f" || {
		diff "$T/out.outside/$f" "$T/out.enosys/$f" | head -n 20 >&2
		fail "$f differs with the libmount fallback"
	}
done
assert_grep "/proc/self/mountinfo" "$T/strace.enosys"
pass "same output with statmount failing; mountinfo read then"

say "when statmount answers, the mount table is not read"
# Only kernels that say what statmount supports (6.15 on) are used.
k=$(uname -r)
kmaj=${k%%.*} kmin=${k#*.}
kmin=${kmin%%[!0-9]*}
if [ "$kmaj" -gt 6 ] || { [ "$kmaj" -eq 6 ] && [ "$kmin" -ge 15 ]; }; then
	grep -Eq "(statmount|syscall_0x1c9)\\(.*= 0$" "$T/strace.statmount" ||
		fail "no successful statmount call in the trace"
	! grep -q "mountinfo" "$T/strace.statmount" || {
		grep "mountinfo" "$T/strace.statmount" | head -n 5 >&2
		fail "mountinfo was read although statmount answered"
	}
	pass "statmount only, no mountinfo (kernel $k)"
else
	pass "not checked: kernel $k, statmount's supported mask needs 6.15"
fi
