/* Fresh3 held-out set: Unbound 1.17.1 util/storage/lookup3.c (Bob
 * Jenkins' lookup3 hashes as Unbound builds them: hashword, hashlittle),
 * the whole file verbatim (included at bench time from $NFC_CORPUS_DIR;
 * its "config.h" and "util/storage/lookup3.h" are shims). */
//@include unbound/util/storage/lookup3.c
