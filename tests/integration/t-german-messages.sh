#!/bin/bash
# Messages are translated: with LANGUAGE=de (and a UTF-8 locale, since
# gettext ignores LANGUAGE in the C locale) a missing source is reported
# in German, from the de catalog built from po/de.po.
set -eu
. "$(dirname "$0")/lib.sh"

german_catalog || skip "no po/de.gmo built (configure with NLS), or no C.UTF-8 locale"

say "LANGUAGE=de: a missing source"
rc=0
(cd "$T" && SMARTCP_LOCALEDIR=$T/locale LANGUAGE=de LC_ALL=C.UTF-8 \
	"$SMARTCP" /nonexistent x) 2>"$T/err" || rc=$?
assert_eq "$rc" 1 "exit status"
assert_grep "Aufruf von stat für '/nonexistent' nicht möglich" "$T/err"
pass "German: $(cat "$T/err")"

say "LANGUAGE=de: --help is German too, option names are not"
SMARTCP_LOCALEDIR=$T/locale LANGUAGE=de LC_ALL=C.UTF-8 "$SMARTCP" --help >"$T/help"
assert_grep "Aufruf:" "$T/help"
assert_grep "[-][-]reflink" "$T/help"
pass "German --help"

say "the C locale stays English"
rc=0
SMARTCP_LOCALEDIR=$T/locale LANGUAGE=de LC_ALL=C "$SMARTCP" /nonexistent x 2>"$T/err2" || rc=$?
assert_eq "$rc" 1 "exit status"
assert_grep "cannot stat '/nonexistent': No such file or directory" "$T/err2"
pass "English in C"
