/* task_translate.c - a small synthetic language pair.
 *
 * Source (English-like, subject-verb-object):
 *     sentence = NP verb NP [adverb]       NP = determiner adjective{0,2} noun
 *     "the big red dog sees a cat quickly"
 * Target (invented words, subject-object-verb, adjectives after the noun in mirror order):
 *     sentence = NP' NP' verb' [adverb']   NP' = determiner' noun' adjective'{0,2} (reversed)
 *     "le kan rox gran un gat vidi rapid"
 * Every word has exactly one translation, but the order changes: the verb waits until the
 * object is done, and adjectives come after their noun, so attention has to jump backwards
 * and forwards over the source instead of moving along it. About 2e8 distinct sentences.
 */
#include "data.h"

#include "../tensor/rng.h"

#include <string.h>

enum { DETS = 3, ADJS = 8, NOUNS = 12, VERBS = 8, ADVS = 4 };
enum { MAX_WORDS = 10 }; /* the longest sentence: det adj adj noun verb det adj adj noun adverb */
enum { MIN_WORDS = 5 };  /* the shortest: det noun verb det noun */
enum { DET0 = 0, ADJ0 = DET0 + DETS, NOUN0 = ADJ0 + ADJS, VERB0 = NOUN0 + NOUNS, ADV0 = VERB0 + VERBS,
       WORDS = ADV0 + ADVS };

static const char *const g_source[WORDS] = {
    "the", "a", "this",
    "big", "small", "red", "blue", "old", "young", "happy", "quiet",
    "dog", "cat", "bird", "fish", "horse", "fox", "child", "king", "farmer", "teacher", "river", "tree",
    "sees", "likes", "follows", "finds", "helps", "watches", "calls", "hears",
    "quickly", "slowly", "often", "never",
};

static const char *const g_target[WORDS] = {
    "le", "un", "ce",
    "gran", "pik", "rox", "blu", "vek", "jun", "feli", "kalm",
    "kan", "gat", "avi", "pes", "kaval", "vulp", "nin", "rek", "agri", "magi", "flu", "arb",
    "vidi", "ami", "sekvi", "trovi", "helpi", "rigardi", "voki", "audi",
    "rapid", "lent", "ofte", "neniam",
};

/* Token ids: the source words follow the special tokens, then the target words. */
static int src_id(int word) { return TOK_FIRST_WORD + word; }
static int tgt_id(int word) { return TOK_FIRST_WORD + WORDS + word; }

static void translate_words(Vocab *v, const DataConfig *c)
{
    (void)c;
    for (int i = 0; i < WORDS; i++) vocab_add(v, g_source[i], strlen(g_source[i]));
    for (int i = 0; i < WORDS; i++) vocab_add(v, g_target[i], strlen(g_target[i]));
}

/* A noun phrase: word indices (det, adjectives..., noun) into np, returns its length. */
static int noun_phrase(Rng *r, int *np)
{
    int n = 0;
    np[n++] = DET0 + (int)rng_below(r, DETS);
    uint32_t u = rng_below(r, 20); /* 0, 1 or 2 adjectives with probability 8/20, 7/20, 5/20 */
    int adjectives = u < 8 ? 0 : (u < 15 ? 1 : 2);
    int first = -1;
    for (int i = 0; i < adjectives; i++) {
        int a;
        do a = (int)rng_below(r, ADJS);
        while (a == first); /* two different adjectives */
        first = a;
        np[n++] = ADJ0 + a;
    }
    np[n++] = NOUN0 + (int)rng_below(r, NOUNS);
    return n;
}

/* det adj1 adj2 noun  ->  det' noun' adj2' adj1' */
static int translate_np(const int *np, int n, int *out)
{
    int k = 0;
    out[k++] = tgt_id(np[0]);
    out[k++] = tgt_id(np[n - 1]);
    for (int i = n - 2; i >= 1; i--) out[k++] = tgt_id(np[i]);
    return k;
}

static void translate_sample(Rng *r, const DataConfig *c, int *src, int *src_len, int *tgt, int *tgt_len)
{
    (void)c;
    int subj[4], obj[4];
    int ns = noun_phrase(r, subj);
    int verb = VERB0 + (int)rng_below(r, VERBS);
    int no = noun_phrase(r, obj);
    int adverb = rng_below(r, 2) ? ADV0 + (int)rng_below(r, ADVS) : -1;

    int n = 0;
    for (int i = 0; i < ns; i++) src[n++] = src_id(subj[i]);
    src[n++] = src_id(verb);
    for (int i = 0; i < no; i++) src[n++] = src_id(obj[i]);
    if (adverb >= 0) src[n++] = src_id(adverb);
    *src_len = n;

    int m = 0;
    m += translate_np(subj, ns, tgt + m);
    m += translate_np(obj, no, tgt + m);
    tgt[m++] = tgt_id(verb);
    if (adverb >= 0) tgt[m++] = tgt_id(adverb);
    *tgt_len = m;
}

static void translate_lengths(const DataConfig *c, int *min_src, int *max_src, int *max_tgt)
{
    (void)c;
    *min_src = MIN_WORDS;
    *max_src = *max_tgt = MAX_WORDS;
}

/* 3 determiners x (1 + 8 + 8*7 adjective lists) x 12 nouns = 2340 noun phrases; two of them,
 * 8 verbs and 5 endings (4 adverbs or none) make 2.2e8 sentences: about 2e8, rounded down */
static double translate_sources(const DataConfig *c)
{
    (void)c;
    return 2e8;
}

const TaskSpec task_translate = {
    .name = "translate",
    .help = "a synthetic language pair: word order changes, every word has one translation",
    .add_words = translate_words,
    .lengths = translate_lengths,
    .distinct_sources = translate_sources,
    .sample = translate_sample,
};
