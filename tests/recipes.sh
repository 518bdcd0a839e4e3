#!/usr/bin/env bash
# recipes.sh - the recipes "An attention variant" and "A task" (section "How to add an
# op, a task, an optimizer, an attention variant"), followed as written on a copy of the tree:
# a toy variant, S = 2 s q.k (--attn=double), and a toy task, the source's last symbol
# (--task=last), each one new file plus the `extern` line and the row the recipe names in its
# table. The file names, the table, the `extern` line and the row are read from docs/DEVELOPING.md, so
# the two cannot drift apart. Then the copy is built (only what changed: the build's objects
# are copied with their times), both show in --help and train a few steps, and nothing but the
# two tables may differ from the tree: a recipe that needs another edit fails here.
#
#   tests/recipes.sh        prints "N passed, N failed"; exit 1 when one failed
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
if [ -z "${TEST_TMPDIR:-}" ]; then
    TEST_TMPDIR=$(mktemp -d)
    trap 'rm -rf "$TEST_TMPDIR"' EXIT
fi
dir=$TEST_TMPDIR/recipes
copy=$dir/tree
passed=0
failed=0
ok() { echo "ok    $1"; passed=$((passed + 1)); }
bad() { echo "FAIL  $1${2:+: $2}"; failed=$((failed + 1)); }

# recipe HEAD: docs/DEVELOPING.md's bullet that starts with "- **HEAD**", as one line
recipe() {
    awk -v head="- **$1**" '
        /^## How to add/ { section = 1; next }
        section && /^## / { section = 0 }
        section && index($0, head) == 1 { take = 1 }
        take && (/^$/ || (/^- \*\*/ && index($0, head) != 1)) { take = 0 }
        take { sub(/^ +/, ""); printf "%s ", $0 }' "$root/docs/DEVELOPING.md"
}

# spans TEXT: its `code spans`, one per line
spans() { grep -o '`[^`]*`' <<<"$1" | tr -d '`'; }

# insert_after FILE PATTERN LINE: LINE after the last line of FILE matching the regex PATTERN
insert_after() {
    local n
    n=$(grep -nE "$2" "$1" | tail -n 1 | cut -d: -f1)
    [ -n "$n" ] || return 1
    awk -v n="$n" -v line="$3" '{ print } NR == n { print line }' "$1" >"$1.new" && mv "$1.new" "$1"
}

