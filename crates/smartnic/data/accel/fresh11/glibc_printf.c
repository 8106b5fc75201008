/* Fresh11 held-out set: GNU C library 2.43's
 * stdio-common/reg-modifier.c __handle_registered_modifier_mb and
 * __handle_registered_modifier_wc (the printf modifier a format string
 * starts with: of the registered modifier strings in the bucket of the
 * format's first character, the one that is the longest prefix of the
 * format — a best-so-far over the lengths of the modifiers that match,
 * the longer kept: a longest prefix match over strings, the guard a
 * pointer difference; the two are the same code over bytes and over wide
 * characters, a correlated pair). Verbatim (extracted at bench time from
 * $NFC_CORPUS_DIR); struct printf_modifier_record is reg-modifier.c's,
 * struct printf_info stdio-common/printf.h's, attribute_hidden empty. */
#include <stddef.h>
#include <stdint.h>
#define attribute_hidden
struct printf_info
{
  int prec;			/* Precision.  */
  int width;			/* Width.  */
  wchar_t spec;			/* Format letter.  */
  unsigned int is_long_double:1;/* L flag.  */
  unsigned int is_short:1;	/* h flag.  */
  unsigned int is_long:1;	/* l flag.  */
  unsigned int alt:1;		/* # flag.  */
  unsigned int space:1;		/* Space flag.  */
  unsigned int left:1;		/* - flag.  */
  unsigned int showsign:1;	/* + flag.  */
  unsigned int group:1;		/* ' flag.  */
  unsigned int extra:1;		/* For special use.  */
  unsigned int is_char:1;	/* hh flag.  */
  unsigned int wide:1;		/* Nonzero for wide character streams.  */
  unsigned int i18n:1;		/* I flag.  */
  unsigned int is_binary128:1;	/* Floating-point argument is ABI-compatible
				   with IEC 60559 binary128.  */
  unsigned int __pad:3;		/* Unused so far.  */
  unsigned short int user;	/* Bits for user-installed modifiers.  */
  wchar_t pad;			/* Padding character.  */
};
struct printf_modifier_record
{
  struct printf_modifier_record *next;
  int bit;
  wchar_t str[0];
};
extern struct printf_modifier_record **__printf_modifier_table;
//@extract glibc/stdio-common/reg-modifier.c __handle_registered_modifier_mb __handle_registered_modifier_wc
