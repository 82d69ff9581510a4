# shellcheck shell=bash
# Cases written here from what uutils coreutils' tests of cp
# (tests/by-util/test_cp.rs) assert about GNU cp's behaviour: uutils aims
# at GNU compatibility, so its assertions describe GNU cp.  Their Rust is
# not run; each case below is a shell snippet of our own doing what one of
# their tests does, and passes when the snippet's exit status is the one
# given (0: the copy and the checks after it succeed; 1: cp fails as their
# test expects).  Cases that need GNU cp newer than 9.1 (--update=none,
# --debug) are not here.
#
#	u NAME STATUS 'SNIPPET'
#
#	u NAME STATUS 'SNIPPET' 'SETUP'	(SETUP runs first, as root; the
#					case is skipped when it fails)
#
# Each case runs in a new folder holding the fixture below (made by
# uutils_fixture, as their fixture folder has it).  uutils runs its tests
# as an ordinary user: when $SUITE_AS is set (run.sh sets it as root), the
# folder is given to uid 65534 and the snippet runs as that user.
# shellcheck source=tests/other-suites/lib.sh

uutils_fixture() {
	printf 'Hello, World!\n' >hello_world.txt
	printf 'How are you?\n' >how_are_you.txt
	printf 'Cogito ergo sum.\n' >existing_file.txt
	mkdir hello_dir hello_dir_with_file
	printf 'Hello, World!\n' >hello_dir_with_file/hello_world.txt
}

u() {
	local name=$1 want=$2 snippet=$3 setup=${4:-} d rc=0
	d=$SUITE_WORK_TOP/$name
	mkdir "$d"
	(
		cd "$d" || exit 1
		export SUITE_WORK=$d
		uutils_fixture
		if [ -n "$setup" ] && ! eval "$setup" >/dev/null 2>&1; then
			suite_case_skip "$name"
			exit 0
		fi
		[ -z "$SUITE_AS" ] || chown -R 65534:65534 .
		suite_case_begin "$name"
		# shellcheck disable=SC2086
		$SUITE_AS bash -c "$snippet" >"$SUITE_CASE.out" 2>"$SUITE_CASE.err" </dev/null ||
			rc=$?
		if [ "$rc" = "$want" ]; then
			suite_case_end PASS
		else
			suite_case_end FAIL
		fi
	)
}

