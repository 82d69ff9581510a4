#!/bin/bash
# A source that shrinks or grows while it is copied: smartcp ends with
# exactly the bytes it read -- a prefix of what the file held, no padding,
# no hang -- and, when it saw the change, never more than the file holds
# at the end; a growing file is followed past its old size (the end is
# confirmed by a read, not taken from st_size).  Timing decides whether
# the change falls inside the copy, so --allow-changing-source keeps the
# status 0 here and -v says whether it was seen; t-live-change makes the
# changes happen at exact points and checks the status and messages.
set -eu
. "$(dirname "$0")/lib.sh"
need_root

mount_tmpfs "$T/a" 1500M
mount_tmpfs "$T/b" 1500M
head -c 400M /dev/urandom >"$T/orig"

# is_prefix SHORT LONG: SHORT's bytes are the start of LONG's
is_prefix() {
	local n
	n=$(stat -c %s "$1")
	[ "$n" -le "$(stat -c %s "$2")" ] && cmp -s -n "$n" "$1" "$2"
}

for road in read_write copy_file_range,read_write splice,read_write; do
	say "shrinks to 50 MiB during the copy, --road=$road"
	cp "$T/orig" "$T/a/src"
	( sleep 0.05; truncate -s 50M "$T/a/src" ) &
	timeout 60 "$SMARTCP" -v --allow-changing-source --road="$road" \
		"$T/a/src" "$T/b/dst" >"$T/v" ||
		fail "exit $? on a shrinking source"
	wait
	is_prefix "$T/b/dst" "$T/orig" || fail "the copy is not a prefix of what the file held"
	[ "$(stat -c %s "$T/b/dst")" -ge $((50 * 1024 * 1024)) ] ||
		fail "the copy is shorter than what the file still holds"
	if grep -q 'source changed: shrank from 419430400 to 52428800 bytes' "$T/v"; then
		# no stale tail: nothing past the size the source ended with
		assert_size "$T/b/dst" $((50 * 1024 * 1024))
	else
		# unseen: the truncation came before the copy or after it
		cmp -s "$T/orig" "$T/b/dst" || cmp -s "$T/a/src" "$T/b/dst" ||
			fail "no change was said, yet the copy is neither the file before nor after"
	fi
	pass "$road: $(stat -c %s "$T/b/dst") bytes, a prefix of the original"
	rm -f "$T/b/dst"

	say "grows by 100 MiB during the copy, --road=$road"
	head -c 100M /dev/urandom >"$T/more"
	cp "$T/orig" "$T/a/src"
	( sleep 0.02; cat "$T/more" >>"$T/a/src" ) &
	timeout 60 "$SMARTCP" --allow-changing-source --road="$road" \
		"$T/a/src" "$T/b/dst" || fail "exit $? on a growing source"
	wait
	cat "$T/orig" "$T/more" >"$T/full"
	is_prefix "$T/b/dst" "$T/full" || fail "the copy is not a prefix of the grown file"
	[ "$(stat -c %s "$T/b/dst")" -ge $((400 * 1024 * 1024)) ] ||
		fail "the copy stopped before the old end"
	pass "$road: $(stat -c %s "$T/b/dst") bytes of $(stat -c %s "$T/full"), a prefix"
	rm -f "$T/b/dst" "$T/full"
done
