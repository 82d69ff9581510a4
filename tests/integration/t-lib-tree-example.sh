#!/bin/bash
# doc/tree-example.c, the tree copy's example, built from the installed
# header and library alone (make install DESTDIR=..., pkg-config), copies
# a tree as cp -a does, on real filesystems (tmpfs to ext4, and tmpfs to
# itself): files of several sizes, a sparse one, hard links (also across
# directories), symlinks (relative, absolute, dangling), a FIFO, a device
# node, a directory of mode 0750, xattrs and ACLs, nested directories.
# Checked: the copy is what cp -a makes of the same tree (types, modes,
# owners, sizes, link counts, times, symlink targets, bytes, xattrs,
# ACLs); hard links share an inode; the sparse file stays sparse; each
# regular file's road is printed once, and agrees with the calls strace
# saw on that file; a progress line on a terminal, none elsewhere; SIGINT in the middle of a slowed copy ends it with
# status 130 and "interrupted", leaving every file in the copy either
# the whole of its source or absent; a file the copy cannot read (mode
# 000, the example run as uid 65534) is named on stderr with its error,
# the rest is copied as cp -a copies it, and the status is 1.
set -eu
. "$(dirname "$0")/lib.sh"
serialize install "make install in the build tree (the install hook links src/smartcp-inst there)"
need_root "mounts tmpfs and ext4, makes a device node"
need_cmd pkg-config strace make cmp setfattr getfattr setfacl getfacl mknod setpriv pgrep

GNU_CP=/bin/cp
"$GNU_CP" --version 2>/dev/null | grep -q 'GNU coreutils' || skip "$GNU_CP is not GNU cp"
build=${abs_top_builddir:-$(cd "$(dirname "$SMARTCP")/.." && pwd)}
src=${abs_top_srcdir:-$(cd "$TEST_DIR/../.." && pwd)}
[ -f "$build/Makefile" ] || skip "no build directory for $SMARTCP"
[ -f "$src/doc/tree-example.c" ] || fail "no doc/tree-example.c in $src"

# ---- built from the installed files only ----
dest=$T/destdir
say "make install DESTDIR=$dest"
make -s -C "$build" install DESTDIR="$dest" >"$T/install.log" 2>&1 ||
	{ cat "$T/install.log"; fail "make install failed"; }
pc=$(find "$dest" -name smartcp.pc -path '*/pkgconfig/*' | head -n 1)
[ -n "$pc" ] || fail "no smartcp.pc installed"
libdir=$(dirname "$(dirname "$pc")")
PKG_CONFIG_PATH=$(dirname "$pc")
export PKG_CONFIG_PATH PKG_CONFIG_SYSROOT_DIR=$dest
flags=$(pkg-config --cflags --libs smartcp) || fail "pkg-config --cflags --libs smartcp failed"
cc=$(sed -n 's/^CC = //p' "$build/Makefile")
cflags=$(sed -n 's/^CFLAGS = //p' "$build/Makefile")
ldflags=$(sed -n 's/^LDFLAGS = //p' "$build/Makefile")
EX=$T/tree-example
# shellcheck disable=SC2086
${cc:-cc} $cflags -Wall -Wextra -Werror -pthread -o "$EX" \
	"$src/doc/tree-example.c" $flags $ldflags 2>"$T/cc.log" ||
	{ cat "$T/cc.log"; fail "doc/tree-example.c does not build against the installed library"; }
export LD_LIBRARY_PATH=$libdir
ldd "$EX" | grep -q "libsmartcp.so.1 => $libdir/" ||
	fail "the example does not load the installed library: $(ldd "$EX" | grep smartcp)"
# under strace, LeakSanitizer cannot run (a sanitizer build)
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
pass "doc/tree-example.c built with: $flags -pthread"

