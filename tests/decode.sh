#!/usr/bin/env bash
# decode.sh - ./train --load=model.st --decode: a trained model's greedy (or, with --temperature,
# sampled) decodings of sources read from standard input. Trains a reverse model and a small TSV
# corpus's model, then checks what --decode prints against the task's answers and against the
# examples training printed, how sampling repeats, and how bad lines and bad flags are reported.
# Prints "N passed, N failed".
#
#   tests/decode.sh BIN_DIR      the folder holding train (e.g. . or build/asan32)
set -u
bin=${1:?usage: tests/decode.sh BIN_DIR}
train=$bin/train
dir=${TEST_TMPDIR:-$(mktemp -d)}/decode
mkdir -p "$dir"
passed=0
failed=0

ok() { passed=$((passed + 1)); echo "ok    $1"; }
bad() { failed=$((failed + 1)); echo "FAIL  $1"; shift; for line in "$@"; do echo "    $line"; done; }

summary_field() { grep '^summary:' "$1" | tr ' ' '\n' | grep "^$2=" | cut -d= -f2; }

# lines N LO HI SEED WORDS...: N lines of LO to HI words drawn from WORDS, by a Lehmer generator
# (the same lines under any awk)
lines() {
    local n=$1 lo=$2 hi=$3 seed=$4
    shift 4
    awk -v n="$n" -v lo="$lo" -v hi="$hi" -v x="$seed" -v words="$*" 'BEGIN {
        nw = split(words, w, " ")
        for (i = 0; i < n; i++) {
            x = (x * 48271) % 2147483647; len = lo + x % (hi - lo + 1); line = ""
            for (j = 0; j < len; j++) { x = (x * 48271) % 2147483647; line = line (j ? " " : "") w[1 + x % nw] }
            print line
        }
    }'
}

# reverse_words: each line's words in the opposite order
reverse_words() { awk '{ o = ""; for (i = NF; i >= 1; i--) o = o (i < NF ? " " : "") $i; print o }'; }

# fraction_same A B: the fraction of lines of file A equal to the same line of file B (0 when A is empty)
fraction_same() { paste -d '\n' "$1" "$2" | awk 'NR % 2 { a = $0; next } { n++; same += a == $0 } END { printf "%.4f", n ? same / n : 0 }'; }
at_least() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a >= b) }'; }

# ---------------------------------------------------------------- a reverse model
# One layer learns reverse in 500 steps. One thread: these small models gain little from more,
# and the test stays quick on a loaded machine (the numbers are the same for any thread count).
letters="A B C D E F G H I J"
"$train" --task=reverse --layers=1 --steps=500 --threads=1 --examples=32 --save="$dir/rev.st" >"$dir/rev.out" 2>&1
acc=$(summary_field "$dir/rev.out" val_acc)
if [ -s "$dir/rev.st" ] && at_least "${acc:-0}" 0.9; then
    ok "a 1-layer reverse model trains to >= 90% held-out exact match in 500 steps ($acc) and is saved"
else
    bad "a reverse model trains and is saved" "val_acc=$acc" "$(tail -n 3 "$dir/rev.out")"
fi

# 60 sources of the task's lengths (3 to 8 letters, as --min-len and --max-len say) decode to
# their reversals: at least 90% of them (the model gets more than 90% of the held-out set right)
lines 60 3 8 12345 $letters >"$dir/in.txt"
reverse_words <"$dir/in.txt" >"$dir/want.txt"
"$train" --load="$dir/rev.st" --decode <"$dir/in.txt" >"$dir/got.txt" 2>"$dir/got.err"
rc=$?
same=$(fraction_same "$dir/got.txt" "$dir/want.txt")
if [ $rc -eq 0 ] && [ "$(wc -l <"$dir/got.txt")" -eq 60 ] && at_least "$same" 0.9; then
    ok "--decode: one line per source, >= 90% of 60 sources reversed ($same)"
else
    bad "--decode reverses the sources it reads" "exit $rc, $(wc -l <"$dir/got.txt") lines, $same right" \
        "$(head -n 3 "$dir/got.err")" "$(paste "$dir/in.txt" "$dir/got.txt" | head -n 3)"
