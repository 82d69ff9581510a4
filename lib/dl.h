/* libmount and libblkid, loaded with dlopen when a fact needs them.
 *
 * Most calls copy between filesystems whose magic number (fstatfs) and
 * statmount(2) say all the plan needs; loading the two libraries (and
 * libselinux and libpcre2, which libmount pulls in) cost each of those
 * calls +0.33 ms, about 10% of a small copy (issue 30).  So, as systemd
 * does (src/shared/libmount-util.c, dlopen_libmount()), they are opened
 * only where a name, an option, a network or FUSE type, a whole mount
 * table or a UUID is needed: RTLD_LAZY, once per process (pthread_once,
 * so any thread may ask first), never closed.  A missing library is not
 * an error: the facts it would have given stay unknown.  The functions
 * are called through the tables below, under their own names:
 * lm->mnt_new_table(). */
#ifndef SMARTCP_DL_H
#define SMARTCP_DL_H

#include <stdbool.h>

#include <blkid.h>
#include <libmount.h>

#define SC_DL_FN(fn) __typeof__(fn) *fn

/* The part of libmount smartcp calls. */
struct sc_libmount {
	SC_DL_FN(mnt_init_debug);
	SC_DL_FN(mnt_new_table);
	SC_DL_FN(mnt_unref_table);
	SC_DL_FN(mnt_table_parse_file);
	SC_DL_FN(mnt_table_parse_stream);
	SC_DL_FN(mnt_table_get_nents);
	SC_DL_FN(mnt_table_first_fs);
	SC_DL_FN(mnt_table_next_fs);
	SC_DL_FN(mnt_table_find_devno);
	SC_DL_FN(mnt_table_find_mountpoint);
	SC_DL_FN(mnt_new_iter);
	SC_DL_FN(mnt_free_iter);
	SC_DL_FN(mnt_fs_get_id);
	SC_DL_FN(mnt_fs_get_fstype);
	SC_DL_FN(mnt_fs_get_srcpath);
	SC_DL_FN(mnt_fs_get_source);
	SC_DL_FN(mnt_fs_get_target);
	SC_DL_FN(mnt_fs_get_devno);
	SC_DL_FN(mnt_fs_strdup_options);
	SC_DL_FN(mnt_fstype_is_netfs);
	SC_DL_FN(mnt_fstype_is_pseudofs);
};

/* The part of libblkid smartcp calls. */
struct sc_libblkid {
	SC_DL_FN(blkid_init_debug);
	SC_DL_FN(blkid_get_cache);
	SC_DL_FN(blkid_put_cache);
	SC_DL_FN(blkid_get_tag_value);
};

#undef SC_DL_FN

/* The sonames opened, as the ELF .note.dlopen of lib/dl.c names them. */
#define SC_DL_LIBMOUNT "libmount.so.1"
#define SC_DL_LIBBLKID "libblkid.so.1"

/* Opens the library the first time (and runs its first-use set-up:
 * mnt_init_debug(0), blkid_init_debug(0), which read the *_DEBUG
 * variables into globals without a lock), then returns its table; NULL
 * when it cannot be loaded or lacks a function, every time after that
 * too.  Thread-safe. */
const struct sc_libmount *sc_dl_libmount(void);
const struct sc_libblkid *sc_dl_libblkid(void);

/* Whether the library is loaded already (by an earlier call above):
 * loads nothing. */
bool sc_dl_libmount_loaded(void);
bool sc_dl_libblkid_loaded(void);

#endif
