/* fuzz_checkpoint.c - the libFuzzer entry point for the checkpoint reader (`make fuzz`): each
 * input is loaded as it is, then again with its checksum rewritten to match, so that the code
 * behind the checksum is explored too. */
#include "../fuzz_targets.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_or_abort("fuzz_checkpoint", fuzz_checkpoint, data, size);
    fuzz_or_abort("fuzz_checkpoint (resealed)", fuzz_checkpoint_resealed, data, size);
    return 0;
}
