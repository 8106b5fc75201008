/* Fresh9 held-out set: Lua 5.4.4's lstring.c luaS_hash (shift-add-xor
 * string hash, backwards over the string), lobject.c luaO_ceillog2
 * (ceil(log2 x) by bytes and a 256-entry table) and luaO_utf8esc (UTF-8
 * encoder) and lutf8lib.c's utf8_decode (UTF-8 decoder with limits);
 * verbatim (extracted at bench time from $NFC_CORPUS_DIR). The types and
 * macros are llimits.h's, luaconf.h's and lutf8lib.c's. */
#include <stddef.h>
#include <limits.h>
typedef unsigned char lu_byte;
#define cast(t, exp)	((t)(exp))
#define cast_uint(i)	cast(unsigned int, (i))
#define cast_byte(i)	cast(lu_byte, (i))
#define cast_char(i)	cast(char, (i))
#define lua_assert(c)	((void)0)
#define UTF8BUFFSZ	8
typedef unsigned int utfint;
#define MAXUNICODE	0x10FFFFu
#define MAXUTF		0x7FFFFFFFu
//@extract lua5.4/src/lstring.c luaS_hash
//@extract lua5.4/src/lobject.c luaO_ceillog2 luaO_utf8esc
//@extract lua5.4/src/lutf8lib.c utf8_decode
/* utf8_decode is static: called here so that -O0 emits it. */
const char *wrap_utf8_decode(const char *s, utfint *val, int strict)
{
	return utf8_decode(s, val, strict);
}
