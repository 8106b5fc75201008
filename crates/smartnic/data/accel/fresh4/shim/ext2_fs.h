/* Shim for fresh4/e2fs_dirhash.c: everything used is in the ext2fs.h shim. */
#include "ext2fs.h"
