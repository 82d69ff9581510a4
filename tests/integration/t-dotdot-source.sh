#!/bin/bash
# A source whose last name is ".." goes into the target directory itself,
# under the name "TARGET/.", as GNU cp names it (issue 27, item 13): cp -r
# d/.. t copies d's parent into t, not into t's parent (where smartcp
# copied it, as 't/..'), and `cp -r d/.. d/e/` is refused as "cannot copy
# a directory, 'd/..', into itself, 'd/e/.'", not 'd/e/..'.  Checked
# under the name cp against fixed expectations (GNU cp 9.1's), and
# against GNU cp itself when it is installed.
set -eu
. "$(dirname "$0")/lib.sh"

GNU_CP=
if /bin/cp --version 2>/dev/null | head -n 1 | grep -q 'GNU coreutils'; then
	GNU_CP=/bin/cp
fi
mkdir "$T/bin"
ln -s "$SMARTCP" "$T/bin/cp"

# run WHO CP DIR CMD...: in a fresh $T/WHO-DIR holding w/a/b/f, w/a/g,
# w/o/ and w/d/e/, runs CMD (with "cp" being CP) in w/: its stdout and
# stderr (sorted) and then its exit status in $T/WHO-DIR.out, the tree of w/ after
# it in $T/WHO-DIR.tree
run() {
	local who=$1 cp=$2 dir=$T/$1-$3 rc=0
	shift 3
	rm -rf "$dir"
	mkdir -p "$dir/w/a/b" "$dir/w/o" "$dir/w/d/e"
	printf 'f\n' >"$dir/w/a/b/f"
	printf 'g\n' >"$dir/w/a/g"
	# the order of entries is the inodes': not what is checked
	(cd "$dir/w" && PATH=$(dirname "$cp"):$PATH "$@") >"$dir.raw" 2>&1 ||
		rc=$?
	sort "$dir.raw" >"$dir.out"
	echo "$rc" >>"$dir.out"
	(cd "$dir/w" && find . | sort) >"$dir.tree"
}

# check NAME WANT CMD...: CMD under the name cp says WANT (its output,
# then its exit status), as GNU cp does when it is here; TREE (yes, no):
# and leaves the same tree as GNU cp
check() {
	local name=$1 want=$2 tree=$3
	shift 3
	run ours "$T/bin/cp" "$name" "$@"
	assert_eq "$(cat "$T/ours-$name.out")" "$want" "$name: $*"
	if [ -n "$GNU_CP" ]; then
		run gnu "$GNU_CP" "$name" "$@"
		if ! cmp -s "$T/ours-$name.out" "$T/gnu-$name.out"; then
			diff "$T/gnu-$name.out" "$T/ours-$name.out" >&2 || true
			fail "$name: '$*' says other things than GNU cp (above: - GNU cp, + smartcp)"
		fi
		if [ "$tree" = yes ] &&
		   ! cmp -s "$T/ours-$name.tree" "$T/gnu-$name.tree"; then
			diff "$T/gnu-$name.tree" "$T/ours-$name.tree" >&2 || true
			fail "$name: '$*' leaves another tree than GNU cp (above: - GNU cp, + smartcp)"
		fi
	fi
	pass "$name: $*"
}

check into-target "'a/b/../b' -> 'o/./b'
'a/b/../b/f' -> 'o/./b/f'
'a/b/../g' -> 'o/./g'
0" yes cp -rv a/b/.. o/
[ -e "$T/ours-into-target/w/o/g" ] && [ ! -e "$T/ours-into-target/w/g" ] ||
	fail "cp -rv a/b/.. o/: not copied into o"

check into-target-no-slash "'a/b/../b' -> 'o/./b'
'a/b/../b/f' -> 'o/./b/f'
'a/b/../g' -> 'o/./g'
0" yes cp -rv a/b/.. o

check into-target-slashes "'a/b/../b' -> 'o/./b'
'a/b/../b/f' -> 'o/./b/f'
'a/b/../g' -> 'o/./g'
0" yes cp -rv a/b/../ o//

# GNU cp makes d/e/./d and d/e/./d/e before it meets d/e; smartcp makes
# nothing
check into-itself "cp: cannot copy a directory, 'd/..', into itself, 'd/e/.'
1" no cp -r d/.. d/e/
assert_eq "$(ls -A "$T/ours-into-itself/w/d/e")" "" "cp -r d/.. d/e/: what d/e holds"
