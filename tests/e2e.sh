#!/usr/bin/env bash
# e2e.sh - end-to-end tests of the programs: ./train (learning, resuming, determinism, NaN
# reports, bad input, the files it writes), ./probe, and the quick ablation grid with ./report.
# Prints "N passed, N failed".
#
#   tests/e2e.sh BIN_DIR      the folder holding train, probe and report (e.g. . or build/asan32)
set -u
bin=${1:?usage: tests/e2e.sh BIN_DIR}
train=$bin/train
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

# ---------------------------------------------------------------- the summary's test set
# a run without a test set has no test_ fields (not "test_loss=nan test_acc=nan test_examples=0");
# with --test-size=N all three, the examples counted
"$train" "${small[@]}" --steps=2 --test-size=40 >"$dir/test_set.out" 2>&1
if ! grep '^summary:' "$dir/learn.out" | grep -q ' test_' &&
    [ "$(summary_field "$dir/test_set.out" test_examples)" = 40 ] &&
    [ -n "$(summary_field "$dir/test_set.out" test_acc)" ] && [ -n "$(summary_field "$dir/test_set.out" test_loss)" ]; then
    ok "the summary line names test_loss, test_acc and test_examples only when the run has a test set"
else
    bad "the summary's test fields" "$(grep '^summary:' "$dir/learn.out")" "$(grep '^summary:' "$dir/test_set.out")"
fi

# ---------------------------------------------------------------- the time left
# The estimate itself is tested on a clock of its own (tests/test_attention.c: exact from the
# second row on); here, on a real run, that the first console line says "-" (its step grows the
# arena and is measured: before, it said 91 s left for a 4 s run) and every later one a number.
"$train" --steps=200 --log-every=50 --eval-every=100 >"$dir/left.out" 2>&1
if grep -q '^step     1/200 .*  - left' "$dir/left.out" &&
    [ "$(grep '^step' "$dir/left.out" | tail -n +2 | grep -cE ' [0-9]+s left ')" -eq 4 ]; then
    ok "time left: '-' at step 1, then a number of seconds on every later line"
else
    bad "the time left: '-' at step 1, then a number" "$(grep '^step' "$dir/left.out" | head -n 3)"
fi
# the held-out accuracy is shown on the lines that measured it (every 100 steps), '-' on the
# others: not the last value repeated, which reads as a stall
acc_steps=$(awk '/^step / { split($2, s, "/"); if ($0 ~ /acc +[0-9.]+%/) printf "%d ", s[1]; else if ($0 !~ /acc +- /) printf "? " }' "$dir/left.out")
if [ "$acc_steps" = "100 200 " ]; then ok "the progress line's acc: a value at the evaluating steps (100, 200) only, '-' between"; else
    bad "the progress line's acc only where measured" "steps with a value: '$acc_steps'" "$(grep '^step' "$dir/left.out")"; fi

# ---------------------------------------------------------------- resume is exact
# --log-every=7: the log interval in progress at step 30 spans the save; the threshold is
# crossed after the save, so the summary's steps_to_threshold must survive it too.
common=("${small[@]}" --steps=60 --warmup=10 --dropout=0.1 --attn-dropout=0.1 --log-every=7 --eval-every=0 --loss-threshold=1.6)
"$train" "${common[@]}" --save="$dir/straight.st" --log="$dir/straight.csv" >"$dir/straight.out" 2>&1
"$train" "${common[@]}" --stop-at=30 --save="$dir/half.st" --log="$dir/half.csv" >/dev/null 2>&1
"$train" --load="$dir/half.st" --save="$dir/resumed.st" --log="$dir/resumed.csv" --quiet >"$dir/resumed.out" 2>&1
# every logged value after step 30 but the timings (columns 5, 6: tokens/s, time)
# (the rows after the comment line, "# ./train ...", and the header)
straight=$(grep -v '^#' "$dir/straight.csv" | awk -F, 'NR > 1 && $1 > 30 { $5 = ""; $6 = ""; print }')
resumed=$(grep -v '^#' "$dir/resumed.csv" | awk -F, 'NR > 1 && $1 > 30 { $5 = ""; $6 = ""; print }')
sum_a=$(grep '^summary:' "$dir/straight.out" | sed 's/ time_s=.*//')
sum_b=$(grep '^summary:' "$dir/resumed.out" | sed 's/ time_s=.*//')
threshold=$(summary_field "$dir/straight.out" steps_to_threshold)
if [ -n "$straight" ] && [ "$straight" = "$resumed" ] && [ -n "$sum_a" ] && [ "$sum_a" = "$sum_b" ] &&
    [ "${threshold:--1}" -gt 30 ] && cmp -s "$dir/straight.st" "$dir/resumed.st"; then
    ok "resume: 60 steps straight = 30 + save + load + 30 (log rows, summary line, byte-identical checkpoint)"
else
    bad "resume is exact" "$(diff <(echo "$straight") <(echo "$resumed") | head -n 4)" "straight: $sum_a" "resumed: $sum_b" \
        "threshold step: $threshold" "checkpoints: $(cmp "$dir/straight.st" "$dir/resumed.st" 2>&1)"
fi
"$train" --load="$dir/half.st" --seed=99 --quiet >/dev/null 2>"$dir/seed.err"
if [ $? -eq 2 ] && grep -q -- "--seed=99, but the checkpoint" "$dir/seed.err"; then
    ok "resume refuses a different --seed (it defines the data split)"
else
    bad "resume refuses a different --seed" "$(cat "$dir/seed.err")"
fi

# another task's flags do nothing, on resume as in a fresh run (copy reads no --recall-pairs):
# refused, saying which task reads them; the checkpoint's own task's flags must agree
"$train" --load="$dir/half.st" --recall-pairs=3 --recall-keys=9 --stop-at=31 --quiet >/dev/null 2>"$dir/other_task.err"
rc_other=$?
"$train" "${small[@]}" --task=copy --recall-pairs=3 --steps=2 >/dev/null 2>"$dir/other_fresh.err"
rc_fresh=$?
"$train" --load="$dir/half.st" --max-len=6 --stop-at=31 --quiet >/dev/null 2>"$dir/own_task.err"
rc_own=$?
if [ $rc_other -eq 2 ] && grep -q -- "^error: --recall-pairs=3 does nothing here: it needs --task=recall$" "$dir/other_task.err" &&
    [ $rc_fresh -eq 2 ] && cmp -s "$dir/other_task.err" "$dir/other_fresh.err" &&
    [ $rc_own -eq 2 ] && grep -q -- "--max-len=6, but the checkpoint" "$dir/own_task.err"; then
    ok "another task's flag (--recall-pairs with copy): refused alike on resume and in a fresh run; the checkpoint's task's own (--max-len) must agree"
else
    bad "resume and task flags" "--recall-pairs on a copy checkpoint: exit $rc_other, $(cat "$dir/other_task.err")" \
        "fresh: exit $rc_fresh, $(cat "$dir/other_fresh.err")" "--max-len: exit $rc_own, $(cat "$dir/own_task.err")"
fi
refuse_task_flags() { # EXPECT FLAGS...: a data option the task does not read, as a flag
    "$train" "${small[@]}" --steps=2 "${@:2}" >/dev/null 2>"$dir/task_flag.err"
    if [ $? -eq 2 ] && grep -q -- "$1" "$dir/task_flag.err"; then ok "refused: ${*:2}"; else bad "refused: ${*:2}" "$(cat "$dir/task_flag.err")"; fi
}
refuse_task_flags "^error: --lookup-queries=3 does nothing here: it needs --task=lookup$" --task=copy --lookup-queries=3
refuse_task_flags "^error: --lookup-queries=3 does nothing here: it needs --task=lookup$" --task=recall --max-len=8 --lookup-queries=3
printf 'task = recall\nlookup-queries = 4\n' >"$dir/other_task.cfg" # the same from a config file
refuse_task_flags "^error: --lookup-queries=4 does nothing here: it needs --task=lookup$" --config="$dir/other_task.cfg" --max-len=8
# a resumed run that stops before its next row (log-every 7: rows at 28 and 35) still has a
# final loss: the mean since the checkpoint's last row, not "nan"
"$train" --load="$dir/half.st" --stop-at=31 --quiet >"$dir/other_task.out" 2>&1
fl=$(summary_field "$dir/other_task.out" final_loss)
if awk -v v="$fl" 'BEGIN { exit !(v + 0 == v && v > 0 && v < 100) }'; then
    ok "a resumed run that logs no row: final_loss=$fl (the mean since the last row), not nan"
