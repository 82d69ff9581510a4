#!/bin/bash
# --attributes-only never truncates or removes anything, with --atomic
# too: the attributes go on the existing file in place (same inode, same
# bytes).  --atomic once renamed an empty temporary over it, so
# `--attributes-only -p --atomic src existing` left existing at 0 bytes
# and `-r --attributes-only --atomic` emptied a whole tree.
set -eu
. "$(dirname "$0")/lib.sh"

cd "$T"

# state FILE: inode, size, mode, mtime, and the bytes' sum
state() { printf '%s %s\n' "$(stat -c '%i %s %a %Y' "$1")" "$(md5sum <"$1")"; }

for opts in "--atomic" "--atomic -p" "--atomic -a" "--atomic -p -j4"; do
	say "--attributes-only $opts onto an existing file"
	rm -rf s d
	printf 'source bytes\n' >s
	chmod 0750 s
	touch -d '2001-02-03 04:05:06' s
	random_file d 70000
	cp d d.ref
	ino=$(stat -c %i d)
	# shellcheck disable=SC2086
	assert_exit 0 "$SMARTCP" --attributes-only $opts s d
	assert_same d d.ref
	assert_eq "$(stat -c %i d)" "$ino" "inode of the destination"
	case " $opts " in
	*" -p "*|*" -a "*)
		assert_eq "$(stat -c '%a %Y' d)" "$(stat -c '%a %Y' s)" \
			"mode and mtime of the destination" ;;
	esac
	pass "bytes and inode kept, attributes set"
done

say "-r --attributes-only --atomic onto an existing tree"
rm -rf src dst
mkdir -p src/a/b dst/a/b
for f in one a/two a/b/three; do
	printf 'new %s\n' "$f" >"src/$f"
	random_file "dst/$f" 5000
	chmod 0600 "src/$f"
done
printf 'only in the source\n' >src/a/four
(cd dst && find . -type f -exec md5sum {} + | sort) >sums.before
for opts in "" "-a" "-j4 -a"; do
	# shellcheck disable=SC2086
	assert_exit 0 "$SMARTCP" -r --attributes-only --atomic $opts src/. dst
	(cd dst && find . -type f ! -name four -exec md5sum {} + | sort) >sums.after
	diff sums.before sums.after >&2 ||
		fail "-r --attributes-only --atomic $opts changed the bytes of existing files (diff above)"
	assert_size dst/a/four 0
	[ -z "$opts" ] ||
		assert_eq "$(stat -c %a dst/a/b/three)" 600 "mode of dst/a/b/three"
	rm dst/a/four
done
pass "existing files keep their bytes; a new one is made empty"

say "--attributes-only --atomic onto an absent file makes it empty, with the attributes"
rm -f new
assert_exit 0 "$SMARTCP" --attributes-only --atomic -p s new
assert_size new 0
assert_eq "$(stat -c '%a %Y' new)" "$(stat -c '%a %Y' s)" "mode and mtime of the new file"
pass "0 bytes, mode $(stat -c %a new)"
