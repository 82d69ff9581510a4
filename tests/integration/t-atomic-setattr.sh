#!/bin/bash
# --atomic onto a filesystem that refuses chmod and chown (faultfs's
# setattr=EPERM, as vfat, and setattr=ENOSYS, as fusefat), beside GNU
# cp's copy in place in the same set-up, as root and as uid 65534, from
# sources owned by either, onto an absent destination, one of the
# writer's own and one of the other user's (mode 0666), with no option,
# -p, -a and --preserve=mode (issue 37, item 2).  Before, every --atomic
# copy onto an existing file was thrown away, exit 1, with only "setting
# permissions for 'd'": the temporary could not take the old file's mode.
# Now:
#   - the exit status is GNU cp's;
#   - without -p, the copy replaces the old file: as GNU cp leaves it,
#     without a word, where the new file is made with the old one's owner
#     and mode (the writer's own file); where it cannot take them (another
#     user's file), with cp's warning "preserving permissions for 't'" and
#     a second one saying it was replaced all the same;
#   - where a kept attribute is refused (-p, -a), nothing is replaced or
#     made (all or nothing), and the last message names the destination
#     and says it was not replaced (not created).
set -eu
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-faultfs.sh"

need_gnu_cp_as_user
umask 022
cd "$T"

mount_faultfs "$T/m" allow_other,default_permissions
chmod 0777 "$T/m"

printf secret >s0
chmod 640 s0
cp -p s0 s65534
chown 65534:65534 s65534

OPTS=("" "-p" "-a" "--preserve=mode")

# state FILE: what a copy left, in $STATE
state() {
	if [ -e "$1" ]; then
		STATE="$(stat -c '%a %u:%g' "$1") $(<"$1")"
	else
		STATE=absent
	fi
}

# setup DIR ERR DEST ME OTHER: DIR on the mount, refusing with ERR, with
# the destination DIR/t of kind DEST (absent, own: ME's, other: OTHER's)
setup() {
	local c=$1 err=$2 d=$3 me=$4 other=$5
	mkdir "$c"
	chmod 0777 "$c"
	case $d in
	own) echo old >"$c/t"
		chown "$me:$me" "$c/t" ;;
	other) echo old >"$c/t"
		chown "$other:$other" "$c/t"
		chmod 0666 "$c/t" ;;
	esac
	set_fault "$c" "setattr=$err"
	[ "$d" = absent ] || set_fault "$c/t" "setattr=$err"
}

n=0 replaced=0 kept=0
for err in EPERM ENOSYS; do
	for user in root nobody; do
		run=() me=0 other=65534
		if [ "$user" != root ]; then
			# shellcheck disable=SC2206 # NB is words
			run=($NB)
			me=65534 other=0
		fi
		for so in 0 65534; do
			# uid 65534 cannot read root's 0640 source: no copy
			[ "$user" = root ] || [ "$so" = 65534 ] || continue
			for d in absent own other; do
				for i in "${!OPTS[@]}"; do
					c=m/$err.$user.$so.$d.$i
					setup "$c.gnu" "$err" "$d" "$me" "$other"
					setup "$c.ours" "$err" "$d" "$me" "$other"
					state "$c.ours/t"
					before=$STATE
					what="$err, as $user, source owned by $so, destination $d, ${OPTS[$i]:-no option}"
					grc=0
					# shellcheck disable=SC2086 # options are words
					LC_ALL=C ${run[@]+"${run[@]}"} "$GNU_CP" ${OPTS[$i]} "s$so" "$c.gnu/t" 2>gnu.err || grc=$?
					state "$c.gnu/t"
					gnu=$STATE
					orc=0
					# shellcheck disable=SC2086 # options are words
					(cd "$c.ours" && LC_ALL=C ${run[@]+"${run[@]}"} "$SMARTCP" --atomic ${OPTS[$i]} "$T/s$so" t) 2>ours.err || orc=$?
					state "$c.ours/t"
					[ "$orc" = "$grc" ] ||
						fail "$what: exit $orc, GNU cp exits $grc ($(cat ours.err))"
					last=$(tail -n 1 ours.err)
					if [ "$orc" -ne 0 ]; then
						# all or nothing: what was there stays
						[ "$STATE" = "$before" ] ||
							fail "$what: failed, but t is now $STATE (was $before)"
						want="'t' was not replaced: --atomic keeps the old file when an attribute asked for cannot be set"
						[ "$d" != absent ] || want="'t' was not created: --atomic makes no file when an attribute asked for cannot be set"
						[ "${last#*: }" = "$want" ] ||
							fail "$what: the last message is '$last', not one saying t was not replaced ($(cat ours.err))"
						kept=$((kept + 1))
					elif [ "$d" = other ]; then
						# the new file is the writer's, which
						# could give it neither the owner nor
						# the mode: said, and replaced
						[ "$STATE" = "600 $me:$me secret" ] ||
							fail "$what: t is $STATE"
						case $err in
						EPERM) e='Operation not permitted' ;;
						*) e='Function not implemented' ;;
						esac
						printf "%s: preserving permissions for 't': %s\n%s: warning: 't' was replaced, though not with the old file's permissions\n" \
							"$SMARTCP" "$e" "$SMARTCP" >want.err
						cmp -s want.err ours.err || {
							_show ours.err
							fail "$what: not the warnings expected"
						}
						replaced=$((replaced + 1))
					else
						# as GNU cp's copy in place leaves it
						[ "$STATE" = "$gnu" ] ||
							fail "$what: t is $STATE, GNU cp leaves $gnu"
						[ ! -s ours.err ] ||
							fail "$what: said $(cat ours.err); GNU cp says nothing"
						replaced=$((replaced + 1))
					fi
					n=$((n + 1))
				done
			done
		done
	done
done
pass "$n cases: GNU cp's exit status; $replaced replaced (as GNU cp leaves them, or said), $kept not replaced and said"
