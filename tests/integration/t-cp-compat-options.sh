#!/bin/bash
# smartcp reads its command line as GNU cp 9.1 does, case by case against
# /bin/cp installed as "cp" (see lib-compat.sh):
#  - an abbreviation of GNU cp's own long options means what it means to
#    cp, whatever long options smartcp adds (--pr is --preserve, not
#    ambiguous with --progress), and an ambiguous one lists cp's
#    candidates only;
#  - an empty item in a --preserve / --no-preserve list is an error;
#  - option arguments in usage messages are quoted as cp quotes them:
#    '...' in the C locale, U+2018/U+2019 in a UTF-8 one, „...“ in German,
#    with C escapes for what cannot be printed;
#  - a bad $VERSION_CONTROL is named as such;
#  - -S with an empty suffix, or one holding a '/' before another
#    character, backs up with "~".
# Options that only smartcp has (--progress, --json, --jobs...) and their
# abbreviations are not compared: GNU cp rejects them.
set -eu
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-compat.sh"

compat_init
say "comparing with $("$GNU_CP" --version | head -n 1)"

compat_setup() {
	printf 'data\n' >a
	printf 'other file\n' >b
	mkdir d
	touch -d '2020-01-01 00:00:00' a b
}

# --- abbreviations of cp's long options
c abbrev-pr-mode	'"$CP" --pr=mode a c'
c abbrev-pre		'"$CP" --pre a c'
c abbrev-at		'"$CP" --at a c'
c abbrev-d		'"$CP" --d la c; ln -s a la; "$CP" --d la c2'
c abbrev-de		'ln -s a la; "$CP" --de la c'
c abbrev-sy		'"$CP" --sy a c'
c abbrev-i		'"$CP" --i a b' n
c abbrev-in		'"$CP" --in a b' y
c abbrev-rem		'"$CP" --rem a b'
c abbrev-rec		'"$CP" --rec d e'
c abbrev-st		'"$CP" --st a/ d'
c abbrev-su-next	'"$CP" --su .old -b a b'
c abbrev-su-eq		'"$CP" --su=.old a b'
c abbrev-t		'"$CP" --t d a'
c abbrev-ta-eq		'"$CP" --ta=d a'
c abbrev-no-d		'ln -s a la; "$CP" --no-d la c'
c abbrev-no-t		'"$CP" --no-t a c'
c abbrev-no-p		'"$CP" -p --no-p=mode a c'
c abbrev-on		'"$CP" --on a c'
c abbrev-ar		'"$CP" --ar d e'
c abbrev-li		'"$CP" --li a c'
c abbrev-f		'"$CP" --f a b'
c abbrev-u		'"$CP" --u b a'
c abbrev-copy		'"$CP" -r --copy d e'
c abbrev-ba		'"$CP" --ba=simple a b'
c abbrev-spa		'"$CP" --spa=never a c'
c abbrev-ref-arg	'"$CP" --ref=never a c'
c abbrev-pa		'mkdir -p e; "$CP" --pa d/../a e'
c path-is-parents	'mkdir -p e; "$CP" --path a e'
c abbrev-pat		'mkdir -p e; "$CP" --pat a e'
c abbrev-verb		'"$CP" --verb a c'
c abbrev-vers		'"$CP" --vers | head -n 1 | cut -d" " -f1'
c abbrev-he		'"$CP" --he | head -n 1'
c help-full		'"$CP" --help >/dev/full'
c version-full		'"$CP" --version >/dev/full'
c exact-link		'"$CP" --link a c'
# where cp itself finds them ambiguous: its candidates only, in its order
c ambiguous-p		'"$CP" --p a c'
c ambiguous-ver		'"$CP" --ver a c'
c ambiguous-v		'"$CP" --v a c'
c ambiguous-a		'"$CP" --a a c'
c ambiguous-s		'"$CP" --s a c'
c ambiguous-re		'"$CP" --re a c'
c ambiguous-no		'"$CP" --no a c'
c ambiguous-co		'"$CP" --co a c'
c ambiguous-empty	'"$CP" --=x a c'
c ambiguous-after-bad	'"$CP" --sparse=x --p a c'
c bad-after-ambiguous	'"$CP" --p --sparse=x a c'
c unrecognized		'"$CP" --x=1 a c'
c no-argument-allowed	'"$CP" --at=1 a c'
c no-argument-parents	'"$CP" --pa=1 a c'
c missing-argument	'"$CP" a c --su'
# the value of an option is not an option
c value-not-option	'"$CP" -S --pr -b a b'
c value-t-cluster	'"$CP" -vt d --pr a'
c after-dashdash	'"$CP" -- a --pr 2>&1; ls'
c posixly-correct	'POSIXLY_CORRECT=1 "$CP" a --pr d'
c ambiguous-utf8	'LC_ALL=C.UTF-8 "$CP" --p a c'