else
    bad "final_loss of a resumed run without a row" "final_loss=$fl"
fi
# a run stopped after its last step (a signal during its final evaluation saves it there) and
# resumed: nothing left to train, it evaluates, and its summary is the uninterrupted run's (the
# checkpoint keeps the last row's loss: final_loss was nan)
"$train" "${small[@]}" --steps=20 --log-every=7 --save="$dir/ended.st" >"$dir/ended.out" 2>&1
"$train" --load="$dir/ended.st" --quiet >"$dir/ended_again.out" 2>&1
if [ -n "$(summary_field "$dir/ended.out" final_loss)" ] &&
    [ "$(grep '^summary:' "$dir/ended.out" | sed 's/ time_s=.*//')" = "$(grep '^summary:' "$dir/ended_again.out" | sed 's/ time_s=.*//')" ]; then
    ok "a run resumed after its last step: the same summary line as the uninterrupted run (final_loss=$(summary_field "$dir/ended.out" final_loss))"
else
    bad "a run resumed after its last step has the uninterrupted summary" "$(grep '^summary:' "$dir/ended.out")" "$(grep '^summary:' "$dir/ended_again.out")"
fi
# changing the optimizer on resume says that the new one's state starts at zero; keeping it says nothing
"$train" --load="$dir/half.st" --optim=sgd --lr=0.01 --stop-at=31 --quiet >/dev/null 2>"$dir/optim.err"
rc_sgd=$?
"$train" --load="$dir/half.st" --optim=adamw --stop-at=31 --quiet >/dev/null 2>"$dir/same_optim.err"
if [ $rc_sgd -eq 0 ] && grep -q -- "^note: --optim=sgd: .*half.st was trained with --optim=adamw, whose state is not carried over: sgd's starts at zero$" "$dir/optim.err" &&
    [ ! -s "$dir/same_optim.err" ]; then
    ok "resume with another --optim: a note that its state starts at zero (none when it is the same)"
else
    bad "resume with another --optim gives a note" "exit $rc_sgd: $(cat "$dir/optim.err")" "same: $(cat "$dir/same_optim.err")"
fi

# ---------------------------------------------------------------- a task that needs focus
# lookup's gate in small (docs/TASKS.md): at the ablation's settings, 1000 steps at lr 1e-3,
# lengths 3-5, 1/sqrt(dk) learns it (seeds 1-6 all >= 0.996 when calibrated) while uniform attention,
# which cannot point at one key, stays near guessing (mean 1/n^2 over n = 3..5: 0.071)
gate=(--config=configs/ablation.cfg --task=lookup --max-len=5 --steps=1000 --lr=1e-3 --dk=64 --seed=2 --threads=1 --quiet)
"$train" "${gate[@]}" --scale=sqrt >"$dir/gate_dot.out" 2>&1 &
pid=$!
"$train" "${gate[@]}" --attn=uniform >"$dir/gate_uniform.out" 2>&1
wait $pid
dot_acc=$(summary_field "$dir/gate_dot.out" val_acc)
uniform_acc=$(summary_field "$dir/gate_uniform.out" val_acc)
if awk -v d="$dot_acc" -v u="$uniform_acc" 'BEGIN { exit !(d != "" && u != "" && d >= 0.9 && u <= 0.15) }'; then
    ok "lookup needs focus: 1/sqrt(dk) learns it ($dot_acc), uniform attention stays near guessing ($uniform_acc; 0.071)"
else
    bad "lookup's gate" "1/sqrt(dk): $dot_acc (want >= 0.9); uniform: $uniform_acc (want <= 0.15)" "$(tail -n 1 "$dir/gate_dot.out")"
fi

# ---------------------------------------------------------------- the mechanisms of the scale study
# each resumes exactly (byte-identical checkpoint and summary: its parameters, optimizer buffers
# and counts are all in the checkpoint)
variant_resumes() {
    local name=$1
    shift
    local args=("${small[@]}" --steps=16 --warmup=4 --log-every=4 --eval-every=0 "$@")
    "$train" "${args[@]}" --save="$dir/v-straight.st" >"$dir/v-straight.out" 2>&1
    "$train" "${args[@]}" --stop-at=8 --save="$dir/v-half.st" >/dev/null 2>&1
    "$train" --load="$dir/v-half.st" --save="$dir/v-resumed.st" --quiet >"$dir/v-resumed.out" 2>&1
    local a b
    a=$(grep '^summary:' "$dir/v-straight.out" | sed 's/ time_s=.*//')
    b=$(grep '^summary:' "$dir/v-resumed.out" | sed 's/ time_s=.*//')
    if [ -n "$a" ] && [ "$a" = "$b" ] && cmp -s "$dir/v-straight.st" "$dir/v-resumed.st"; then
        ok "resume is exact with $name"
    else
        bad "resume is exact with $name" "straight: $a" "resumed: $b" "$(tail -n 2 "$dir/v-resumed.out")"
    fi
}
variant_resumes "--attn=qknorm, a learned scale from 1 stored as its log" --attn=qknorm --scale=learned --scale-init=1 --scale-param=log
variant_resumes "--attn=cosine --tau-init=5" --attn=cosine --tau-init=5
variant_resumes "--attn=additive" --attn=additive
variant_resumes "--optim=sgd --momentum=0.9 (its buffer in the checkpoint)" --optim=sgd --momentum=0.9 --lr=0.05
variant_resumes "--precision=fp16 --softmax=naive --scale=1 (the counts carried over)" --precision=fp16 --softmax=naive \
    --scale=1 --dk=64 --qk-init=unit --nan=continue
variant_resumes "--precision=bf16" --precision=bf16
grep -a -q '"optim.momentum.wte"' "$dir/v-half.st" && bad "a plain AdamW checkpoint holds an SGD momentum buffer"
"$train" "${small[@]}" --steps=16 --precision=fp16 --softmax=naive --scale=1 --dk=64 --qk-init=unit --nan=continue \
    --log-every=4 --log="$dir/fp16.csv" >"$dir/fp16.out" 2>&1
over=$(summary_field "$dir/fp16.out" fp_overflows)
# the CSV's counts are each layer's since the start: the last row's sum over layers is the summary's
col=$(grep -v '^#' "$dir/fp16.csv" | awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i ~ /^l[0-9]+_fp_overflows$/) c[i] = 1 }
               NR > 1 { s = 0; for (i in c) s += $i } END { print s + 0 }')
if [ "${over:-0}" -gt 0 ] && [ "$col" = "$over" ] && [ "$(summary_field "$dir/fp16.out" nan_count)" -gt 0 ]; then
    ok "fp16 with the naive softmax at s = 1: overflows counted ($over; the CSV's per-layer counts add up to it), the run goes on"
else
    bad "fp16 overflow counts" "summary fp_overflows=$over, CSV $col" "$(tail -n 2 "$dir/fp16.out")"
fi
# the evaluations count too: an fp32 checkpoint evaluated in fp16 without the row max overflows
# there (no training step runs), its loss printed "nan" (not "-nan"); an fp32 run has no such fields
"$train" "${small[@]}" --steps=3 --scale=1 --dk=64 --qk-init=unit --save="$dir/fp32.st" >"$dir/fp32.out" 2>&1
"$train" --load="$dir/fp32.st" --stop-at=3 --precision=fp16 --softmax=naive --quiet >"$dir/fp16_eval.out" 2>&1
eval_over=$(summary_field "$dir/fp16_eval.out" eval_fp_overflows)
if [ "${eval_over:-0}" -gt 0 ] && [ "$(summary_field "$dir/fp16_eval.out" fp_overflows)" = 0 ] &&
    [ "$(summary_field "$dir/fp16_eval.out" val_loss)" = nan ] && ! grep -q 'eval_fp' "$dir/fp32.out"; then
    ok "fp16 in the evaluations only: eval_fp_overflows=$eval_over, fp_overflows=0 (no step ran), val_loss=nan"
