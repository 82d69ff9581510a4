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

# --atomic through a link the kernel follows though its text names no
# file: /dev/stdout -> /proc/self/fd/1 -> "pipe:[N]", or a deleted file's
# /proc/self/fd/N.  Nothing to rename a temporary in: written in place.
# It was once refused as dangling (the pipe) and, before that, renamed
# over /dev/stdout itself.  A private /dev, so that a broken run cannot
# replace the machine's.
need_cmd unshare
say "--atomic src /dev/stdout into a pipe, and into a deleted file"
mkdir dev
ln -s /proc/self/fd/1 dev/stdout
unshare -m sh -c '
	mount --bind dev /dev || exit 99
	"$SMARTCP" --atomic src /dev/stdout 2>err1 | cat >got3
	[ -L /dev/stdout ] || echo "/dev/stdout is no longer a link" >>err1
	exec 3>del
	rm del
	"$SMARTCP" --atomic src /proc/self/fd/3 2>err2 || echo "exit $?" >>err2
	cmp -s src /proc/$$/fd/3 || echo "the deleted file is not the copy" >>err2
' || fail "unshare or mount --bind failed"
[ ! -s err1 ] || { _show err1; fail "--atomic to a pipe on stdout"; }
cmp src got3 || fail "the pipe got other bytes"
[ -L dev/stdout ] || fail "dev/stdout is no longer a link"
[ ! -s err2 ] || { _show err2; fail "--atomic to a deleted file's fd"; }
pass "--atomic to a pipe and to a deleted file: written in place, links kept"