# --- --preserve / --no-preserve lists
c preserve-empty	'"$CP" --preserve= a c'
c preserve-empty-item	'"$CP" --preserve=mode, a c'
c preserve-empty-first	'"$CP" --preserve=,mode a c'
c preserve-empty-middle	'"$CP" --preserve=mode,,links a c'
c no-preserve-empty	'"$CP" --no-preserve= a c'
c no-preserve-empty-item	'"$CP" --no-preserve=,mode a c'
c preserve-bad-item	'"$CP" --preserve=mode,colour a c'
c preserve-ambiguous	'"$CP" --preserve=mode,l a c'
c preserve-abbrev	'"$CP" --preserve=m,t a c'
# SELinux contexts, on a kernel without SELinux: a context named in
# --preserve is refused (after the other options, without "Try"), one
# named by --context is said to be ignored; "all", -a and -Z are quiet
if [ ! -e /sys/fs/selinux/enforce ]; then
	c preserve-context	'"$CP" --preserve=context a c; ls c'
	c preserve-context-a	'"$CP" -a --preserve=context a c; ls c'
	c preserve-context-no	'"$CP" --preserve=context --no-preserve=context a c'
	c preserve-context-noall '"$CP" --preserve=context --no-preserve=all a c'
	c preserve-context-nofile '"$CP" --preserve=context'
	c preserve-context-links '"$CP" -l -s --preserve=context a c'
	c preserve-all-context	'"$CP" --preserve=all a c'
	c context-named		'"$CP" --context=x a c; ls c'
	c context-bare		'"$CP" --context a c'
	c context-Z		'"$CP" -Z a c'
else
	say "SKIP: the SELinux context cases: this kernel has SELinux"
fi

