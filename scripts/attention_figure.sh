#!/usr/bin/env bash
# attention_figure.sh - the attention heatmaps in the docs: what every head of a small model
# attends to on one held-out example, at dk = 256, for the score multipliers s = 1, 1/sqrt(dk)
# and 1/dk, at initialisation and after training (./train --attention-svg-at=both).
#
#   scripts/attention_figure.sh [--out DIR]      (DIR: docs/ of this repository by default)
#
# Writes DIR/ablation/attention_dk256.svg (the three scales, one row each) and
# DIR/attention_s1_vs_sqrt.svg (s = 1 and 1/sqrt(dk), drawn smaller, for the front page, README.md). Three
# runs of 400 steps, one thread each, side by side: one to two minutes on 2 cores. Each row is the
# figure ./train drew, headed by the ./train command that makes it; the runs are deterministic
# (the same bits on any thread count), so the figures come out the same on any machine with the
# same vector width. TRAIN=path/to/train overrides the program.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
out=$root/docs
case "${1:-}" in
--out) out=${2:?--out needs a folder}; shift 2 ;;
--out=*) out=${1#--out=}; shift ;;
"") ;;
*) echo "usage: scripts/attention_figure.sh [--out DIR]" >&2; exit 2 ;;
esac
[ $# -eq 0 ] || { echo "usage: scripts/attention_figure.sh [--out DIR]" >&2; exit 2; }
train=${TRAIN:-$root/train}
[ -x "$train" ] || { echo "error: $train not found: run make first (or set TRAIN)" >&2; exit 2; }
mkdir -p "$out/ablation"
out=$(cd "$out" && pwd)

# the runs: the translate task (docs/TASKS.md), one layer of two heads of dk = 256
run=(--task=translate --layers=1 --heads=2 --dk=256 --steps=400)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
scales=(1 sqrt dk)
pids=()
for s in "${scales[@]}"; do
    "$train" "${run[@]}" --scale="$s" --threads=1 --quiet --examples=0 --attention-svg="$tmp/attention_s$s.svg" \
        --attention-svg-at=both >"$tmp/s$s.out" 2>&1 &
    pids+=($!)
done
for k in "${!pids[@]}"; do
    if ! wait "${pids[$k]}"; then
        echo "error: the run with --scale=${scales[$k]} failed:" >&2
        cat "$tmp/s${scales[$k]}.out" >&2
        exit 1
    fi
    echo "--scale=${scales[$k]}: $(grep '^summary:' "$tmp/s${scales[$k]}.out" | grep -o 'val_acc=[0-9.]*')"
done

# attr NAME FILE: the value of attribute NAME of the root element (line 1, as ./train writes it)
attr() { sed -n "1s/.* $1=\"\\([0-9.]*\\)\".*/\\1/p" "$2"; }

# compose OUT ZOOM TITLE NOTE FILE...: the figures FILE... one under another, under a title,
# as nested <svg> elements (each keeps its own coordinates; the ids of its colour scale and
# hatch pattern get the row's number, so that rows do not share them); drawn at ZOOM times
# their size. Written to a temporary file, then renamed.
compose() {
    local dest=$1 zoom=$2 title=$3 note=$4 w=0 h=76 y k=0 f fw fh
    shift 4
    for f in "$@"; do
        fw=$(attr width "$f")
        fh=$(attr height "$f")
        [ "$fw" -gt "$w" ] && w=$fw
        h=$((h + fh))
    done
    {
        printf '<svg xmlns="http://www.w3.org/2000/svg" width="%s" height="%s" viewBox="0 0 %d %d" font-family="Helvetica, Arial, sans-serif">\n' \
            "$(awk -v a="$w" -v z="$zoom" 'BEGIN { printf "%.0f", a * z }')" \
            "$(awk -v a="$h" -v z="$zoom" 'BEGIN { printf "%.0f", a * z }')" "$w" "$h"
        printf '<rect width="100%%" height="100%%" fill="white"/>\n'
        printf '<text x="20" y="32" font-size="18" font-weight="bold">%s</text>\n' "$title"
        printf '<text x="20" y="56" font-size="13">%s</text>\n' "$note"
        y=76
        for f in "$@"; do
            k=$((k + 1))
            sed -e "1s|^<svg xmlns=\"http://www.w3.org/2000/svg\" |<svg x=\"0\" y=\"$y\" |" \
                -e "s/id=\"masked\"/id=\"masked$k\"/; s/url(#masked)/url(#masked$k)/g" \
                -e "s/id=\"scale\"/id=\"scale$k\"/; s/url(#scale)/url(#scale$k)/g" "$f"
            y=$((y + $(attr height "$f")))
        done
        printf '</svg>\n'
    } >"$dest.tmp.$$"
    mv "$dest.tmp.$$" "$dest"
    echo "wrote $dest"
}

made="made by scripts/attention_figure.sh: each row is the figure of the ./train command written under its title"
compose "$out/ablation/attention_dk256.svg" 1 \
    "Attention at dk = 256: s = 1 (top), 1/sqrt(dk) (middle), 1/dk (bottom); at initialisation and after 400 steps" \
    "$made" "$tmp/attention_s1.svg" "$tmp/attention_ssqrt.svg" "$tmp/attention_sdk.svg"
compose "$out/attention_s1_vs_sqrt.svg" 0.7 \
    "Attention at dk = 256: raw q.k (s = 1, top) saturates from the start; s = 1/sqrt(dk) (bottom) starts spread out" \
    "$made" "$tmp/attention_s1.svg" "$tmp/attention_ssqrt.svg"
