/* fuzz_tsv.c - the libFuzzer entry point for the TSV corpus loader (`make fuzz`). */
#include "../fuzz_targets.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_or_abort("fuzz_tsv", fuzz_tsv, data, size);
    return 0;
}
