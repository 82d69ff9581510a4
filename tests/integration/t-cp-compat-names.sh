#!/bin/bash
# File names in messages are quoted as GNU cp quotes them, byte for byte:
# the error text after a name that is not valid in the locale is still
# the one for the failure (quoting must not change errno), a name of any
# length is printed whole (no "..."), and names mixing single quotes with
# bytes that need escapes come out in GNU's exact form, in the C and the
# C.UTF-8 locales.  Same case runner as t-cp-compat.sh (lib-compat.sh).
#
# Known GNU 9.1 quirks not followed: when a name that starts with an
# unprintable byte also holds a single quote and ends with an unprintable
# byte, GNU prints '\001'\'''$'\n', which does not read back as the name;
# and the second name of a -v line holding such a mix loses its closing
# quote.  Neither is among the cases.
set -eu
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-compat.sh"

compat_init
say "comparing with $("$GNU_CP" --version | head -n 1)"
locale -a 2>/dev/null | grep -qix 'c\.utf-\?8' || skip "needs the C.UTF-8 locale"

# q NAME: NAME as a shell word, for the command lines below
q() { printf '%q' "$1"; }

# missing CASE NAME [LOCALE]: copy a source NAME that does not exist
missing() {
	c "$1" "${3:+LC_ALL=$3 }\"\$CP\" $(q "$2") y"
}

# verbose CASE NAME [LOCALE]: copy an existing file NAME with -v
verbose() {
	c "$1" "touch $(q "$2"); ${3:+LC_ALL=$3 }\"\$CP\" -v $(q "$2") y"
}

# --- errno survives quoting: the failure's text, not EILSEQ
missing errno-c			$'nx\377'
missing errno-utf8		$'nx\377'		C.UTF-8
missing errno-utf8-dir		$'d\303/nx'		C.UTF-8
missing errno-utf8-incomplete	$'nx\342\202'		C.UTF-8
c errno-dest-dir		'touch a; "$CP" a $'"'"'no\377/x'"'"
c errno-dest-dir-utf8		'touch a; LC_ALL=C.UTF-8 "$CP" a $'"'"'no\377/x'"'"
c errno-dangling-L		'ln -s nowhere $'"'"'l\377'"'"'; "$CP" -L $'"'"'l\377'"'"' y'
c errno-tree-utf8		'mkdir $'"'"'d\377'"'"'; ln -s nowhere $'"'"'d\377/l\303'"'"'; LC_ALL=C.UTF-8 "$CP" -rL $'"'"'d\377'"'"' e'

# --- long names are printed whole
# L: a 2211-byte path of 11 components of "\001x" x 100, which quotes to
# about 11 KB; LP: 17 components of 255 bytes (beyond PATH_MAX)
L='n=$(printf "\001x%.0s" {1..100}); L=$n; for i in {1..10}; do L=$L/$n; done'
LP='n=$(printf "x%.0s" {1..255}); LP=$n; for i in {1..16}; do LP=$LP/$n; done'
c long-missing			"$L; \"\$CP\" \"\$L\" y"
c long-missing-utf8		"$L; LC_ALL=C.UTF-8 \"\$CP\" \"\$L\" y"
c long-too-long			"$LP; \"\$CP\" \"\$LP\" y"
c long-dest-missing-dir		"$L; touch a; \"\$CP\" a \"\$L/x\""
c long-verbose			"$L; mkdir -p \"\$L\"; touch \"\$L/f\"; \"\$CP\" -v \"\$L/f\" \"\$L/g\""
c long-verbose-r		"$L; mkdir -p \"x/\$L\"; touch \"x/\$L/f\"; \"\$CP\" -rv x z"

# --- a single quote next to bytes that need escapes
for loc in C C.UTF-8; do
	[ "$loc" = C ] && s=c || s=utf8
	missing sq-nl-$s		$'a\'\n'		$loc
	missing sq-b-ctl-c-$s		$'a\'b\001c'		$loc
	missing sq-first-nl-$s		$'\'\n'			$loc
	missing nl-sq-$s		$'\n\''			$loc
	missing sq-nl-sq-b-$s		$'a\'\n\'b'		$loc
	missing sq-sq-nl-$s		$'\'\'\n'		$loc
	missing nl-a-$s			$'\na'			$loc
	missing ctl-a-del-$s		$'\001a\177'		$loc
	missing sq-ff-$s		$'\'\377'		$loc
	missing sq-eacute-$s		$'\'\303\251'		$loc
	missing sq-incomplete-$s	$'a\'\342\202'		$loc
	missing a-sq-c1-$s		$'a\'\302\205'		$loc
	missing tab-sq-space-$s		$'\t\' x'		$loc
	missing dq-at-$s		"a@'"			$loc
	missing dq-hash-first-$s	"#a'"			$loc
	missing hash-later-$s		"a#'"			$loc
	missing tilde-later-$s		"a~'"			$loc
	missing backslash-sq-$s		"a\\'"			$loc
	missing star-sq-$s		"a*'"			$loc
	missing brace-sq-$s		"{'"			$loc
	missing eq-sq-$s		"a=b'"			$loc
	verbose v-sq-nl-$s		$'a\'\n'		$loc
	verbose v-sq-ctl-$s		$'x\'y\001'		$loc
done

# --- quotef(): a name that starts a message is bare unless it needs quotes
c plain-relative-symlink	'touch a; mkdir d; "$CP" -s a d/x'
c plain-relative-symlink-eq	'touch a; mkdir d; "$CP" -s a d/x=y'
c plain-relative-symlink-sp	'touch a; mkdir d; "$CP" -s a "d/x y"'

compat_finish
