# shellcheck shell=bash
# What run-test.sh and run.sh, the two runners of integration tests, and
# lib.sh, which every test sources, all set up.  Sourced first by each,
# never run:
#
#	. "$(dirname "$0")/lib-run.sh"
#	find_smartcp || { echo "... smartcp not found ..."; exit ...; }
#
# Tests run in the C locale (their expected messages are cp's English).
# It sets no shell options: the runners set -u, the tests do not.
export LC_ALL=C
unset LANGUAGE

# Sets SMARTCP, the binary under test, as lib.sh finds it: $SMARTCP when
# set, else src/smartcp of the build tree ($abs_top_builddir under make
# check, the current directory, or the tree these tests are in); made
# absolute and exported.  Returns 1 (SMARTCP left as it was) when there
# is no such program: the caller says so in its own words.
find_smartcp() {
	local here c

	here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
	if [ -z "${SMARTCP:-}" ]; then
		for c in ${abs_top_builddir:+"$abs_top_builddir/src/smartcp"} \
			 "$PWD/src/smartcp" "$here/../../src/smartcp"; do
			if [ -x "$c" ]; then
				SMARTCP=$c
				break
			fi
		done
	fi
	if [ -z "${SMARTCP:-}" ] || [ ! -x "$SMARTCP" ]; then
		return 1
	fi
	case $SMARTCP in
	/*) ;;
	*) SMARTCP=$PWD/$SMARTCP ;;
	esac
	export SMARTCP
}