else
    bad "evaluation passes count their fp16 overflows" "$(grep '^summary:' "$dir/fp16_eval.out")" "$(grep '^summary:' "$dir/fp32.out")"
fi
# options that would do nothing are refused, not silently ignored; bad values are named
refuse_flags() {
    local expect=$1
    shift
    "$train" "${small[@]}" --steps=2 "$@" >/dev/null 2>"$dir/flag.err"
    local rc=$?
    if [ $rc -eq 2 ] && grep -q -- "$expect" "$dir/flag.err"; then ok "refused: $*"; else
        bad "refused: $*" "exit $rc" "$(cat "$dir/flag.err")"; fi
}
refuse_flags "does nothing here: it needs --attn=dot or qknorm" --attn=cosine --scale=dk
refuse_flags "does nothing here: it needs --attn=dot or qknorm" --attn=additive --scale=1
refuse_flags "needs --optim=adamw" --optim=sgd --beta2=0.9
# uniform attention's weights do not depend on q and k: the summaries were the same bits with
# these flags and without them
refuse_flags "qk-init=unit does nothing here: it needs --attn=dot, qknorm, cosine or additive (not uniform: its scores do not depend on q and k)" --attn=uniform --qk-init=unit
refuse_flags "softmax=naive does nothing here: it needs --attn=dot, qknorm, cosine or additive" --attn=uniform --softmax=naive
refuse_flags "needs --scale=learned" --scale-init=1
refuse_flags "needs --attn=cosine" --tau-init=3
refuse_flags "AdamW's momentum is --beta1" --momentum=0.9
refuse_flags "needs --scale=learned or --attn=cosine" --scale-param=log
refuse_flags "must be one of fp32|bf16|fp16" --precision=fp8
refuse_flags "must be one of dot|qknorm|cosine|additive|uniform" --attn=bilinear
refuse_flags "additive needs about" --attn=additive --batch=65536 --dk=2048 --heads=8 --max-len=64
"$train" --help >"$dir/help.out" 2>&1
missing=""
for opt in attn scale-init scale-param tau-init qk-init precision softmax momentum; do
    grep -q -- "--$opt=" "$dir/help.out" || missing="$missing $opt"
done
if [ -z "$missing" ]; then ok "--help lists every option of the scale study"; else bad "--help misses:$missing"; fi
"$train" "${small[@]}" --attn=cosine --steps=4 --stop-at=2 --save="$dir/cos.st" >/dev/null 2>&1
"$train" --load="$dir/cos.st" --scale-init=1 --quiet >/dev/null 2>"$dir/flag.err"
rc=$?
if [ $rc -eq 2 ] && grep -q "needs --scale=learned" "$dir/flag.err"; then
    ok "resuming a cosine run with --scale-init: refused for what it would do, not as a mismatch"
else
    bad "--load=cosine.st --scale-init=1" "exit $rc" "$(cat "$dir/flag.err")"
fi
# ... but an option at its default is let through (a config file that sets it, used for another run)
printf 'scale = sqrt\nmomentum = 0\n' >"$dir/defaults.cfg"
if "$train" "${small[@]}" --steps=2 --config="$dir/defaults.cfg" --attn=cosine >/dev/null 2>"$dir/flag.err"; then
    ok "a config file's scale = sqrt at its default does not stop a cosine run"
else
    bad "a default-valued option in a config file" "$(cat "$dir/flag.err")"
fi

# ---------------------------------------------------------------- nothing is lost
# step (metadata "step") of a checkpoint, read from its header
ckpt_step() {
    local hlen
    hlen=$(od -An -t u8 -N 8 "$1" | tr -d ' ')
    head -c $((8 + hlen)) "$1" | tail -c "$hlen" | grep -a -o '"step":"[0-9]*"' | grep -o '[0-9]*'
}
# a kill in the middle of writing a checkpoint leaves the previous one whole
rm -f "$dir"/crash.st*
# (in braces with stderr redirected, so that the shell's own "Killed" notice stays quiet too)
{ "$train" "${small[@]}" --steps=20 --save-every=10 --save="$dir/crash.st" --inject=crash-in-save:2 >/dev/null; } 2>/dev/null
rc=$?
step=$(ckpt_step "$dir/crash.st")
"$train" --load="$dir/crash.st" --quiet >"$dir/crash-resume.out" 2>&1
rc2=$?
if [ $rc -eq 137 ] && [ "$step" = 10 ] && [ $rc2 -eq 0 ] && grep -q '^summary: steps=20' "$dir/crash-resume.out"; then
    ok "killed while writing a checkpoint: the previous one (step 10) is whole, loads and resumes"
else
    bad "a kill during a save keeps the previous checkpoint" "exit $rc, step $step, resume exit $rc2" "$(cat "$dir/crash-resume.out")"
fi
# a kill after step 50 (last save at 40): resuming gives what an uninterrupted run gives
"$train" "${small[@]}" --steps=60 --dropout=0.1 --log-every=10 --save="$dir/whole.st" >"$dir/whole.out" 2>&1
{ "$train" "${small[@]}" --steps=60 --dropout=0.1 --log-every=10 --save="$dir/broken.st" --save-every=20 \
    --inject=crash-after-step:50 >/dev/null; } 2>/dev/null
rc=$?
step=$(ckpt_step "$dir/broken.st")
"$train" --load="$dir/broken.st" --save="$dir/mended.st" --quiet >"$dir/mended.out" 2>&1
a=$(grep '^summary:' "$dir/whole.out" | sed 's/ time_s=.*//')
b=$(grep '^summary:' "$dir/mended.out" | sed 's/ time_s=.*//')
if [ $rc -eq 137 ] && [ "$step" = 40 ] && [ -n "$a" ] && [ "$a" = "$b" ] && cmp -s "$dir/whole.st" "$dir/mended.st"; then
    ok "killed after step 50, resumed from the --save-every checkpoint of step 40: same summary, same bytes"
else
    bad "resume after a crash is exact" "exit $rc, step $step" "whole:  $a" "mended: $b"
fi
# kill -9 at random moments of a run that saves at every step: what is left always loads.
# Each round waits for the first checkpoint, then kills after a delay, so that the kill lands
# while the run is saving over and over, on a fast machine or a slow (sanitizer) build.
kills=0
loaded=0
mid_save=0
for delay in 0.05 0.2 0.35 0.5 0.65; do
    rm -f "$dir"/kill.st "$dir"/kill.st.tmp.*
    "$train" --layers=4 --dmodel=128 --batch=4 --steps=100000 --save-every=1 --save="$dir/kill.st" --quiet \
        >/dev/null 2>&1 &
    pid=$!
    for _ in $(seq 1 600); do [ -e "$dir/kill.st" ] && break; sleep 0.05; done
    sleep "$delay"
    kill -9 $pid 2>/dev/null
    wait $pid 2>/dev/null
    kills=$((kills + 1))
    compgen -G "$dir/kill.st.tmp.*" >/dev/null && mid_save=$((mid_save + 1)) # killed while writing one
    step=$(ckpt_step "$dir/kill.st")
    "$train" --load="$dir/kill.st" --stop-at=$((step + 1)) --eval-examples=4 --examples=0 --quiet >/dev/null 2>&1 &&
        loaded=$((loaded + 1))
done
if [ $loaded -eq $kills ] && [ $kills -eq 5 ]; then
    ok "$kills kill -9 during a run saving every step ($mid_save in the middle of a write): every checkpoint left behind loads"
else
    bad "kill -9 never corrupts the checkpoint" "$loaded of $kills checkpoints loaded"
fi

# ---------------------------------------------------------------- thread count does not matter
# A build without OpenMP (make OPENMP=0) runs one thread whatever is asked: it says so in its
# banner and warns about a larger count; the comparisons of thread counts mean nothing there.
banner=(--layers=1 --dmodel=32 --heads=2 --batch=8 --max-len=5 --val-size=16 --eval-examples=8 --steps=1)
"$train" "${banner[@]}" --threads=2 >"$dir/omp.out" 2>"$dir/omp.err"
no_openmp=0
if grep -q '^threads: 1 (this build has no OpenMP)$' "$dir/omp.out"; then
    no_openmp=1
    if grep -q '^warning: --threads=2: this build has no OpenMP, so it runs on one thread' "$dir/omp.err"; then
        ok "without OpenMP: one thread, said in the banner; --threads=2 is warned about"
    else
        bad "without OpenMP, --threads=2 is warned about" "$(cat "$dir/omp.err")"
    fi
    echo "skip  1 and 2 threads, and the thread count under taskset: this build has no OpenMP"
