#!/bin/bash
# --atomic onto a symlink means what the copy in place means: the file
# the link leads to gets the new bytes, and the link stays a link.  The
# temporary is made in the target's directory (the chain of links is
# followed by descriptor) and renamed over the target, so readers of the
# target see the old file or the new one.  A dangling link is refused as
# it is without --atomic (cp's "not writing through dangling symlink";
# POSIXLY_CORRECT makes the file it names).  And the file --atomic puts
# in place keeps the destination's extended attributes and ACL, as an
# overwrite in place keeps them (the ACL is replaced where the mode is
# preserved).  --atomic once replaced the link with a regular file,
# leaving the target stale, replaced a dangling link silently, and
# dropped the destination's xattrs.
set -eu
. "$(dirname "$0")/lib.sh"

cd "$T"
mkdir -p a/links b/targets
printf 'new bytes\n' >src

# no_temporaries DIR...: no .smartcp* entry in any DIR.
no_temporaries() {
	local d left
	for d in "$@"; do
		left=$(find "$d" -maxdepth 1 -name '.smartcp*' -printf '%f ')
		[ -z "$left" ] || fail "temporaries left in $d: $left"
	done
}

for how in relative absolute chain; do
	say "--atomic onto a symlink ($how): the target gets the bytes, the link stays"
	rm -f a/links/* b/targets/*
	printf 'old bytes\n' >b/targets/t
	case $how in
	relative) ln -s ../../b/targets/t a/links/L; want=../../b/targets/t ;;
	absolute) ln -s "$T/b/targets/t" a/links/L; want=$T/b/targets/t ;;
	chain)	ln -s ../../b/targets/t b/targets/hop
		ln -s ../../b/targets/hop a/links/L; want=../../b/targets/hop ;;
	esac
	ino=$(stat -c %i b/targets/t)
	exec 3<b/targets/t
	assert_exit 0 "$SMARTCP" --atomic src a/links/L
	[ -L a/links/L ] || fail "$how: a/links/L is no longer a symlink"
	assert_eq "$(readlink a/links/L)" "$want" "$how: where the link leads"
	assert_same src b/targets/t
	[ "$(stat -c %i b/targets/t)" != "$ino" ] ||
		fail "$how: the target was written in place, not replaced"
	assert_eq "$(cat <&3)" "old bytes" "$how: a reader of the old target"
	exec 3<&-
	[ "$how" != chain ] || [ -L b/targets/hop ] || fail "the middle link is gone"
	no_temporaries a/links b/targets
	assert_eq "$(ls -A a/links)" L "entries beside the link"
	pass "$how: link kept, target replaced (new inode), old reader undisturbed"
done

say "the same through -r: an existing link in the destination tree"
mkdir -p tree/d out/d
printf 'tree bytes\n' >tree/d/f
printf 'old\n' >b/targets/tf
ln -s ../../b/targets/tf out/d/f
assert_exit 0 "$SMARTCP" -r --atomic tree/. out
[ -L out/d/f ] || fail "-r: out/d/f is no longer a symlink"
assert_same tree/d/f b/targets/tf
no_temporaries out/d b/targets
pass "-r: link kept, target replaced"

say "a dangling link is refused, with --atomic as without"
ln -s ../nowhere a/links/D
for opt in "" --atomic; do
	# shellcheck disable=SC2086
	assert_exit 1 "$SMARTCP" $opt src a/links/D
	sed "s#^$SMARTCP:#smartcp:#" "$ERR" >"err$opt"
	[ -L a/links/D ] || fail "${opt:-in place}: the dangling link was replaced"
	[ ! -e a/nowhere ] || fail "${opt:-in place}: the link's target was made"
done
assert_line "smartcp: not writing through dangling symlink 'a/links/D'" err--atomic
diff err err--atomic >&2 || fail "--atomic says otherwise than the copy in place"
pass "exit 1, '$(cat err--atomic)', link left alone"

say "POSIXLY_CORRECT: the file the dangling link names is made, link kept"
for opt in "" --atomic; do
	rm -f a/nowhere
	# shellcheck disable=SC2086
	POSIXLY_CORRECT=1 assert_exit 0 "$SMARTCP" $opt src a/links/D
	[ -L a/links/D ] || fail "POSIXLY_CORRECT ${opt:-in place}: the link was replaced"
	assert_same src a/nowhere
	no_temporaries a a/links
done
pass "a/nowhere made, with and without --atomic"

say "a failed --atomic copy through a link leaves the target as it was"
if [ "$(id -u)" -eq 0 ]; then
	mount_tmpfs "$T/small" 1M
	printf 'old\n' >"$T/small/t"
	ln -sf "$T/small/t" a/links/S
	random_file big $((2 * 1024 * 1024))
	assert_exit 1 "$SMARTCP" --atomic big a/links/S
	assert_eq "$(cat "$T/small/t")" old "the target after ENOSPC"
	[ -L a/links/S ] || fail "the link is gone after ENOSPC"
	no_temporaries "$T/small" a/links
	pass "exit 1, target intact, no temporary"
else
	say "SKIPPED (not root): ENOSPC through a link"
fi

# --- what the file keeps -------------------------------------------------
if ! command -v setfattr >/dev/null 2>&1 || ! command -v getfacl >/dev/null 2>&1 ||
	! { touch probe && setfattr -n user.probe -v 1 probe && setfacl -m u:65534:r probe; } 2>/dev/null; then
	say "SKIPPED: xattrs and ACLs (no setfattr/setfacl, or $(fs_type "$T") keeps none)"
	exit 0
fi

# attrs FILE: its xattrs (security.* aside: the LSM's), ACL and mode
attrs() {
	getfattr -h -d -m - --absolute-names "$1" 2>/dev/null |
		grep -v -e '^# file' -e '^security\.' | sort
	getfacl -c -p "$1" 2>/dev/null
	stat -c %a "$1"
}

printf 'source\n' >xsrc
chmod 0640 xsrc
setfattr -n user.from_source -v s xsrc
for opts in "" "-p" "-a" "--preserve=xattr" "--preserve=mode" "--no-preserve=mode"; do
	say "${opts:-no options}: --atomic keeps what the copy in place keeps"
	for how in inplace atomic; do
		rm -f "x.$how"
		printf 'old\n' >"x.$how"
		chmod 0664 "x.$how"
		setfattr -n user.keep -v old "x.$how"
		setfacl -m u:65534:rw "x.$how"
		[ "$how" = inplace ] && a= || a=--atomic
		# shellcheck disable=SC2086
		assert_exit 0 "$SMARTCP" $a $opts xsrc "x.$how"
		attrs "x.$how" >"attrs.$how"
	done
	diff attrs.inplace attrs.atomic >&2 ||
		fail "${opts:-no options}: --atomic left other xattrs, ACL or mode than the copy in place (diff above)"
	grep -q '^user.keep="old"' attrs.atomic ||
		fail "${opts:-no options}: the destination's user.keep is gone"
	pass "$(grep -c . attrs.atomic) lines of xattrs, ACL and mode the same"
done

say "... and through a symlink"
rm -f b/targets/x a/links/X
printf 'old\n' >b/targets/x
setfattr -n user.keep -v old b/targets/x
setfacl -m u:65534:rw b/targets/x
attrs b/targets/x >attrs.before
ln -s ../../b/targets/x a/links/X
assert_exit 0 "$SMARTCP" --atomic xsrc a/links/X
assert_same xsrc b/targets/x
attrs b/targets/x >attrs.after
diff attrs.before attrs.after >&2 || fail "the target lost its xattrs or ACL (diff above)"
pass "the target keeps user.keep and its ACL"
