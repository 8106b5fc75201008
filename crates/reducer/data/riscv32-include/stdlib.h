/* Freestanding declarations for IR-level insight builds (riscv32, no libc). */
#ifndef NFC_INSIGHT_STDLIB_H
#define NFC_INSIGHT_STDLIB_H
#include <stddef.h>
void *malloc(size_t);
void *calloc(size_t, size_t);
void free(void *);
void abort(void);
char *getenv(const char *);
long strtol(const char *, char **, int);
unsigned long strtoul(const char *, char **, int);
int atoi(const char *);
void qsort(void *, size_t, size_t, int (*)(const void *, const void *));
#endif
