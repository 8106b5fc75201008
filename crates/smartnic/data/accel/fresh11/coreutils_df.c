/* Fresh11 held-out set: GNU coreutils 9.10's src/df.c get_point: the
 * mount point a file is on, chosen as the mount directory that is the
 * longest prefix (at a '/' boundary) of the file's canonical name — a
 * best-so-far over the lengths of matching mount directories, the
 * longest kept (lpm over path prefixes) — then checked by stat and, failing
 * that, found by device number. Verbatim (extracted at bench time from
 * $NFC_CORPUS_DIR); struct mount_entry is gnulib's mountlist.h, streq and
 * STREQ_LEN are coreutils' system.h, the rest (df's globals, get_dev, the
 * error reporting) is declared here. */
#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>
#include <string.h>
#include <stdlib.h>
#include <errno.h>
#include <sys/types.h>
#ifndef EIO
#define EIO 5
#endif
typedef uint64_t dev_t;
struct stat { dev_t st_dev; uint64_t st_ino; uint32_t st_mode; };
int stat (const char *, struct stat *);
struct mount_entry
{
  char *me_devname;
  char *me_mountdir;
  char *me_mntroot;
  char *me_type;
  dev_t me_dev;
  unsigned int me_dummy : 1;
  unsigned int me_remote : 1;
  unsigned int me_type_malloced : 1;
  struct mount_entry *me_next;
};
#define streq(a, b) (strcmp (a, b) == 0)
#define STREQ_LEN(a, b, n) (strncmp (a, b, n) == 0)
#define EXIT_FAILURE 1
#define _(msgid) (msgid)
char *canonicalize_file_name (const char *);
void error (int, int, const char *, ...);
char const *quotef (char const *);
char const *quoteaf (char const *);
extern struct mount_entry *mount_list;
struct statfs;
char *find_mount_point (char const *, struct stat const *);
extern int exit_status;
void get_dev (char const *device, char const *mount_point, char const *file,
              char const *stat_file, char const *fstype,
              bool me_dummy, bool me_remote,
              const struct statfs *force_fsu, bool process_all);
//@extract coreutils/src/df.c get_point
/* get_point is static: called here so that -O0 emits it. */
void wrap_get_point (char const *point, const struct stat *statp)
{
	get_point (point, statp);
}
