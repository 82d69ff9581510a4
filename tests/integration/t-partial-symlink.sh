#!/bin/bash
# A copy that fails or is interrupted while it writes through a symlink
# leaves the symlink a symlink, and the file it leads to empty: never a
# prefix that looks complete, and nothing removed but what smartcp made.
# The partial-file clean-up once removed the name it opened (the link,
# even /dev/stdout) and left the file it wrote half-written under its
# real name.  (a) ENOSPC on a 2 MiB tmpfs through a link and through a
# chain of two; (b) SIGINT, SIGTERM and SIGHUP part-way, sent by the fault
# shim at an exact point of the copy; (c) /dev/stdout redirected to a full
# filesystem, with a /dev of its own; (d) a plain destination still goes
# when the copy fails, and an interrupted one too.
set -eu
. "$(dirname "$0")/lib.sh"
need_root "mounts a small tmpfs"
need_shim

cd "$T"
F=$T/full
mount_tmpfs "$F" 2M
random_file big $((3 * 1024 * 1024))

# assert_msg TEXT: $ERR has the line "smartcp: TEXT" (the program's
# name as it was run).
assert_msg() {
	grep -Fxq -e "smartcp: $1" -e "$SMARTCP: $1" "$ERR" ||
		{ _show "$ERR"; fail "no message 'smartcp: $1'"; }
}

# link_intact LINK TARGET WHAT: LINK is still a symlink to TARGET, and
# the file at the end of its chain is empty, not a prefix of the source.
link_intact() {
	[ -L "$1" ] || fail "$3: '$1' is no longer a symlink ($(stat -c %F "$1" 2>&1))"
	assert_eq "$(readlink "$1")" "$2" "$3: where '$1' leads"
	[ -f "$1" ] || fail "$3: the file '$1' leads to is gone"
	assert_eq "$(stat -L -c %s "$1")" 0 "$3: size of the file '$1' leads to"
}

say "(a) ENOSPC writing through a symlink: the link stays, its target is emptied"
echo keep >"$F/target"
ln -s "$F/target" L
assert_exit 1 "$SMARTCP" big L
assert_msg "error writing 'L': No space left on device"
link_intact L "$F/target" "ENOSPC through L"
assert_eq "$(ls -A "$F")" target "entries of the full filesystem"
pass "exit 1, L -> $F/target, which is empty"

say "(a) ... through a chain of two links"
echo keep >"$F/target"
ln -s L L2
assert_exit 1 "$SMARTCP" big L2
link_intact L2 L "ENOSPC through L2 -> L"
link_intact L "$F/target" "ENOSPC through L2 -> L"
pass "both links stay, the target is empty"

say "(a) ... and with -j4 in a tree copy onto existing links"
mkdir -p tsrc/d tdst/d
cp big tsrc/d/f
echo keep >"$F/target"
ln -s "$F/target" tdst/d/f
assert_exit 1 "$SMARTCP" -r -j4 tsrc/. tdst
link_intact tdst/d/f "$F/target" "-r -j4 ENOSPC"
pass "the link in the tree stays"

# interrupt SIG ARGS...: smartcp ARGS, with the shim sending SIG to it
# once 1 MiB has been written to a file named *target*; its exit status
# in $rc, its stderr in $ERR.
interrupt() {
	local sig=$1
	shift
	rc=0
	env --default-signal="$sig" LD_PRELOAD="$SHIM" \
		SMARTCP_FAULT="write=run@1M" SMARTCP_FAULT_MATCH_DST=target \
		SMARTCP_FAULT_RUN="kill -$sig \$PPID" \
		"$SMARTCP" --road=read_write "$@" 2>"$ERR" || rc=$?
}

mkdir -p "$T/e"
for sig in INT TERM HUP; do
	say "(b) SIG$sig part-way through a symlink"
	echo keep >"$T/e/target"
	rm -f L
	ln -s "$T/e/target" L
	interrupt "$sig" big L
	[ "$rc" -gt 128 ] || { _show "$ERR"; fail "exit $rc, expected death by SIG$sig"; }
	link_intact L "$T/e/target" "SIG$sig"
	assert_eq "$(ls -A "$T/e")" target "entries of $T/e after SIG$sig"
	pass "SIG$sig: exit $rc, the link stays, its target is empty"
done

say "(b) SIGINT part-way through a file with another hard link: emptied, both names kept"
echo keep >"$T/e/target"
ln "$T/e/target" "$T/e/other"
interrupt INT big "$T/e/target"
[ "$rc" -gt 128 ] || fail "exit $rc, expected death by SIGINT"
assert_size "$T/e/target" 0
assert_eq "$(stat -c %h "$T/e/target")" 2 "links of the emptied file"
rm "$T/e/other"
pass "emptied, 2 names"

say "(c) /dev/stdout redirected to a full filesystem: /dev/stdout stays"
need_cmd unshare
rm -f "$F"/* "$T/e"/*
# a /dev of its own, in a mount namespace of its own: the unfixed
# smartcp removed /dev/stdout
rc=0
unshare -m --propagation private bash -c '
	set -e
	mount -t tmpfs tmpfs /dev
	ln -s /proc/self/fd/1 /dev/stdout
	mknod -m 666 /dev/null c 1 3
	rc=0
	"$1" "$2" /dev/stdout >"$3" 2>"$4" || rc=$?
	ls -la /dev >"$5"
	[ -L /dev/stdout ] || { echo "/dev/stdout is gone" >&2; exit 3; }
	exit $rc' sh "$SMARTCP" big "$F/out" "$ERR" "$T/dev.list" || rc=$?
[ "$rc" -ne 3 ] || { _show "$T/dev.list"; fail "/dev/stdout was removed"; }
assert_eq "$rc" 1 "exit status of a copy to /dev/stdout on a full filesystem"
assert_msg "error writing '/dev/stdout': No space left on device"
assert_size "$F/out" 0
pass "exit 1, /dev/stdout still a symlink, the redirected file empty"

say "(d) a destination that is a plain file still goes, when full and when interrupted"
rm -f "$F"/*
assert_exit 1 "$SMARTCP" big "$F/plain"
[ ! -e "$F/plain" ] || fail "a partial plain destination was left ($(stat -c %s "$F/plain") bytes)"
interrupt INT big "$T/e/target"
[ "$rc" -gt 128 ] || fail "exit $rc, expected death by SIGINT"
[ ! -e "$T/e/target" ] || fail "an interrupted plain destination was left ($(stat -c %s "$T/e/target") bytes)"
pass "removed, as before"