fi

# the decodings ./train printed at the end of the run that saved the model, source by source
sed -n 's/^ *\[[a-z]*\] *source: //p' "$dir/rev.out" >"$dir/printed_src.txt"
sed -n 's/^ *decoded:  //p' "$dir/rev.out" >"$dir/printed_got.txt"
"$train" --load="$dir/rev.st" --decode <"$dir/printed_src.txt" >"$dir/again.txt" 2>"$dir/again.err"
rc=$?
if [ $rc -eq 0 ] && [ "$(wc -l <"$dir/printed_src.txt")" -eq 32 ] && cmp -s "$dir/again.txt" "$dir/printed_got.txt"; then
    ok "--decode gives exactly the 32 decoded examples the training run printed"
else
    bad "--decode agrees with the printed examples" "exit $rc, $(wc -l <"$dir/printed_src.txt") printed" \
        "$(diff "$dir/printed_got.txt" "$dir/again.txt" | head -n 4)" "$(head -n 2 "$dir/again.err")"
fi

# an unknown word: one line on stderr naming it, the line and the vocabulary; the others decode;
# exit 2 at the end
printf 'C A B\nA X B\nF D E J C\n' | "$train" --load="$dir/rev.st" --decode >"$dir/unk.out" 2>"$dir/unk.err"
rc=$?
if [ $rc -eq 2 ] && [ "$(cat "$dir/unk.out")" = "$(printf 'B A C\nC J E D F')" ] &&
    [ "$(grep -c '^line ' "$dir/unk.err")" -eq 1 ] &&
    grep -qx 'line 2: unknown token "X" (the vocabulary has: A B C D E F G H I J)' "$dir/unk.err" &&
    [ "$(grep -c '^error: 1 of 3 lines not decoded' "$dir/unk.err")" -eq 1 ] && [ "$(wc -l <"$dir/unk.err")" -eq 2 ]; then
    ok "an unknown token: \"line 2: unknown token\" on stderr, lines 1 and 3 still decoded, exit 2"
else
    bad "an unknown token is reported and skipped" "exit $rc" "stdout: $(tr '\n' '|' <"$dir/unk.out")" "$(cat "$dir/unk.err")"
fi

# a word that is not UTF-8 is named with its stray bytes as \xNN (the message stays text); a
# well-formed one as it is; a long one cut after 40 bytes, never inside a character
printf 'A \377\376B C\nA \303\251t\351\nA \342\202\254\342\202\254\342\202\254\342\202\254\342\202\254\342\202\254\342\202\254\342\202\254\342\202\254\342\202\254\342\202\254\342\202\254\342\202\254\342\202\254\n' |
    "$train" --load="$dir/rev.st" --decode >/dev/null 2>"$dir/utf8.err"
rc=$?
if [ $rc -eq 2 ] && grep -qx 'line 1: unknown token "\\xFF\\xFEB" (the vocabulary has: A B C D E F G H I J)' "$dir/utf8.err" &&
    grep -q '^line 2: unknown token "ét\\xE9" ' "$dir/utf8.err" &&
    grep -q '^line 3: unknown token "€€€€€€€€€€€€€\.\.\." ' "$dir/utf8.err" && LC_ALL=C.UTF-8 iconv -f UTF-8 -t UTF-8 "$dir/utf8.err" >/dev/null 2>&1; then
    ok "an unknown word's bytes that are not UTF-8 are named as \\xNN; the message is valid UTF-8"
else
    bad "invalid UTF-8 in an unknown word is escaped" "exit $rc" "$(od -c "$dir/utf8.err" | head -n 6)"
fi

