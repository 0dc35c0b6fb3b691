#include <stddef.h>
#include <stdint.h>

// libFuzzer's driver, linked in by -sanitize=fuzzer. SwiftPM links every executable with a main
// of its own (the module's top-level code), which wins over libFuzzer's main: the targets' main
// calls the driver instead, with the test each target defines under libFuzzer's usual name.
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*test_one_input)(const uint8_t *data, size_t size));
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