else
    # the default model: activations of 32 x 18 x 64 and attention of 32 x 4 x 18 x 18 elements
    # are above the size where loops go parallel, so the threads really share the work
    for t in 1 2; do
        "$train" --steps=12 --dropout=0.1 --attn-dropout=0.1 --eval-examples=32 --log-every=1 --quiet --threads=$t \
            --save="$dir/t$t.st" --log="$dir/t$t.csv" >"$dir/t$t.out" 2>&1
    done
    curve1=$(grep -v '^#' "$dir/t1.csv" | cut -d, -f1-4) # without the command line (--threads differs)
    curve2=$(grep -v '^#' "$dir/t2.csv" | cut -d, -f1-4)
    if [ -s "$dir/t1.st" ] && cmp -s "$dir/t1.st" "$dir/t2.st" && [ "$(echo "$curve1" | wc -l)" -eq 13 ] && [ "$curve1" = "$curve2" ]; then
        ok "1 and 2 threads give the same loss curve and byte-identical checkpoints"
    else
        bad "1 and 2 threads give byte-identical checkpoints" "$(cmp "$dir/t1.st" "$dir/t2.st" 2>&1)"
    fi

    # ---------------------------------------------------------------- how many threads
    # By default, one per core this process may use (its affinity mask, here one core); a count
    # given above that is kept and warned about, whether it comes from --threads or OMP_NUM_THREADS.
    if taskset -c 0 true 2>/dev/null; then
        taskset -c 0 "$train" "${banner[@]}" >"$dir/cores1.out" 2>"$dir/cores1.err"; s1=$?
        taskset -c 0 "$train" "${banner[@]}" --threads=3 >"$dir/cores3.out" 2>"$dir/cores3.err"; s3=$?
        OMP_NUM_THREADS=4 taskset -c 0 "$train" "${banner[@]}" >"$dir/env4.out" 2>"$dir/env4.err"; s4=$?
        if [ $s1 -eq 0 ] && grep -q '^threads: 1$' "$dir/cores1.out" && [ ! -s "$dir/cores1.err" ] &&
            [ $s3 -eq 0 ] && grep -q '^threads: 3$' "$dir/cores3.out" &&
            grep -q '^warning: --threads=3 is more than the 1 core this process may use' "$dir/cores3.err" &&
            [ $s4 -eq 0 ] && grep -q '^threads: 4$' "$dir/env4.out" &&
            grep -q '^warning: OMP_NUM_THREADS=4 is more than the 1 core' "$dir/env4.err"; then
            ok "on one core: one thread by default; --threads=3 and OMP_NUM_THREADS=4 are kept and warned about"
        else
            bad "the default thread count follows the affinity mask; more is warned about" "$(cat "$dir/cores1.out" "$dir/cores3.err" "$dir/env4.err" | grep -v '^step')"
        fi
    else
        echo "skip  the thread count under taskset (taskset cannot pin here)"
    fi
    if [ "$(nproc)" -ge 2 ]; then
        "$train" "${banner[@]}" >"$dir/cores.out" 2>&1
        if grep -q "^threads: $(nproc) (the cores this process may use; fewer while other programs keep them busy)$" "$dir/cores.out"; then
            ok "on $(nproc) cores: $(nproc) threads by default, governed"
        else
            bad "the default thread count is one per core, governed" "$(grep threads "$dir/cores.out")"
        fi
    fi
fi

# ---------------------------------------------------------------- NaN is caught and named
"$train" "${small[@]}" --steps=10 --inject=nan:3:h.0.attn.wq >"$dir/nan.out" 2>"$dir/nan.err"
rc=$?
if [ $rc -eq 3 ] && grep -q "step 3:" "$dir/nan.err" && grep -q "layer 0 queries" "$dir/nan.err" &&
    grep -q "parameter h.0.attn.wq holds nan" "$dir/nan.err"; then
    ok "an injected NaN stops training with exit 3, naming the step, tensor and parameter"
else
    bad "an injected NaN is caught and named" "exit $rc" "$(cat "$dir/nan.err")"
fi
"$train" "${small[@]}" --steps=10 --inject=nan:4:grad.h.0.mlp.w2 >"$dir/nang.out" 2>"$dir/nang.err"
rc=$?
if [ $rc -eq 3 ] && grep -q "step 4: non-finite gradient; gradient of h.0.mlp.w2 holds nan" "$dir/nang.err"; then
    ok "a non-finite gradient stops training with exit 3 and names the parameter"
else
    bad "a non-finite gradient is caught and named" "exit $rc" "$(cat "$dir/nang.err")"
fi
# not injected: no scale and plain SGD with a huge rate blow up on their own, in the forward
# pass (lr 1e5: the raw scores overflow) or first in the backward pass (lr 1e3)
blowup=("${small[@]}" --scale=1 --optim=sgd --clip=0 --warmup=0 --steps=50)
"$train" "${blowup[@]}" --lr=1e5 >/dev/null 2>"$dir/blow.err"
rc=$?
"$train" "${blowup[@]}" --lr=1e3 >/dev/null 2>"$dir/blowg.err"
rc2=$?
if [ $rc -eq 3 ] && grep -Eq "^error: step [0-9]+: loss is -?(nan|inf); first non-finite value: -?(nan|inf) in layer 0 [a-z ]+ \(op [a-z_]+, element [0-9]+\)" "$dir/blow.err" &&
    [ $rc2 -eq 3 ] && grep -Eq "^error: step [0-9]+: non-finite gradient; .*first made by the backward of op [a-z_]+ \(output [a-z0-9 ]+\): -?(nan|inf) in the gradient of " "$dir/blowg.err"; then
    ok "a run that blows up by itself (--scale=1, SGD, huge lr): exit 3, naming the step, tensor and op"
else
    bad "a natural blow-up is caught and named" "exit $rc: $(head -n 1 "$dir/blow.err")" "exit $rc2: $(head -n 1 "$dir/blowg.err")"
fi
# one bad step with --nan=continue: counted, its update skipped, the run goes on healthily: its
# held-out loss ends well below uniform prediction (log 14 = 2.64 for 10 symbols and 4 special
# tokens) and within 10% of the same run without the fault
"$train" "${small[@]}" --steps=40 --inject=nan:4:grad.h.0.mlp.w2 --nan=continue --log="$dir/nanc.csv" >"$dir/nanc.out" 2>&1
rc=$?
"$train" "${small[@]}" --steps=40 >"$dir/clean.out" 2>&1
count=$(summary_field "$dir/nanc.out" nan_count)
val=$(summary_field "$dir/nanc.out" val_loss)
clean=$(summary_field "$dir/clean.out" val_loss)
if [ $rc -eq 0 ] && [ "$count" = 1 ] &&
    awk -v v="$val" -v c="$clean" 'BEGIN { exit !(v + 0 == v && c + 0 == c && v < 0.75 * log(14) && v < 1.1 * c) }'; then
    ok "--nan=continue: one bad gradient is counted once, its update skipped, training goes on (held-out loss $val, $clean without the fault)"
else
    bad "--nan=continue counts, skips and goes on" "exit $rc, nan_count=$count, val_loss=$val (without the fault: $clean)" \
        "$(tail -n 3 "$dir/nanc.out")"
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
OMP_NUM_THREADS=5000 "$train" --steps=1 --log="$dir/never.csv" >"$dir/envthreads.out" 2>"$dir/envthreads.err"
rc=$?
if [ $rc -eq 2 ] && [ "$(wc -l <"$dir/envthreads.err")" -eq 1 ] && grep -q "OMP_NUM_THREADS=5000" "$dir/envthreads.err" &&
    [ ! -e "$dir/never.csv" ]; then
    ok "OMP_NUM_THREADS above the limit of --threads: one line naming it, exit 2, nothing written"
else
    bad "OMP_NUM_THREADS=5000: one line, exit 2" "exit $rc" "$(head -n 3 "$dir/envthreads.err")"
