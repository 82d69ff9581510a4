#!/bin/bash
# No window in which a copy is more open than it will end up: smartcp
# creates files and directories with the bits that must wait held back, as
# GNU cp does, and puts them on at the end.
#
#   cp -p f g	open(g, O_CREAT|O_EXCL, 0600) for a 0644 f: group and
#		other wait until the owner is set
#   cp -a d d2	mkdir(d2, 0700) for a 0755 d, for the same reason
#   cp -r d d3	mkdir(d3, 0755) for a 0775 d: only g+w and o+w wait, until
#		the directory's contents are in
#
# and every copy ends with its source's mode.  The modes are read from
# strace and checked for GNU cp too (the reference), when it is installed.
#
# As root, also: a set-id file or directory copied with -p/-a by a user
# who cannot give the copy its source's owner loses its set-uid and
# set-gid bits, as with GNU cp.
set -eu
. "$(dirname "$0")/lib.sh"

need_cmd strace

GNU_CP=
if command -v cp >/dev/null 2>&1 &&
   cp --version 2>/dev/null | grep -q 'GNU coreutils'; then
	GNU_CP=$(command -v cp)
	say "also checking $("$GNU_CP" --version | head -n 1)"
else
	say "GNU cp not installed: checking smartcp only"
fi

# creation_mode LOG NAME: the mode NAME was created with (open, openat,
# creat, mkdir, mkdirat that succeeded, by path or in a directory held
# open), e.g. 0600; the open flags of
# that call in $T/.flags.
creation_mode() {
	local line
	line=$(grep -E "(open|openat|creat|mkdir|mkdirat)\\((AT_FDCWD, |[0-9]+, )?\"$2\", ([A-Z_|]+, )?0[0-7]*\\) += [0-9]+\$" "$1" |
		tail -n 1)
	[ -n "$line" ] ||
		{ _show "$1"; fail "no successful creation of '$2' in $1"; }
	printf '%s\n' "$line" | sed -nE 's/.*"[^"]*", ([A-Z_|]+), .*/\1/p' >"$T/.flags"
	printf '%s\n' "$line" | sed -E 's/.*[ (](0[0-7]*)\) += [0-9]+$/\1/'
}

# traced LOG CP ARGS...: run CP under strace, logging creations.
traced() {
	local log=$1
	shift
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
	strace -f -qq -e trace=open,openat,creat,mkdir,mkdirat -o "$log" "$@"
}

# check WHO CP UMASK SRC DST WANT-CREATE-MODE OPTIONS...: copy SRC to DST
# with CP under UMASK; DST must be created with WANT-CREATE-MODE and end
# with SRC's mode.  A regular DST must be made with O_CREAT|O_EXCL.
check() {
	local who=$1 cp=$2 um=$3 src=$4 dst=$5 want=$6 got
	shift 6
	local log=$T/$who-$dst.log
	(umask "$um" && traced "$log" "$cp" "$@" "$src" "$dst") ||
		fail "$who $* $src $dst (umask $um) exited $?"
	got=$(creation_mode "$log" "$dst")
	assert_eq "$got" "$want" "$who $* $src $dst (umask $um): creation mode of $dst"
	if [ -f "$src" ]; then
		if ! grep -q 'O_CREAT' "$T/.flags" ||
		   ! grep -q 'O_EXCL' "$T/.flags"; then
			fail "$who $* $src $dst: opened $dst with $(cat "$T/.flags"), not O_CREAT|O_EXCL"
		fi
	fi
	assert_eq "$(stat -c %a "$dst")" "$(stat -c %a "$src")" \
		"$who $* $src $dst (umask $um): final mode of $dst"
	pass "$who $* $src $dst (umask $um): created $want, ends $(stat -c %a "$dst")"
}

cd "$T"
umask 022
echo data >f
chmod 0644 f
echo data >f664
chmod 0664 f664
mkdir d d775
chmod 0755 d
chmod 0775 d775
echo x >d/x
echo y >d775/y

for who in smartcp ${GNU_CP:+gnu}; do
	case $who in
	smartcp) cp=$SMARTCP ;;
	gnu) cp=$GNU_CP ;;
	esac
	check "$who" "$cp" 022 f "$who-g" 0600 -p
	check "$who" "$cp" 002 f664 "$who-g664" 0600 -p
	check "$who" "$cp" 022 d "$who-d2" 0700 -a
	check "$who" "$cp" 022 d "$who-d3" 0755 -r
	check "$who" "$cp" 002 d775 "$who-d4" 0755 -r
	check "$who" "$cp" 000 d775 "$who-d5" 0755 -r
done

# ------------------------------------------------ set-id bits, as nobody
if [ "$(id -u)" -ne 0 ]; then
	skip "set-id bits for a user who cannot keep the owner: needs root (the rest passed)"
fi
command -v setpriv >/dev/null 2>&1 ||
	skip "set-id bits for a user who cannot keep the owner: needs setpriv (the rest passed)"
nb() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
nb true 2>/dev/null || skip "cannot run as uid 65534 (the rest passed)"

# nobody can write only its own directory; the sources are root's.
chmod 0755 "$T"
mkdir "$T/nb"
chown 65534:65534 "$T/nb"
echo s >"$T/suid"
chmod 6755 "$T/suid"
echo s >"$T/suid-sticky-grp"
chown 0:65534 "$T/suid-sticky-grp"
chmod 7755 "$T/suid-sticky-grp"
echo s >"$T/own-suid"
chown 65534:65534 "$T/own-suid"
chmod 6755 "$T/own-suid"
mkdir "$T/sdir"
chmod 3755 "$T/sdir"

# as_nobody WHO CP OPTS SRC: copy $T/SRC into $T/nb/WHO-SRC as nobody;
# echo the copy's "mode uid".
as_nobody() {
	local who=$1 cp=$2 opts=$3 src=$4
	(cd "$T/nb" && nb "$cp" "$opts" "$T/$src" "$who-$src") ||
		fail "$who $opts $src as nobody exited $?"
	stat -c '%a %u' "$T/nb/$who-$src"
}

for src in suid suid-sticky-grp own-suid sdir; do
	case $src in
	sdir) opts=-a ;;
	*) opts=-p ;;
	esac
	ours=$(as_nobody smartcp "$SMARTCP" "$opts" "$src")
	case $src in
	own-suid)
		# nobody owns the source: the copy keeps everything
		assert_eq "$ours" "6755 65534" "nobody: cp $opts of its own 6755 file"
		;;
	*)
		mode=${ours% *}
		[ "${ours#* }" = 65534 ] ||
			fail "nobody: cp $opts $src: copy owned by ${ours#* }"
		# set-uid 04000 and set-gid 02000 must be gone
		[ $((8#$mode & 8#6000)) -eq 0 ] ||
			fail "nobody: cp $opts $src ($(stat -c %a "$T/$src"), root's): copy has mode $mode, set-id bits kept"
		;;
	esac
	if [ -n "$GNU_CP" ]; then
		gnu=$(as_nobody gnu "$GNU_CP" "$opts" "$src")
		# The sticky bit mkdir kept on a directory stays, as with GNU
		# cp, which sets the mode through an ACL (3755 -> 1755).
		assert_eq "$ours" "$gnu" \
			"nobody: cp $opts $src: smartcp vs GNU cp (mode owner)"
	fi
	pass "nobody: cp $opts $src ($(stat -c '%a %u' "$T/$src")): copy $ours"
done
