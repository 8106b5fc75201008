/* Shim for fresh3/maxminddb_tree.c: configure results (no 128-bit integers on riscv32). */
#define MMDB_UINT128_USING_MODE 0
#define MMDB_UINT128_IS_BYTE_ARRAY 1