fi
# One rule for the OpenMP settings of the environment, as for a flag: a value that is not a
# count (or true/false for OMP_DYNAMIC), an empty one included, is one line of ours, exit 2,
# nothing written; libgomp's own warning (printed before main, in OpenMP builds) is its only
# other line. The same in ./probe. Lists of counts and blanks around them are OpenMP's syntax.
# omp_error PROG VAR VALUE ARGS...: exit 2, and one line of ours naming VAR=VALUE
omp_error() {
    local prog=$1 var=$2 value=$3
    shift 3
    rm -f "$dir/never.csv"
    env "$var=$value" "$prog" "$@" >"$dir/omp.out" 2>"$dir/omp.err"
    local rc=$? ours
    ours=$(grep -v -e '^$' -e '^libgomp: Invalid value for environment variable' "$dir/omp.err")
    [ $rc -eq 2 ] && [ "$(printf '%s\n' "$ours" | wc -l)" -eq 1 ] && [ "${ours#error: "$var=$value": }" != "$ours" ] &&
        [ ! -e "$dir/never.csv" ] && [ ! -s "$dir/omp.out" ]
}
omp_bad=
for v in abc -1 0 '' 1e3 99999999999 '2,' '2,abc' '4 x'; do
    omp_error "$train" OMP_NUM_THREADS "$v" --steps=1 --log="$dir/never.csv" || omp_bad="$omp_bad OMP_NUM_THREADS='$v'"
done
for v in maybe '' 1 ' false '; do
    omp_error "$train" OMP_DYNAMIC "$v" --steps=1 --log="$dir/never.csv" || omp_bad="$omp_bad OMP_DYNAMIC='$v'"
done
omp_error "$bin/probe" OMP_NUM_THREADS abc --pairs=100 --samples=10 --draws=2 || omp_bad="$omp_bad probe:OMP_NUM_THREADS=abc"
omp_error "$bin/probe" OMP_DYNAMIC maybe --pairs=100 --samples=10 --draws=2 || omp_bad="$omp_bad probe:OMP_DYNAMIC=maybe"
if [ -z "$omp_bad" ]; then
    ok "OMP_NUM_THREADS=abc|-1|0|''|1e3|... and OMP_DYNAMIC=maybe|''|' false ': one line naming it, exit 2, nothing written (./train, ./probe)"
else
    bad "bad OMP_NUM_THREADS / OMP_DYNAMIC values are refused as a flag is" "not refused in one line:$omp_bad" "$(cat "$dir/omp.err")"
fi
omp_good=
for v in 1 ' 1 ' '1,2' '1, 3'; do
    OMP_NUM_THREADS="$v" "$train" "${small[@]}" --steps=1 >"$dir/omp.out" 2>"$dir/omp.err" && [ ! -s "$dir/omp.err" ] ||
        omp_good="$omp_good OMP_NUM_THREADS='$v'"
done
for v in true FALSE; do
    OMP_DYNAMIC="$v" "$train" "${small[@]}" --steps=1 >"$dir/omp.out" 2>"$dir/omp.err" && [ ! -s "$dir/omp.err" ] ||
        omp_good="$omp_good OMP_DYNAMIC='$v'"
done
if [ -z "$omp_good" ]; then
    ok "OpenMP's own syntax is accepted quietly: OMP_NUM_THREADS=1, ' 1 ', '1,2', '1, 3'; OMP_DYNAMIC=true, FALSE (blanks around it are refused: LLVM's libomp warns on them)"
else
    bad "valid OMP_NUM_THREADS / OMP_DYNAMIC values run" "refused or warned:$omp_good" "$(cat "$dir/omp.err")"
fi
# one of a thing is singular: "1 layer", "1 head", "1 example"
"$train" --layers=1 --heads=1 --dmodel=16 --steps=1 --val-size=1 --eval-examples=1 >"$dir/one.out" 2>&1
"$train" --val-size=1 --eval-examples=1 --attention-example=3 --attention-svg="$dir/one.svg" >/dev/null 2>"$dir/one.err"
if grep -q '^model: 1 layer, dmodel 16, 1 head of dk 16, ' "$dir/one.out" &&
    grep -q 'the validation set has 1 example (0 to 0)$' "$dir/one.err"; then
    ok "one of a thing is singular: '1 layer', '1 head' in the banner, '1 example' in a message"
else
    bad "singular when 1" "$(grep '^model' "$dir/one.out")" "$(cat "$dir/one.err")"
fi
"$train" --dmodel=16384 --heads=16 >/dev/null 2>"$dir/mem.err"
if [ $? -eq 2 ] && grep -q "GiB" "$dir/mem.err"; then
    ok "a model too large for the machine is refused before anything is allocated"
else
    bad "a model too large for the machine is refused" "$(cat "$dir/mem.err")"
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
    attn-dropout dropout init-gain scale seed threads log log-every eval-every save load dump-state nan \
    print-tape tape-dot attention-svg attention-svg-at attention-example; do
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
command=$(head -n 1 "$dir/log.csv")
header=$(sed -n 2p "$dir/log.csv")
rows=$(($(wc -l <"$dir/log.csv") - 2))
want="step,loss,lr,grad_norm,tokens_per_s,time_s,l0_score_mean,l0_score_std,l0_entropy,l0_entropy_norm,l0_max_weight,l0_gnorm_wq,l0_gnorm_wk,l0_scale_x_sqrt_dk"
want="$want,l0_qgrad_median,l0_qgrad_p10,l0_jac_median,l0_jac_p10,l0_fp_overflows,l0_fp_underflows,l0_fp_nans,val_loss,val_acc,nan_count"
evals=$(awk -F, 'NR == 2 { for (i = 1; i <= NF; i++) if ($i == "val_loss") c = i } NR > 2 && $c != "" { n++ } END { print n + 0 }' "$dir/log.csv")
case $command in "# ./train "*--scale=learned*--steps=20*) command_ok=1 ;; *) command_ok=0 ;; esac
if [ "$command_ok" = 1 ] && [ "$header" = "$want" ] && [ "$rows" -eq 5 ] && [ "$evals" -eq 2 ]; then
    ok "CSV log: the command first (# ./train ...), one column per metric, a row per log step (1, 5, 10, 15, 20), evaluations at 10 and 20"
else
    bad "CSV log layout" "command: $command" "header: $header" "rows: $rows, evaluations: $evals"
fi
hlen=$(od -An -t u8 -N 8 "$dir/dump.st" | tr -d ' ')
names=$(head -c $((8 + hlen)) "$dir/dump.st" | tail -c "$hlen" | grep -a -o '"[a-z_.0-9]*":{"dtype"' | cut -d'"' -f2 | sort | tr '\n' ' ')
need="batch.mask batch.targets batch.tokens grad.h.0.attn.scale grad.h.0.attn.wq grad.lm_head grad.wte logits loss param.h.0.attn.wq param.wte"
need="$need heldout.attention heldout.tokens"
lacking=""
for n in $need; do echo " $names " | grep -q " $n " || lacking="$lacking $n"; done
if [ -s "$dir/dump.st" ] && [ -z "$lacking" ]; then
    ok "--dump-state writes parameters, gradients, batch, logits, loss and a held-out example's attention"
else
    bad "--dump-state contents" "missing:$lacking"
fi

# ---------------------------------------------------------------- a user's corpus and the shipped configs
for i in $(seq 1 60); do printf 'the cat %d\tle chat %d\n' "$i" "$i"; done >"$dir/pairs.tsv"
if "$train" --data="$dir/pairs.tsv" --steps=5 --warmup=1 --quiet --save="$dir/pairs.st" >"$dir/tsv.out" 2>&1 &&
    grep -q '^summary:' "$dir/tsv.out"; then
    ok "--data=FILE.tsv trains on a user's corpus"
else
    bad "--data=FILE.tsv trains" "$(cat "$dir/tsv.out")"
fi
# the same words in another order give other ids: a checkpoint must not load onto them
tac "$dir/pairs.tsv" >"$dir/pairs2.tsv" && mv "$dir/pairs2.tsv" "$dir/pairs.tsv"
"$train" --load="$dir/pairs.st" --steps=6 --quiet >/dev/null 2>"$dir/vocab.err"
if [ $? -eq 2 ] && grep -q "vocabulary" "$dir/vocab.err"; then
    ok "a checkpoint is refused when the corpus gives the same words other ids"