# --- quoting of option arguments, C and UTF-8
for loc in C C.UTF-8; do
	l=${loc//./-}
	c "sparse-bad-$l"	"LC_ALL=$loc \"\$CP\" --sparse=x a c"
	c "sparse-empty-$l"	"LC_ALL=$loc \"\$CP\" --sparse= a c"
	c "reflink-bad-$l"	"LC_ALL=$loc \"\$CP\" --reflink=x a c"
	c "backup-ambiguous-$l"	"LC_ALL=$loc \"\$CP\" --backup=n a b"
	c "backup-bad-$l"	"LC_ALL=$loc \"\$CP\" --backup=sometimes a b"
	c "preserve-bad-$l"	"LC_ALL=$loc \"\$CP\" --preserve=bogus a c"
	c "no-preserve-bad-$l"	"LC_ALL=$loc \"\$CP\" --no-preserve=bogus a c"
	c "preserve-empty-$l"	"LC_ALL=$loc \"\$CP\" --preserve=mode, a c"
	c "vc-bad-$l"		"VERSION_CONTROL=bogus LC_ALL=$loc \"\$CP\" -b a b"
	c "vc-ambiguous-$l"	"VERSION_CONTROL=n LC_ALL=$loc \"\$CP\" --backup a b"
	c "vc-with-S-$l"	"VERSION_CONTROL=bogus LC_ALL=$loc \"\$CP\" -S .x a b"
	c "vc-backup-empty-$l"	"VERSION_CONTROL=bogus LC_ALL=$loc \"\$CP\" --backup= a b"
	# escapes: quotes, backslash, control, invalid and non-printable
	# bytes, printable UTF-8
	c "quote-squote-$l"	"LC_ALL=$loc \"\$CP\" --sparse=\"a'b\" a c"
	c "quote-rquote-$l"	"LC_ALL=$loc \"\$CP\" --sparse=\$'a\\xe2\\x80\\x99b' a c"
	c "quote-lquote-$l"	"LC_ALL=$loc \"\$CP\" --sparse=\$'a\\xe2\\x80\\x98b' a c"
	c "quote-backslash-$l"	"LC_ALL=$loc \"\$CP\" --sparse='a\\b' a c"
	c "quote-controls-$l"	"LC_ALL=$loc \"\$CP\" --sparse=\$'\\a\\b\\f\\n\\r\\t\\v\\x1b\\x7f\\x01'1 a c"
	c "quote-invalid-$l"	"LC_ALL=$loc \"\$CP\" --sparse=\$'\\xff\\xc3x\\xc3' a c"
	c "quote-utf8-$l"	"LC_ALL=$loc \"\$CP\" --sparse=\$'\\xc3\\xa9\\xe2\\x82\\xac' a c"
	c "quote-nonprint-$l"	"LC_ALL=$loc \"\$CP\" --sparse=\$'\\xc2\\x85\\xed\\xa0\\x80' a c"
	c "quote-dquote-$l"	"LC_ALL=$loc \"\$CP\" --reflink='\"q\" \$x' a c"
done

# --- German: cp's catalog and smartcp's say the same, quotes included
gmo=
for g in ${abs_top_builddir:+"$abs_top_builddir/po/de.gmo"} \
	 ${abs_top_srcdir:+"$abs_top_srcdir/po/de.gmo"} \
	 "$TEST_DIR/../../po/de.gmo"; do
	[ -f "$g" ] && { gmo=$g; break; }
done
if [ -n "$gmo" ] && locale -a 2>/dev/null | grep -qi '^c\.utf-\?8$' &&
   LANGUAGE=de LC_ALL=C.UTF-8 "$GNU_CP" --sparse=x a b 2>&1 | grep -q Argument; then
	mkdir -p "$T/locale/de/LC_MESSAGES"
	cp "$gmo" "$T/locale/de/LC_MESSAGES/smartcp.mo"
	de="SMARTCP_LOCALEDIR=$T/locale LANGUAGE=de LC_ALL=C.UTF-8"
	c de-sparse-bad		"$de \"\$CP\" --sparse=x a c"
	c de-backup-ambiguous	"$de \"\$CP\" --backup=n a b"
	c de-vc-bad		"VERSION_CONTROL=bogus $de \"\$CP\" -b a b"
	c de-preserve-empty	"$de \"\$CP\" --preserve=mode, a c"
	c de-quote-rquote	"$de \"\$CP\" --sparse=\$'a\\xe2\\x80\\x9cb' a c"
	c de-ambiguous-p	"$de \"\$CP\" --p a c"
	c de-unrecognized	"$de \"\$CP\" --x a c"
else
	say "no German cases (no po/de.gmo, no C.UTF-8, or no German catalog for cp)"
fi

# --- backup suffixes cp does not take
c S-empty		'"$CP" -b -S "" a b'
c S-empty-env		'SIMPLE_BACKUP_SUFFIX=.bak "$CP" -b -S "" a b'
c S-slash		'"$CP" -b -S /x a b'
c S-only-slash		'"$CP" -b -S / a b'
c S-dotdot		'mkdir e; cp b e/b; "$CP" -b -S ../x a e/b; "$CP" -b -S ../x a e/b'
c S-inner-slash		'"$CP" -b -S x/y a b'
c S-trailing-slash	'"$CP" -b -S x/ a b'
c suffix-slash		'"$CP" --suffix=/x a b'
c suffix-empty		'"$CP" --suffix= a b'
c S-last-wins		'"$CP" -S .x -S "" a b'
c S-numbered		'"$CP" --backup=t -S /x a b; "$CP" --backup=t -S /x a b'
c env-slash		'SIMPLE_BACKUP_SUFFIX=/x "$CP" -b a b'
c env-trailing-slash	'SIMPLE_BACKUP_SUFFIX=x/ "$CP" -b a b'
c env-good		'SIMPLE_BACKUP_SUFFIX=.bak "$CP" -b a b'

compat_finish
