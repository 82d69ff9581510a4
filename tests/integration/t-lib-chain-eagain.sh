#!/bin/bash
# libsmartcp's road chain when EAGAIN ends a copy: a program copies a
# file into a pipe whose write end is O_NONBLOCK and that nobody reads
# until the copy returns.  The pipe takes what it holds, then the next
# write or splice fails with EAGAIN.  The chain names the road with
# EAGAIN and the bytes the pipe took -- what strace saw, and what the pipe
# then holds -- where it used to say nothing (no attempt) and 0 bytes.
# smartcp itself never writes into a non-blocking descriptor (it opens
# its destinations), so the library is asked directly, as a program
# built against the build tree's header and library.
set -eu
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-chain.sh"
need_cmd strace realpath

build=${abs_top_builddir:-$(cd "$(dirname "$SMARTCP")/.." && pwd)}
src=${abs_top_srcdir:-$(cd "$TEST_DIR/../.." && pwd)}
libs=$build/lib/.libs
[ -e "$libs/libsmartcp.so" ] || skip "no libsmartcp.so in $libs"

cat >"$T/drv.c" <<'EOF'
/* drv SRC ROAD|all: copies SRC into a fresh pipe whose write end is
 * O_NONBLOCK; prints the pipe as strace -y names it, the return, the
 * chain (one attempt a line), the total bytes and what the pipe holds. */
#define _GNU_SOURCE
#include <smartcp/smartcp.h>

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *result(int err)
{
	if (!err)
		return "ok";
	if (err == SC_ERR_ZERO)
		return "0_before_end";
	return strerrorname_np(-err);
}

int main(int argc, char **argv)
{
	struct sc_copy_report *rep;
	struct sc_copier *c;
	static char buf[1 << 16];
	unsigned long long held = 0;
	struct stat st;
	ssize_t n;
	int in, p[2], e;

	if (argc != 3)
		return 2;
	if (sc_copier_new(0, &c) < 0 || sc_copy_report_new(&rep) < 0)
		return 3;
	if (strcmp(argv[2], "all") &&
	    sc_copier_set_roads(c, SC_ROAD_BIT(sc_road_from_name(argv[2])),
				true) < 0)
		return 3;
	if ((in = open(argv[1], O_RDONLY)) < 0 ||
	    pipe(p) < 0 || fcntl(p[1], F_SETFL, O_NONBLOCK) < 0 ||
	    fstat(p[1], &st) < 0)
		return 3;
	e = sc_copier_copy_fd(c, in, p[1], rep);
	printf("dst pipe:[%llu]\n", (unsigned long long)st.st_ino);
	printf("return %s\n", result(e));
	for (unsigned i = 0; i < sc_copy_report_attempts(rep); i++) {
		enum sc_road road;
		uint64_t bytes;
		int err;

		sc_copy_report_attempt(rep, i, &road, &err, &bytes);
		printf("chain %s %s %llu\n", sc_road_name(road), result(err),
		       (unsigned long long)bytes);
	}
	printf("bytes %llu\n",
	       (unsigned long long)sc_copy_report_bytes(rep));
	fcntl(p[0], F_SETFL, O_NONBLOCK);
	while ((n = read(p[0], buf, sizeof(buf))) > 0)
		held += (unsigned long long)n;
	printf("held %llu\n", held);
	sc_copy_report_free(rep);
	sc_copier_free(c);
	return 0;
}
EOF
cc=$(sed -n 's/^CC = //p' "$build/Makefile")
cflags=$(sed -n 's/^CFLAGS = //p' "$build/Makefile")
ldflags=$(sed -n 's/^LDFLAGS = //p' "$build/Makefile")
# shellcheck disable=SC2086
${cc:-cc} $cflags -Wall -Wextra -Werror -I"$src/include" -o "$T/drv" \
	"$T/drv.c" -L"$libs" -lsmartcp -Wl,-rpath,"$libs" $ldflags \
	2>"$T/cc.log" || { cat "$T/cc.log"; fail "the test program does not build"; }

random_file "$T/src" $((3 * 1024 * 1024 + 13))
for road in all splice read_write; do
	say "EAGAIN into a full non-blocking pipe, roads: $road"
	trace_chain "$T/strace" "$T/drv" "$T/src" "$road" >"$T/out" ||
		fail "the test program exited $?"
	cat "$T/out"
	assert_line "return EAGAIN" "$T/out"
	dst=$(sed -n 's/^dst //p' "$T/out")
	got=$(sed -n 's/^chain //p' "$T/out")
	assert_chains_equal "roads $road" "$got" \
		"$(strace_chain "$T/strace" "$(realpath "$T/src")" "$dst")"
	held=$(sed -n 's/^held //p' "$T/out")
	[ "$held" -gt 0 ] || fail "the pipe took nothing"
	assert_eq "$(printf '%s\n' "$got" | awk 'END { print $2 }')" EAGAIN \
		"the last road's result"
	assert_eq "$(printf '%s\n' "$got" | awk '{ s += $3 } END { print s }')" \
		"$held" "bytes of the chain against what the pipe holds"
	assert_eq "$(sed -n 's/^bytes //p' "$T/out")" "$held" \
		"bytes against what the pipe holds"
	pass "roads $road: $(printf '%s\n' "$got" | tr '\n' ';')"
done