# ---- the tree ----
mount_tmpfs "$T/tmpfs" 200M
mount_ext4 "$T/ext4"
S=$T/tmpfs/src
umask 022
mkdir -p "$S/a/b/c" "$S/odd" "$S/acl-dir" "$S/e"
: >"$S/empty"
printf 'x' >"$S/a/one"
random_file "$S/a/b/page" 4096
random_file "$S/a/b/c/deep" 70000
random_file "$S/big" $((3 * 1024 * 1024 + 517))
random_file "$S/e/odd-size" 4095
# sparse: 16 MiB with 64 KiB of data at 0 and at 8 MiB
head -c 65536 /dev/urandom | dd of="$S/sparse" conv=notrunc status=none
head -c 65536 /dev/urandom | dd of="$S/sparse" bs=1M seek=8 conv=notrunc status=none
truncate -s 16M "$S/sparse"
printf 'hl\n' >"$S/a/h1"
ln "$S/a/h1" "$S/a/b/h2"
ln "$S/a/h1" "$S/e/h3"
ln "$S/e/odd-size" "$S/e/odd-again"
ln -s one "$S/a/rel-link"
ln -s "$S/big" "$S/abs-link"
ln -s does-not-exist "$S/a/dangling"
mkfifo "$S/fifo"
mknod "$S/a/null" c 1 3
printf 'o\n' >"$S/odd/owned"
chown 65534:65534 "$S/odd/owned"
chmod 0750 "$S/odd"
chmod 0600 "$S/a/one"
setfattr -n user.x -v hello "$S/a/one"
setfattr -n user.empty "$S/big"
setfattr -n user.dir -v d "$S/a/b"
printf 'acl\n' >"$S/acl-file"
setfacl -m u:nobody:r "$S/acl-file"
setfacl -m u:nobody:rx "$S/acl-dir"
setfacl -d -m u:nobody:rx "$S/acl-dir"
find "$S" ! -type d ! -type l -exec touch -d '2020-01-01 12:00:00.123456789' {} +
find "$S" -type l -exec touch -h -d '2019-06-06 06:06:06.987654321' {} +
find "$S" -depth -type d -exec touch -d '2021-02-02 02:02:02.222222222' {} +
[ "$(blocks "$S/sparse")" -lt 1024 ] || skip "tmpfs made $S/sparse dense"

# tree_listing DIR: everything cp -a keeps of the tree below DIR, sorted
# (names relative to DIR, so two copies compare equal).
tree_listing() {
	(
		cd "$1"
		echo '--- find'
		find . -printf '%p %y %m %u %g %s %n %T@ %l\n' | LC_ALL=C sort
		echo '--- md5'
		find . -type f -print0 | LC_ALL=C sort -z | xargs -0 -r md5sum
		echo '--- xattrs'
		getfattr -R -d -m - -h . 2>&1 | grep -v '^security\.selinux' |
			awk 'BEGIN { RS = "" } { print }' | LC_ALL=C sort
		echo '--- acls'
		getfacl -R -p -P . 2>&1 |
			awk 'BEGIN { RS = "" } { gsub(/\n/, " | "); print }' |
			LC_ALL=C sort
	)
}

# same_as_cp OURS THEIRS WHAT: the two copies' listings are equal.
same_as_cp() {
	tree_listing "$1" >"$T/ours.list"
	tree_listing "$2" >"$T/gnu.list"
	grep -q ' p 644 ' "$T/ours.list" || fail "$3: no FIFO in the copy"
	diff -u --label "cp -a" --label tree-example "$T/gnu.list" \
		"$T/ours.list" >&2 || fail "$3: the copy differs from cp -a's (above)"
}

