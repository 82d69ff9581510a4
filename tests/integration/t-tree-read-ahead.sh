#!/bin/bash
# -j hands runs of new files to workers, and each worker opens the next
# files of its run ahead and asks the kernel for their data while it
# copies the current one.  Whatever the scheduling, the output is the
# walk's: -v and --json at -j4 are line for line those of -j1, and every
# file arrives whole.  The tree has many directories, directories with
# more files than one run holds (256), runs cut short by entries a worker
# does not copy (a subdirectory, a symlink, a FIFO; with -a a hard link,
# which the walk copies itself), empty files, and a low descriptor limit under which the
# workers cannot open ahead at all.
set -eu
. "$(dirname "$0")/lib.sh"

S=$T/src
mkdir -p "$S"
# 60 directories of 1-40 files of 0-9000 bytes (the names sort differently
# from their inode numbers, the order the walk copies in), and two
# directories larger than one run; one perl, not a process per file
perl -e '
	use strict; my $s = shift; srand(20);
	sub put { open my $o, ">", $_[0] or die "$_[0]: $!"; binmode $o;
		print $o join "", map { chr int rand 256 } 1 .. $_[1];
		close $o or die "$_[0]: $!"; }
	for my $d (1 .. 60) {
		mkdir "$s/d$d" or die;
		put("$s/d$d/f$_", ($d * 131 + $_ * 977) % 9001)
			for reverse 1 .. $d % 40 + 1;
	}
	mkdir "$s/big$_" or die for 1, 2;
	for my $f (1 .. 600) {
		put("$s/big1/f$f", $f % 50);
		put("$s/big2/f$f", $f * 7 % 3000);
	}' "$S"
# runs interrupted in the middle: entries the workers do not copy
mkfifo "$S/big1/fifo"
ln -s f1 "$S/big1/link"
mkdir "$S/big1/sub"
echo deep >"$S/big1/sub/deep"
ln "$S/big2/f1" "$S/big2/hard"
: >"$S/d1/empty"

strip_times() { sed 's/"seconds":[0-9.e+-]*/"seconds":T/g' "$1"; }

copy() { # name args...: copies $S to $T/name with ARGS (-v), then --json
	local name=$1
	shift
	assert_exit 0 "$SMARTCP" -r -v "$@" "$S" "$T/$name"
	cp "$OUT" "$T/$name.v"
	assert_exit 0 "$SMARTCP" -r --json "$@" "$S" "$T/$name.j"
	strip_times "$OUT" >"$T/$name.json"
}

check_tree() { # dir: every file of $S there, byte for byte
	local n
	# one process compares them all (a cmp per file takes minutes on a
	# busy machine)
	n=$(cd "$S" && find . -type f -print0 | perl -0 -ne '
		chomp; my ($a, $b) = ($_, "$ARGV[0]/$_");
		local $/; open my $x, "<", $a or die "$a: $!";
		open my $y, "<", $b or die "missing or unreadable: $b\n";
		binmode $x; binmode $y;
		my ($p, $q) = (scalar <$x> // "", scalar <$y> // "");
		$p eq $q or die "differs: $b\n"; $n++;
		END { print $n // 0, "\n" }' "$1") || fail "copy in $1 is not the source"
	[ -p "$1/big1/fifo" ] || fail "$1/big1/fifo is not a FIFO"
	assert_eq "$(readlink "$1/big1/link")" f1 "symlink in $1"
	say "$1: $n files identical"
}

say "-j1: the reference order"
copy j1 -j1
check_tree "$T/j1"

say "-j4: the same -v and --json lines, in the same order"
copy j4 -j4
check_tree "$T/j4"
sed "s|$T/j4|$T/j1|g" "$T/j4.v" | cmp - "$T/j1.v" ||
	fail "-v order differs between -j4 and -j1"
sed "s|$T/j4.j|$T/j1.j|g" "$T/j4.json" | cmp - "$T/j1.json" ||
	fail "--json order differs between -j4 and -j1"

say "-j4 with 24 descriptors: no opening ahead, the same result"
(
	ulimit -n 24
	copy lim -j4
)
check_tree "$T/lim"
sed "s|$T/lim|$T/j1|g" "$T/lim.v" | cmp - "$T/j1.v" ||
	fail "-v order differs with few descriptors"

say "-a -j4 (hard links handed back to the walk): the order of -a -j1"
copy a1 -a -j1
copy a4 -a -j4
check_tree "$T/a4"
assert_eq "$(stat -c %i "$T/a4/big2/f1")" "$(stat -c %i "$T/a4/big2/hard")" \
	"hard link kept by -a -j4"
sed "s|$T/a4|$T/a1|g" "$T/a4.v" | cmp - "$T/a1.v" ||
	fail "-a -v order differs between -j4 and -j1"
sed "s|$T/a4.j|$T/a1.j|g" "$T/a4.json" | cmp - "$T/a1.json" ||
	fail "-a --json order differs between -j4 and -j1"

pass "-j4 output order and contents match -j1"