# translate's vocabulary can be discovered: an unknown word's message lists all its words (the
# banner's vocabulary less the 4 special tokens), not 12 of them
"$train" --task=translate --steps=1 --threads=1 --save="$dir/tr.st" >"$dir/tr.out" 2>&1
echo "the dog sees xx" | "$train" --load="$dir/tr.st" --decode >/dev/null 2>"$dir/tr_unk.err"
rc=$?
vocab=$(sed -n 's/.*vocabulary \([0-9]*\).*/\1/p' "$dir/tr.out" | head -n 1)
listed=$(sed -n 's/^line 1: unknown token "xx" (the vocabulary has: \(.*\))$/\1/p' "$dir/tr_unk.err" | wc -w)
if [ $rc -eq 2 ] && [ -n "$vocab" ] && [ "$listed" -eq $((vocab - 4)) ] && ! grep -q '\.\.\.' "$dir/tr_unk.err" &&
    grep -q ' le .* vidi ' "$dir/tr_unk.err" && grep -qx 'error: 1 of 1 line not decoded (each said why above)' "$dir/tr_unk.err"; then
    ok "translate: an unknown word's message lists all $listed words of both languages; '1 of 1 line'"
else
    bad "translate's vocabulary is listed whole" "exit $rc, vocabulary $vocab, listed $listed" "$(cat "$dir/tr_unk.err")"
fi

# docs/TASKS.md's translate examples are what the task makes: each pair it quotes (the table's
# row and the section's source/target) is among the validation examples a run prints
"$train" --task=translate --steps=1 --threads=1 --examples=6 >"$dir/tr6.out" 2>&1
root=$(cd "$(dirname "$0")/.." && pwd)
printed=$(awk '/source:/ { sub(/.*source: /, ""); s = $0 } /expected:/ { sub(/.*expected: /, ""); print s " -> " $0 }' "$dir/tr6.out")
quoted=$( { sed -n 's/^| `translate` | `\(.*\) → \(.*\)` |.*/\1 -> \2/p' "$root/docs/TASKS.md"
    sed -n '/^## translate/,/^## /{ s/^    source  //p; s/^    target  /-> /p; }' "$root/docs/TASKS.md" | paste -d ' ' - -; } )
missing=$(printf '%s\n' "$quoted" | while IFS= read -r pair; do printf '%s\n' "$printed" | grep -qxF -- "$pair" || echo "[$pair]"; done)
if [ "$(printf '%s\n' "$quoted" | wc -l)" -eq 2 ] && [ -z "$missing" ]; then
    ok "docs/TASKS.md's two translate examples are pairs the task makes (from a run's printed examples)"
else
    bad "docs/TASKS.md's translate examples are real" "quoted: $quoted" "not printed by a run: $missing"
fi

# more words than the context takes (18 positions: BOS, 16 words, SEP), an empty line, a special
# token, a tab: each reported, the good line between them decoded
printf 'A B C D E F G H I J A B C D E F G\n\nH <sep> A\nA B\tB A\nH A E J\r\n' |
    "$train" --load="$dir/rev.st" --decode >"$dir/many.out" 2>"$dir/many.err"
rc=$?
if [ $rc -eq 2 ] && [ "$(cat "$dir/many.out")" = "J E A H" ] &&
    grep -q '^line 1: 17 tokens, more than the 16 this model takes' "$dir/many.err" &&
    grep -q '^line 2: empty' "$dir/many.err" && grep -q '^line 3: "<sep>" is one of the model' "$dir/many.err" &&
    grep -q '^line 4: contains a tab' "$dir/many.err" && grep -q '^error: 4 of 5 lines not decoded' "$dir/many.err"; then
    ok "an over-long line, an empty one, a special token, a tab: each one line on stderr; CRLF read; exit 2"
else
    bad "bad lines are reported and skipped" "exit $rc" "stdout: $(tr '\n' '|' <"$dir/many.out")" "$(cat "$dir/many.err")"
fi

# lines ended by a lone CR (old Mac files), and the three endings mixed: each is a line end
printf 'C A B\rA B C\r' | "$train" --load="$dir/rev.st" --decode >"$dir/cr.out" 2>"$dir/cr.err"
rc=$?
printf 'C A B\r\nF D E J C\rA B D\n\rH A E J' | "$train" --load="$dir/rev.st" --decode >"$dir/mixed.out" 2>"$dir/mixed.err"
rc2=$?
if [ $rc -eq 0 ] && [ "$(cat "$dir/cr.out")" = "$(printf 'B A C\nC B A')" ] && [ ! -s "$dir/cr.err" ] && [ $rc2 -eq 2 ] &&
    [ "$(cat "$dir/mixed.out")" = "$(printf 'B A C\nC J E D F\nD B A\nJ E A H')" ] &&
    [ "$(cat "$dir/mixed.err")" = "$(printf 'line 4: empty: no source to decode\nerror: 1 of 5 lines not decoded (each said why above)')" ]; then
    ok "lines ended by CR alone, CRLF and LF (mixed) are lines; LF then CR is an empty line between"
