#!/usr/bin/env bash
# ablation_doc.sh - the committed study's figures are made by the tools, not typed in:
#   - ./report --runs docs/ablation/runs.csv makes docs/ablation/summary.md, best_lr.tsv and the
#     plots lr_*.svg and dk_*.svg again, byte for byte, and ./report --probe docs/ablation/probe.md
#     the probe figure;
#   - with `probe`: ./probe prints docs/ablation/probe.md again (below its header of provenance);
#   - every table docs/ABLATION.md (and README.md) quotes from summary.md or probe.md equals it
#     (scripts/embed_tables.sh);
#   - and the check can fail: a quoted number changed by one digit is caught.
# Prints "N passed, N failed".
#
#   tests/ablation_doc.sh BIN_DIR [probe]   BIN_DIR holds report and probe (e.g. . or build/asan32);
#                                           `probe` also reruns ./probe (15 s of CPU at -O3)
set -u
bin=${1:?usage: tests/ablation_doc.sh BIN_DIR [probe]}
rerun_probe=${2:-}
report=$(cd "$bin" && pwd)/report
probe=$(cd "$bin" && pwd)/probe
cd "$(dirname "$0")/.." || exit 2
dir=${TEST_TMPDIR:-$(mktemp -d)}/ablation_doc
rm -rf "$dir"
mkdir -p "$dir"
passed=0
failed=0
ok() { passed=$((passed + 1)); echo "ok    $1"; }
bad() { failed=$((failed + 1)); echo "FAIL  $1"; shift; for line in "$@"; do echo "    $line"; done; }

committed=docs/ablation
if "$report" --runs "$committed/runs.csv" --out "$dir" >"$dir/report.out" 2>&1; then
    for f in summary.md best_lr.tsv; do
        if cmp -s "$dir/$f" "$committed/$f"; then ok "docs/ablation/$f is what ./report makes from runs.csv"; else
            bad "docs/ablation/$f is what ./report makes from runs.csv" "$(diff "$committed/$f" "$dir/$f" | head -5)"; fi
    done
else
    bad "./report --runs docs/ablation/runs.csv" "$(head -5 "$dir/report.out")"
fi

# the plots a runs.csv makes (lr_*, dk_*): the committed ones are those, byte for byte (curves_* need the runs'
# logs, which are not committed: they are left as the study's report drew them)
if [ -f "$dir/summary.md" ]; then
    n=0 differ=""
    for f in "$dir"/lr_*.svg "$dir"/dk_*.svg "$committed"/lr_*.svg "$committed"/dk_*.svg; do
        name=$(basename "$f")
        n=$((n + 1))
        cmp -s "$dir/$name" "$committed/$name" || differ="$differ $name"
    done
    if [ -z "$differ" ] && [ "$n" -gt 0 ]; then ok "docs/ablation/lr_*.svg and dk_*.svg are what ./report makes from runs.csv ($((n / 2)) plots)"; else
        bad "docs/ablation's plots are what ./report makes from runs.csv" "differ or missing:$differ"; fi
fi

if "$report" --probe docs/ablation/probe.md --out "$dir/probe" >/dev/null 2>&1 &&
    cmp -s "$dir/probe/probe_softmax.svg" docs/ablation/probe_softmax.svg; then
    ok "docs/ablation/probe_softmax.svg is what ./report --probe makes from probe.md"
else
    bad "docs/ablation/probe_softmax.svg is what ./report --probe makes from probe.md"
fi

if [ "$rerun_probe" = probe ]; then
    # probe.md = a few lines saying how it was made, then ./probe's output from "# ./probe"
    if "$probe" >"$dir/probe.md" 2>"$dir/probe.err" &&
        awk 'f || /^# \.\/probe/ { f = 1; print }' docs/ablation/probe.md | cmp -s - "$dir/probe.md"; then
        ok "docs/ablation/probe.md is what ./probe prints"
    else
        bad "docs/ablation/probe.md is what ./probe prints" "$(awk 'f || /^# \.\/probe/ { f = 1; print }' docs/ablation/probe.md |
            diff - "$dir/probe.md" | head -5)" "$(head -3 "$dir/probe.err")"
    fi
fi
n=$(grep -c '^<!-- from probe\.md: ' docs/ABLATION.md)
if [ "$n" -gt 0 ] && scripts/embed_tables.sh --check docs/ABLATION.md docs/ablation/probe.md 2>"$dir/check_probe.err"; then
    ok "docs/ABLATION.md: its $n tables quoted from probe.md equal it"
else
    bad "docs/ABLATION.md quotes probe.md exactly ($n blocks)" "$(head -8 "$dir/check_probe.err")"
fi

if [ -f "$dir/summary.md" ]; then
    for doc in docs/ABLATION.md README.md; do
        n=$(grep -c '^<!-- from summary\.md: ' "$doc")
        if [ "$n" -gt 0 ] && scripts/embed_tables.sh --check "$doc" "$dir/summary.md" 2>"$dir/check.err"; then
            ok "$doc: its $n quoted tables equal the regenerated summary.md"
        else
            bad "$doc quotes summary.md exactly ($n blocks)" "$(head -8 "$dir/check.err")"
        fi
    done
    # the check can fail: change the first digit of the first quoted table row
    awk 'q && /^\| / && !done && match($0, /[0-9]/) {
             d = substr($0, RSTART, 1); $0 = substr($0, 1, RSTART - 1) ((d + 1) % 10) substr($0, RSTART + 1); done = 1 }
         /^<!-- from summary\.md: / { q = 1 } /^<!-- end -->/ { q = 0 } { print }' docs/ABLATION.md >"$dir/altered.md"
    if ! cmp -s "$dir/altered.md" docs/ABLATION.md && ! scripts/embed_tables.sh --check "$dir/altered.md" "$dir/summary.md" 2>/dev/null; then
        ok "a quoted table with one digit changed is caught"
    else
        bad "a quoted table with one digit changed is caught"
    fi
fi

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
