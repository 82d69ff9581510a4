#!/bin/bash
# Onto a filesystem that refuses chmod and chown (faultfs's setattr=EPERM,
# as vfat does, and setattr=ENOSYS, as fusefat does), smartcp under the
# name cp says what GNU cp says, in GNU's quoting, and leaves what it
# leaves: for -p, -a, --preserve=mode, --preserve=ownership and no
# option, as root and as uid 65534, from sources owned by either, onto an
# absent destination, one of the writer's own and one of the other user's
# (mode 0666), in the C.UTF-8 locale (where cp's two quotings differ).  The
# report's case: `cp -p` onto such a file said "clearing permissions for
# 'm/d'" (cp narrows the old mode only before a chown that changes the
# owner) where GNU cp says "preserving permissions for ‘m/d’"; and after
# a failed chown, which stops GNU cp's copy of the file, smartcp said the
# mode it still could not set.  (--atomic is not compared: GNU cp has no
# such option; the matrix's setattr fault holds it to its invariants.)
set -eu
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-faultfs.sh"

need_gnu_cp_as_user
umask 022
cd "$T"

# allow_other: uid 65534 may use the mount; default_permissions: the
# kernel checks the modes, as on a disk filesystem
mount_faultfs "$T/m" allow_other,default_permissions
chmod 0777 "$T/m"

say "faultfs's setattr rule refuses chmod and chown, and ACLs"
mkdir m/probe
set_fault m/probe setattr=ENOSYS
echo x >m/probe/f
assert_exit 1 chmod 600 m/probe/f
assert_grep 'Function not implemented' "$ERR"
assert_exit 1 chown 65534 m/probe/f
assert_eq "$(stat -c %a m/probe/f)" 644 "mode after the refused chmod"
if command -v setfacl >/dev/null; then
	assert_exit 1 setfacl -m u:65534:r m/probe/f
fi
assert_fault_hit "$T/m" '^chmod /probe/f -> ENOSYS'
pass "chmod: ENOSYS, mode unchanged"

printf secret >s0
chmod 640 s0
cp -p s0 s65534
chown 65534:65534 s65534

OPTS=("" "-p" "-a" "--preserve=mode" "--preserve=ownership")
DESTS="absent own other"

# C.UTF-8: quote() and quoteaf() quote differently there (‘a’, 'a')
LOCALES=C.UTF-8
declare -A res

# prepare DIR ERR USER: in DIR (on the mount), for each destination kind,
# option set and locale, one case directory per cp (gnu, ours) holding
# the old destination t, then the rule setattr=ERR on all of them at
# once.
prepare() {
	local dir=$1 err=$2 user=$3 me other d i loc how c
	me=0 other=65534
	[ "$user" = root ] || me=65534 other=0
	mkdir "$dir"
	chmod 0777 "$dir"
	set -- "$dir"
	for d in $DESTS; do
		for i in "${!OPTS[@]}"; do
			for loc in $LOCALES; do
			for how in gnu ours; do
				c=$dir/$d.$i.$loc.$how
				mkdir "$c"
				chmod 0777 "$c"
				set -- "$@" "$c"
				case $d in
				own) echo old >"$c/t"
					chown "$me:$me" "$c/t" ;;
				other) echo old >"$c/t"
					chown "$other:$other" "$c/t"
					chmod 0666 "$c/t" ;;
				esac
				[ "$d" = absent ] || set -- "$@" "$c/t"
			done
			done
		done
	done
	setfattr -n user.fault -v "setattr=$err" -- "$@" ||
		fail "setfattr setattr=$err failed"
}

# state FILE: what a copy left, in $STATE
state() {
	if [ -e "$1" ]; then
		STATE="$(stat -c '%a %u:%g' "$1") $(<"$1")"
	else
		STATE=absent
	fi
}

n=0
for err in EPERM ENOSYS; do
	for user in root nobody; do
		run=()
		# shellcheck disable=SC2206 # NB is words
		[ "$user" = root ] || run=($NB)
		for so in 0 65534; do
			dir=m/$err.$user.$so
			prepare "$dir" "$err" "$user"
			for d in $DESTS; do
				for i in "${!OPTS[@]}"; do
					for loc in $LOCALES; do
						for how in gnu ours; do
							c=$dir/$d.$i.$loc.$how
							cpb=$GNU_CP
							[ "$how" = gnu ] || cpb=$T/ours/cp
							rc=0
							# shellcheck disable=SC2086 # options are words
							LC_ALL=$loc ${run[@]+"${run[@]}"} "$cpb" ${OPTS[$i]} "s$so" "$c/t" \
								2>"$how.err" || rc=$?
							out=$(<"$how.err")
							out=${out//"$cpb: "/cp: }
							state "$c/t"
							res[$how]="exit $rc, $STATE, stderr: ${out//"$c/"/D/}"
						done
						[ "${res[gnu]}" = "${res[ours]}" ] ||
							fail "$err, as $user, source owned by $so, destination $d, ${OPTS[$i]:-no option}, LC_ALL=$loc: GNU cp: ${res[gnu]}; smartcp as cp: ${res[ours]}"
						n=$((n + 1))
					done
				done
			done
		done
	done
done
pass "$n cases: messages, quoting, exit status, mode, owner and bytes as GNU cp's"

say "a tree, onto directories that are there and into new ones"
mkdir -p tree/sub
echo x >tree/sub/f
chmod 750 tree tree/sub
chown -R 65534:65534 tree/sub/f
n=0
for err in EPERM ENOSYS; do
	for opts in -rp -a "-r --preserve=mode" -r; do
		for d in existing new; do
			for how in gnu ours; do
				c=m/tree.$err.${opts// /}.$d.$how
				mkdir -p "$c"
				[ "$d" = new ] || mkdir -p "$c/tree/sub"
				setfattr -n user.fault -v "setattr=$err" -- "$c" \
					$([ "$d" = new ] || echo "$c/tree" "$c/tree/sub")
				cpb=$GNU_CP
				[ "$how" = gnu ] || cpb=$T/ours/cp
				rc=0
				# shellcheck disable=SC2086 # options are words
				LC_ALL=C.UTF-8 "$cpb" $opts tree "$c/" 2>"$how.err" || rc=$?
				out=$(<"$how.err")
				out=${out//"$cpb: "/cp: }
				res[$how]="exit $rc, $(cd "$c" && find . -printf '%p %m %u\n' | sort | tr '\n' ' ')stderr: ${out//"$c/"/D/}"
			done
			[ "${res[gnu]}" = "${res[ours]}" ] ||
				fail "$err, cp $opts of a tree, $d directories: GNU cp: ${res[gnu]}; smartcp as cp: ${res[ours]}"
			n=$((n + 1))
		done
	done
done
pass "$n trees as GNU cp copies them"