# follow HEAD NAME: the recipe HEAD for NAME, the new file's text on stdin; sets $new, $table
follow() {
    local text file extern row
    text=$(recipe "$1")
    file=$(spans "$text" | grep -E '^[a-z]+/[a-z_]*<name>\.c$' | head -n 1)
    table=$(grep -o 'in `[^`]*\.c`, add' <<<"$text" | head -n 1 | sed 's/^in `//; s/`, add$//')
    extern=$(spans "$text" | grep '^extern .*<name>;$' | head -n 1)
    row=$(spans "$text" | grep '^&.*<name>,$' | head -n 1)
    if [ -z "$file" ] || [ -z "$table" ] || [ -z "$extern" ] || [ -z "$row" ]; then
        bad "docs/DEVELOPING.md's recipe \"$1\" names its file, its table, the extern line and the row" \
            "file '$file', table '$table', extern '$extern', row '$row'"
        return 1
    fi
    new=${file//<name>/$2}
    cat >"$copy/$new"
    # the extern line after the table's last one of its kind, the row after its last row
    local kind=${extern% *} rows=${row//<name>/[a-z0-9_]+}
    if insert_after "$copy/$table" "^$kind " "${extern//<name>/$2}" &&
        insert_after "$copy/$table" "^[[:space:]]*${rows}[[:space:]]*\$" "    ${row//<name>/$2}"; then
        ok "recipe \"$1\": wrote $new, added the extern line and the row to $table"
    else
        bad "recipe \"$1\": $table has no extern line of the kind \"$kind\" or no row like \"$row\""
        return 1
    fi
}

# ------------------------------------------------------------------ the copy
rm -rf "$dir"
# the tree as it is, without the build, the programs and results/ (a study may be writing there)
mkdir -p "$copy/build"
tar -C "$root" --exclude=./.git --exclude=./build --exclude=./results --exclude=./train --exclude=./probe --exclude=./report -cf - . |
    tar -C "$copy" -xf -
[ -d "$root/build/f32" ] && cp -a "$root/build/f32" "$copy/build/" # with their times: only what changes is rebuilt

# ------------------------------------------------------------------ the recipes
follow "An attention variant" double <<'EOF'
/* attn_double.c - a toy of tests/recipes.sh: S = 2 s q.k. */
#include "attn_spec.h"

static Tensor *double_scores(Tape *tp, const GptLayer *ly, const GptConfig *cfg, Tensor *q, Tensor *k,
                             AttentionTrace *trace)
{
    (void)ly, (void)trace;
    return op_scale(tp, attention_dot_products(tp, cfg, q, k), 2);
}

const AttnSpec attn_double = {
    .name = "double",
    .help = "S = 2 s q.k (a toy of tests/recipes.sh)",
    .formula = "2 s q.k",
    .scores = double_scores,
    .scaled = true,
};
EOF
variant_file=$new variant_table=$table
# the same recipe for a variant with a learned multiplier of its own: its log column is its row's
follow "An attention variant" temp <<'EOF'
/* attn_temp.c - a toy of tests/recipes.sh: S = m_h q.k, a multiplier learned per head. */
#include "attn_spec.h"

#include <math.h>

static Tensor *temp_scores(Tape *tp, const GptLayer *ly, const GptConfig *cfg, Tensor *q, Tensor *k,
                           AttentionTrace *trace)
{
    (void)ly, (void)trace;
    return attention_dot_products(tp, cfg, q, k);
}

static double temp_start(const GptConfig *c) { return 1 / sqrt((double)c->dk); }
static double temp_logged(double mean, const GptConfig *c) { return mean * sqrt((double)c->dk); }

static const HeadMultiplier temp = {
    .name = "m",
    .param = "temp",
    .start = temp_start,
    .start_digits = 4,
    .column = "temp_x_sqrt_dk",
    .logged = temp_logged,
};

const AttnSpec attn_temp = {
    .name = "temp",
    .help = "S = m q.k, m learned per head (a toy of tests/recipes.sh)",
    .formula = "m q.k",
    .scores = temp_scores,
    .unscaled_why = "its scores are m q.k with a learned m",
    .multiplier = &temp,
};
EOF
variant2_file=$new
follow "A task" last <<'EOF'
/* task_last.c - a toy of tests/recipes.sh: the target is the source's last symbol. */
#include "data.h"

#include "../tensor/rng.h"

#include <math.h>
#include <stdio.h>

static void last_words(Vocab *v, const DataConfig *c)
{
    for (int i = 0; i < c->symbols; i++) {
        char w[16];
        vocab_add(v, w, (size_t)snprintf(w, sizeof w, "s%d", i));
    }
}

static void last_lengths(const DataConfig *c, int *min_src, int *max_src, int *max_tgt)
{
    *min_src = c->min_len;
    *max_src = c->max_len;
    *max_tgt = 1;
}

static double last_sources(const DataConfig *c)
{
    double n = 0;
    for (int len = c->min_len; len <= c->max_len; len++) n += pow(c->symbols, len);
    return n;
}

static void last_sample(Rng *r, const DataConfig *c, int *src, int *src_len, int *tgt, int *tgt_len)
{
    int n = c->min_len + (int)rng_below(r, (uint32_t)(c->max_len - c->min_len + 1));
    for (int i = 0; i < n; i++) src[i] = TOK_FIRST_WORD + (int)rng_below(r, (uint32_t)c->symbols);
    tgt[0] = src[n - 1];
    *src_len = n;
    *tgt_len = 1;
}

const TaskSpec task_last = {
    .name = "last",
    .help = "the source's last symbol (a toy of tests/recipes.sh)",
    .reads = {"symbols", "min-len", "max-len"},
    .add_words = last_words,
    .lengths = last_lengths,
    .distinct_sources = last_sources,
    .sample = last_sample,
};
EOF
task_file=$new task_table=$table

# ------------------------------------------------------------------ nothing else changed
changed=$(diff -rq -x build -x results -x .git -x train -x probe -x report "$root" "$copy" 2>&1 | sed "s|$copy/||g; s|$root/||g" | sort)
want=$(printf '%s\n' "Files ${variant_table:-?} and ${variant_table:-?} differ" "Files ${task_table:-?} and ${task_table:-?} differ" \
    "Only in ${variant_file%/*}: ${variant_file##*/}" "Only in ${variant2_file%/*}: ${variant2_file##*/}" \
    "Only in ${task_file%/*}: ${task_file##*/}" | sort)
if [ "$changed" = "$want" ]; then
    ok "the copy differs from the tree in the two tables and the three new files only"
else
    bad "the copy differs from the tree elsewhere" "$(echo "$changed" | tr '\n' ';')"
fi
# the variants' table gets two lines per variant (double, temp), the tasks' table two
for entry in "${variant_table:-}:4" "${task_table:-}:2"; do
    table=${entry%:*} want=${entry##*:}
    [ -n "$table" ] || continue
    lines=$(diff "$root/$table" "$copy/$table" | grep -c '^>')
    removed=$(diff "$root/$table" "$copy/$table" | grep -c '^<')
    if [ "$lines" -eq "$want" ] && [ "$removed" -eq 0 ]; then ok "$table: $want lines added, none changed"
    else bad "$table: $lines lines added, $removed changed or removed (want $want and 0)"; fi
done

# ------------------------------------------------------------------ build and run
# the default build, whatever make runs this test: its MAKEFLAGS, and the variables a make
# command line exports to the commands it runs (CC=clang BUILD=build/clang ...), may name another
if (cd "$copy" && env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u CC -u BUILD -u OPENMP -u ARCH -u CROSS make -j2 WERROR=1 train) >"$dir/make.log" 2>&1; then
    ok "the copy builds (make WERROR=1 train)"
else
    bad "the copy does not build" "$(grep -m 3 -E 'error|Error' "$dir/make.log" | tr '\n' ' ')"
fi
train=$copy/train
if [ -x "$train" ]; then
    "$train" --help >"$dir/help.out" 2>&1
    if grep -qE '^ {34}double +S = 2 s q\.k' "$dir/help.out" && grep -qE '^ {34}last +the source' "$dir/help.out" &&
        grep -qE '^  --symbols=10 [*] +copy/[a-z/]*/last: alphabet size' "$dir/help.out"; then
        ok "--help lists --attn=double and --task=last, and names last beside --symbols"
    else
        bad "--help lacks the new variant or task" "$(grep -E 'double|last' "$dir/help.out" | tr '\n' ' ')"
    fi
    small=(--layers=1 --dmodel=16 --heads=2 --batch=4 --steps=3 --eval-examples=4 --val-size=16 --max-len=4)
    for run in "--attn=double" "--attn=double --scale=learned --log=$dir/double.csv" "--attn=temp --log=$dir/temp.csv" \
        "--task=last"; do
        # shellcheck disable=SC2086 # the run's flags are words
        "$train" "${small[@]}" $run >"$dir/run.out" 2>&1
        rc=$?
        if [ "$rc" -eq 0 ] && grep -q '^summary: steps=3 ' "$dir/run.out"; then ok "./train $run: 3 steps and a summary"
        else bad "./train $run" "exit $rc, $(tail -n 2 "$dir/run.out" | tr '\n' ' ')"; fi
    done
    # what the rest of the program reads from the rows: the console's formula, the log's column of
    # the learned s, --scale's message
    "$train" "${small[@]}" --attn=double --steps=1 >"$dir/banner.out" 2>&1
    grep -q 'scores 2 s q\.k with s = 0\.3536' "$dir/banner.out" && ok "the banner prints the variant's formula" ||
        bad "the banner prints the variant's formula" "$(grep -m 1 scores "$dir/banner.out")"
    grep -v '^#' "$dir/double.csv" 2>/dev/null | head -n 1 | grep -q ',l0_scale_x_sqrt_dk,' && ok "--log has the learned s's column" ||
        bad "--log has the learned s's column"
    # a multiplier of the variant's own: its column, named by its row, logs m sqrt(dk) = 1 at the start
    if grep -v '^#' "$dir/temp.csv" 2>/dev/null | head -n 1 | grep -q ',l0_temp_x_sqrt_dk,' &&
        awk -F, '/^#/ { next } !header++ { for (i = 1; i <= NF; i++) if ($i == "l0_temp_x_sqrt_dk") c = i; next }
                 !row++ { exit !(c && $c > 0.99 && $c < 1.01) }' "$dir/temp.csv"; then
        ok "--log has the variant's own multiplier's column, from its row (1 at the first step)"
    else
        bad "--log has the variant's own multiplier's column" "$(grep -v '^#' "$dir/temp.csv" 2>/dev/null | head -n 2 | tr '\n' ' ')"
    fi
    "$train" --attn=cosine --scale=dk >/dev/null 2>"$dir/scale.err"
    grep -q 'it needs --attn=dot, qknorm or double (' "$dir/scale.err" && ok "--scale's message names the new variant" ||
        bad "--scale's message names the new variant" "$(cat "$dir/scale.err")"
fi

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
