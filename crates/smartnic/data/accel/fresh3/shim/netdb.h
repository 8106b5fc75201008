/* Shim for fresh3 (no riscv32 libc here): nothing the extracted code uses. */
