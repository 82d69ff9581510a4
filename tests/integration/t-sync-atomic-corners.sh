#!/bin/bash
# Two corners the issue-27 matrix found:
# - --sync into what is not a regular file (a FIFO, a character device, a
#   pipe on stdout) delivers every byte and exits 0: there is nothing to
#   fsync there (fsync(2) says EINVAL), as cp's copies never fsync.  It
#   once failed with "error writing 'n': Invalid argument".
# - --atomic onto a file with other hard links (-a, or
#   --remove-destination) replaces it with one rename: the file is there
#   during the whole copy, and a failed copy leaves it as it was.  It was
#   once removed first, as cp -a removes it, and lost on ENOSPC.
set -eu
. "$(dirname "$0")/lib.sh"

cd "$T"
random_file src 300007

say "--sync into a character device"
mknod n c 1 3
assert_exit 0 "$SMARTCP" --sync src n
[ ! -s "$ERR" ] || { _show "$ERR"; fail "stderr not empty"; }
pass "--sync src /dev/null-like device: exit 0, nothing said"

say "--sync into a FIFO: the reader gets every byte"
mkfifo f
cat f >got &
reader=$!
assert_exit 0 "$SMARTCP" --sync src f
wait "$reader"
cmp src got || fail "the FIFO's reader got other bytes"
pass "--sync into a FIFO: exit 0, all bytes"

say "--sync to stdout, a pipe"
set +e
"$SMARTCP" --sync src /dev/stdout 2>err | cat >got2
rc=${PIPESTATUS[0]}
set -e
assert_eq "$rc" 0 "exit status of --sync src /dev/stdout | cat"
[ ! -s err ] || { _show err; fail "stderr not empty"; }
cmp src got2 || fail "the pipe got other bytes"
pass "--sync to a pipe on stdout: exit 0, all bytes"

need_root "mounts a small tmpfs for ENOSPC"
for opts in "--atomic -a" "--atomic --remove-destination" \
	    "--atomic --preserve=links"; do
	say "$opts onto a file with another name, on a full filesystem"
	mkdir -p "m$$"
	mount_tmpfs "$T/m$$" 128k
	echo old >"m$$/d"
	ln "m$$/d" "m$$/alias"
	ino=$(stat -c %i "m$$/d")
	# shellcheck disable=SC2086
	assert_exit 1 "$SMARTCP" $opts src "m$$/d"
	assert_grep "No space left on device" "$ERR"
	[ -f "m$$/d" ] || fail "$opts: d is gone"
	assert_eq "$(cat "m$$/d")" old "$opts: d's bytes"
	assert_eq "$(stat -c %i "m$$/d")" "$ino" "$opts: d's inode"
	assert_eq "$(cat "m$$/alias")" old "$opts: alias's bytes"
	left=$(ls -A "m$$" | grep -v -x -e d -e alias || true)
	[ -z "$left" ] || fail "$opts: left $left"
	pass "$opts: the failed copy left d and its other name as they were"

	say "$opts onto a file with another name, with room"
	umount "$T/m$$"
	mount_tmpfs "$T/m$$" 4m
	echo old >"m$$/d"
	ln "m$$/d" "m$$/alias"
	# shellcheck disable=SC2086
	assert_exit 0 "$SMARTCP" $opts src "m$$/d"
	cmp src "m$$/d" || fail "$opts: d is not the copy"
	assert_eq "$(cat "m$$/alias")" old "$opts: alias keeps the old bytes"
	assert_eq "$(stat -c %h "m$$/d")" 1 "$opts: links of the new d"
	pass "$opts: d is the copy, a new inode; alias keeps the old bytes"
	umount "$T/m$$"
done
