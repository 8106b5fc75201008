/* Fresh9 held-out set: LVM2 2.03.16's libdm/datastruct/hash.c _hash (a
 * PJW-style shift-add hash over a 256-entry permutation table _nums, high
 * nibble folded back); verbatim with its table (extracted at bench time
 * from $NFC_CORPUS_DIR). */
//@extract lvm2/libdm/datastruct/hash.c _nums _hash
/* _hash is static: called here so that -O0 emits it. */
unsigned long wrap_dm_hash(const void *key, unsigned len)
{
	return _hash(key, len);
}
