/* Path names as cp builds and compares them.  The functions that return
 * a string return a new one (free() it), or NULL when out of memory. */
#ifndef SMARTCP_TREE_PATHS_H
#define SMARTCP_TREE_PATHS_H

#include <stdbool.h>
#include <stddef.h>

/* DIR/NAME, with one slash between them however many DIR ends in, as cp
 * names the files of "d//" in its messages: d/f. */
char *tree_path_join(const char *dir, const char *name);

/* Removes trailing slashes from S in place; "/" stays "/". */
void tree_path_strip_slashes(char *s);

/* The directory part of PATH: "." when it has no slash, "/" for "/x". */
char *tree_path_dir(const char *path);

/* The last component of NAME, trailing slashes ignored. */
char *tree_path_base(const char *name);

/* The name of PATH's last entry, inside PATH (PATH, as tree_path_join()
 * makes them, has no trailing slash). */
const char *tree_path_last(const char *path);

/* Is DST's directory the current one (or not to be found out)? */
bool tree_path_in_cwd(const char *dst);

/* --- a file named relative to a directory descriptor ------------------- */

/* A file as the kernel is asked about it, NAME in directory DIRFD, and as
 * people read it, PATH: the whole name from the operand, kept for
 * messages, which may be longer than PATH_MAX.  An operand is DIRFD
 * AT_FDCWD with NAME its PATH; below it, DIRFD is the open directory the
 * walk is in, so no name handed to the kernel grows with the depth. */
struct tree_at {
	int dirfd;
	const char *name;
	const char *path;
};

/* The length of the first piece of PATH to resolve on its own, for a
 * path that may be longer than MAX: all of it when shorter than MAX, else
 * the longest prefix shorter than MAX that ends before a slash.  0 when
 * a single name is too long (ENAMETOOLONG). */
size_t tree_path_piece(const char *path, size_t max);

/* Opens the directory that holds PATH's last entry, however long PATH
 * is: in pieces shorter than PATH_MAX (tree_path_piece()), each resolved
 * from the last, as the kernel would resolve PATH if it could.  *RET_FD
 * is AT_FDCWD when PATH is short enough to be used whole (*RET_NAME is
 * then PATH), else an O_PATH descriptor of the directory, the caller's
 * to close (*RET_NAME points at the last name inside PATH).  0 or
 * -errno.  PATH has no trailing slash. */
int tree_path_open_parent(const char *path, int *ret_fd, const char **ret_name);

/* Sets the mode of the directory open as FD (O_PATH) to MODE: through
 * /proc, which leads to the inode FD holds, not to whatever has its name
 * by now.  Without /proc, through "." in it (which wants search
 * permission there: root has it).  0 or -errno. */
int tree_path_chmod_fd(int fd, mode_t mode);

#endif
