/* What smartcp says for --help and --version. */
#include "system.h"
#include "cli/help.h"
#include "cli/options.h"

#include <stdio.h>
#include <string.h>

/* The options smartcp shares with cp, in cp's words. */
static void usage_cp_options(void)
{
	fputs(_("\
Mandatory arguments to long options are mandatory for short options too.\n\
  -a, --archive                same as -dR --preserve=all\n\
      --attributes-only        don't copy the file data, just the attributes\n\
      --backup[=CONTROL]       make a backup of each existing destination file\n\
  -b                           like --backup but does not accept an argument\n\
      --copy-contents          copy contents of special files when recursive\n\
  -d                           same as --no-dereference --preserve=links\n\
      --debug                  explain how a file is copied; implies -v\n\
  -f, --force                  if an existing destination file cannot be\n\
                                 opened, remove it and try again\n\
  -i, --interactive            prompt before overwrite (overrides a previous -n\n\
                                 option)\n\
  -H                           follow command-line symbolic links in SOURCE\n\
  -l, --link                   hard link files instead of copying\n\
  -L, --dereference            always follow symbolic links in SOURCE\n\
"), stdout);
	fputs(_("\
  -n, --no-clobber             do not overwrite an existing file (overrides\n\
                                 a previous -i option)\n\
  -P, --no-dereference         never follow symbolic links in SOURCE\n\
  -p                           same as --preserve=mode,ownership,timestamps\n\
      --preserve[=ATTR_LIST]   preserve the specified attributes (default:\n\
                                 mode,ownership,timestamps), if possible\n\
                                 additional attributes: context, links, xattr,\n\
                                 all\n\
      --no-preserve=ATTR_LIST  don't preserve the specified attributes\n\
      --parents                use full source file name under DIRECTORY\n\
  -R, -r, --recursive          copy directories recursively\n\
      --reflink[=WHEN]         control clone/CoW copies (auto, always, never)\n\
      --remove-destination     remove each existing destination file before\n\
                                 attempting to open it (contrast with --force)\n\
      --sparse=WHEN            control creation of sparse files (auto,\n\
                                 always, never)\n\
      --strip-trailing-slashes  remove any trailing slashes from each SOURCE\n\
                                 argument\n\
  -s, --symbolic-link          make symbolic links instead of copying\n\
  -S, --suffix=SUFFIX          override the usual backup suffix\n\
  -t, --target-directory=DIRECTORY  copy all SOURCE arguments into DIRECTORY\n\
  -T, --no-target-directory    treat DEST as a normal file\n\
  -u                           copy only when the SOURCE file is newer\n\
                                 than the destination file or when the\n\
                                 destination file is missing\n\
      --update[=WHEN]          like -u, or with WHEN: all (replace every\n\
                                 destination), none (replace none),\n\
                                 none-fail (replace none, and fail), older\n\
  -v, --verbose                explain what is being done, and which road\n\
                                 each file took (not when called as cp)\n\
  -x, --one-file-system        stay on this file system\n\
  -Z, --context[=CTX]          accepted for compatibility; SELinux contexts\n\
                                 are not set\n\
"), stdout);
}

/* The options smartcp has and cp has not, and --help, --version. */
static void usage_own_options(void)
{
	fputs(_("\
\n\
smartcp options:\n\
      --explain                show facts and the plan for each file; copy\n\
                                 nothing, create nothing\n\
      --json                   print one JSON object per file and a summary\n\
                                 (JSON Lines) on standard output\n\
      --kernel=VERSION         with --explain: plan for this kernel version\n\
                                 (such as 5.4 or 6.1) instead of the running one\n\
      --assume-fs=TYPE[:TYPE]  with --explain: plan as if the files were on\n\
                                 one filesystem of type TYPE, or the source on\n\
                                 the first type and the destination on another\n\
                                 filesystem of the second (such as nfs4:ext4);\n\
                                 TYPE@VERSION also names the version of its\n\
                                 module (such as zfs@2.2.0)\n\
      --rules                  print the rules that choose the roads: for each\n\
                                 kind of filesystem pair and kernel version,\n\
                                 the roads in order and why others are skipped;\n\
                                 then the known-bad stacks\n\
      --road=LIST              use only these roads, for experiments: any of\n\
                                 clone, copy_file_range, splice, read_write\n\
      --verify                 read the destination back and compare it with\n\
                                 the source\n\
      --atomic                 write to a temporary file, then rename it over\n\
                                 the destination\n\
      --sync                   flush each file, and the directory holding it,\n\
                                 to storage\n\
      --if-changed             leave destinations that already hold the same\n\
                                 data untouched\n\
      --allow-changing-source  a source that changes while it is copied (a\n\
                                 log being written) is no failure; -v and\n\
                                 --json still say so\n\
      --progress               show progress on standard error\n\
  -q, --quiet                  no summary line on a terminal\n\
  -j, --jobs=N                 copy up to N files of a tree at once (default:\n\
                                 the number of CPUs, fewer where that is\n\
                                 slower, see smartcp(1)); output keeps its\n\
                                 order\n\
      --help        display this help and exit\n\
      --version     output version information and exit\n\
"), stdout);
}

void sc_help_usage(void)
{
	printf(_("\
Usage: %s [OPTION]... [-T] SOURCE DEST\n\
  or:  %s [OPTION]... SOURCE... DIRECTORY\n\
  or:  %s [OPTION]... -t DIRECTORY SOURCE...\n"),
	       sc_program_name, sc_program_name, sc_program_name);
	fputs(_("\
Copy SOURCE to DEST, or multiple SOURCE(s) to DIRECTORY, choosing for each\n\
file the fastest safe way the kernel offers (clone, copy_file_range, splice\n\
or read/write) and saying which one it took with -v, --explain or --json.\n\
\n"), stdout);
	usage_cp_options();
	usage_own_options();
	fputs(_("\
\n\
The roads, fastest first: clone (FICLONE, shares extents), copy_file_range\n\
(in-kernel or server-side copy), splice (through a pipe) and read_write.\n\
Generated files (/proc, /sys, tracefs, debugfs) are always read until read()\n\
returns 0, whatever their size claims.\n\
\n\
Exit status is 0 if every file was copied, 1 otherwise.  A regular file that\n\
changed while it was copied (it grew, shrank, was rewritten or replaced) is\n\
said on standard error and counts as a failure, unless --allow-changing-source\n\
is given or smartcp runs as cp.\n"), stdout);
}

void sc_help_version(void)
{
	const char *slash = strrchr(sc_program_name, '/');

	printf("%s (%s) %s\n", slash ? slash + 1 : sc_program_name,
	       PACKAGE_NAME, PACKAGE_VERSION);
	fputs(_("\
Copyright (C) 2026 the smartcp authors.\n\
License GPLv3+: GNU GPL version 3 or later <https://gnu.org/licenses/gpl.html>.\n\
This is free software: you are free to change and redistribute it.\n\
There is NO WARRANTY, to the extent permitted by law.\n"), stdout);
}
