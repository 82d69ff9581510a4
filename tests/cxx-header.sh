#!/bin/bash
# <smartcp/smartcp.h> compiles as C++ (issue 29: members named "class"
# did not): an empty C++ file that includes it, with every warning an
# error, as C++11 and as the compiler's default.  Part of "make check".
# Exit 0 when it compiles, 1 otherwise, 77 (skip) without a C++ compiler.
set -u
top_src=${abs_top_srcdir:-$(cd "$(dirname "$0")/.." && pwd)}
cxx=${CXX_FOR_TEST:-}
if [ -z "$cxx" ]; then
	for c in g++ c++ clang++; do
		command -v "$c" >/dev/null 2>&1 && { cxx=$c; break; }
	done
fi
[ -n "$cxx" ] || { echo "SKIP: no C++ compiler (g++, c++, clang++)"; exit 77; }

fail=0
for std in "" -std=c++11; do
	if ! printf '#include <smartcp/smartcp.h>\nint main() { return sc_api_version() == SC_API_VERSION ? 0 : 1; }\n' |
		"$cxx" $std -fsyntax-only -Wall -Wextra -Werror -pedantic \
			-I"$top_src/include" -x c++ - 2>&1; then
		echo "FAIL: <smartcp/smartcp.h> does not compile as C++ ($cxx $std)"
		fail=1
	fi
done
[ $fail -eq 0 ] && echo "PASS: <smartcp/smartcp.h> compiles as C++ ($cxx)"
exit $fail