uutils_cases() {
	SUITE_WORK_TOP=$PWD
	# operands
	u duplicate-source	0 'cp hello_world.txt hello_world.txt hello_dir'
	u duplicate-source-dir	0 'cp -r hello_dir_with_file hello_dir_with_file hello_dir'
	u duplicate-normalised	0 'cp hello_world.txt ./hello_world.txt hello_dir'
	u duplicate-backup	1 'cp --backup hello_world.txt hello_world.txt hello_dir'
	u duplicate-numbered	0 'cp --backup=numbered hello_world.txt hello_world.txt hello_dir'
	u same-file		1 'cp hello_world.txt hello_world.txt'
	u many-to-file		1 'cp hello_world.txt how_are_you.txt existing_file.txt'
	u dir-without-r		1 'cp hello_dir copy'
	u missing-among-many	1 'cp hello_world.txt nonexistent_file.txt how_are_you.txt hello_dir'
	u empty-name-among-many	1 'cp hello_world.txt "" how_are_you.txt hello_dir'
	u r-twice		0 'cp -r -r hello_dir_with_file new && cmp hello_world.txt new/hello_world.txt'
	u r-slash-dot		0 'cp -r hello_dir_with_file/. target && test -f target/hello_world.txt'
	u t-option		0 'cp -t hello_dir hello_world.txt && test -f hello_dir/hello_world.txt'
	u t-after		0 'cp hello_world.txt -t hello_dir && test -f hello_dir/hello_world.txt'
	u T-onto-dir		1 'cp hello_world.txt -v -T hello_dir'
	u rT-dir-into-dir	0 'mkdir d2; cp -rT hello_dir_with_file d2 && test -f d2/hello_world.txt && test ! -e d2/hello_dir_with_file'
	u rT-new-dir		0 'cp -rT hello_dir_with_file made && test -f made/hello_world.txt'
	u t-is-file		1 'cp -t how_are_you.txt hello_world.txt'
	u only-source		1 'cp hello_world.txt'
	u no-such-dir-slash	1 'cp hello_world.txt no-such/'
	u rT-trailing-slash	0 'mkdir a; cp -r -T a e/'
	# overwriting
	u i-no			1 'echo N | cp -i hello_world.txt how_are_you.txt'
	u i-u-older		1 'touch -d 2000-01-01 how_are_you.txt; echo N | cp -i -u hello_world.txt how_are_you.txt'
	u i-u-newer		0 'touch -d 2030-01-01 how_are_you.txt; cp -i -u hello_world.txt how_are_you.txt </dev/null'
	u vi-no			1 'echo N | cp -vi hello_world.txt how_are_you.txt'
	u fi-verbose-ro-yes	0 'chmod 0 how_are_you.txt; printf y | cp -f -i --verbose hello_world.txt how_are_you.txt'
	u fi-verbose-ro-eof	1 'chmod 0 how_are_you.txt; cp -f -i --verbose hello_world.txt how_are_you.txt </dev/null'
	u n-existing		0 'cp -n hello_world.txt how_are_you.txt && grep -q How how_are_you.txt'
	u no-clob-abbrev	0 'cp --no-clob hello_world.txt how_are_you.txt && grep -q How how_are_you.txt'
	u f-readonly-dest	0 'touch d; chmod 444 d; cp --force hello_world.txt d && cmp hello_world.txt d'
	u remove-dest-readonly	0 'touch d; chmod 444 d; cp --remove-destination hello_world.txt d'
	u remove-dest-hardlink	0 'ln hello_world.txt h; cp --remove-destination hello_world.txt h'
	u remove-dest-symlink	0 'ln -s hello_world.txt s; cp --remove-destination hello_world.txt s && test ! -L s'
	u remove-dest-loop	0 'ln -s loop loop; cp --remove-destination hello_world.txt loop && test -f loop'
	u f-symlink-loop	0 'ln -s loop loop; cp -f hello_world.txt loop && test -f loop'
	u same-file-backup	1 'cp --backup hello_world.txt hello_world.txt'
	u same-file-force	1 'cp --force hello_world.txt hello_world.txt'
	u same-file-force-backup 0 'cp --force --backup hello_world.txt hello_world.txt && test -f hello_world.txt~'
	u seen-file		1 'mkdir a b c; echo a >a/f; echo b >b/f; cp a/f b/f c'
	u seen-file-numbered	0 'mkdir a b c; echo a >a/f; echo b >b/f; cp --backup=numbered a/f b/f c && test -f c/f.~1~'
	# backups
	u b			0 'cp hello_world.txt how_are_you.txt -b && test -f how_are_you.txt~'
	u vbL			0 'cp hello_world.txt how_are_you.txt -vbL'
	u backup-first		0 'cp --backup hello_world.txt how_are_you.txt'
	u suffix		0 'cp hello_world.txt -b --suffix .bak how_are_you.txt && test -f how_are_you.txt.bak'
	u suffix-alone		0 'cp hello_world.txt --suffix .bak how_are_you.txt && test -f how_are_you.txt.bak'
	u suffix-dash		0 'cp hello_world.txt -b --suffix -v how_are_you.txt && test -f how_are_you.txt-v'
	u suffix-env		0 'SIMPLE_BACKUP_SUFFIX=-old cp -b hello_world.txt how_are_you.txt && test -f how_are_you.txt-old'
	u backup-t		0 'cp --backup=t hello_world.txt how_are_you.txt && test -f how_are_you.txt.~1~'
	u backup-numbered	0 'cp --backup=numbered hello_world.txt how_are_you.txt'
	u backup-existing	0 'cp --backup=existing hello_world.txt how_are_you.txt && test -f how_are_you.txt~'
	u backup-nil		0 'cp --backup=nil hello_world.txt how_are_you.txt && test -f how_are_you.txt~'
	u backup-existing-has	0 'touch how_are_you.txt.~1~; cp --backup=existing hello_world.txt how_are_you.txt && test -f how_are_you.txt.~2~'
	u backup-simple		0 'cp --backup=simple hello_world.txt how_are_you.txt'
	u backup-never		0 'cp --backup=never hello_world.txt how_are_you.txt && test -f how_are_you.txt~'
	u backup-none		0 'cp --backup=none hello_world.txt how_are_you.txt && test ! -e how_are_you.txt~'
	u backup-off		0 'cp --backup=off hello_world.txt how_are_you.txt && test ! -e how_are_you.txt~'
	u backup-bad		1 'cp --backup=bogus hello_world.txt how_are_you.txt'
	u backup-protect-source	1 'touch hello_world.txt~; cp --backup=simple hello_world.txt~ hello_world.txt'
	u backup-n		1 'cp --backup --no-clobber hello_world.txt how_are_you.txt'
	u b-dest-symlink	0 'echo o >original; ln -s original s; cp -b hello_world.txt s && test -L s~ && test ! -L s'
	u b-dest-symlink-source	0 'ln -s hello_world.txt s; cp -b hello_world.txt s && test -L s~ && test ! -L s'
	u link-backup		0 'touch file2; cp -l -b hello_world.txt file2 && test -f file2~'
	# links and dereferencing
	u LP			1 'cp -LP hello_dir hello_world.txt'
	u L-link-into-dir	0 'ln -s hello_world.txt l; cp -L hello_world.txt l hello_dir && test ! -L hello_dir/l'
	u P-link-into-dir	0 'ln -s hello_world.txt l; cp -P hello_world.txt l hello_dir && test -L hello_dir/l'
	u P-link-onto-link	0 'cp hello_world.txt c; ln -s hello_world.txt l; ln -s c cl; cp -P l cl && test -L cl && test ! -L c'
	u strip-slashes		0 'cp --strip-trailing-slashes hello_world.txt/ copy'
	u link			0 'cp hello_world.txt --link copy && test hello_world.txt -ef copy'
	u link-hardlinked-dest	0 'ln hello_world.txt h; cp --link hello_world.txt h'
	u link-same-file	0 'cp --link hello_world.txt hello_world.txt'
	u d-hardlinks-verbose	0 'ln hello_world.txt h; cp -d --verbose hello_world.txt h hello_dir && test hello_dir/h -ef hello_dir/hello_world.txt'
	u symbolic-link		0 'cp hello_world.txt --symbolic-link copy && test -L copy'
	u f-link		0 'touch dest; cp -f --link hello_world.txt dest && test hello_world.txt -ef dest'
	u f-symbolic-link	0 'touch dest; cp -f --symbolic-link hello_world.txt dest && test -L dest'
	u sL-link		0 'ln -s hello_world.txt l; ln -s l l2; cp -s -L l2 z && test "$(readlink z)" = l2'
	u link-L		0 'ln -s hello_world.txt l; ln -s l l2; cp --link -L l2 z && test z -ef hello_world.txt'
	u link-P		0 'ln -s hello_world.txt l; ln -s l l2; cp --link -P l2 z && test "$(readlink z)" = l'
	u dangling-dest		1 'ln -s nowhere target; cp hello_world.txt target'
	u dangling-dest-P	1 'ln -s nowhere target; cp -P hello_world.txt target'
	u dangling-dest-f	1 'ln -s nowhere target; cp --force hello_world.txt target'
	u dangling-posix	0 'ln -s nowhere target; POSIXLY_CORRECT=1 cp hello_world.txt target && test -f nowhere'
	u dangling-source-P	0 'ln -s nowhere dangle; cp -P dangle d2 && test -L d2'
	u dangling-source-Pp	0 'ln -s nowhere dangle; cp -P -p dangle d2 && test -L d2'
	u just-created-link	1 'mkdir a b c; ln -s ../t a/1; echo hello >b/1; echo world >t; cp --no-dereference a/1 b/1 c'
	u just-created-dangling	1 'mkdir a b c; ln -s ../t a/1; echo hello >b/1; cp --no-dereference a/1 b/1 c'
	u overwrite-detection	1 'mkdir good tmp; echo 1 >README; echo 2 >good/README; ln -s tmp/foo tmp/README; touch tmp/foo; cp README good/README tmp'
	u dangling-inside-dir	1 'mkdir good tmp; echo 1 >README; echo 2 >good/README; ln -s foo tmp/README; cp README good/README tmp'
	u abuse-existing	1 'mkdir a b c; ln -s ../t a/1; echo hello >b/1; ln -s ../t c/1; echo i >t; cp -dR a/1 b/1 c'
	u same-symlink-d	0 'ln -s t a; ln -s t b; touch t; cp -d a b'
	u same-symlink-d-dangling 0 'ln -s t a; ln -s t b; cp -d a b'
	u P-onto-link-to-it	1 'mkdir a b; echo bar >a/foo; ln -s ../a/foo b/foo; cp -P a/foo b'
	u symlink-force		0 'touch file; ln -s file file-link; touch copy; cp file-link copy -f --no-dereference && test "$(readlink copy)" = file'
	u canonicalize		0 'mkdir dir; touch dir/file; ln -s ../dir/file dir/file-ln; cp dir/file-ln .'
	u H-R-links		0 'mkdir src-dir dest-dir; echo f >f; ln -s f slink; ln -s no-file src-dir/slink; cp -H -R slink src-dir dest-dir && test ! -L dest-dir/slink'
	u r-dir-link		0 'mkdir dir; ln -s dir dir-link; cp -r dir-link copy && test "$(readlink copy)" = dir'
	u r-relative-link	0 'mkdir dir; touch dir/file; ln -s file dir/file-link; cp -r dir copy && test "$(readlink copy/file-link)" = file'
	u LRv			0 'ln -s "$PWD/hello_dir_with_file/hello_world.txt" hello_dir_with_file/l; cp -L -R -v hello_dir_with_file new'
	u PRv			0 'ln -s "$PWD/hello_dir_with_file/hello_world.txt" hello_dir_with_file/l; cp -P -R -v hello_dir_with_file new && test -L new/l'
	u overriding-args	0 'for p in "--remove-destination --force" "--force --remove-destination" "--interactive --no-clobber" "--link --symbolic-link" "--symbolic-link --link" "--dereference --no-dereference" "--no-dereference --dereference"; do cp $p hello_world.txt file2 || exit; rm -f file2; done'
	# --parents
	u parents		0 'cp --parents hello_dir_with_file/hello_world.txt hello_dir && test -f hello_dir/hello_dir_with_file/hello_world.txt'
	u parents-many		0 'cp --parents hello_dir_with_file/hello_world.txt how_are_you.txt hello_dir'
	u parents-not-dir	1 'cp --parents hello_dir_with_file/hello_world.txt copy'
	u parents-p-file	0 'mkdir dir; mkdir -p p1/p2; touch p1/p2/file; chmod 777 p1; chmod 711 p1/p2; chmod 702 p1/p2/file; cp -p --parents p1/p2/file dir'
	u parents-p-dir		0 'mkdir dir; mkdir -p p1/p2; touch p1/p2/file; chmod 777 p1; chmod 711 p1/p2; cp -p --parents -r p1/p2 dir'
	u a-parents-dirs	0 'mkdir -p a/b/c d; cp -a --parents a/b/c d && test -d d/a/b/c'
	u parents-verbose	0 'mkdir -p a/b d; touch a/b/c; cp --verbose --parents a/b/c d'
	u parents-verbose-link	0 'mkdir -p a/b d; touch a/b/c; ln -s b a/link; cp --verbose --parents a/link/c d && test ! -L d/a/link'
	u parents-verbose-dir	0 'mkdir -p a/b/c d; cp --verbose -r --parents a/b/c d'
	u parents-verbose-deep	0 'mkdir -p a/b/c d/e; cp --verbose -r --parents a/b/c d/e'
	# special files
	u dev-null-to-dev-zero	0 'cp /dev/null zero' 'mknod -m 666 zero c 1 5'
	u dev-null-to-file	0 'cp /dev/null foo && test -f foo && test ! -s foo'
	u dev-null-existing	0 'touch f2; cp /dev/null f2'
	u fifo-r		0 'mkfifo fifo; chmod 731 fifo; cp --preserve=mode -r fifo fifo2 && test -p fifo2'
	u socket-r		0 'python3 -c "import socket; socket.socket(socket.AF_UNIX).bind(\"socket\")" || exit 0; chmod 731 socket; cp --preserve=mode -r socket socket2 && test -S socket2'
	u zero-to-full		1 'cp zero full' 'mknod -m 666 zero c 1 5 && mknod -m 666 full c 1 7'
	# attributes
	u preserve-no-arg	0 'chmod 500 hello_world.txt; cp hello_world.txt b --preserve'
	u preserve-before	0 'chmod 500 hello_world.txt; cp --preserve hello_world.txt b'
	u preserve-all		0 'cp --preserve=all hello_world.txt b'
	u preserve-al		0 'cp --preserve=al hello_world.txt b'
	u preserve-xattr	0 'cp --preserve=xattr hello_world.txt b'
	u preserve-all-context	1 'cp --preserve=all,context hello_dir_with_file/hello_world.txt b'
	u preserve-link-words	0 'for w in links link li l; do cp --preserve=$w hello_dir_with_file/hello_world.txt b || exit; done'
	u preserve-invalid	1 'cp --preserve=invalid-value hello_dir_with_file/hello_world.txt b'
	u d-hardlinks		0 'touch a; ln a b; mkdir c; cp -d a b c && test c/a -ef c/b'
	u RH-preserve-links	0 'touch a; ln -s a b; mkdir c; cp --preserve=links -R -H a b c && test c/a -ef c/b'
	u RL-preserve-symlink	0 'mkdir d; touch d/a; ln -s a d/b; cp --preserve=links -R -L d c && test c/a -ef c/b'
	u RL-preserve-hardlink	0 'mkdir d; touch d/a; ln d/a d/b; cp --preserve=links -R -L d c && test c/a -ef c/b'
	u dR-no-preserve-links	0 'mkdir d; touch d/a; ln d/a d/b; cp -dR --no-preserve=links d c && test ! c/a -ef c/b'
	u n-preserve-links	0 'mkdir src dest; touch src/f; ln src/f src/g; touch dest/g; cp -n --preserve=links src/f src/g dest'
	u a-no-preserve-mode	0 'touch a; chmod 731 a; umask 077; cp -a --no-preserve=mode a b'
	u a			0 'touch -d 2001-01-01 hello_world.txt; cp hello_world.txt --archive how_are_you.txt && test ! how_are_you.txt -nt hello_world.txt'
	u a-recursive		0 'touch hello_dir/1 hello_dir/2; ln -s 1 hello_dir/1.link; ln -s 2 hello_dir/2.link; cp --archive hello_dir new && test -L new/1.link'
	u preserve-timestamps	0 'touch -d 2001-01-01 hello_world.txt; cp hello_world.txt --preserve=timestamps how_are_you.txt && test ! how_are_you.txt -nt hello_world.txt'
	u no-preserve-times	0 'touch -d 2001-01-01 hello_world.txt; cp hello_world.txt --no-preserve=timestamps how_are_you.txt && test how_are_you.txt -nt hello_world.txt'
	u no-preserve-mode	0 'touch file; chmod 7777 file; umask 022; cp file dest'
	u preserve-mode		0 'touch file; chmod 7777 file; cp file dest -p'
	u p-R-dir		0 'mkdir d1; chmod 500 d1; cp -p -R d1 d2'
	u p-r-subdirs		0 'mkdir -p a1/a2; chmod 555 a1/a2; chmod 777 a1; cp -p -r a1 b1'
	u p-R-unreadable-file	0 'mkdir d1; touch d1/f; chmod 0 d1/f; chmod 500 d1; cp -p -R d1 d2'
	u attributes-only	0 'echo a >fa; echo b >fb; chmod 500 fa; chmod 777 fb; cp --attributes-only fa fb && grep -q b fb'
	u a-dir-dot		0 'mkdir dir1 dir2; touch dir1/file; cp -a dir1/. dir2 && test -f dir2/file'
	u a-hardlink-in-dir	0 'mkdir src; touch src/f; ln src/f src/link; mkdir -p dest/src; touch dest/src/f; cp -a src dest && test dest/src/f -ef dest/src/link'
	u a-missing		1 'cp -a nonexistent_file.txt existing_file.txt'
	u src-base-dot		0 'mkdir x y; cd y && cp --verbose -r ../x/. . && test ! -e x'
	# copying into itself
	u dir-into-itself	1 'mkdir -p parent1/child; cp -R parent1 parent1'
	u dir-into-child	1 'mkdir -p parent1/child; cp -R parent1 parent1/child'
	u child-into-other	0 'mkdir -p parent1/child parent2; cp -R parent1/child parent2'
	u dir-into-grandchild	1 'mkdir -p parent2/child1/child2/child3; cp -R parent2/child1/ parent2/child1/child2/child3'
	u dir-onto-file		1 'cp -R hello_dir_with_file existing_file.txt'
	u d-d			1 'mkdir d; cp -R d d'
	u nested-into-itself	1 'mkdir -p a/b/c; cp -R a/b a/b/c'
	# reflink and sparse
	u reflink-always	0 'cp --reflink=always hello_world.txt existing_file.txt || exit 0'
	u reflink-auto		0 'cp --reflink=auto hello_world.txt existing_file.txt'
	u reflink-bare		0 'cp --reflink hello_world.txt existing_file.txt || exit 0'
	u reflink-never		0 'for w in never neve n; do cp --reflink=$w hello_world.txt existing_file.txt || exit; done'
	u reflink-bad		1 'cp --reflink=bad hello_world.txt existing_file.txt'
	u reflink-unreadable	1 'touch unreadable; chmod 0 unreadable; cp -r --reflink=auto unreadable existing_file.txt'
	u sparse-never		0 'head -c 16384 /dev/zero >src; cp --sparse=never src dst'
	u sparse-always		0 'for w in always alway al; do head -c 16384 /dev/zero >src; rm -f dst; cp --sparse=$w src dst || exit; done'
	u sparse-invalid	1 'touch src; cp --sparse=invalid src dst'
	u sparse-always-reflink	1 'touch src; cp --sparse=always --reflink=always src dst'
	u sparse-never-reflink	1 'touch src; cp --sparse=never --reflink=always src dst'
	u reflink-never-sparse	0 'truncate -s 1M src; cp --reflink=never --sparse=always src dest'
	u copy-contents-fifo	0 'mkfifo fifo; (sleep 1; echo foo >fifo) & cp --copy-contents fifo outfile; rc=$?; wait; [ $rc = 0 ] && grep -q foo outfile'
	# read-only files
	u readonly-dest		1 'touch v i; chmod 444 i; cp v i'
	u readonly-dest-reflink	1 'echo s >s; echo o >ro; chmod 444 ro; cp --reflink=auto s ro'
	u readonly-dest-r	0 'mkdir sd dd; echo s >sd/f; echo o >dd/f; chmod 444 dd/f; cp -r sd dd'
	u readonly-source	0 'echo s >rs; echo d >d; chmod 444 rs; cp rs d'
	u readonly-both		1 'echo s >rs; echo o >ro; chmod 444 rs ro; cp rs ro'
	# names
	u non-utf8-source	0 'touch "$(printf "\377\377src")"; cp "$(printf "\377\377src")" dest'
	u non-utf8-dest		0 'cp hello_world.txt "$(printf "\377\377dest")"'
	u non-utf8-target	0 'mkdir "$(printf "\377\377dest")"; cp -t "$(printf "\377\377dest")" hello_world.txt'
	u one-file-system	0 'cp -rx hello_dir_with_file new'
	# the same file reached by two names (their same_file tests)
	local o fl='echo abcd >foo; ln -s foo symlink;'
	for o in -d -f -df; do u "same-file-to-symlink$o" 1 "$fl cp $o foo symlink"; done
	u same-file-to-symlink--rem 0 "$fl cp --rem foo symlink"
	for o in -b -bd -bf -bdf; do u "same-file-to-symlink$o" 0 "$fl cp $o foo symlink"; done
	for o in -l -dl; do u "same-file-to-symlink$o" 1 "$fl cp $o foo symlink"; done
	for o in -fl -dfl -bl -bdl -bfl -bdfl; do u "same-file-to-symlink$o" 0 "$fl cp $o foo symlink"; done
	u same-file-to-symlink-s 1 "$fl cp -s foo symlink"
	u same-file-to-symlink-sf 0 "$fl cp -sf foo symlink"
	for o in -d -f -df --rem -b -bf -s -sf; do u "same-symlink-to-file$o" 1 "$fl cp $o symlink foo"; done
	for o in -bd -bdf -l -dl -fl -bl -bfl; do u "same-symlink-to-file$o" 0 "$fl cp $o symlink foo"; done
	for o in -d -f -df --rem -b -bd -s -sf; do u "same-file-to-itself$o" 1 "echo abcd >foo; cp $o foo foo"; done
	for o in -bf -bdf -l -dl -fl -dfl -bl -bdl -bfl -bdfl; do u "same-file-to-itself$o" 0 "echo abcd >foo; cp $o foo foo"; done
	local sl='echo abcd >foo; ln -s foo sl1; ln -s foo sl2;'
	for o in -d -df --rem -b -bf -bd -bdf -fl -bl -bfl -sf; do u "same-symlinks$o" 0 "$sl cp $o sl1 sl2"; done
	for o in -f -l -s; do u "same-symlinks$o" 1 "$sl cp $o sl1 sl2"; done
	u same-symlink-itself-P 1 "$fl cp -P symlink symlink"
	u same-dangling-itself-P 1 'ln -s nonexistent_file symlink; cp -P symlink symlink'
	local hl='echo abcd >foo; ln foo hardlink;'
	for o in -d -f -df -s -sf; do u "same-file-to-hardlink$o" 1 "$hl cp $o foo hardlink"; done
	for o in --rem -b -bd -bf -bdf -l -dl -fl -dfl -bl -bdl -bfl -bdfl; do u "same-file-to-hardlink$o" 0 "$hl cp $o foo hardlink"; done
	local hs='echo abcd >foo; ln -s foo symlink; ln symlink hlsl;'
	for o in '' -f -l -s; do u "same-hardlinked-symlink${o:--}" 1 "$hs cp $o hlsl symlink"; done
	for o in -d -df --rem -b -bf -bd -bdf -dl -dfl -fl -bl -bfl -bdl -bdfl -sf; do u "same-hardlinked-symlink$o" 0 "$hs cp $o hlsl symlink"; done
	u same-hardlinked-symlinks-P 0 'echo abcd >foo; ln -s foo symlink; ln symlink h1; ln symlink h2; cp -P h1 h2'
	# --link and symbolic links as sources (their link_deref tests)
	local src r
	for src in file_link dir_link dang_link; do
		for r in '' -R; do
			u "link-P-$src$r" 0 "touch file; mkdir dir; ln -s file file_link; ln -s dir dir_link; ln -s nowhere dang_link; cp --link -P $src dst $r"
		done
	done
	for o in '' -L -H; do
		for r in '' -R; do
			u "link-dangling$o$r" 1 "ln -s nowhere dang_link; cp --link dang_link dst $r $o"
		done
		u "link-dir-link$o" 1 "mkdir dir; ln -s dir dir_link; cp --link dir_link dst $o"
		u "link-R-dir-link$o" 0 "mkdir dir; ln -s dir dir_link; cp --link -R dir_link dst $o"
		u "link-R-file-link$o" 0 "touch file; ln -s file file_link; cp --link -R file_link dst $o && test file -ef dst"
	done
	# option order and overriding
	for o in -d -a; do u "no-preserve-all$o" 0 "touch file; ln -s file symlink; cp $o --no-preserve=all symlink dest && test -L dest"; done
	local i=0
	for o in '-r --preserve=mode,link,timestamp --no-preserve=link' \
		'-r --preserve=mode --preserve=link --preserve=timestamp --no-preserve=link' \
		'-r --preserve=mode,link --no-preserve=link --preserve=timestamp' \
		'-a --no-preserve=link' '-r --preserve --no-preserve=link'; do
		i=$((i + 1))
		u "preserve-overriding-$i" 0 "mkdir folder; touch folder/file1; chmod 775 folder/file1; ln folder/file1 folder/file2; cp $o folder dest && test ! dest/file1 -ef dest/file2"
	done
	for o in -HP -PH -Ha -aH -Hd -dH -La -aL -Ld -dL; do u "deref-order$o" 0 "touch file.txt; ln -s file.txt symlink; cp $o symlink dest"; done
	# more from their later tests
	u preserve-through-symlink 0 'touch a; chmod 700 a; ln -s a symlink; mkdir dest; cp --preserve symlink dest'
	u parents-a-symlink-file 0 'mkdir a; touch a/file; chmod 700 a; ln -s a symlink; mkdir dest; cp --parents -a symlink/file dest'
	u parents-a-symlink-dir	0 'mkdir -p a/b; ln -s a symlink; mkdir dest; cp --parents -a symlink/b dest'
	u parents-absolute	0 'mkdir -p a/b dest; touch a/b/f; cp --parents "$PWD/a/b/f" dest'
	u symlink-overwrite	1 'mkdir a b c; echo hello >t; ln -s ../t a/1; ln -s ../t b/1; cp --no-dereference a/1 b/1 c'
	u s-overwrite		1 'mkdir a b; echo hello >a/t; echo hello >b/t; cp -s a/t b/t .'
	u b-rem-dest-symlink	0 'echo xyz >file; mkdir inner_dir; echo abc >inner_dir/inner_file; ln -s inner_file inner_dir/sl; cp -b --rem file inner_dir/sl'
	u no-operand		1 'cp'
	u stdin-source		0 'echo "Hello, World!" | cp /dev/fd/0 target'
	u stdin-shorter		0 'touch target; echo longer content >x; cp /dev/fd/0 target <x; printf short | cp /dev/fd/0 target'
	u stdin-through-link	0 'touch target; ln -s target link; chmod 777 target; echo hi | cp /dev/fd/0 link'
	u a-dir-modes		0 'mkdir t; for d in a b c; do mkdir t/$d; chmod 755 t/$d; echo x >t/$d/f; done; cp -a t t2'
	u dot-to-existing	0 'mkdir -p s/sub d; touch s/f1 s/sub/f3; cd s && cp -r . ../d'
	u dot-to-new		0 'mkdir -p s/sub; touch s/f1 s/sub/f3; cd s && cp -r . ../n'
	u dot-verbose		0 'mkdir s d; touch s/f1 s/f2; cd s && cp -rv . ../d'
	u dot-p			0 'mkdir s d; touch s/f1 s/f2; chmod 755 s/f2; cd s && cp -rp . ../d'
	u dot-to-itself		1 'mkdir s; touch s/f1; cd s && cp -r . .'
	u dot-symlinks		0 'mkdir -p s/sub d; touch s/f1 s/sub/f2; ln -s f1 s/l1; ln -s ../f1 s/sub/l2; cd s && cp -r . ../d'
	u parents-P-dir-link	0 'mkdir directory; ln -s directory symlink-to-directory; cp --parents --no-dereference symlink-to-directory x; mkdir x; cp --parents --no-dereference symlink-to-directory x'
	u rP-dir-link		0 'mkdir source_dir; touch source_dir/file.txt; ln -s source_dir symlink_to_dir; cp -r --no-dereference symlink_to_dir dest && test -L dest'
	u r-backslash-name	0 'mkdir a; touch "a/foo\\"; cp -r a b'
	u rT-repeated		0 'mkdir -p a/b/c/d; touch a/b/c/d/f1; cp -rT a e && touch e/f2 && cp -rT a/ e/ && touch e/f3 && cp -rvT a/b/c e/ && cp -rvT a/b/ e/b/c/d/ && cp -rT a/b/c .'
	u rv			0 'mkdir source_dir; touch source_dir/file; cp source_dir target_dir -r --verbose'
	u rv-symlink		0 'mkdir source_dir; touch file; ln -s file source_dir/symlink; cp source_dir target_dir -r --verbose'
	u rvT-symlink-exists	0 'mkdir source_dir target_dir; touch file; ln -s file source_dir/symlink; ln -s file target_dir/symlink; cp source_dir target_dir -r --verbose -T'
	u rL-circular		1 'mkdir source_dir; ln -s source_dir/a source_dir/b; ln -s source_dir/b source_dir/a; cp source_dir target_dir -rL'
	u existing-keeps-mode	0 'touch src dst; chmod 444 src; cp src dst'
	u r-existing-dir-mode	0 'umask 022; mkdir -p -m 775 src/dir; mkdir -p -m 700 dst/dir; cp -r src/. dst/'
	u no-preserve-mode-r	0 'mkdir d2; chmod 705 d2; cp --no-preserve=mode -r d2 d3'
	u r-555-tree		0 'mkdir -p a/b/c/d; touch a/b/c/d/foo.txt; chmod -R 555 a; cp -r a c'
	u r-non-utf8-dot	0 'mkdir "$(printf "dir\200")" dir2; touch "$(printf "dir\200")/a"; cp -r "$(printf "dir\200")/." dir2'
	u attr-only-a-rem-symlink 0 'echo 1 >file1; echo 2 >file2; ln -s file1 sym1; cp -a --remove-destination --attributes-only sym1 file2'
	u attr-only-P-symlink	1 'echo 1 >file1; echo 2 >file2; ln -s file1 sym1; cp --no-dereference --attributes-only sym1 file2'
	u missing-dest-operand	1 'touch a; cp a'
	u n-twice		0 'touch source.txt; cp --no-clobber source.txt dest.txt; echo x >>source.txt; cp --no-clobber source.txt dest.txt && test ! -s dest.txt'
	u update-i-newer	0 'touch a b; cp -i -u a b </dev/null'
	u dir-perm-dest-setgid	0 'umask 0; mkdir src dest; chmod 775 src; chmod 2775 dest; touch src/f; cp --preserve=mode -R --parents src dest'
	u parents-2-dirs-v	0 'mkdir -p a/b d; touch a/b/c; ln -s b a/link; cp -v --parents a/link/c d'
}
