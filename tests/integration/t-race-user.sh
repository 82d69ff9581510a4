#!/bin/bash
# Issue 35, "not yet tried": an unprivileged user copying root's
# set-user-ID, set-group-ID and file-capability programs.  The copy is
# the user's: it must not carry root's set-id bits where the owner could
# not be kept (-p, -a: GNU cp clears them then), nor security.capability
# (the kernel refuses it without CAP_SETFCAP; the copy must not end up
# with it by any other road), and smartcp must say what GNU cp says.
#
# As uid 65534, into a directory it owns, GNU cp and smartcp each copy
# $T/R/suid (root 4755), sgid (root:root 2755), cap (root 0755,
# cap_net_raw+ep) and capsuid (root 4755 and cap_net_raw+ep) with -p, -a,
# --preserve=mode, --preserve=all, --preserve=mode,ownership and
# --preserve=xattr.  Compared: exit status, messages (program name aside;
# GNU cp 9.1 names the attribute twice in "setting attribute
# 'security.capability' for 'security.capability'" where smartcp names
# the file: that name is left out of the comparison), and the copy's
# mode, owner and security.capability.  Also checked whatever cp does: no
# copy has security.capability, and none that lost its owner (-p, -a) has
# a set-id bit.
#
# Needs GNU cp, setpriv, setcap (libcap2-bin; the capability files are
# left out without it).  Holds on 396ad10.  Runtime ~5 s.
set -eu
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-race.sh"

race_setup
[ -z "$RACE_CP" ] || skip "compares smartcp with GNU cp: run it with smartcp"
need_gnu_cp_as_user

cd "$T"
mkdir R U
for f in suid sgid cap capsuid; do
	printf '#!/bin/sh\necho %s\n' "$f" >"R/$f"
done
chmod 4755 R/suid R/capsuid
chmod 2755 R/sgid
chmod 0755 R/cap
files="suid sgid"
if command -v setcap >/dev/null 2>&1 &&
   setcap cap_net_raw+ep R/cap 2>/dev/null &&
   setcap cap_net_raw+ep R/capsuid 2>/dev/null; then
	chmod 4755 R/capsuid	# setcap keeps it; said again to be sure
	files="$files cap capsuid"
else
	say "SKIP the capability files: setcap missing or refused here"
fi
chown "$ATTACKER" U

# copy_as_user PROG OPTS FILE: exit status, messages, the copy's state.
copy_as_user() {
	local prog=$1 opts=$2 f=$3 rc=0
	rm -f U/out
	# shellcheck disable=SC2086
	$NB "$prog" $opts "R/$f" U/out >"$OUT" 2>"$ERR" || rc=$?
	echo "exit $rc"
	sed -e "s|^$prog: |PROG: |" \
	    -e "s|^\(PROG: setting attribute '[^']*' for \)'[^']*'|\1NAME|" "$ERR"
	[ ! -e U/out ] || {
		stat -c '%a %U %G' U/out
		getfattr -h -n security.capability --absolute-names U/out 2>/dev/null |
			grep -c '^security.capability' || true
	}
}

DIFFS=0 BAD=
for o in -p -a --preserve=mode --preserve=all --preserve=mode,ownership \
	 --preserve=xattr; do
	for f in $files; do
		want=$(copy_as_user "$GNU_CP" "$o" "$f")
		got=$(copy_as_user "$T/ours/cp" "$o" "$f")
		if [ "$want" != "$got" ]; then
			DIFFS=$((DIFFS + 1))
			echo "--- cp $o R/$f U/out as uid $ATTACKER_UID, GNU cp / smartcp:" >&2
			diff <(echo "$want") <(echo "$got") >&2 || true
		fi
		[ -e U/out ] || continue
		if getfattr -h -n security.capability U/out >/dev/null 2>&1; then
			BAD="$BAD; $o $f: the copy has security.capability"
		fi
		case $o in
		-p | -a)
			[ $(($(stat -c '0%a' U/out) & 06000)) -eq 0 ] ||
				BAD="$BAD; $o $f: the copy is $(stat -c '%A %U' U/out)" ;;
		esac
	done
done
[ -z "$BAD" ] || fail "${BAD#; }"
[ "$DIFFS" -eq 0 ] || fail "$DIFFS cases where smartcp did not do what GNU cp did"
pass "as GNU cp; no copy kept set-id bits without its owner, none a capability"
