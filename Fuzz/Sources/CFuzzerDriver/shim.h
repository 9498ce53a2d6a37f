// libFuzzer's driver entry point (in the toolchain's libclang_rt.fuzzer, linked by -sanitize=fuzzer).
#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));
