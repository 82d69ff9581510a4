#!/bin/bash
# As an ordinary user, smartcp installed as "cp" behaves as GNU cp where
# permissions matter: the -i prompts for a file its owner may not write,
# the message for a destination symlink that leads through a directory the
# user may not search, and --preserve=xattr of a read-only file.
#
# Both cps run as uid 65534 (nobody) in a case directory nobody owns; each
# case compares status, stdout, stderr and the files left (names, types,
# modes, sizes, link counts, owners, link targets, contents).  Needs root to
# become nobody.
set -eu
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-compat.sh"

need_root "runs the cases as uid 65534"
need_cmd setpriv
compat_init
say "comparing with $("$GNU_CP" --version | head -n 1), both as uid 65534"

NB='setpriv --reuid=65534 --regid=65534 --clear-groups'
chmod 0755 "$T" "$T/o" "$T/g" "$T/ours" "$T/gnu"
$NB "$T/ours/cp" --version >/dev/null 2>&1 ||
	skip "uid 65534 cannot run $SMARTCP (a directory on its path not searchable?)"

# Each case runs as nobody, in an empty directory nobody owns, umask 022;
# the listing shows owners as well.
umask 022
read -r -a COMPAT_PREFIX <<<"$NB"
compat_setup() { chown 65534:65534 .; }
compat_listing() {
	find . -printf '%p %y %m %s %n %U %l\n' | LC_ALL=C sort
	find . -type f -print0 | LC_ALL=C sort -z | xargs -0 -r md5sum
}

# --- a destination its owner may not write
ro='echo e >e; echo f >f; chmod 0 f;'
c i-unwritable-no	"$ro \"\$CP\" -i e f" n
c i-unwritable-yes	"$ro \"\$CP\" -i e f" y
c if-unwritable-no	"$ro \"\$CP\" -if e f" n
c if-unwritable-yes	"$ro \"\$CP\" -if e f" y
c f-unwritable		"$ro \"\$CP\" -f e f"
c unwritable		"$ro \"\$CP\" e f"
c i-unwritable-into	'echo e >e; mkdir t; echo x >t/e; chmod 0 t/e; "$CP" -i e t' n
# --- a destination symlink through a directory nobody may search
c symlink-no-search	'mkdir D; chmod 0 D; ln -s D/D symlink; touch F; "$CP" F symlink'
c symlink-no-search-f	'mkdir D; chmod 0 D; ln -s D/D symlink; touch F; "$CP" -f F symlink'
c unreadable-source	'echo s >s; chmod 0 s; "$CP" s t'
c unsearchable-source	'mkdir D; echo x >D/x; chmod 0 D; "$CP" D/x t'

# --- directories their owner may not search or read, copied with their
# mode: the copy's mode is set last, and through /proc, not through "."
# in a directory the owner can no longer search (the ACL xattr had set it
# to 000 first: "preserving permissions for 't/d000': Permission denied")
# Both copy in inode order, and each makes its own tree: the messages
# are compared sorted (the status and every message still count).
ud='mkdir s; for m in 000 100 200 300 400 500 600 700; do mkdir s/d$m; echo x >s/d$m/f; chmod $m s/d$m; done;'
sorted='2>.err; rc=$?; sort .err >&2; rm -f .err; exit $rc'
c a-unsearchable-dirs	"$ud \"\$CP\" -a s t $sorted"
c rp-unsearchable-dirs	"$ud \"\$CP\" -rp s t $sorted"
c r-mode-unsearchable	"$ud \"\$CP\" -r --preserve=mode s t $sorted"
c r-unsearchable-dirs	"$ud \"\$CP\" -r s t $sorted"

# --- --preserve=xattr of a file nobody may write: the xattrs go on
# before the mode takes away the owner's write permission
if ! command -v setfattr >/dev/null 2>&1 || ! command -v getfattr >/dev/null 2>&1; then
	say "setfattr/getfattr not installed: --preserve=xattr cases not run"
elif ! { touch "$T/xa" && setfattr -n user.probe -v 1 "$T/xa"; } 2>/dev/null; then
	say "$(fs_type "$T") at $T takes no user xattrs: --preserve=xattr cases not run"
else
	xa='touch a; setfattr -n user.foo -v bar a; chmod a-w a;'
	show='echo "rc $?"; getfattr -n user.foo --only-values e; echo; stat -c "%n %a" e'
	c xattr-readonly	"$xa \"\$CP\" --preserve=xattr a e; $show"
	c xattr-readonly-a	"$xa \"\$CP\" -a a e; $show"
fi

compat_finish
