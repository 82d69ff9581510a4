/* Path names as cp builds and compares them.  The functions that return
 * a string return a new one (free() it), or NULL when out of memory. */
#ifndef SMARTCP_PATHS_H
#define SMARTCP_PATHS_H

#include <stdbool.h>

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

/* Is DST's directory the current one (or not to be found out)? */
bool sc_path_in_cwd(const char *dst);

/* Would DST (to be created) be SRC itself or inside it?  Both are
 * resolved with realpath(); false when they cannot be. */
bool sc_path_is_inside(const char *src, const char *dst);

#endif
