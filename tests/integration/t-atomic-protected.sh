#!/bin/bash
# --atomic replaces a destination only where the copy in place could
# write it: a rename asks only the directory's permission, so before, a
# user who may write a directory replaced a root-owned 0644 file in it
# (taking its ownership) or their own read-only file, and exited 0,
# where cp says "Permission denied".  Now, as uid 65534 in a directory
# open to all, beside GNU cp (the same words and exit status, nothing
# changed, nothing left behind); -f lets it replace them, as cp -f does,
# and through a symlink replaces the link, never the file it leads to;
# root replaces a read-only file, as cp does; a running program is still
# replaced (ETXTBSY), as install does.
set -eu
. "$(dirname "$0")/lib.sh"
need_root "makes root-owned files, runs copies as uid 65534"
need_cmd setpriv

need_gnu_cp_as_user
mkdir "$T/w"
chmod 0777 "$T/w"

# fixture: f (the new bytes), g (root's, 0644), h (the user's, 0444)
fixture() {
	find "$T/w" -mindepth 1 -delete
	echo new >"$T/w/f"
	echo rootfile >"$T/w/g"
	chmod 0644 "$T/w/f" "$T/w/g"
	echo mine >"$T/w/h"
	chown 65534 "$T/w/h"
	chmod 0444 "$T/w/h"
}

# as_user WHO LOG ARGS...: cp ARGS in $T/w as uid 65534, WHO being gnu or
# ours (smartcp as cp); stdout and stderr in LOG, the exit status after.
as_user() {
	local who=$1 log=$2 path=/usr/bin:/bin rc=0
	shift 2
	[ "$who" = gnu ] || path=$T/ours:$path
	# shellcheck disable=SC2086 # NB is a command and its options
	(cd "$T/w" && PATH=$path $NB cp "$@") >"$log" 2>&1 || rc=$?
	echo "rc=$rc" >>"$log"
}

say "a file the user may not write, without -f"
for dst in g h; do
	fixture
	as_user gnu "$T/gnu.$dst" f "$dst"
	fixture
	as_user ours "$T/ours.$dst" --atomic f "$dst"
	cmp "$T/ours.$dst" "$T/gnu.$dst" || {
		diff "$T/ours.$dst" "$T/gnu.$dst" >&2
		fail "--atomic f $dst: not what GNU cp says"
	}
	assert_line "cp: cannot create regular file '$dst': Permission denied" \
		"$T/ours.$dst"
	assert_line "rc=1" "$T/ours.$dst"
	case $dst in
	g) assert_eq "$(stat -c '%U %a' "$T/w/g"):$(cat "$T/w/g")" \
		"root 644:rootfile" "g after the refused copy" ;;
	h) assert_eq "$(stat -c '%U %a' "$T/w/h"):$(cat "$T/w/h")" \
		"nobody 444:mine" "h after the refused copy" ;;
	esac
	assert_eq "$(ls -A "$T/w" | tr '\n' ' ')" "f g h " "the files left"
	pass "--atomic f $dst as uid 65534: $(head -n 1 "$T/ours.$dst"), nothing changed"
done

say "-f: a file the user may not write goes, as with cp -f"
fixture
as_user ours "$T/ours.f" --atomic -f f g
assert_line "rc=0" "$T/ours.f"
assert_eq "$(stat -c %U "$T/w/g"):$(cat "$T/w/g")" "nobody:new" "g after -f"
fixture
as_user ours "$T/ours.f" --atomic -f f h
assert_line "rc=0" "$T/ours.f"
assert_eq "$(cat "$T/w/h")" new "h after -f"
assert_eq "$(ls -A "$T/w" | tr '\n' ' ')" "f g h " "the files left"
pass "--atomic -f replaced both, no temporary left"

say "-f through a symlink to a file the user may not write: the link goes, as with cp -f"
for who in gnu ours; do
	fixture
	ln -s g "$T/w/lg"
	chown -h 65534 "$T/w/lg"
	if [ "$who" = gnu ]; then
		as_user gnu "$T/$who.lg" -f f lg
	else
		as_user ours "$T/$who.lg" --atomic -f f lg
	fi
	(cd "$T/w" && stat -c '%n %F %a %U' g lg && cat g lg) >"$T/$who.lg.state"
done
cmp "$T/ours.lg" "$T/gnu.lg" || fail "--atomic -f f lg: not what GNU cp -f says"
cmp "$T/ours.lg.state" "$T/gnu.lg.state" || {
	diff "$T/ours.lg.state" "$T/gnu.lg.state" >&2
	fail "--atomic -f f lg: not the files GNU cp -f leaves"
}
assert_line "rootfile" "$T/ours.lg.state"
assert_line "lg regular file 644 nobody" "$T/ours.lg.state"
pass "root's file untouched, lg a new file of the user's, as GNU cp -f leaves them"

say "root replaces a read-only file, as cp does"
fixture
assert_exit 0 "$SMARTCP" --atomic "$T/w/f" "$T/w/h"
assert_eq "$(cat "$T/w/h")" new "h after the copy as root"
pass "exit 0, the new bytes"

say "a running program is replaced (ETXTBSY), as install does"
cp /bin/sleep "$T/w/prog"
"$T/w/prog" 30 &
pid=$!
for _ in $(seq 100); do
	[ "$(readlink "/proc/$pid/exe" 2>/dev/null)" = "$T/w/prog" ] && break
	sleep 0.05
done
rc=0
"$SMARTCP" --atomic /bin/true "$T/w/prog" 2>"$T/busy.err" || rc=$?
kill "$pid" 2>/dev/null || true
wait "$pid" 2>/dev/null || true
assert_eq "$rc" 0 "exit status replacing a running program ($(cat "$T/busy.err"))"
cmp -s /bin/true "$T/w/prog" || fail "the running program was not replaced"
pass "exit 0, the program replaced while it ran"