# calls LOG: the road calls strace -ff -y logged in LOG.*, one line each:
# the call (copy_file_range, splice, clone), ok or fail, and the source
# file it read (a splice out of a pipe is the same copy's other half).
calls() {
	cat "$1".* | awk '
	/^(copy_file_range|splice)\([0-9]+</ {
		name = substr($0, 1, index($0, "(") - 1)
		path = $0
		sub(/^[a-z_]+\([0-9]+</, "", path)
	}
	/^ioctl\(.*FICLONE, [0-9]+</ {
		name = "clone"
		path = $0
		sub(/.*FICLONE, [0-9]+</, "", path)
	}
	name != "" {
		path = substr(path, 1, index(path, ">") - 1)
		ok = name == "clone" ? $0 ~ /\) = 0$/ : $0 ~ /\) = [1-9][0-9]*$/
		if (path !~ /^pipe:/)
			print name, ok ? "ok" : "fail", path
		name = ""
	}'
}

# roads_agree OUT LOG: every road line of the example's OUT ("FILE: ROAD
# (ERROR) -> ROAD, N bytes (WHY)") agrees with the calls of LOG on FILE:
# the road that moved the data made a successful call (read_write is
# not traced), each road that handed over a failed one, and a road not
# in the line made none.  Prints how many lines it checked.
roads_agree() {
	calls "$2" | LC_ALL=C sort -u >"$T/calls"
	awk -v calls="$T/calls" '
	BEGIN {
		while ((getline l < calls) > 0) {
			split(l, f, " ")
			seen[f[1] " " f[2] " " f[3]] = 1
			any[f[1] " " f[3]] = 1
		}
		fast["copy_file_range"] = fast["splice"] = fast["clone"] = 1
	}
	/: a hard link$/ { next }
	{
		file = substr($0, 1, index($0, ": ") - 1)
		chain = substr($0, index($0, ": ") + 2)
		sub(/, [0-9]+ bytes.*/, "", chain)
		k = split(chain, road, / -> /)
		split("", in_chain)
		for (i = 1; i <= k; i++) {
			r = road[i]
			handed = sub(/ \(.*/, "", r)
			in_chain[r] = 1
			if (!(r in fast))
				continue
			if (!((r " " (handed ? "fail" : "ok") " " file) in seen)) {
				print "no " (handed ? "failed" : "successful") \
				      " " r " call on " file ": " $0 > "/dev/stderr"
				bad = 1
			}
		}
		for (r in fast)
			if (!(r in in_chain) && (r " " file) in any) {
				print r " called on " file ", not in: " $0 > "/dev/stderr"
				bad = 1
			}
		n++
	}
	END { print n + 0; exit bad }' "$1"
}

# copy_and_check DST WHAT: the example copies $S to DST under strace;
# then checked against cp -a's copy in DST.gnu.
copy_and_check() {
	local dst=$1 what=$2 n lines
	say "$what: tree-example $S $dst"
	rc=0
	strace -ff -qq -y -e trace=copy_file_range,splice,ioctl -o "$T/st.$what" \
		"$EX" "$S" "$dst" >"$T/out.$what" 2>"$T/err.$what" || rc=$?
	[ "$rc" -eq 0 ] || { cat "$T/out.$what" "$T/err.$what"; fail "$what: exit $rc"; }
	[ ! -s "$T/err.$what" ] || { cat "$T/err.$what"; fail "$what: messages on stderr"; }
	"$GNU_CP" -a "$S" "$dst.gnu" || fail "cp -a $S $dst.gnu failed"
	same_as_cp "$dst" "$dst.gnu" "$what"
	pass "$what: the copy is cp -a's"

	ino=$(stat -c %i "$dst/a/h1")
	assert_eq "$(stat -c %i "$dst/a/b/h2")" "$ino" "$what: inode of a/b/h2 (a/h1's)"
	assert_eq "$(stat -c %i "$dst/e/h3")" "$ino" "$what: inode of e/h3 (a/h1's)"
	assert_eq "$(stat -c %h "$dst/a/h1")" 3 "$what: links of a/h1"
	assert_eq "$(stat -c %i "$dst/e/odd-again")" "$(stat -c %i "$dst/e/odd-size")" \
		"$what: inode of e/odd-again (e/odd-size's)"
	pass "$what: hard links kept, also across directories"
	assert_same "$S/sparse" "$dst/sparse"
	[ "$(blocks "$dst/sparse")" -lt 1024 ] ||
		fail "$what: the copy of the sparse file has $(blocks "$dst/sparse") blocks of 512 bytes"
	grep -q "^$S/sparse: .*holes kept" "$T/out.$what" ||
		fail "$what: no 'holes kept' for the sparse file: $(grep "^$S/sparse:" "$T/out.$what")"
	pass "$what: the sparse file stays sparse ($(blocks "$dst/sparse") blocks)"

	# every regular file once: a road for one name of each file, "a
	# hard link" for its other names
	sed 's/: .*//' "$T/out.$what" | LC_ALL=C sort >"$T/said"
	find "$S" -type f | LC_ALL=C sort >"$T/files"
	diff -u "$T/files" "$T/said" >&2 || fail "$what: the files said are not the source's files (above)"
	lines=$(grep -vc ': a hard link$' "$T/out.$what")
	n=$(find "$S" -type f -printf '%i\n' | sort -u | wc -l)
	assert_eq "$lines" "$n" "$what: road lines (one per file, not per name)"
	n=$(roads_agree "$T/out.$what" "$T/st.$what") ||
		{ cat "$T/out.$what"; fail "$what: a road said disagrees with strace (above)"; }
	pass "$what: $n roads said, each as strace saw it: $(sed 's/^[^:]*: //; s/,.*//' "$T/out.$what" | grep -v 'a hard link' | sort | uniq -c | tr -s ' \n' ' ')"
}

copy_and_check "$T/ext4/copy" tmpfs-ext4
copy_and_check "$T/tmpfs/copy" tmpfs-tmpfs

# The progress line is for a terminal only: none above (stderr a file,
# and empty), one on a pseudo-terminal.
if command -v script >/dev/null 2>&1; then
	rc=0
	script -qec "'$EX' '$S' '$T/ext4/tty'" /dev/null >"$T/out.tty" 2>&1 || rc=$?
	[ "$rc" -eq 0 ] || { cat "$T/out.tty"; fail "on a terminal: exit $rc"; }
	grep -q '[0-9]* files, [0-9]* MiB' "$T/out.tty" ||
		{ cat "$T/out.tty"; fail "no progress line on a terminal"; }
	assert_same "$S/big" "$T/ext4/tty/big"
	pass "a progress line on a terminal: $(grep -o '[0-9]* files, [0-9]* MiB' "$T/out.tty" | tail -n 1)"
else
	say "no script(1): the progress line on a terminal is not checked"
fi

# ---- SIGINT in the middle of a slowed copy ----
# 120 files of 256 KiB and one of 24 MiB, each road call (and read and
# write) slowed by 50 ms: seconds of copying on any machine.  The signal
# goes when a few files are there.
say "SIGINT: tree-example, slowed, interrupted"
B=$T/tmpfs/many
for d in 1 2 3 4 5 6; do
	mkdir -p "$B/d$d"
	for f in $(seq 1 20); do
		head -c 262144 /dev/urandom >"$B/d$d/f$f"
	done
done
head -c $((24 * 1024 * 1024)) /dev/urandom >"$B/d3/big"
I=$T/ext4/interrupted
strace -f -qq -o /dev/null \
	-e trace=copy_file_range,splice,read,write,pread64,pwrite64 \
	-e inject=copy_file_range,splice,read,write,pread64,pwrite64:delay_exit=50000 \
	"$EX" "$B" "$I" >"$T/out.int" 2>"$T/err.int" &
sp=$!
pid=
for _ in $(seq 300); do
	[ -n "$pid" ] || pid=$(pgrep -P "$sp" || true)
	[ -n "$pid" ] && [ "$(find "$I" -type f 2>/dev/null | wc -l)" -ge 4 ] && break
	sleep 0.1
done
[ -n "$pid" ] || fail "no example process under strace ($sp)"
there=$(find "$I" -type f 2>/dev/null | wc -l)
kill -INT "$pid"
t0=$(date +%s)
rc=0
wait "$sp" || rc=$?
elapsed=$(($(date +%s) - t0))
assert_eq "$rc" 130 "exit status after SIGINT"
assert_line "$EX: interrupted" "$T/err.int"
[ "$(grep -vc "^$EX: interrupted\$" "$T/err.int")" -eq 0 ] ||
	{ cat "$T/err.int"; fail "messages beside 'interrupted' (a cancelled file is no failure to say)"; }
assert_le "$elapsed" 10 "seconds from SIGINT to the end"
total=$(find "$B" -type f | wc -l)
copied=0
while IFS= read -r f; do
	cmp -s "$f" "$B/${f#"$I"/}" ||
		fail "after SIGINT, $f is not its source's bytes ($(stat -c %s "$f") of $(stat -c %s "$B/${f#"$I"/}"))"
	copied=$((copied + 1))
done < <(find "$I" -type f)
[ "$copied" -lt "$total" ] || fail "SIGINT came too late: all $total files were copied"
(cd "$I" && find . | LC_ALL=C sort) >"$T/int.names"
(cd "$B" && find . | LC_ALL=C sort) | LC_ALL=C comm -13 - "$T/int.names" >"$T/int.extra"
[ ! -s "$T/int.extra" ] || { cat "$T/int.extra"; fail "names in the copy that the source does not have (above)"; }
pass "SIGINT: exit 130 within ${elapsed}s; $copied of $total files left ($there there at the signal), each whole"

# ---- a file the copy cannot read ----
say "unreadable: tree-example as uid 65534, one file of mode 000"
chmod 0755 "$T"
U=$T/tmpfs/user
mkdir -p "$U/src/d" "$U/src/e"
for f in $(seq 1 300); do echo "$f" >"$U/src/d/f$f"; done
printf 'secret\n' >"$U/src/d/secret"
echo e >"$U/src/e/after"
chmod 000 "$U/src/d/secret"
chown -R 65534:65534 "$U"
NB='setpriv --reuid=65534 --regid=65534 --clear-groups'
rc=0
$NB env LD_LIBRARY_PATH="$libdir" "$EX" "$U/src" "$U/ours" >"$T/out.u" 2>"$T/err.u" || rc=$?
assert_eq "$rc" 1 "exit status with an unreadable file"
assert_line "$EX: cannot copy '$U/src/d/secret': Permission denied" "$T/err.u"
assert_eq "$(wc -l <"$T/err.u")" 1 "lines on stderr"
[ ! -e "$U/ours/d/secret" ] || fail "a copy of the unreadable file was left"
$NB "$GNU_CP" -a "$U/src" "$U/gnu" 2>"$T/err.gnu" && fail "cp -a did not fail"
grep -q "secret" "$T/err.gnu" || { cat "$T/err.gnu"; fail "cp -a did not name the file"; }
chmod 0600 "$U/src/d/secret"	# both copies lack it: compare the rest
rm "$U/src/d/secret"
tree_listing "$U/ours" >"$T/ours.list"
tree_listing "$U/gnu" >"$T/gnu.list"
diff -u --label "cp -a" --label tree-example "$T/gnu.list" "$T/ours.list" >&2 ||
	fail "with an unreadable file, the copy differs from cp -a's (above)"
pass "unreadable file: exit 1, named with its error; the rest is cp -a's copy"
