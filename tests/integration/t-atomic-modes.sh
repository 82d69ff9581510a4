#!/bin/bash
# --atomic gives a file exactly the mode (and owner) the copy in place
# gives it, and never a set-id or sticky bit of its own: its temporary
# was once opened with O_TMPFILE and no mode argument, so it got what the
# register held (0177776 under strace: `--atomic -p` of a 0755 file made
# 7755 -rwsr-sr-t, a -j tree 03644), and the ACL that -p then copied
# never clears those bits.
#
# For every option set (none, -p, -a, --preserve=mode, ownership, and
# --no-preserve=mode in combinations), as root and as uid 65534, from
# sources owned by root and by 65534 with and without set-id and sticky
# bits, onto absent and existing destinations (one of them 4755), the
# modes and owners --atomic leaves equal those of the copy in place, which
# equal GNU cp's (/bin/cp) but where noted.  Then a tree with -r -j4, the
# names the report used (relative, in the current directory), and a
# directory with a default ACL.
set -eu
. "$(dirname "$0")/lib.sh"

need_root "runs the copies as uid 65534 too, and chowns sources"
need_cmd setpriv
GNU_CP=/bin/cp
"$GNU_CP" --version 2>/dev/null | grep -q 'GNU coreutils' ||
	skip "needs GNU cp as /bin/cp"
NB=(setpriv --reuid=65534 --regid=65534 --clear-groups)
chmod 0755 "$T"
umask 022
cd "$T"
"${NB[@]}" "$SMARTCP" --version >/dev/null 2>&1 ||
	skip "uid 65534 cannot run $SMARTCP (a directory on its path not searchable?)"

MODES="0755 4755 2755 6755 1755 2644 0640 0700"
# existing destinations: mode and owner
DESTS="absent e0600:65534 e4755:65534 e2775:65534 e0666:0"
OPTSETS=("" "-p" "-a" "--preserve=mode" "--no-preserve=mode"
	"-p --no-preserve=mode" "--preserve=ownership"
	"-a --no-preserve=ownership" "--preserve=mode,ownership")

# listing DIR: name, mode, owner and group, and size of each file (an
# old destination left alone has 4 bytes)
listing() { (cd "$1" && stat -c '%n %a %u:%g %s' -- * | sort); }

# The sources in src/ (every mode, owned by root and by 65534), and for
# each the existing destinations of $DESTS in out.tmpl/, made once; each
# run copies into a fresh copy of out.tmpl.
mkdir src out.tmpl
chown 65534:65534 out.tmpl
for m in $MODES; do
	for o in 0 65534; do
		for d in $DESTS; do
			name=m$m-o$o-$d
			name=${name%%:*}
			echo "data $name" >"src/$name"
			chown "$o:$o" "src/$name"
			chmod "$m" "src/$name"
			[ "$d" = absent ] && continue
			dm=${d%%:*}
			echo old >"out.tmpl/$name"
			chown "${d#*:}:${d#*:}" "out.tmpl/$name"
			chmod "${dm#e}" "out.tmpl/$name"
		done
	done
done
fill() {
	rm -rf "$1"
	cp -a out.tmpl "$1"
}

# compare_gnu GNU-LIST OURS-LIST WHAT: the same lines, but where GNU cp
# keeps set-id bits of the old destination that -p did not ask for: with
# -p as root, cp skips its chown (the owner is already the source's) and
# with it the clearing of the old mode, or narrows the old mode through
# an ACL, which leaves set-id bits alone, so that the chown keeps a
# set-group-ID bit without group execute.  smartcp gives the source's
# mode there.  Those lines are told, and not counted as differences.
compare_gnu() {
	local name gm go om oo src old n=0
	while read -r name gm go _ <&3 && read -r _ om oo _ <&4; do
		[ "$gm $go" = "$om $oo" ] && continue
		src=${name#m}
		src=${src%%-*}
		old=${name##*-e}
		if [ "$go" = "$oo" ] && [ $(( 0$om )) -eq $(( 0$src )) ] &&
			[ $(( (0$gm ^ 0$om) & ~07000 )) -eq 0 ] &&
			[ $(( 0$gm & ~0$om & ~0$old )) -eq 0 ]; then
			n=$((n + 1))
			continue
		fi
		fail "$3: $name: GNU cp left mode $gm owner $go, smartcp $om $oo"
	done 3<"$1" 4<"$2"
	[ "$n" -eq 0 ] ||
		say "$3: $n files keep the old destination's set-id bits with GNU cp, the source's mode with smartcp"
}

# expect_atomic OPTS USER <IN-PLACE-LIST: what --atomic must leave.  The
# same, but where the writer (65534) may not keep the old file's owner
# (root's e0666): the file --atomic puts there is the writer's, with the
# old file's mode, or with the source's where the mode is preserved (the
# copy in place cannot chmod root's file and says so), as a new copy
# gets it.
expect_atomic() {
	local name mode owner size keep=
	case "$1" in
	*no-preserve=mode*|--preserve=ownership|"") ;;
	*) keep=1 ;;
	esac
	local -A fresh=()
	cp /dev/stdin expect.in
	while read -r name mode _; do
		fresh[$name]=$mode
	done <expect.in
	while read -r name mode owner size; do
		if [ "$2" = nobody ] && [ "${name%-e0666}" != "$name" ] &&
			[ "$size" != 4 ]; then
			owner=65534:65534
			[ -z "$keep" ] || mode=${fresh[${name%-e0666}-absent]}
		fi
		echo "$name $mode $owner $size"
	done <expect.in
}

