/* Shared libc shim (no riscv32 libc here): nothing the included files use. */
