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

# Every case directory, made at once by one python3 (a dozen processes a
# case would take most of the test's time): c/USER.OPTS.MODE.HOW (all may
# write in it) with a 0600 source s owned by 65534, and an old
# destination t of mode MODE owned by 65534 with a second name t2 (so
# that --preserve=links does not write through it).
python3 - "${#OPTSETS[@]}" $OLDMODES <<'PY' || fail "cannot make the cases"
import os, sys
n, modes = int(sys.argv[1]), sys.argv[2:]
os.mkdir('c')
for user in ('root', 'nobody'):
    for i in range(n):
        for m in modes:
            for how in ('gnu', 'plain', 'atomic'):
                d = 'c/%s.%d.%s.%s' % (user, i, m, how)
                os.mkdir(d)
                os.chmod(d, 0o777)
                for name, data, mode in (('s', b'secret', 0o600),
                                         ('t', b'old', int(m, 8))):
                    p = d + '/' + name
                    with open(p, 'wb') as f:
                        f.write(data)
                    os.chown(p, 65534, 65534)
                    os.chmod(p, mode)
                os.link(d + '/t', d + '/t2')
PY

declare -A res
n=0 kept=0
for user in root nobody; do
	run=()
	# shellcheck disable=SC2206 # NB is words
	[ "$user" = root ] || run=($NB)
	for i in "${!OPTSETS[@]}"; do
		opts=${OPTSETS[$i]}
		for m in $OLDMODES; do
			c=c/$user.$i.$m
			for how in gnu plain atomic; do
				rc=0
				# shellcheck disable=SC2086 # opts are words
				case $how in
				gnu) "${run[@]}" "$GNU_CP" $opts "$c.gnu/s" "$c.gnu/t" ;;
				plain) "${run[@]}" "$SMARTCP" $opts "$c.plain/s" "$c.plain/t" ;;
				atomic) "${run[@]}" "$SMARTCP" --atomic $opts "$c.atomic/s" "$c.atomic/t" ;;
				esac >/dev/null 2>"$how.err" || rc=$?
				res[$how]="rc $rc"
			done
			# the three results, one stat for all
			{ read -r gs; read -r ps; read -r as; } < <(stat -c '%a %U:%G' \
				"$c.gnu/t" "$c.plain/t" "$c.atomic/t")
			res[gnu]="${res[gnu]} $gs $(<"$c.gnu/t")"
			res[plain]="${res[plain]} $ps $(<"$c.plain/t")"
			res[atomic]="${res[atomic]} $as $(<"$c.atomic/t")"
			what="as $user, ${opts:-no options}, old file mode $m"
			[ "${res[plain]}" = "${res[atomic]}" ] ||
				fail "$what: without --atomic '${res[plain]}', with it '${res[atomic]}' ($(<atomic.err))"
			n=$((n + 1))
			[ "${res[gnu]}" = "${res[plain]}" ] && continue
			# GNU cp -p keeps the old file's set-id bits when its
			# owner is already right (it skips the chown that would
			# clear them); smartcp gives the source's mode
			# (t-atomic-modes.sh tells the same)
			read -r _ _ gm _ <<<"${res[gnu]}"
			read -r _ _ om _ <<<"${res[plain]}"
			case " $opts" in
			*" -"[pa]*)
				if [ "${res[gnu]/ $gm / $om }" = "${res[plain]}" ] &&
					[ $(( (0$gm ^ 0$om) & ~06000 )) -eq 0 ] &&
					[ $(( 0$gm & ~0$om & ~0$m )) -eq 0 ]; then
					kept=$((kept + 1))
					continue
				fi ;;
			esac
			fail "$what: GNU cp gave '${res[gnu]}', smartcp '${res[plain]}'"
		done
	done
done
[ "$kept" -eq 0 ] ||
	say "$kept cases: GNU cp -p kept the old file's set-id bits, smartcp gives the source's mode (with and without --atomic)"
pass "$n cases: --atomic's mode, owner, bytes and exit status = without it = GNU cp's"
