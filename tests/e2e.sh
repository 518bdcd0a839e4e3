#!/usr/bin/env bash
# e2e.sh - end-to-end tests of the ./train program: learning, resuming, determinism, NaN
# reports, bad input, and the files it writes. Prints "N passed, N failed".
#
#   tests/e2e.sh TRAIN_BINARY
set -u
train=${1:?usage: tests/e2e.sh TRAIN_BINARY}
dir=${TEST_TMPDIR:-$(mktemp -d)}/e2e
mkdir -p "$dir"
passed=0
failed=0

ok() { passed=$((passed + 1)); echo "ok    $1"; }
bad() { failed=$((failed + 1)); echo "FAIL  $1"; shift; for line in "$@"; do echo "    $line"; done; }

# summary_field FILE NAME: the value of NAME= on the summary line
summary_field() { grep '^summary:' "$1" | tr ' ' '\n' | grep "^$2=" | cut -d= -f2; }

# A small, fast model for the tests that do not measure learning.
small=(--layers=1 --dmodel=32 --heads=2 --batch=8 --max-len=5 --val-size=64 --eval-examples=32 --quiet)

# ---------------------------------------------------------------- learning
"$train" --steps=300 --layers=2 --quiet >"$dir/learn.out" 2>&1
acc=$(summary_field "$dir/learn.out" val_acc)
if [ -n "$acc" ] && awk -v a="$acc" 'BEGIN { exit !(a >= 0.95) }'; then
    ok "a 2-layer model learns copy to >= 95% held-out exact match in 300 steps ($acc)"
else
    bad "a 2-layer model learns copy to >= 95% in 300 steps" "val_acc=$acc" "$(tail -n 3 "$dir/learn.out")"
fi

# ---------------------------------------------------------------- resume is exact
common=("${small[@]}" --steps=60 --warmup=10 --dropout=0.1 --attn-dropout=0.1 --log-every=1 --eval-every=0)
"$train" "${common[@]}" --save="$dir/straight.st" --log="$dir/straight.csv" >/dev/null 2>&1
"$train" "${common[@]}" --stop-at=30 --save="$dir/half.st" --log="$dir/half.csv" >/dev/null 2>&1
"$train" --load="$dir/half.st" --save="$dir/resumed.st" --log="$dir/resumed.csv" --log-every=1 --quiet >/dev/null 2>&1
# the loss column (2) of steps 31..60, written with 9 significant digits
straight=$(awk -F, 'NR > 1 && $1 > 30 { print $1, $2 }' "$dir/straight.csv")
resumed=$(awk -F, 'NR > 1 && $1 > 30 { print $1, $2 }' "$dir/resumed.csv")
if [ -n "$straight" ] && [ "$straight" = "$resumed" ] && cmp -s "$dir/straight.st" "$dir/resumed.st"; then
    ok "resume: 60 steps straight = 30 + save + load + 30 (same losses, byte-identical checkpoint)"
else
    bad "resume is exact" "$(diff <(echo "$straight") <(echo "$resumed") | head -n 4)" \
        "checkpoints: $(cmp "$dir/straight.st" "$dir/resumed.st" 2>&1)"
fi

# ---------------------------------------------------------------- thread count does not matter
"$train" "${small[@]}" --steps=20 --dropout=0.1 --threads=1 --save="$dir/t1.st" >"$dir/t1.out" 2>&1
"$train" "${small[@]}" --steps=20 --dropout=0.1 --threads=2 --save="$dir/t2.st" >"$dir/t2.out" 2>&1
if [ -s "$dir/t1.st" ] && cmp -s "$dir/t1.st" "$dir/t2.st"; then
    ok "1 and 2 threads give byte-identical checkpoints"
else
    bad "1 and 2 threads give byte-identical checkpoints" "$(cmp "$dir/t1.st" "$dir/t2.st" 2>&1)"
fi

# ---------------------------------------------------------------- NaN is caught and named
"$train" "${small[@]}" --steps=10 --inject-nan=3:h.0.attn.wq >"$dir/nan.out" 2>"$dir/nan.err"
rc=$?
if [ $rc -eq 3 ] && grep -q "step 3:" "$dir/nan.err" && grep -q "layer 0 queries" "$dir/nan.err" &&
    grep -q "parameter h.0.attn.wq holds inf" "$dir/nan.err"; then
    ok "an injected Inf stops training with exit 3, naming the step, tensor and parameter"
else
    bad "an injected Inf is caught and named" "exit $rc" "$(cat "$dir/nan.err")"
fi
"$train" "${small[@]}" --steps=10 --inject-nan=3:h.0.mlp.w2 --nan=continue >"$dir/nanc.out" 2>&1
rc=$?
count=$(summary_field "$dir/nanc.out" nan_count)
if [ $rc -eq 0 ] && [ "${count:-0}" -ge 1 ]; then
    ok "--nan=continue counts non-finite steps and finishes (nan_count=$count)"
