/* Fresh12 held-out set: zlib 1.3.1's crc32.c crc_word and crc_word_big
 * (the CRC-32 of one machine word by eight byte-table steps, reflected
 * and big-endian: used to combine braids), multmodp (a(x) * b(x) modulo
 * the reflected CRC-32 polynomial: the bitwise reduction step on b, b
 * xored in where a's bits are set) and x2nmodp (x^(n*2^k) modulo the
 * polynomial by squaring through x2n_table), with crc32_combine_op; and
 * adler32.c adler32_z (Adler-32: two sums modulo 65521) and
 * adler32_combine_ (the Adler-32 of a concatenation, by arithmetic on the
 * two sums). Verbatim (extracted at bench time from $NFC_CORPUS_DIR), the
 * constant tables from crc32.h with them; the types, POLY, W, BASE, NMAX
 * and the modulo and unrolling macros are written here (the forms
 * adler32.c uses without its CHOP option). */
#include <stddef.h>
#include <stdint.h>
#define local static
#define FAR
#define ZEXPORT
#define Z_NULL 0
typedef uint32_t z_crc_t;
typedef uint64_t z_word_t;
typedef int64_t z_off64_t;
typedef unsigned long uLong;
typedef unsigned char Bytef;
typedef size_t z_size_t;
#define W 8
#define POLY 0xedb88320
#define BASE 65521U
#define NMAX 5552
#define DO1(buf,i)  {adler += (buf)[i]; sum2 += adler;}
#define DO2(buf,i)  DO1(buf,i); DO1(buf,i+1);
#define DO4(buf,i)  DO2(buf,i); DO2(buf,i+2);
#define DO8(buf,i)  DO4(buf,i); DO4(buf,i+4);
#define DO16(buf)   DO8(buf,0); DO8(buf,8);
#define MOD(a) a %= BASE
#define MOD28(a) a %= BASE
#define MOD63(a) a %= BASE
//@extract zlib/crc32.h crc_table crc_big_table x2n_table
//@extract zlib/crc32.c multmodp x2nmodp crc_word crc_word_big crc32_combine_op
//@extract zlib/adler32.c adler32_z adler32_combine_
/* The static functions are called here so that -O0 emits them. */
unsigned long wrap_zlib(unsigned long a, unsigned long b, z_off64_t n, z_word_t w)
{
	return multmodp((z_crc_t)a, (z_crc_t)b) ^ x2nmodp(n, 3) ^ crc_word(w) ^ crc_word_big(w)
	    ^ adler32_combine_(a, b, n);
}