else
    bad "CR-only line endings" "exit $rc / $rc2" "stdout: $(tr '\n' '|' <"$dir/cr.out") / $(tr '\n' '|' <"$dir/mixed.out")" \
        "$(cat "$dir/cr.err" "$dir/mixed.err")"
fi

# sources of lengths the model never saw (it was trained on 3 to 8 words): decoded, with one
# warning each on stderr naming the trained range; the exit status stays 0
printf 'A B\nC A B\nA B C D E F G H I J A B\nA B C D E F G H I J A B C D E F\n' |
    "$train" --load="$dir/rev.st" --decode >"$dir/len.out" 2>"$dir/len.err"
rc=$?
if [ $rc -eq 0 ] && [ "$(wc -l <"$dir/len.out")" -eq 4 ] && [ "$(sed -n 2p "$dir/len.out")" = "B A C" ] &&
    grep -qx 'line 1: warning: 2 words, but the model was trained on sources of 3 to 8 words; decoded anyway' "$dir/len.err" &&
    grep -q '^line 3: warning: 12 words, but the model was trained on sources of 3 to 8 words' "$dir/len.err" &&
    grep -q '^line 4: warning: 16 words, ' "$dir/len.err" && ! grep -q '^line 2' "$dir/len.err" &&
    ! grep -q ' 1 tokens' "$dir/len.err" && [ "$(grep -c '^line [0-9]*: warning' "$dir/len.err")" -eq 3 ]; then
    ok "untrained lengths (2, 12, 16 words): decoded, one warning each naming 3 to 8 words, exit 0; no \"1 tokens\""
else
    bad "sources of untrained lengths" "exit $rc" "stdout: $(tr '\n' '|' <"$dir/len.out")" "$(cat "$dir/len.err")"
fi
if grep -q '^line 4: the model did not end its answer within 1 token; ' "$dir/len.err"; then
    ok "an answer cut off after one token says \"within 1 token\""
else
    bad "the note of an answer cut off after one token" "$(grep '^line 4' "$dir/len.err")"
fi
# the prompt on a terminal (script(1) gives the program one) names the trained range and the limit
if command -v script >/dev/null 2>&1; then
    prompt=$(script -qc "'$train' --load='$dir/rev.st' --decode" /dev/null </dev/null 2>&1 | tr -d '\r' | head -n 1)
    if echo "$prompt" | grep -q 'one source per line, of 3 to 8 words as trained (at most 16 fit the context); Ctrl-D ends$'; then
        ok "the terminal prompt names the trained lengths (3 to 8 words) and the limit (16)"
    else
        bad "the terminal prompt" "$prompt"
    fi
else
    echo "note  script(1) is not installed: the terminal prompt is not checked"
fi

# a NUL byte, a line over 64 KiB, a byte-order mark before the first line
{ printf '\357\273\277C A B\nA \000B\n'; head -c 70000 /dev/zero | tr '\0' 'A'; printf '\nB A D\n'; } |
    "$train" --load="$dir/rev.st" --decode >"$dir/odd.out" 2>"$dir/odd.err"
rc=$?
if [ $rc -eq 2 ] && [ "$(cat "$dir/odd.out")" = "$(printf 'B A C\nD A B')" ] && grep -q '^line 2: contains a NUL byte$' "$dir/odd.err" &&
    grep -q '^line 3: longer than 65536 bytes$' "$dir/odd.err" && [ "$(wc -l <"$dir/odd.err")" -eq 3 ]; then
    ok "a NUL byte and a 70000-byte line: reported and skipped; a byte-order mark is not a word"