else
    bad "a reordered corpus is refused on --load" "$(cat "$dir/vocab.err")"
fi
for cfg in configs/*.cfg; do
    [ -e "$cfg" ] || continue
    if "$train" --config="$cfg" --stop-at=1 --eval-examples=4 --examples=0 --quiet >"$dir/cfg.out" 2>&1; then
        ok "$cfg is accepted"
    else
        bad "$cfg is accepted" "$(cat "$dir/cfg.out")"
    fi
done

# ---------------------------------------------------------------- ./probe
OMP_NUM_THREADS=1 "$bin/probe" --pairs=4000 --samples=300 --draws=5 >"$dir/probe1.out" 2>"$dir/probe1.err"
OMP_NUM_THREADS=2 "$bin/probe" --pairs=4000 --samples=300 --draws=5 >"$dir/probe.out" 2>"$dir/probe.err"
rc=$?
if [ "$no_openmp" = 1 ]; then
    echo "skip  ./probe with 1 and 2 threads: this build has no OpenMP"
elif cmp -s "$dir/probe1.out" "$dir/probe.out"; then
    ok "./probe prints the same numbers with 1 and 2 threads"
else
    bad "./probe is thread-count independent" "$(diff "$dir/probe1.out" "$dir/probe.out" | head -n 4)"
fi
# its progress lines come in the order of dk within each part, whichever thread finishes first
# ("probe: part 1: dk = 16 done (1 of 5)": within a part, dk rises and the count goes 1, 2, ...)
order=$(awk '/ done \(/ { part = $0; sub(/: dk = .*/, "", part); split($0, w, "dk = "); dk = w[2] + 0
        n = $(NF - 2); sub(/\(/, "", n)
        if (part == last ? (dk <= prev_dk || n + 0 != prev + 1) : n + 0 != 1) bad++
        last = part; prev = n; prev_dk = dk; count++ }
    END { print count + 0, bad + 0 }' "$dir/probe.err")
if [ "$order" = "15 0" ]; then ok "./probe's progress: each part's dk in order (1 of 5 ... 5 of 5), on 2 threads"; else
    bad "./probe's progress lines in order" "lines, out of order: $order" "$(grep ' done (' "$dir/probe.err")"; fi
sections=$(grep -c '^## ' "$dir/probe.out")
# section_of N: the lines of section N of probe.out (from "## N." to the next "## ")
section_of() { awk -v n="$1" '/^## / { on = ($2 == n ".") } on' "$dir/probe.out"; }
# part 1: the Var/dk column (5th field) must be 1 within 5 standard errors (6th field)
var_ok=$(section_of 1 | awk -F'|' '/^\| (16|64|256|512|1024) \| / && NF == 8 { n++; d = $5 - 1; if (d < 0) d = -d; if (d < 5 * $6) ok++ } END { print (n == 5 && ok == 5) }')
if [ $rc -eq 0 ] && [ "$sections" -eq 10 ] && [ "$var_ok" = 1 ]; then
    ok "./probe prints its ten sections; Var(q.k)/dk is 1 within 5 standard errors"
else
    bad "./probe output" "exit $rc, $sections sections, variance check $var_ok" "$(head -n 20 "$dir/probe.out")"
