/* Path names as cp builds and compares them.  The functions that return
 * a string return a new one (free() it), or NULL when out of memory. */
#ifndef SMARTCP_PATHS_H
#define SMARTCP_PATHS_H

#include <stdbool.h>
#include <stddef.h>

/* DIR/NAME, with one slash between them however many DIR ends in, as cp
 * names the files of "d//" in its messages: d/f. */
char *sc_path_join(const char *dir, const char *name);

/* Removes trailing slashes from S in place; "/" stays "/". */
void sc_path_strip_slashes(char *s);

/* The directory part of PATH: "." when it has no slash, "/" for "/x". */
char *sc_path_dir(const char *path);

/* The last component of NAME, trailing slashes ignored. */
char *sc_path_base(const char *name);

/* The name of PATH's last entry, inside PATH (PATH, as sc_path_join()
 * makes them, has no trailing slash). */
const char *sc_path_last(const char *path);

/* Do A and B name the same directory entry: one directory (the same
 * inode, asked with stat), one name? */
bool sc_path_same_entry(const char *a, const char *b);

/* --- a file named relative to a directory descriptor ------------------- */

/* A file as the kernel is asked about it, NAME in directory DIRFD, and as
 * people read it, PATH: the whole name from the operand, kept for
 * messages, which may be longer than PATH_MAX.  An operand is DIRFD
 * AT_FDCWD with NAME its PATH; below it, DIRFD is the open directory the
 * walk is in, so no name handed to the kernel grows with the depth. */
struct sc_at {
	int dirfd;
	const char *name;
	const char *path;
};

/* Are A and B one directory entry: the same directory, the same name? */
bool sc_at_same_entry(const struct sc_at *a, const struct sc_at *b);

#endif
