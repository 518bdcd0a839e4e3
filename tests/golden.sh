#!/usr/bin/env bash
# golden.sh - fixed-seed runs of ./train against their recorded fingerprints, so that a change
# that should not change any number (a refactoring) proves it did not.
#
#   tests/golden.sh BIN_DIR            compare with tests/golden/runs.txt;
#                                      prints "N passed, N failed"
#   tests/golden.sh BIN_DIR --write    write tests/golden/runs.txt anew (only for a change that is
#                                      meant to change the numbers: say so in its commit)
#   EMULATOR='qemu-aarch64 -L /usr/aarch64-linux-gnu' tests/golden.sh build/aarch64
#                                      a cross build's ./train, run under the emulator (split
#                                      into words, run from a scratch folder: absolute paths)
#
# A fingerprint is the CSV log without its comment line (the command) and its two timing columns,
# the summary line without time_s,
# the checkpoint's header entries and the SHA-256 of its data section (see fingerprint below);
# new columns and new metadata may appear (see matches), changed numbers may not.
#
# The runs are deterministic for any thread count and, since every floating-point sum has a
# fixed order (tensor/sum16.h; the gemm adds over k in order with correctly rounded fma), for
# any build: one file, runs.txt, recorded with gcc -O3 -march=native on an AVX-512 machine, and
# matched by the builds for x86-64-v2, clang, no OpenMP, and aarch64 (under qemu-user), which
# `make test` runs in each. glibc's expf/logf and double log/cos/pow are still used in a few
# places (tests/same_bits.sh lists them): the same results on x86-64 and aarch64 glibc so far;
# another libm could differ in a last bit.
#
# Before the fixed order (commits before f94d97c) a sum vectorised for another vector width
# added in another order, and one file per width held the fingerprints of commit 3300faf. The
# two runs resumed from that commit's own checkpoints (tests/fixtures/checkpoint-3300faf-*.st)
# are kept: such checkpoints still load and continue, but from the step they were saved at on
# they now follow today's order, so their fingerprints are today's, not those of the old code.
set -u
bin=${1:?usage: tests/golden.sh BIN_DIR [--write]}
mode=${2:-compare}
train=$(cd "$bin" && pwd)/train
emulator=${EMULATOR:-} # empty, or the command that runs another machine's program (word-split)
here=$(cd "$(dirname "$0")" && pwd)
golden=$here/golden/runs.txt
dir=${TEST_TMPDIR:-$(mktemp -d)}/golden
mkdir -p "$dir"

# fingerprint NAME ARGS...: run ./train, print the fingerprint of the run, one part per line:
#   csv: the CSV log without its timing columns (tokens_per_s, time_s) and its comment lines
#        ("# ./train ...": the command that made it, not a recorded number)
#   summary: the summary line without time_s
#   header: each tensor entry ("name":{"dtype":..,"shape":..,"data_offsets":..}) and each metadata
#           pair of the checkpoint's header but its checksum, sorted
#   data: the SHA-256 and size of the checkpoint's data section (every tensor's bytes)
fingerprint() {
    local name=$1 st hlen
    shift
    rm -f "$dir/$name.st" "$dir/$name.csv"
    # run inside $dir: a corpus is named by a relative path, which the checkpoint records
    (cd "$dir" && $emulator "$train" "$@" --save="$name.st" --log="$name.csv" --quiet >"$name.out" 2>&1)
    echo "== $name: exit $?"
    awk -F, '/^#/ { next } !header++ { for (i = 1; i <= NF; i++) drop[i] = $i == "tokens_per_s" || $i == "time_s" }
             { line = ""; for (i = 1; i <= NF; i++) if (!drop[i]) line = line (line == "" ? "" : ",") $i; print "csv: " line }' \
        "$dir/$name.csv"
    grep '^summary:' "$dir/$name.out" | sed 's/ time_s=.*//'
    st=$dir/$name.st
    hlen=$(od -An -t u8 -N 8 "$st" | tr -d ' ')
    head -c $((8 + hlen)) "$st" | tail -c "$hlen" | grep -o -e '"[^"]*":{"dtype":[^}]*}' -e '"[^"]*":"[^"]*"' |
        grep -v '^"checksum":' | LC_ALL=C sort | sed 's/^/header: /'
    echo "data: $(tail -c +$((9 + hlen)) "$st" | sha256sum | cut -d' ' -f1) $(($(wc -c <"$st") - 8 - hlen))"
}

