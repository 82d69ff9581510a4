#!/bin/bash
# When the only road allowed says "not here" (--road=copy_file_range and
# EXDEV or ENOSYS), there is nothing to fall back to: exit 1 with the
# errno in the message, never a "success" that leaves a short file.
set -eu
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/../shim/lib-shim.sh"

random_file "$SRC" "$SHIM_SIZE"

for e in EXDEV:'Invalid cross-device link' ENOSYS:'Function not implemented'
do
	name=${e%%:*}
	text=${e#*:}
	for at in 0 "$SHIM_AT"; do
		say "cfr=$name@$at, --road=copy_file_range"
		shim_run 1 "cfr=$name@$at,write=trace" --road=copy_file_range \
			"$SRC" "$DST"
		# copy_file_range cannot say which side refused.
		assert_error either "$text"
		assert_not_complete "$at"
		assert_injected "^copy_file_range\\(.* off=$at .*-> $name \\(injected"
		assert_not_logged '^p?write(64)?\('
		pass "$name at $at with no road left: exit 1"
	done
done