fi
# part 7: 15 rows (3 scales x 5 dk); with 1/sqrt(dk) the median ||J||_F (6th field) is the same
# at every dk (0.15 .. 0.21); with s = 1 the median |dL/dS| (4th) falls > 10x from dk = 16 to
# 1024; |dL/d(q.k)| (8th) = s |dL/dS|, s = 1/64 at dk = 64 (3 digits printed)
grad_ok=$(section_of 7 | awk -F'|' '
    $2 ~ /^ (1|1\/sqrt\(dk\)|1\/dk) $/ && $3 ~ /^ [0-9]+ $/ { n++ }
    $2 == " 1/sqrt(dk) " && $6 + 0 > 0.15 && $6 + 0 < 0.21 { flat++ }
    $2 == " 1 " && $3 == " 16 " { g16 = $4 + 0 }
    $2 == " 1 " && $3 == " 1024 " { g1024 = $4 + 0 }
    $2 == " 1/dk " && $3 == " 64 " { r = $8 / $4 }
    END { print (n == 15 && flat == 5 && g1024 * 10 < g16 && r > 0.0150 && r < 0.0163) }')
if [ "$grad_ok" = 1 ]; then
    ok "./probe part 7: 15 rows; 1/sqrt(dk) keeps ||J||_F flat, s = 1 loses > 10x of |dL/dS| from dk 16 to 1024"
else
    bad "./probe part 7 (gradient reaching the scores)" "$(section_of 7 | grep '^| ' | head -n 8)"
fi
# part 8: 92.3 % of rows within +-60 by the normal approximation, the sample near it
range_ok=$(section_of 8 | awk -F'|' '$2 ~ /one query/ && $7 + 0 == 0.923 && $6 > 0.86 && $6 < 0.98 { ok = 1 } END { print ok + 0 }')
# part 9: softmax([2, 4, 6]) is [0.0159, 0.1173, 0.8668], which S3's 0.86 does not round from
examples_ok=$(section_of 9 | awk -F'|' '$3 ~ /softmax\(\[2, 4, 6\]\)/ && $5 ~ /0\.8668/ && $6 ~ /no: \[0.02, 0.12, 0.87\]/ { a = 1 } $6 ~ / yes / { yes++ } END { print (a && yes == 7) }')
# part 10: at dk = 512, s = 1, P(q.k > ln 65504) = 0.3120 by the normal approximation; sampled
# within 0.03; with 1/sqrt(dk) nothing overflows
overflow_ok=$(section_of 10 | awk -F'|' '
    $2 == " 1 " && $3 == " 512 " && $4 + 0 == 0.312 && $5 > 0.28 && $5 < 0.34 { a = 1 }
    $2 == " 1/sqrt(dk) " && $5 + 0 == 0 && $7 + 0 == 0 && $8 + 0 == 0 { zero++ }
    END { print (a && zero == 5) }')
if [ "$range_ok" = 1 ] && [ "$examples_ok" = 1 ] && [ "$overflow_ok" = 1 ]; then
    ok "./probe parts 8-10: +-60 holds for ~92% of rows; softmax([2,4,6]) = [.0159, .1173, .8668]; fp16 overflow 0.312 at dk 512"
else
    bad "./probe parts 8-10" "range $range_ok, examples $examples_ok, overflow $overflow_ok" \
        "$(section_of 8 | grep '^| one')" "$(section_of 10 | grep '^| 1 | 512')"
fi
"$bin/probe" --samples=0 >/dev/null 2>"$dir/probe.err"
if [ $? -eq 2 ] && grep -q "samples" "$dir/probe.err"; then ok "./probe rejects a bad flag with exit 2"; else bad "./probe rejects bad flags"; fi
"$bin/probe" --pars=3 >/dev/null 2>"$dir/probe.err"
if [ $? -eq 2 ] && grep -q -x "error: --pars=3: unknown option; did you mean --pairs? (see --help)" "$dir/probe.err"; then
    ok "./probe --pars=3: did you mean --pairs?"
else
    bad "./probe's did-you-mean" "$(cat "$dir/probe.err")"
fi

# ---------------------------------------------------------------- the quick ablation study
grid=$dir/grid
rm -rf "$grid"
jobs=$(TRAIN=$train REPORT=$bin/report scripts/ablation.sh --quick --out "$grid" --print-jobs 2>/dev/null | wc -l)
TRAIN=$train REPORT=$bin/report scripts/ablation.sh --quick --out "$grid" >"$dir/grid.out" 2>&1
rc=$?
planned=$(($(wc -l <"$grid/jobs.tsv" 2>/dev/null) - 1))
done_rows=$(awk -F, 'NR > 1 && $10 == "done" && $14 ~ /^[0-9.]+$/ { n++ } END { print n + 0 }' "$grid/runs.csv" 2>/dev/null)
chosen=$(awk -F'\t' 'NR > 1 && $9 == 1 { n++ } END { print n + 0 }' "$grid/best_lr.tsv" 2>/dev/null)
# every cell's chosen rate is interior (a worse rate swept on each side, the rates one run of the
# ladder) or at the end of --quick's ladder (0.0003 0.001 0.003 0.01); the test runs at the chosen rate
swept_ok=$(awk -F'\t' 'BEGIN { n = split("0.0003 0.001 0.003 0.01", l, " "); for (i = 1; i <= n; i++) at[l[i] + 0] = i }
    NR == 1 { next }
    { key = $1 " " $2 " " $3 " " $4 " " $5; i = at[$6 + 0]; if (!i) bad = 1
      if (!(key in lo) || i < lo[key]) lo[key] = i; if (!(key in hi) || i > hi[key]) hi[key] = i
      rates[key]++; if ($9 == 1) c[key] = i }
    END { for (k in lo) { if (rates[k] != hi[k] - lo[k] + 1) bad = 1
            if (!(k in c) || (c[k] == lo[k] && lo[k] > 1) || (c[k] == hi[k] && hi[k] < n)) bad = 1; cells++ }
          print (cells == 2 && !bad) ? "yes" : "no" }' "$grid/best_lr.tsv" 2>/dev/null)
at_chosen=$(awk -F'\t' 'NR == FNR { if (FNR > 1 && $9 == 1) rate[$3 " " $4] = $6; next }
    FNR > 1 && $2 == "test" && rate[$5 " " $6] == $7 { n++ } END { print n + 0 }' "$grid/best_lr.tsv" "$grid/jobs.tsv" 2>/dev/null)
rounds=$(grep -c "phase 1 of 2, round [0-9]*: .* runs planned" "$dir/grid.out")
svgs=0
for f in "$grid"/lr_lookup_adamw.svg "$grid"/dk_lookup.svg "$grid"/curves_lookup_adamw.svg; do
    head -c 5 "$f" 2>/dev/null | grep -q '<?xml\|<svg' && tail -n 1 "$f" | grep -q '</svg>' && svgs=$((svgs + 1))
done
test_rows=$(sed -n '/^## Stage `test`: test accuracy/,/^## /p' "$grid/summary.md" 2>/dev/null | grep -c '^| 1\(/√dₖ\)\? | ')
if [ $rc -eq 0 ] && [ "$jobs" -eq 4 ] && [ "$done_rows" -eq "$planned" ] && [ "$chosen" -eq 2 ] && [ "$swept_ok" = yes ] &&
    [ "$rounds" -ge 2 ] && [ "$at_chosen" -eq 4 ] && [ "$test_rows" -eq 2 ] && [ "$svgs" -eq 3 ] && [ -s "$grid/outcomes.md" ]; then
    ok "ablation --quick: 4 sweep runs, then $((rounds - 1)) round(s) extending a sweep whose best rate was at an edge, until each is interior; 4 test runs at the chosen rates; runs.csv, summary.md, outcomes.md, 3 SVG plots"
else
    bad "ablation --quick outputs" "exit $rc, first round $jobs, done $done_rows of $planned, chosen $chosen, interior $swept_ok, rounds $rounds, at chosen $at_chosen, test rows $test_rows, svgs $svgs" \
        "$(tail -n 5 "$dir/grid.out")"
fi
# the reproducibility check of a study (tests/reproduce.sh, run on the committed study by make
# test): random rows of the quick study's runs.csv made again, identical; a row with one digit
# of one number changed is caught
repro=$(tests/reproduce.sh "$bin" "$grid/runs.csv" 3 7 2>&1)
awk -F, 'NR == 2 { sub(/,done,150,0\./, ",done,150,9.") } { print }' "$grid/runs.csv" >"$dir/runs_changed.csv"
changed=$(tests/reproduce.sh "$bin" "$dir/runs_changed.csv" 100 7 2>&1)
if echo "$repro" | tail -n 1 | grep -qx "3 passed, 0 failed" && echo "$changed" | tail -n 1 | grep -q "passed, 1 failed$" &&
    echo "$changed" | grep -q "^FAIL  $(sed -n '2s/,.*//p' "$grid/runs.csv"): another summary"; then
    ok "tests/reproduce.sh: 3 random rows of a study's runs.csv made again with the same summaries; one changed digit caught"
else
    bad "tests/reproduce.sh" "$repro" "$(echo "$changed" | tail -n 4)"
fi
again=$(TRAIN=$train REPORT=$bin/report scripts/ablation.sh --quick --out "$grid" 2>&1 | grep -c "0 to do")
if [ "$again" -eq 2 ]; then
    ok "ablation: a second run skips the finished runs (resume), in both phases"
else
    bad "ablation resumes" "$(TRAIN=$train REPORT=$bin/report scripts/ablation.sh --quick --out "$grid" 2>&1 | head -n 3)"
fi
# an interrupted session: a phase-2 run killed mid-way leaves a .out.tmp and no .out; the next
# invocation redoes it (phase 1, with nothing to do, must not count it as its own failure)
last=$(tail -n 1 "$grid/jobs.tsv" | cut -f1)
cp "$grid/summary.md" "$dir/grid_summary_before.md"
rm -f "$grid/runs/$last.out"
echo "step 3/150 (killed)" >"$grid/runs/$last.out.tmp"
TRAIN=$train REPORT=$bin/report scripts/ablation.sh --quick --out "$grid" >"$dir/grid_resume.out" 2>&1
rc=$?
if [ $rc -eq 0 ] && [ -f "$grid/runs/$last.out" ] && [ ! -e "$grid/runs/$last.out.tmp" ] &&
    cmp -s "$grid/summary.md" "$dir/grid_summary_before.md"; then
    ok "ablation: a run an interrupted session left unfinished (.out.tmp) is redone, not counted as failed; same summary"
else
    bad "ablation after an interrupted run" "exit $rc" "$(tail -n 3 "$dir/grid_resume.out")"
fi
# sharded: the first phase in two shards, two folders, merged by the report = one folder's report
for k in 1 2; do
    TRAIN=$train REPORT=$bin/report scripts/ablation.sh --quick --shard $k/2 --out "$dir/shard$k" >/dev/null 2>&1
done
"$bin/report" --out "$dir/merged" "$dir/shard1" "$dir/shard2" >/dev/null 2>&1
rm -rf "$dir/one"
mkdir -p "$dir/one/runs"
head -n 5 "$grid/jobs.tsv" >"$dir/one/jobs.tsv"
cp "$grid"/runs/lr_*.out "$dir/one/runs/"
"$bin/report" --out "$dir/one" "$dir/one" >/dev/null 2>&1
n1=$(ls "$dir"/shard1/runs/*.out 2>/dev/null | wc -l)
n2=$(ls "$dir"/shard2/runs/*.out 2>/dev/null | wc -l)
if [ "$n1" -eq 2 ] && [ "$n2" -eq 2 ] && [ -s "$dir/merged/summary.md" ] && cmp -s "$dir/merged/summary.md" "$dir/one/summary.md" &&
    cmp -s "$dir/merged/best_lr.tsv" "$dir/one/best_lr.tsv"; then
    ok "ablation --shard 1/2 and 2/2 (2 runs each), merged by ./report: the same summary and chosen rates as one folder"
else
    bad "sharded study" "runs $n1 + $n2" "$(diff "$dir/merged/summary.md" "$dir/one/summary.md" 2>&1 | head -n 4)"
fi

# numbers the script cannot use are refused before anything is written, each naming its part
abl() { TRAIN=$train REPORT=$bin/report scripts/ablation.sh "$@"; }
refused=
for args in "--jobs 99999999999999999999" "--jobs 1025" "--jobs 0" "--shard 1/99999999999999999999" "--shard 0/2" \
    "--shard 99999999999999999999/2" "--shard 3/2"; do
    rm -rf "$dir/never"
    # shellcheck disable=SC2086
    abl --quick --out "$dir/never" $args >"$dir/abl.out" 2>&1
    rc=$?
    case "$args" in --jobs*) want="--jobs=" ;; */9999*) want="N must be" ;; *) want="K must be" ;; esac
    [ $rc -eq 2 ] && [ "$(wc -l <"$dir/abl.out")" -eq 1 ] && grep -q -- "$want" "$dir/abl.out" && [ ! -e "$dir/never" ] ||
        refused="$refused [$args: exit $rc, $(cat "$dir/abl.out")]"
done
if [ -z "$refused" ]; then
    ok "ablation.sh: --jobs and --shard out of range (20 digits, 0, K > N) refused in one line naming the part, nothing written"
else
    bad "ablation.sh validates its numbers before writing" "$refused"
fi
# --print-jobs, exported: POSIX sh lines (run by dash's sh -c) under xargs -P 2 from another
# folder (and GNU parallel, when installed), for a folder whose name needs quoting; printed
# again, the jobs left (phase 2, once phase 1 is done) and how many are done; the report of the
# exported study is the report of the same study run by the script
exp="$dir/it's exported"
rm -rf "$exp" "$dir/elsewhere"
mkdir -p "$dir/elsewhere"
abl --quick --out "$exp" --print-jobs >"$dir/jobs1.txt" 2>"$dir/jobs1.err"
(cd "$dir/elsewhere" && xargs -d '\n' -n 1 -P 2 sh -c <"$dir/jobs1.txt")
# printed again after each batch is run: the next round's runs, then phase 2's (at most 5 batches)
batch=1
while [ $batch -lt 6 ]; do
    batch=$((batch + 1))
    abl --quick --out "$exp" --print-jobs >"$dir/jobs$batch.txt" 2>"$dir/jobs$batch.err"
    grep -q "phase 2 of 2: 4 runs planned, 0 done, 4 printed" "$dir/jobs$batch.err" && break
    (cd "$dir/elsewhere" && xargs -d '\n' -n 1 -P 2 sh -c <"$dir/jobs$batch.txt")
done
if command -v parallel >/dev/null 2>&1; then
    (cd "$dir/elsewhere" && parallel --will-cite -j 2 <"$dir/jobs$batch.txt")
    runner="GNU parallel"
else
    (cd "$dir/elsewhere" && xargs -d '\n' -n 1 -P 2 sh -c <"$dir/jobs$batch.txt")
    runner="xargs (no GNU parallel here)"
fi
cp "$dir/jobs$batch.txt" "$dir/jobs_phase2.txt"
abl --quick --out "$exp" >"$dir/exp.out" 2>&1
rc=$?
if [ "$(wc -l <"$dir/jobs1.txt")" -eq 4 ] && grep -q "phase 1 of 2, round 1: 4 runs planned, 0 done, 4 printed" "$dir/jobs1.err" &&
    ! grep -q "\$'" "$dir/jobs1.txt" && [ "$(wc -l <"$dir/jobs_phase2.txt")" -eq 4 ] && [ "$(grep -c ' --seed=1[12] ' "$dir/jobs_phase2.txt")" -eq 4 ] &&
    grep -q "phase 1 of 2, round 2: [0-9]* runs planned, 4 done, [1-9][0-9]* printed" "$dir/jobs2.err" &&
    [ $rc -eq 0 ] && [ "$(grep -c ' 0 to do' "$dir/exp.out")" -eq 2 ] && cmp -s "$exp/summary.md" "$grid/summary.md"; then
    ok "ablation.sh --print-jobs: 4 lines run by sh -c (dash) under xargs -P 2 elsewhere, then round 2's, then phase 2's 4 by $runner; the same summary.md as the script's own study"
else
    bad "exported jobs run under sh, printed again they are the next round's, then phase 2's" "$(cat "$dir"/jobs[0-9]*.err)" "exit $rc: $(tail -n 2 "$dir/exp.out")" \
        "$(diff "$exp/summary.md" "$grid/summary.md" 2>&1 | head -n 3)"
fi
abl --quick --phase 2 --best-lr "$grid/best_lr.tsv" --out "$dir/phase2" --print-jobs >"$dir/jobs3.txt" 2>"$dir/jobs3.err"
rc=$?
# the same runs as phase 2 printed above, but for their outputs' folder
if [ $rc -eq 0 ] && [ "$(wc -l <"$dir/jobs3.txt")" -eq 4 ] && cmp -s <(sed 's/ --log=.*//' "$dir/jobs3.txt") <(sed 's/ --log=.*//' "$dir/jobs_phase2.txt"); then
    ok "ablation.sh --quick --phase 2 --best-lr FILE --print-jobs: phase 2's runs exported on their own"
else
    bad "--phase 2 with --quick" "exit $rc" "$(cat "$dir/jobs3.err")" "$(head -c 300 "$dir/jobs3.txt")"
fi
# the README's --standard, at the committed rates of the full study (docs/ablation/best_lr.tsv):
# 180 runs, seeds 11-20, dk 16 and 64, each at the rate the full study chose for its cell (task,
# scale, dk and variant: a run without --scale is scale "none", one with --attn or --qk-init has
# that variant)
if [ -f docs/ablation/best_lr.tsv ]; then
    abl --standard --out "$dir/standard" --print-jobs >"$dir/std.txt" 2>"$dir/std.err"
    rc=$?
    unchosen=$(awk -F'\t' 'NR == FNR { if (FNR > 1 && $9 == 1) chosen[$1 " " $3 " " $4 " " $5 " " $10] = 1; next }
        { t = d = l = s = ""; sc = "none"; v = "-"
          for (i = 1; i <= NF; i++) { split($i, kv, "=")
              if (kv[1] == "--task") t = kv[2]; else if (kv[1] == "--dk") d = kv[2]
              else if (kv[1] == "--lr") l = kv[2]; else if (kv[1] == "--seed") s = kv[2]
              else if (kv[1] == "--scale") sc = kv[2]
              else if (kv[1] == "--attn" || kv[1] == "--qk-init") v = substr(kv[1], 3) "=" kv[2] }
          if (!((t " " sc " " d " " v " " l) in chosen) || (d != 16 && d != 64) || s < 11 || s > 20) n++ }
        END { print n + 0 }' docs/ablation/best_lr.tsv FS=' ' "$dir/std.txt")
    if [ $rc -eq 0 ] && [ "$(wc -l <"$dir/std.txt")" -eq 180 ] && [ "$unchosen" -eq 0 ]; then
        ok "ablation.sh --standard (the README's): 180 runs at dk 16 and 64, seeds 11-20, each at the rate docs/ablation/best_lr.tsv chose for its cell"
    else
        bad "ablation.sh --standard plans 180 runs at the committed rates" "exit $rc, $(wc -l <"$dir/std.txt") lines, $unchosen not at their cell's chosen rate" "$(head -3 "$dir/std.err")"
    fi
fi
# killed: a signal to the script alone stops its runs too and removes its .progress file; one
# left by a script killed outright (its process gone) is removed by the next start, one of a
# live process is kept
rm -rf "$dir/killed"
TRAIN=$train REPORT=$bin/report scripts/ablation.sh --quick --out "$dir/killed" -- --steps=1000000 >"$dir/killed.out" 2>&1 &
pid=$!
for _ in $(seq 1 200); do ls "$dir/killed"/.progress.* >/dev/null 2>&1 && break; sleep 0.05; done
sleep 0.5
kill -TERM $pid
wait $pid
rc=$?
sleep 0.5
sizes=$(cat "$dir"/killed/runs/*.out.tmp 2>/dev/null | wc -c)
sleep 0.5
left=$(ls -A "$dir/killed" | grep -c '^\.progress')
running=0
! command -v pgrep >/dev/null 2>&1 || ! pgrep -f -- "$dir/killed/runs" >/dev/null || running=1
touch "$dir/killed/.progress.999999999.AbCdEf" "$dir/killed/.progress.$$.AbCdEf"
abl --quick --out "$dir/killed" --print-jobs -- --steps=1000000 >/dev/null 2>&1
if [ $rc -eq 143 ] && [ "$left" -eq 0 ] && [ "$sizes" -eq "$(cat "$dir"/killed/runs/*.out.tmp 2>/dev/null | wc -c)" ] && [ $running = 0 ] &&
    [ ! -e "$dir/killed/.progress.999999999.AbCdEf" ] && [ -e "$dir/killed/.progress.$$.AbCdEf" ]; then
    ok "ablation.sh killed (SIGTERM): exit 143, its runs stopped, no .progress file left; a dead script's leftover removed at the next start"
else
    bad "a killed grid cleans up" "exit $rc, .progress files left: $left" "$(ls -A "$dir/killed")" "$(tail -n 2 "$dir/killed.out")"
fi

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
