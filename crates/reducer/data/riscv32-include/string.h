/* Freestanding declarations for IR-level insight builds (riscv32, no libc):
 * only prototypes, so NF code compiles to IR; calls stay external. */
#ifndef NFC_INSIGHT_STRING_H
#define NFC_INSIGHT_STRING_H
#include <stddef.h>
void *memcpy(void *, const void *, size_t);
void *memmove(void *, const void *, size_t);
void *memset(void *, int, size_t);
int memcmp(const void *, const void *, size_t);
size_t strlen(const char *);
int strcmp(const char *, const char *);
int strncmp(const char *, const char *, size_t);
char *strchr(const char *, int);
char *strdup(const char *);
char *strcpy(char *, const char *);
char *strncpy(char *, const char *, size_t);
#endif
