/* task_copy.c - copy and reverse: random symbols, a separator, then the same symbols
 * (in the same or in reverse order). Copying needs attention to look back exactly
 * (source length + 1) positions; reversing needs a different offset at every step. */
#include "data.h"

#include "../tensor/rng.h"

void copy_sample(Rng *r, int symbols, int min_len, int max_len, bool reverse, int *src, int *src_len,
                 int *tgt, int *tgt_len)
{
    int n = min_len + (int)rng_below(r, (uint32_t)(max_len - min_len + 1));
    for (int i = 0; i < n; i++) src[i] = TOK_FIRST_WORD + (int)rng_below(r, (uint32_t)symbols);
    for (int i = 0; i < n; i++) tgt[i] = reverse ? src[n - 1 - i] : src[i];
    *src_len = *tgt_len = n;
}