else
    bad "odd lines are reported and skipped" "exit $rc" "stdout: $(tr '\n' '|' <"$dir/odd.out")" "$(cut -c 1-200 "$dir/odd.err")"
fi

# --show-attention: the decoding, then a line per generated token (EOS too) naming a source token
# and its position, which must be that token's position in the source (tests/test_eval.c checks
# the choice itself against a forward pass of the decoded row)
printf 'C A B\nF D E J C\nA B C D E F G H\n' >"$dir/att_in.txt"
"$train" --load="$dir/rev.st" --decode --show-attention <"$dir/att_in.txt" >"$dir/att.out" 2>"$dir/att.err"
rc=$?
plain=$("$train" --load="$dir/rev.st" --decode <"$dir/att_in.txt" 2>/dev/null)
token_lines=$(grep -c '^  at [^ ]* *writes [^ ]* *most weight on [A-J] (source token [1-8], mean weight [01]\.[0-9][0-9])$' "$dir/att.out")
# each line's source token is the one at the position it names, and its query is the token
# written before it (<sep> for the first): "at Q writes W most weight on S (source token j, ..."
misplaced=$(awk 'NR == FNR { src[FNR] = $0; next }
    !/^  / { n = split(src[++block], w, " "); prev = "<sep>"; next }
    { k = $11 + 0; if (k < 1 || k > n || w[k] != $8 || $2 != prev) bad++; prev = $4 }
    END { print bad + 0 }' "$dir/att_in.txt" "$dir/att.out")
if [ $rc -eq 0 ] && [ "$(grep -v '^  ' "$dir/att.out")" = "$plain" ] && [ "$token_lines" -eq $((4 + 6 + 9)) ] &&
    [ "$misplaced" -eq 0 ]; then
    ok "--show-attention: each decoding, then one line per output token and <eos>, naming a source token where it is"
else
    bad "--show-attention" "exit $rc, $token_lines token lines, $misplaced misplaced" "$(head -n 12 "$dir/att.out")" \
        "$(head -n 2 "$dir/att.err")"
fi

# --temperature: 0 is greedy decoding, to the byte; T > 0 samples, the same for the same --seed
# on any number of threads, and another for another seed (20 lines at T = 5: the model's
# answers are far from certain, so that two seeds drawing the same ~100 tokens cannot happen);
# --top-k=1 takes the most likely token whatever T, as greedy decoding does
"$train" --load="$dir/rev.st" --decode --temperature=0 <"$dir/in.txt" >"$dir/t0.txt" 2>/dev/null
rc=$?
if [ $rc -eq 0 ] && cmp -s "$dir/t0.txt" "$dir/got.txt"; then
    ok "--temperature=0: the 60 decodings of no flag, byte for byte"
else
    bad "--temperature=0 is greedy decoding" "exit $rc" "$(diff "$dir/got.txt" "$dir/t0.txt" | head -n 4)"
fi
lines 20 3 8 777 $letters >"$dir/hot_in.txt"
"$train" --load="$dir/rev.st" --decode <"$dir/hot_in.txt" >"$dir/hot_greedy.txt" 2>/dev/null
sample() { "$train" --load="$dir/rev.st" --decode --temperature=5 "$@" <"$dir/hot_in.txt" 2>/dev/null; }
sample --seed=5 --threads=1 >"$dir/hot_a.txt"
rc_a=$?
sample --seed=5 --threads=1 >"$dir/hot_b.txt"
rc_b=$?
sample --seed=5 --threads=2 >"$dir/hot_c.txt"
rc_c=$?
sample --seed=6 --threads=1 >"$dir/hot_d.txt"
rc_d=$?
sample >"$dir/hot_e.txt" # no --seed: the checkpoint's, 1
rc_e=$?
sample --seed=1 >"$dir/hot_f.txt"
if [ $rc_a -eq 0 ] && [ $rc_b -eq 0 ] && [ $rc_c -eq 0 ] && [ "$(wc -l <"$dir/hot_a.txt")" -eq 20 ] &&
    cmp -s "$dir/hot_a.txt" "$dir/hot_b.txt" && cmp -s "$dir/hot_a.txt" "$dir/hot_c.txt" && ! cmp -s "$dir/hot_a.txt" "$dir/hot_greedy.txt"; then
    ok "--temperature=5 --seed=5: 20 sampled lines (not the greedy ones), the same twice and with --threads=2"
else
    bad "sampling is reproducible" "exit $rc_a $rc_b $rc_c, $(wc -l <"$dir/hot_a.txt") lines" \
        "$(paste -d '|' "$dir/hot_greedy.txt" "$dir/hot_a.txt" "$dir/hot_b.txt" "$dir/hot_c.txt" | head -n 4)"
fi
if [ $rc_d -eq 0 ] && [ "$(wc -l <"$dir/hot_d.txt")" -eq 20 ] && ! cmp -s "$dir/hot_a.txt" "$dir/hot_d.txt"; then
    ok "--temperature=5: --seed=6 samples other lines than --seed=5 ($(fraction_same "$dir/hot_a.txt" "$dir/hot_d.txt") the same)"
else
    bad "another seed samples otherwise" "exit $rc_d" "$(paste -d '|' "$dir/hot_a.txt" "$dir/hot_d.txt" | head -n 4)"
fi
if [ $rc_e -eq 0 ] && [ -s "$dir/hot_e.txt" ] && cmp -s "$dir/hot_e.txt" "$dir/hot_f.txt" && ! cmp -s "$dir/hot_e.txt" "$dir/hot_a.txt"; then
    ok "--temperature=5 without --seed samples with the checkpoint's seed (1)"
else
    bad "sampling without --seed uses the checkpoint's" "exit $rc_e" "$(paste -d '|' "$dir/hot_e.txt" "$dir/hot_f.txt" | head -n 4)"
fi
"$train" --load="$dir/rev.st" --decode --temperature=5 --top-k=1 --seed=5 <"$dir/in.txt" >"$dir/k1.txt" 2>/dev/null
rc=$?
"$train" --load="$dir/rev.st" --decode --temperature=1000 --top-k=1 <"$dir/hot_in.txt" >"$dir/k1_hot.txt" 2>/dev/null
rc2=$?
if [ $rc -eq 0 ] && [ $rc2 -eq 0 ] && cmp -s "$dir/k1.txt" "$dir/got.txt" && cmp -s "$dir/k1_hot.txt" "$dir/hot_greedy.txt"; then
    ok "--top-k=1 at --temperature=5 and 1000: the greedy decodings (60 and 20 lines)"
else
    bad "--top-k=1 is greedy decoding" "exit $rc / $rc2" "$(diff "$dir/got.txt" "$dir/k1.txt" | head -n 4)" \
        "$(diff "$dir/hot_greedy.txt" "$dir/k1_hot.txt" | head -n 4)"
fi

# ---------------------------------------------------------------- flags
refuse() {
    local what=$1 want=$2
    shift 2
    "$train" "$@" </dev/null >"$dir/flag.out" 2>"$dir/flag.err"
    local rc=$?
    if [ $rc -eq 2 ] && [ "$(wc -l <"$dir/flag.err")" -eq 1 ] && grep -q -- "$want" "$dir/flag.err" && [ ! -s "$dir/flag.out" ]; then
        ok "$what: refused in one line, exit 2"
    else
        bad "$what is refused" "exit $rc" "$(cat "$dir/flag.err")"
    fi
}
refuse "--decode without --load" "^error: --decode needs --load=FILE" --decode
refuse "--decode with a training flag (--lr)" "^error: --lr=0.1 does nothing here: it needs a training run" \
    --load="$dir/rev.st" --decode --lr=0.1
refuse "--decode with an output flag (--save)" "^error: --save=$dir/x.st does nothing here" --load="$dir/rev.st" --decode \
    --save="$dir/x.st"
refuse "--show-attention without --decode" "^error: --show-attention=1 does nothing here: it needs --decode" \
    --load="$dir/rev.st" --show-attention
for value in -1 nan inf 1e999 abc ""; do
    refuse "--temperature=$value" "^error: --temperature=$value: " --load="$dir/rev.st" --decode --temperature="$value"
done
for value in -1 2.5 x; do
    refuse "--top-k=$value" "^error: --top-k=$value: " --load="$dir/rev.st" --decode --temperature=1 --top-k="$value"
done
refuse "--top-k past the vocabulary" "^error: --top-k=15: the model has 14 tokens" --load="$dir/rev.st" --decode \
    --temperature=1 --top-k=15
refuse "--temperature without --decode" "^error: --temperature=0.5 does nothing here: it needs --decode$" \
    --load="$dir/rev.st" --temperature=0.5
refuse "--top-k without --temperature" "^error: --top-k=3 does nothing here: it needs --decode with --temperature > 0" \
    --load="$dir/rev.st" --decode --top-k=3
refuse "--decode --seed=7 without --temperature (the checkpoint's is 1)" \
    "^error: --seed=7 does nothing here: with --decode it seeds the sampling, which needs --temperature > 0" \
    --load="$dir/rev.st" --decode --seed=7
refuse "--decode with another task than the checkpoint's" "^error: --task=copy, but the checkpoint" --load="$dir/rev.st" \
    --decode --task=copy
refuse "--decode --attention-svg (its message names how to draw a checkpoint)" \
    "^error: --attention-svg does not apply with --decode (draw a checkpoint with ./train --load=FILE --attention-svg=FILE)$" \
    --load="$dir/rev.st" --decode --attention-svg="$dir/a.svg"
refuse "--decode --print-tape=1 (its message names how to see a checkpoint's tape)" \
    "^error: --print-tape does not apply with --decode (see the tape of a checkpoint's next step with ./train --load=FILE --print-tape)$" \
    --load="$dir/rev.st" --decode --print-tape=1
refuse "--decode --steps=5 (a flag that does nothing)" "^error: --steps=5 does nothing here: it needs a training run" \
    --load="$dir/rev.st" --decode --steps=5
# a config file written for a training run: what --decode does not use is ignored, even a file it
# names in a folder that does not exist (a flag that does nothing is refused, above)
printf 'steps = 5\nlr = 0.01\nsave = %s/nowhere/x.st\nlog = %s/rev.st\nprint-tape = 1\nthreads = 1\n' "$dir" "$dir" >"$dir/train.cfg"
echo 'C A B' | "$train" --load="$dir/rev.st" --decode --config="$dir/train.cfg" >"$dir/cfg.out" 2>"$dir/cfg.err"
rc=$?
if [ $rc -eq 0 ] && [ "$(cat "$dir/cfg.out")" = "B A C" ] && [ ! -s "$dir/cfg.err" ]; then
    ok "--decode --config=<a training run's file> (steps, lr, save, log, print-tape): its unused options ignored, decoded"
else
    bad "--decode with a training config file" "exit $rc" "$(cat "$dir/cfg.out" "$dir/cfg.err")"
fi

# ---------------------------------------------------------------- a TSV corpus
# word-by-word translation of two to five words; --decode takes the task, the corpus's path and
# its vocabulary from the checkpoint. Every source of the corpus is decoded (about 10% of them
# were held out), and at least 90% must come out as their targets.
en="red green blue black white cat dog bird fish tree"
fr="rouge vert bleu noir blanc chat chien oiseau poisson arbre"
translate() { awk -v en="$en" -v fr="$fr" 'BEGIN { n = split(en, e, " "); split(fr, f, " "); for (i = 1; i <= n; i++) m[e[i]] = f[i] }
    { o = ""; for (i = 1; i <= NF; i++) o = o (i > 1 ? " " : "") m[$i]; print o }'; }
lines 800 2 5 7 $en | sort -u >"$dir/en.txt"
translate <"$dir/en.txt" | paste "$dir/en.txt" - >"$dir/words.tsv"
"$train" --data="$dir/words.tsv" --steps=300 --threads=1 --examples=16 --save="$dir/words.st" >"$dir/words.out" 2>&1
cut -f1 "$dir/words.tsv" >"$dir/tsv_in.txt"
cut -f2 "$dir/words.tsv" >"$dir/tsv_want.txt"
n_tsv=$(wc -l <"$dir/tsv_in.txt")
"$train" --load="$dir/words.st" --decode <"$dir/tsv_in.txt" >"$dir/tsv_got.txt" 2>"$dir/tsv.err"
rc=$?
same=$(fraction_same "$dir/tsv_got.txt" "$dir/tsv_want.txt")
sed -n 's/^ *\[[a-z]*\] *source: //p' "$dir/words.out" >"$dir/tsv_printed_src.txt"
sed -n 's/^ *decoded:  //p' "$dir/words.out" >"$dir/tsv_printed_got.txt"
"$train" --load="$dir/words.st" --decode <"$dir/tsv_printed_src.txt" >"$dir/tsv_again.txt" 2>/dev/null
if [ $rc -eq 0 ] && [ "$(wc -l <"$dir/tsv_got.txt")" -eq "$n_tsv" ] && at_least "$same" 0.9 &&
    [ "$(wc -l <"$dir/tsv_printed_src.txt")" -eq 16 ] && cmp -s "$dir/tsv_again.txt" "$dir/tsv_printed_got.txt"; then
    ok "a TSV corpus's model: >= 90% of its $n_tsv sources translated ($same); the printed examples agree"
else
    bad "--decode with a TSV corpus's model" "exit $rc, $(wc -l <"$dir/tsv_got.txt") lines, $same right" \
        "$(head -n 2 "$dir/tsv.err")" "$(paste "$dir/tsv_in.txt" "$dir/tsv_got.txt" | head -n 3)" \
        "$(diff "$dir/tsv_printed_got.txt" "$dir/tsv_again.txt" | head -n 4)"
fi
printf 'red cat\nred purple\n' | "$train" --load="$dir/words.st" --decode >"$dir/tsv_unk.out" 2>"$dir/tsv_unk.err"
rc=$?
if [ $rc -eq 2 ] && [ "$(cat "$dir/tsv_unk.out")" = "rouge chat" ] &&
    grep -q '^line 2: unknown token "purple" (the vocabulary has: [^ .]*\( [^ .]*\)\{19\})$' "$dir/tsv_unk.err"; then
    ok "a TSV corpus's model names an unknown word, with all of the corpus's 20 words"
else
    bad "a TSV model reports an unknown word" "exit $rc" "$(cat "$dir/tsv_unk.out")" "$(cat "$dir/tsv_unk.err")"
fi

# lookup's sources have a form (symbols, "?", the symbols asked for): a line that breaks it is
# refused, saying how, and the well-formed one is decoded (a few steps: the form is checked, not
# the answer)
"$train" --task=lookup --steps=5 --layers=1 --dmodel=16 --heads=2 --quiet --save="$dir/lookup.st" >/dev/null 2>&1
printf 'A B C ? A C\nA A C ? A C\nA B C\nA B C ? D A\nA B C ? A\nA B ? p1 A\nA ? A B\nA B C ? A C ? B\n' |
    "$train" --load="$dir/lookup.st" --decode >"$dir/lookup.out" 2>"$dir/lookup.err"
rc=$?
want='line 2: word 2 repeats word 1: a lookup source'"'"'s symbols are distinct
line 3: no "?": a lookup source is symbols, "?", then the symbols asked for
line 4: word 5 is asked for but is not among the symbols before the "?"
line 5: 1 symbol asked for after the "?": the model was trained on 2 (--lookup-queries)
line 6: word 4 is a position, an answer'"'"'s word, not a symbol
line 7: 1 symbol before the "?": the model was trained on 3 to 8
line 8: a second "?" (word 7): a lookup source has one'
if [ $rc -eq 2 ] && [ "$(grep '^line [2-8]:' "$dir/lookup.err")" = "$want" ] && [ "$(wc -l <"$dir/lookup.out")" -eq 1 ]; then
    ok "lookup: a source that breaks its form (a repeat, no ?, a query not among the symbols, too few queries, a position, lengths, two ?) is refused, saying how"
else
    bad "lookup's sources checked by --decode" "exit $rc" "$(cat "$dir/lookup.err")"
fi

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
