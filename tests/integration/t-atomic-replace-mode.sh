#!/bin/bash
# --atomic never changes the mode or owner a copy ends with: for every
# option that decides whether the old destination goes first (-f,
# --remove-destination, -b, --preserve=links onto a file with other
# names) together with those that decide the mode (-p, -a,
# --no-preserve=mode), as root and as uid 65534, onto old destinations of
# several modes (one the writer may not write), the file --atomic leaves
# has the mode, owner and bytes that GNU cp's (/bin/cp) run without
# --atomic leaves.  The report's case: `--atomic --remove-destination` of
# a 0600 secret onto a 0644 file left it 0644 (the old file's mode),
# where cp's --remove-destination makes a new file with the source's.
set -eu
. "$(dirname "$0")/lib.sh"

need_root "runs the copies as uid 65534 too, and chowns files"
need_gnu_cp_as_user
umask 022
cd "$T"

say "the report's case: a 0600 secret onto a 0644 file"
printf secret >s
chmod 600 s
printf old >d
chmod 644 d
"$SMARTCP" --atomic --remove-destination s d
assert_eq "$(stat -c %a d)" 600 "mode of --atomic --remove-destination's copy of a 0600 file"
assert_eq "$(cat d)" secret "bytes of the copy"
pass "0600, as cp --remove-destination gives it"

OPTSETS=("" "-f" "--remove-destination" "-f --remove-destination" "-b"
	"-b --remove-destination" "--backup=numbered" "--preserve=links"
	"-p" "-a" "--no-preserve=mode" "-f -p" "-f --no-preserve=mode"
	"--remove-destination -p" "--remove-destination --no-preserve=mode"
	"--remove-destination -a" "-b --no-preserve=mode"
	"--preserve=links --no-preserve=mode")
OLDMODES="644 444 600 4755 2664"

# one DIR: a fresh directory (all may write in it) with a 0600 source
# owned by 65534, and an old destination of mode $2 owned by 65534 with
# a second name (so that --preserve=links does not write through it).
one() {
	rm -rf "$1"
	mkdir "$1"
	chmod 0777 "$1"
	printf secret >"$1/s"
	chown 65534:65534 "$1/s"
	chmod 600 "$1/s"
	printf old >"$1/t"
	chown 65534:65534 "$1/t"
	chmod "$2" "$1/t"
	ln "$1/t" "$1/t2"
}

n=0 kept=0
for user in root nobody; do
	run=()
	# shellcheck disable=SC2206 # NB is words
	[ "$user" = root ] || run=($NB)
	for opts in "${OPTSETS[@]}"; do
		for m in $OLDMODES; do
			for how in gnu plain atomic; do
				one "$how" "$m"
				rc=0
				# shellcheck disable=SC2086 # opts are words
				case $how in
				gnu) "${run[@]}" "$GNU_CP" $opts gnu/s gnu/t ;;
				plain) "${run[@]}" "$SMARTCP" $opts plain/s plain/t ;;
				atomic) "${run[@]}" "$SMARTCP" --atomic $opts atomic/s atomic/t ;;
				esac >"$how.out" 2>"$how.err" || rc=$?
				echo "rc $rc $(stat -c '%a %U:%G' "$how/t") $(cat "$how/t")" >"$how.res"
			done
			what="as $user, ${opts:-no options}, old file mode $m"
			[ "$(cat plain.res)" = "$(cat atomic.res)" ] ||
				fail "$what: without --atomic '$(cat plain.res)', with it '$(cat atomic.res)' ($(cat atomic.err))"
			n=$((n + 1))
			[ "$(cat gnu.res)" = "$(cat plain.res)" ] && continue
			# GNU cp -p as root keeps the old file's set-id bits
			# when its owner is already right (it skips the chown
			# that would clear them); smartcp gives the source's
			# mode (t-atomic-modes.sh tells the same)
			read -r _ _ gm _ <gnu.res
			read -r _ _ om _ <plain.res
			case " $opts" in
			*" -"[pa]*)
				if [ "$(sed "s/ $gm / $om /" gnu.res)" = "$(cat plain.res)" ] &&
					[ $(( (0$gm ^ 0$om) & ~06000 )) -eq 0 ] &&
					[ $(( 0$gm & ~0$om & ~0$m )) -eq 0 ]; then
					kept=$((kept + 1))
					continue
				fi ;;
			esac
			fail "$what: GNU cp gave '$(cat gnu.res)', smartcp '$(cat plain.res)'"
		done
	done
done
[ "$kept" -eq 0 ] ||
	say "$kept cases: GNU cp -p kept the old file's set-id bits, smartcp gives the source's mode (with and without --atomic)"
pass "$n cases: --atomic's mode, owner, bytes and exit status = without it = GNU cp's"