# no_new_special_bits LIST WHAT: a new file (mNNNN-oN-absent) has no
# set-id or sticky bit its source (mode NNNN) lacks.
no_new_special_bits() {
	local name mode src
	while read -r name mode _; do
		case $name in *-absent) ;; *) continue ;; esac
		src=${name#m}
		src=${src%%-*}
		[ $(( 0$mode & ~0$src & 07000 )) -eq 0 ] ||
			fail "$2: $name got mode $mode, set-id or sticky bits its source (mode $src) does not have"
	done <"$1"
}

cells=0
for user in root nobody; do
	run=()
	[ "$user" = root ] || run=("${NB[@]}")
	for opts in "${OPTSETS[@]}"; do
		say "as $user: ${opts:-no options}"
		for how in gnu plain atomic; do
			fill "out-$how"
			rc=0
			# shellcheck disable=SC2086 # opts are words
			case $how in
			gnu) "${run[@]}" "$GNU_CP" $opts src/* "out-$how/" ;;
			plain) "${run[@]}" "$SMARTCP" $opts src/* "out-$how/" ;;
			atomic) "${run[@]}" "$SMARTCP" --atomic $opts src/* "out-$how/" ;;
			esac >"$how.out" 2>"$how.err" || rc=$?
			echo "$rc" >"$how.rc"
			listing "out-$how" >"$how.list"
		done
		assert_eq "$(cat atomic.rc)" "$(cat plain.rc)" "exit status of --atomic $opts vs without"
		expect_atomic "$opts" "$user" <plain.list >expected.list
		diff expected.list atomic.list >&2 ||
			fail "as $user, $opts: --atomic left other modes or owners than the copy in place (diff above: < in place, > --atomic)"
		no_new_special_bits atomic.list "as $user, --atomic $opts"
		assert_eq "$(cat plain.rc)" "$(cat gnu.rc)" "exit status of smartcp $opts vs GNU cp"
		assert_eq "$(cut -d' ' -f1 plain.list)" "$(cut -d' ' -f1 gnu.list)" \
			"names copied by smartcp $opts and GNU cp"
		compare_gnu gnu.list plain.list "as $user, $opts"
		cells=$((cells + $(wc -l <plain.list)))
	done
done
pass "$cells files: --atomic = in place = GNU cp (modes and owners)"

say "the report's case: --atomic -p of a 0755 file, by a relative name"
mkdir rel
cp /bin/true rel/t
chmod 755 rel/t
(cd rel && "$SMARTCP" --atomic -p t new && "$SMARTCP" --atomic -a t new2 &&
	"$SMARTCP" --atomic --preserve=mode t new3)
assert_eq "$(stat -c %a rel/new rel/new2 rel/new3 | tr '\n' ' ')" "755 755 755 " \
	"modes of --atomic -p, -a, --preserve=mode copies of a 0755 file"
pass "755, as without --atomic"

say "a tree with -r -j4: --atomic and the workers' copies agree with cp"
rm -rf tree
mkdir -p tree/sub
for m in $MODES 0644 0600; do
	for o in 0 65534; do
		echo "$m $o" >"tree/f$m-$o"
		chown "$o:$o" "tree/f$m-$o"
		chmod "$m" "tree/f$m-$o"
		cp -p "tree/f$m-$o" "tree/sub/g$m-$o"
	done
done
for opts in "" "-a" "-p" "--preserve=mode" "--no-preserve=mode"; do
	for user in root nobody; do
		run=()
		[ "$user" = root ] || run=("${NB[@]}")
		rm -rf tout
		mkdir tout
		chown 65534:65534 tout
		# shellcheck disable=SC2086
		"${run[@]}" "$GNU_CP" -r $opts tree tout/gnu 2>/dev/null || true
		# shellcheck disable=SC2086
		"${run[@]}" "$SMARTCP" -r -j4 $opts tree tout/plain 2>/dev/null || true
		# shellcheck disable=SC2086
		"${run[@]}" "$SMARTCP" -r -j4 --atomic $opts tree tout/atomic 2>/dev/null || true
		for how in gnu plain atomic; do
			(cd "tout/$how" && find . -printf '%p %m %U:%G\n' | sort) >"tree.$how"
		done
		diff tree.plain tree.atomic >&2 ||
			fail "-r -j4 $opts as $user: --atomic differs from the copy in place (diff above)"
		diff tree.gnu tree.plain >&2 ||
			fail "-r -j4 $opts as $user: smartcp differs from GNU cp (diff above)"
	done
done
pass "-r -j4 trees: --atomic = workers' copies = GNU cp"

if command -v setfacl >/dev/null 2>&1 && command -v getfacl >/dev/null 2>&1 &&
	mkdir acl && setfacl -d -m u:65534:rw acl 2>/dev/null; then
	say "a new file in a directory with a default ACL inherits it, with --atomic too"
	echo x >acl-src
	chmod 0640 acl-src
	"$GNU_CP" acl-src acl/gnu
	"$SMARTCP" acl-src acl/plain
	"$SMARTCP" --atomic acl-src acl/atomic
	for how in gnu plain atomic; do
		getfacl -c "acl/$how" 2>/dev/null >"acl.$how"
		stat -c %a "acl/$how" >>"acl.$how"
	done
	diff acl.gnu acl.plain >&2 || fail "default ACL: smartcp differs from GNU cp"
	diff acl.plain acl.atomic >&2 || fail "default ACL: --atomic differs from the copy in place"
	grep -q '^user:65534:rw-' acl.atomic || grep -q '^user:nobody:rw-' acl.atomic ||
		fail "the default ACL was not inherited: $(cat acl.atomic)"
	pass "ACL and mode as GNU cp's"
else
	say "SKIPPED: default ACL case (no setfacl, or no ACLs on $(fs_type "$T"))"
fi
