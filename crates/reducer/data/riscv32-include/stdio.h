/* Freestanding declarations for IR-level insight builds (riscv32, no libc). */
#ifndef NFC_INSIGHT_STDIO_H
#define NFC_INSIGHT_STDIO_H
#include <stddef.h>
#include <stdarg.h>
typedef struct nfc_insight_file FILE;
extern FILE *stderr;
extern FILE *stdout;
int printf(const char *, ...);
int fprintf(FILE *, const char *, ...);
int snprintf(char *, size_t, const char *, ...);
int vsnprintf(char *, size_t, const char *, va_list);
#endif
