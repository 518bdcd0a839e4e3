#!/usr/bin/env bash
# golden.sh - fixed-seed runs of ./train against their recorded fingerprints, so that a change
# that should not change any number (a refactoring) proves it did not.
#
#   tests/golden.sh BIN_DIR            compare with tests/golden/runs.txt; prints "N passed, N failed"
#   tests/golden.sh BIN_DIR --write    write tests/golden/runs.txt anew (only for a change that is
#                                      meant to change the numbers: say so in its commit)
#
# A fingerprint is the CSV log without its two timing columns (tokens_per_s, time_s), the
# summary line without time_s, and the SHA-256 and size of the checkpoint. The recorded file
# was made by the code of commit 3300faf (before the reshaping of issue 10), with
#   make && tests/golden.sh . --write
# The runs are deterministic for any thread count, but a floating-point sum vectorised for
# another vector width adds in another order: the fingerprints hold for the build and the
# machine that made them (x86-64 with AVX-512, -O3 -march=native, gcc 12). On another kind of
# machine the comparison is reported as not applicable rather than failed.
set -u
bin=${1:?usage: tests/golden.sh BIN_DIR [--write]}
mode=${2:-compare}
train=$(cd "$bin" && pwd)/train
here=$(cd "$(dirname "$0")" && pwd)
golden=$here/golden/runs.txt
dir=${TEST_TMPDIR:-$(mktemp -d)}/golden
mkdir -p "$dir"

# fingerprint NAME ARGS...: run ./train, print the fingerprint of the run
fingerprint() {
    local name=$1
    shift
    rm -f "$dir/$name.st" "$dir/$name.csv"
    # run inside $dir: a corpus is named by a relative path, which the checkpoint records
    (cd "$dir" && "$train" "$@" --save="$name.st" --log="$name.csv" --quiet >"$name.out" 2>&1)
    echo "== $name: exit $?"
    awk -F, 'BEGIN { OFS = "," } { $5 = ""; $6 = ""; print }' "$dir/$name.csv"
    grep '^summary:' "$dir/$name.out" | sed 's/ time_s=.*//'
    echo "checkpoint $(sha256sum <"$dir/$name.st" | cut -d' ' -f1) $(wc -c <"$dir/$name.st")"
}

# Each case moves through other code: dk != dmodel/heads, both dropouts, the learned scale,
# the other tasks, SGD with clipping and a constant scale, a user's corpus, a resumed run, a
# step skipped by --nan=continue.
run_all() {
    fingerprint copy --task=copy --layers=2 --dmodel=32 --heads=2 --dk=12 --batch=8 --max-len=5 --steps=30 \
        --warmup=5 --dropout=0.1 --attn-dropout=0.1 --log-every=5 --eval-every=10 --eval-examples=32 --seed=7
    fingerprint translate --task=translate --layers=1 --dmodel=32 --heads=4 --scale=learned --batch=8 --steps=20 \
        --warmup=3 --log-every=4 --eval-every=10 --eval-examples=16 --seed=3
    fingerprint reverse --task=reverse --symbols=6 --layers=1 --dmodel=24 --heads=3 --scale=8 --optim=sgd --lr=0.3 \
        --min-lr=0.01 --clip=0.5 --batch=8 --steps=20 --warmup=2 --log-every=5 --eval-examples=16 --seed=5
    for i in $(seq 1 40); do printf 'the cat %d sees %d\tle chat %d voit %d\n' "$i" $((i * 7 % 13)) "$i" $((i * 7 % 13)); done \
        >"$dir/pairs.tsv"
    fingerprint tsv --data=pairs.tsv --layers=1 --dmodel=16 --heads=2 --scale=dk --batch=4 --steps=12 \
        --warmup=2 --log-every=3 --eval-examples=8 --seed=11
    "$train" --task=copy --layers=1 --dmodel=16 --heads=2 --batch=4 --max-len=4 --steps=16 --stop-at=8 --warmup=2 \
        --log-every=2 --eval-examples=8 --dropout=0.2 --seed=2 --save="$dir/half.st" --quiet >/dev/null 2>&1
    fingerprint resumed --load=half.st
    fingerprint nan --task=copy --layers=1 --dmodel=16 --heads=2 --batch=4 --max-len=4 --steps=10 --warmup=2 \
        --log-every=2 --eval-examples=8 --nan=continue --inject=nan:4:grad.h.0.mlp.w2 --seed=4
}

if [ "$mode" = --write ]; then
    mkdir -p "$(dirname "$golden")"
    run_all >"$golden"
    echo "wrote $golden"
    exit 0
fi

passed=0
failed=0
if ! grep -q avx512f /proc/cpuinfo 2>/dev/null || [ "$(uname -m)" != x86_64 ]; then
    echo "not applicable: the recorded fingerprints come from an x86-64 machine with AVX-512"
    echo "0 passed, 0 failed"
    exit 0
fi
run_all >"$dir/now.txt"
while read -r name; do
    want=$(awk -v n="== $name:" 'index($0, n) == 1 { on = 1; print; next } /^== / { on = 0 } on' "$golden")
    got=$(awk -v n="== $name:" 'index($0, n) == 1 { on = 1; print; next } /^== / { on = 0 } on' "$dir/now.txt")
    if [ -n "$want" ] && [ "$want" = "$got" ]; then
        passed=$((passed + 1))
        echo "ok    golden run '$name': log, summary and checkpoint bytes as recorded"
    else
        failed=$((failed + 1))
        echo "FAIL  golden run '$name' differs from tests/golden/runs.txt"
        diff <(echo "$want") <(echo "$got") | head -n 6 | sed 's/^/    /'
    fi
done < <(grep '^== ' "$golden" | sed 's/^== \([a-z]*\):.*/\1/')
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
