/* fuzz_config.c - the libFuzzer entry point for the config reader (`make fuzz`). */
#include "../fuzz_targets.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_or_abort("fuzz_config", fuzz_config, data, size);
    return 0;
}