else
    bad "--nan=continue counts and finishes" "exit $rc, nan_count=$count"
fi

# ---------------------------------------------------------------- bad input
rm -f "$dir/never.csv"
"$train" --lr=1e-3x --log="$dir/never.csv" >"$dir/badflag.out" 2>"$dir/badflag.err"
rc=$?
if [ $rc -eq 2 ] && [ "$(wc -l <"$dir/badflag.err")" -eq 1 ] && grep -q -- "--lr=1e-3x" "$dir/badflag.err" &&
    [ ! -e "$dir/never.csv" ] && [ ! -s "$dir/badflag.out" ]; then
    ok "a bad flag: one line naming it, exit 2, nothing written"
else
    bad "a bad flag: one line, exit 2, nothing written" "exit $rc" "$(cat "$dir/badflag.err")"
fi
printf 'src a b\n' >"$dir/notab.tsv"
"$train" --data="$dir/notab.tsv" >/dev/null 2>"$dir/tsv.err"
rc=$?
if [ $rc -eq 2 ] && grep -q "notab.tsv:1: no tab" "$dir/tsv.err"; then
    ok "a malformed corpus: the file and line are named, exit 2"
else
    bad "a malformed corpus is reported" "exit $rc" "$(cat "$dir/tsv.err")"
fi

# ---------------------------------------------------------------- help lists every flag
"$train" --help >"$dir/help.out" 2>&1
rc=$?
missing=""
for f in task data layers dmodel heads dk context batch steps lr warmup min-lr weight-decay clip optim \
    attn-dropout dropout init-gain scale seed threads log log-every eval-every save load dump-state nan; do
    grep -q -- "--$f=" "$dir/help.out" || missing="$missing $f"
done
if [ $rc -eq 0 ] && [ -z "$missing" ]; then
    ok "--help lists every flag with its default"
else
    bad "--help lists every flag" "exit $rc, missing:$missing"
fi

# ---------------------------------------------------------------- the files it writes
"$train" "${small[@]}" --steps=20 --log-every=5 --eval-every=10 --scale=learned --log="$dir/log.csv" \
    --dump-state="$dir/dump.st" >/dev/null 2>&1
header=$(head -n 1 "$dir/log.csv")
rows=$(($(wc -l <"$dir/log.csv") - 1))
want="step,loss,lr,grad_norm,tokens_per_s,time_s,l0_score_mean,l0_score_std,l0_entropy,l0_entropy_norm,l0_max_weight,l0_gnorm_wq,l0_gnorm_wk,l0_scale_x_sqrt_dk,val_loss,val_acc,nan_count"
evals=$(awk -F, 'NR > 1 && $16 != "" { n++ } END { print n + 0 }' "$dir/log.csv")
if [ "$header" = "$want" ] && [ "$rows" -eq 5 ] && [ "$evals" -eq 2 ]; then
    ok "CSV log: one column per metric, a row per log step (1, 5, 10, 15, 20), evaluations at 10 and 20"
else
    bad "CSV log layout" "header: $header" "rows: $rows, evaluations: $evals"
fi
hlen=$(od -An -t u8 -N 8 "$dir/dump.st" | tr -d ' ')
names=$(head -c $((8 + hlen)) "$dir/dump.st" | tail -c "$hlen" | grep -a -o '"[a-z_.0-9]*":{"dtype"' | cut -d'"' -f2 | sort | tr '\n' ' ')
need="batch.mask batch.targets batch.tokens grad.h.0.attn.scale grad.h.0.attn.wq grad.lm_head grad.wte logits loss param.h.0.attn.wq param.wte"
lacking=""
for n in $need; do echo " $names " | grep -q " $n " || lacking="$lacking $n"; done
if [ -s "$dir/dump.st" ] && [ -z "$lacking" ]; then
    ok "--dump-state writes parameters, gradients, batch, logits and loss"
else
    bad "--dump-state contents" "missing:$lacking"
fi

# ---------------------------------------------------------------- a user's corpus and the shipped configs
for i in $(seq 1 60); do printf 'the cat %d\tle chat %d\n' "$i" "$i"; done >"$dir/pairs.tsv"
if "$train" --data="$dir/pairs.tsv" --steps=5 --warmup=1 --quiet >"$dir/tsv.out" 2>&1 && grep -q '^summary:' "$dir/tsv.out"; then
    ok "--data=FILE.tsv trains on a user's corpus"
else
    bad "--data=FILE.tsv trains" "$(cat "$dir/tsv.out")"
fi
for cfg in configs/*.cfg; do
    [ -e "$cfg" ] || continue
    if "$train" --config="$cfg" --stop-at=1 --eval-examples=4 --examples=0 --quiet >"$dir/cfg.out" 2>&1; then
        ok "$cfg is accepted"
    else
        bad "$cfg is accepted" "$(cat "$dir/cfg.out")"
    fi
done

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