# matches WANT GOT: a recorded fingerprint against a new one. The exit status and data section
# must be equal; the summary and the header must hold every recorded field and entry (new ones,
# such as the setting of a new option at its default, may be added); the CSV must hold the
# recorded columns with the recorded values (new columns may be added). So a new feature passes
# when it leaves every number of the old runs alone.
matches() {
    local want=$1 got=$2
    [ "$(grep -v -e '^csv: ' -e '^header: ' -e '^summary:' <<<"$want")" = \
      "$(grep -v -e '^csv: ' -e '^header: ' -e '^summary:' <<<"$got")" ] || return 1
    # the summary: every recorded field with its value (new fields may be added)
    [ -z "$(comm -23 <(grep '^summary:' <<<"$want" | tr ' ' '\n' | LC_ALL=C sort) \
                     <(grep '^summary:' <<<"$got" | tr ' ' '\n' | LC_ALL=C sort))" ] || return 1
    [ -z "$(comm -23 <(grep '^header: ' <<<"$want" | LC_ALL=C sort) <(grep '^header: ' <<<"$got" | LC_ALL=C sort))" ] || return 1
    # project the new CSV onto the recorded columns, by name
    [ "$(grep '^csv: ' <<<"$want")" = "$(awk -F, -v cols="$(grep -m 1 '^csv: ' <<<"$want" | sed 's/^csv: //')" '
        BEGIN { n = split(cols, want, ",") }
        /^csv: / { sub(/^csv: /, "")
                   if (!seen++) for (i = 1; i <= NF; i++) at[$i] = i
                   line = ""; for (k = 1; k <= n; k++) line = line (k > 1 ? "," : "") (want[k] in at ? $(at[want[k]]) : "MISSING")
                   print "csv: " line }' <<<"$got")" ]
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
    $emulator "$train" --task=copy --layers=1 --dmodel=16 --heads=2 --batch=4 --max-len=4 --steps=16 --stop-at=8 --warmup=2 \
        --log-every=2 --eval-examples=8 --dropout=0.2 --seed=2 --save="$dir/half.st" --quiet >/dev/null 2>&1
    fingerprint resumed --load=half.st
    # checkpoints written by the old code itself (tests/fixtures, made on an AVX2 machine with
    # /tmp/old/train ... --steps=12 --stop-at=6 --seed=5 --save=...): they load, and continue
    fingerprint old-adamw --load="$here/fixtures/checkpoint-3300faf-adamw.st"
    fingerprint old-sgd --load="$here/fixtures/checkpoint-3300faf-sgd.st"
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
[ "$(grep -c '^== ' "$golden" 2>/dev/null)" -gt 0 ] || { echo "error: no recorded runs in $golden" >&2; exit 2; }
run_all >"$dir/now.txt"
while read -r name; do
    want=$(awk -v n="== $name:" 'index($0, n) == 1 { on = 1; print; next } /^== / { on = 0 } on' "$golden")
    got=$(awk -v n="== $name:" 'index($0, n) == 1 { on = 1; print; next } /^== / { on = 0 } on' "$dir/now.txt")
    if [ -n "$want" ] && matches "$want" "$got"; then
        passed=$((passed + 1))
        echo "ok    golden run '$name': log, summary and checkpoint bytes as recorded"
    else
        failed=$((failed + 1))
        echo "FAIL  golden run '$name' differs from tests/golden/runs.txt"
        diff <(echo "$want") <(echo "$got") | head -n 6 | sed 's/^/    /'
    fi
done < <(grep '^== ' "$golden" | sed 's/^== \([a-z0-9-]*\):.*/\1/')
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
