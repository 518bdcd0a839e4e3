#!/usr/bin/env bash
# same_bits.sh - the same short training runs in two or more builds, compared byte for byte.
#
#   tests/same_bits.sh BIN_DIR BIN_DIR [BIN_DIR ...]     prints "N passed, N failed"
#   EMULATOR='qemu-aarch64 -L /usr/aarch64-linux-gnu' tests/same_bits.sh . build/aarch64
#
# A ./train built for another machine (its ELF header names another machine than /bin/sh's)
# runs under $EMULATOR, split into words and run from a scratch folder: give absolute paths.
# Each BIN_DIR holds a ./train built some other way (gcc -march=native, -march=x86-64-v2,
# clang, another machine's build copied over, ...). Every case below runs in each folder; its
# checkpoint (parameters, optimizer state, step, metadata) must have the same bytes as the first
# folder's, and its summary line (losses, accuracies, counts; not time_s) the same text. The
# first folder runs with --threads=1 and the others with their default, so a pass also says
# that the thread count changes nothing.
#
# This holds because the engine fixes the order of every floating-point sum (tensor/sum16.h,
# tensor/parallel.h), the gemm adds each output over k in order with correctly rounded fma, and
# exp/tanh are the project's own (tensor/fastmath.h). What it does not cover: the few libm calls
# left (expf for a learned multiplier stored as a logarithm and the naive/reduced-precision
# softmax, logf in the cross-entropy, log/cos/pow in double for the initialisation and the
# schedule) are glibc's, which picks an FMA variant of some (expf, logf, log, pow, cos) by CPU
# at run time; they gave the same bits on AVX-512 x86-64 and on aarch64 (under qemu-user) for
# every case here, but another libm is not proven to.
set -u
[ $# -ge 2 ] || { echo "usage: tests/same_bits.sh BIN_DIR BIN_DIR [BIN_DIR ...]" >&2; exit 2; }
# elf_machine FILE: the e_machine field of an ELF file (62 x86-64, 183 aarch64)
elf_machine() { od -An -t u2 -j 18 -N 2 "$1" 2>/dev/null | tr -d ' '; }
host=$(elf_machine "$(readlink -f /bin/sh)")
bins=()
runners=() # per folder: empty, or the emulator its train runs under
for b in "$@"; do
    [ -x "$b/train" ] || { echo "error: no $b/train" >&2; exit 2; }
    bins+=("$(cd "$b" && pwd)")
    if [ "$(elf_machine "$b/train")" = "$host" ]; then
        runners+=("")
    elif [ -n "${EMULATOR:-}" ]; then
        runners+=("$EMULATOR")
    else
        echo "error: $b/train is built for another machine; set EMULATOR (e.g. EMULATOR='qemu-aarch64 -L /usr/aarch64-linux-gnu')" >&2
        exit 2
    fi
done
dir=${TEST_TMPDIR:-$(mktemp -d)}/same_bits
mkdir -p "$dir"

# Each case moves through other code: the default model; the learned scale stored as a
# logarithm (libm's expf), both dropouts, dk != dmodel/heads; additive attention, fp16, the
# naive softmax, SGD with momentum; cosine attention in bf16 with clipping; qknorm; raw scores
# of unit-variance q, k at dk 256 (a saturated softmax: subnormal numbers arise, and each build
# must treat them alike, tensor/fpmode.h); a resumed run (the checkpoint's reader and the step counter).
cases=(
    "default|--steps=20"
    "learned|--task=translate --layers=1 --dmodel=32 --heads=2 --dk=24 --scale=learned --scale-param=log --dropout=0.1 --attn-dropout=0.1 --batch=8 --steps=12 --warmup=3 --eval-examples=32"
    "additive|--task=recall --layers=1 --dmodel=32 --heads=2 --attn=additive --precision=fp16 --softmax=naive --optim=sgd --momentum=0.9 --lr=0.1 --batch=8 --steps=12 --warmup=2 --eval-examples=32"
    "cosine|--task=reverse --layers=2 --dmodel=32 --heads=4 --attn=cosine --precision=bf16 --clip=0.5 --batch=8 --steps=12 --warmup=2 --eval-examples=32"
    "subnormal|--task=translate --layers=1 --dmodel=32 --heads=2 --dk=256 --qk-init=unit --scale=1 --batch=8 --steps=8 --warmup=2 --eval-examples=32"
    "qknorm|--task=sort --layers=1 --dmodel=48 --heads=3 --attn=qknorm --qk-init=unit --batch=8 --steps=12 --warmup=2 --eval-examples=32"
)

passed=0
failed=0
# run_case NAME I ARGS...: run train of bins[I] in its own folder, leaving NAME.st and NAME.out
run_case() {
    local name=$1 i=$2 threads
    shift 2
    threads=$([ "$i" -eq 0 ] && echo --threads=1)
    mkdir -p "$dir/$i"
    rm -f "$dir/$i/$name.st" "$dir/$i/$name.out" # never compare a file left by an earlier run
    (cd "$dir/$i" && ${runners[$i]} "${bins[$i]}/train" "$@" $threads --quiet --save="$name.st" >"$name.out" 2>&1)
}

# compare NAME: every folder's NAME.st and summary against the first's
compare() {
    local name=$1 i ok=1 want got
    want=$(grep '^summary:' "$dir/0/$name.out" | sed 's/ time_s=.*//')
    if [ -z "$want" ] || [ ! -s "$dir/0/$name.st" ]; then
        echo "FAIL  same bits '$name': the run in ${bins[0]} did not finish"
        sed 's/^/    /' "$dir/0/$name.out" | tail -n 3
        failed=$((failed + 1))
        return
    fi
    for ((i = 1; i < ${#bins[@]}; i++)); do
        got=$(grep '^summary:' "$dir/$i/$name.out" | sed 's/ time_s=.*//')
        if ! cmp -s "$dir/0/$name.st" "$dir/$i/$name.st"; then
            echo "FAIL  same bits '$name': ${bins[$i]}'s checkpoint differs from ${bins[0]}'s ($(cmp "$dir/0/$name.st" "$dir/$i/$name.st" 2>&1 | head -n 1))"
            ok=0
        elif [ "$want" != "$got" ]; then
            echo "FAIL  same bits '$name': ${bins[$i]}'s summary differs from ${bins[0]}'s"
            diff <(echo "$want" | tr ' ' '\n') <(echo "$got" | tr ' ' '\n') | head -n 6 | sed 's/^/    /'
            ok=0
        fi
    done
    if [ "$ok" = 1 ]; then
        passed=$((passed + 1))
        echo "ok    same bits '$name': checkpoint and summary identical in ${#bins[@]} builds"
    else
        failed=$((failed + 1))
    fi
}

for c in "${cases[@]}"; do
    name=${c%%|*}
    read -r -a args <<<"${c#*|}"
    for ((i = 0; i < ${#bins[@]}; i++)); do run_case "$name" "$i" "${args[@]}"; done
    compare "$name"
done
# resumed: half of a run saved, then continued from that checkpoint in each build
for ((i = 0; i < ${#bins[@]}; i++)); do
    run_case half "$i" --task=copy --layers=1 --dmodel=16 --heads=2 --batch=4 --max-len=4 --steps=16 --stop-at=8 \
        --warmup=2 --eval-examples=8 --dropout=0.2 --seed=2
done
compare half
for ((i = 0; i < ${#bins[@]}; i++)); do
    cp "$dir/0/half.st" "$dir/$i/start.st" 2>/dev/null # every build resumes the first build's checkpoint
    run_case resumed "$i" --load=start.st
done
compare resumed

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
