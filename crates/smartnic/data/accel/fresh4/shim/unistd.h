/* Shim for fresh4 (no riscv32 libc here): nothing the included files use. */
