/* libmount and libblkid on demand: see dl.h. */
#include "common.h"
#include "dl.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>

/* The "FDO" ELF note that tells packagers which libraries a program
 * opens with dlopen (https://systemd.io/ELF_DLOPEN_METADATA/, as
 * systemd's ELF_NOTE_DLOPEN writes it): a JSON array in a .note.dlopen
 * section, owner "FDO", type 0x407c0c0a.  rpm and dpkg helpers read it
 * to turn the libraries into dependencies, "recommended" ones here:
 * smartcp copies without them. */
#define NOTE_DLOPEN_TYPE 0x407c0c0aU
#define NOTE_DLOPEN(var, text)						\
	__attribute__((used, section(".note.dlopen")))			\
	_Alignas(sizeof(uint32_t)) static const struct {		\
		struct {						\
			uint32_t n_namesz, n_descsz, n_type;		\
		} nhdr;							\
		char name[sizeof("FDO")];				\
		_Alignas(sizeof(uint32_t)) char json[sizeof(text)];	\
	} var = {							\
		.nhdr = { sizeof("FDO"), sizeof(text), NOTE_DLOPEN_TYPE }, \
		.name = "FDO",						\
		.json = text,						\
	}

NOTE_DLOPEN(note_libmount,
	    "[{\"feature\":\"mount\",\"description\":\"Filesystem names, "
	    "sources and options from the mount table, for --explain, --json "
	    "and filesystems the magic number does not settle\","
	    "\"priority\":\"recommended\",\"soname\":[\"" SC_DL_LIBMOUNT
	    "\"]}]");
NOTE_DLOPEN(note_libblkid,
	    "[{\"feature\":\"blkid\",\"description\":\"Filesystem UUIDs, "
	    "for --explain and --json\",\"priority\":\"recommended\","
	    "\"soname\":[\"" SC_DL_LIBBLKID "\"]}]");

/* Each function by its own name; any missing one makes the library
 * unusable (a libmount older than configure's minimum). */
#define LOAD(h, t, fn)							\
	((t)->fn = (__typeof__((t)->fn))dlsym(h, #fn)) != NULL

static struct sc_libmount libmount;
static atomic_bool libmount_ok;
static pthread_once_t libmount_once = PTHREAD_ONCE_INIT;

static struct sc_libblkid libblkid;
static atomic_bool libblkid_ok;
static pthread_once_t libblkid_once = PTHREAD_ONCE_INIT;

static void *open_lib(const char *soname)
{
	/* RTLD_LAZY: symbols resolve on first call, the few that are; no
	 * RTLD_GLOBAL: nothing else needs to see them. */
	return dlopen(soname, RTLD_LAZY | RTLD_LOCAL);
}

static void load_libmount(void)
{
	struct sc_libmount *t = &libmount;
	void *h = open_lib(SC_DL_LIBMOUNT);

	if (!h)
		return;
	if (!(LOAD(h, t, mnt_init_debug) && LOAD(h, t, mnt_new_table) &&
	      LOAD(h, t, mnt_unref_table) && LOAD(h, t, mnt_table_parse_file) &&
	      LOAD(h, t, mnt_table_parse_stream) &&
	      LOAD(h, t, mnt_table_get_nents) &&
	      LOAD(h, t, mnt_table_first_fs) && LOAD(h, t, mnt_table_next_fs) &&
	      LOAD(h, t, mnt_table_find_devno) &&
	      LOAD(h, t, mnt_table_find_mountpoint) &&
	      LOAD(h, t, mnt_new_iter) && LOAD(h, t, mnt_free_iter) &&
	      LOAD(h, t, mnt_fs_get_id) && LOAD(h, t, mnt_fs_get_fstype) &&
	      LOAD(h, t, mnt_fs_get_srcpath) && LOAD(h, t, mnt_fs_get_source) &&
	      LOAD(h, t, mnt_fs_get_target) && LOAD(h, t, mnt_fs_get_devno) &&
	      LOAD(h, t, mnt_fs_strdup_options) &&
	      LOAD(h, t, mnt_fstype_is_netfs) &&
	      LOAD(h, t, mnt_fstype_is_pseudofs))) {
		dlclose(h);
		return;
	}
	/* libmount reads LIBMOUNT_DEBUG on first use, into globals, without
	 * a lock: here, under the once, no other thread can be in it. */
	t->mnt_init_debug(0);
	atomic_store(&libmount_ok, true);
}

static void load_libblkid(void)
{
	struct sc_libblkid *t = &libblkid;
	void *h = open_lib(SC_DL_LIBBLKID);

	if (!h)
		return;
	if (!(LOAD(h, t, blkid_init_debug) && LOAD(h, t, blkid_get_cache) &&
	      LOAD(h, t, blkid_put_cache) && LOAD(h, t, blkid_get_tag_value))) {
		dlclose(h);
		return;
	}
	t->blkid_init_debug(0);
	atomic_store(&libblkid_ok, true);
}

const struct sc_libmount *sc_dl_libmount(void)
{
	pthread_once(&libmount_once, load_libmount);
	return atomic_load(&libmount_ok) ? &libmount : NULL;
}

const struct sc_libblkid *sc_dl_libblkid(void)
{
	pthread_once(&libblkid_once, load_libblkid);
	return atomic_load(&libblkid_ok) ? &libblkid : NULL;
}

bool sc_dl_libmount_loaded(void)
{
	return atomic_load(&libmount_ok);
}

bool sc_dl_libblkid_loaded(void)
{
	return atomic_load(&libblkid_ok);
}
