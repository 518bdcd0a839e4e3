#!/usr/bin/env bash
# docs.sh - what the docs show is what the programs print today:
#   - every command quoted with its output in README.md and docs/*.md is run, and what it prints
#     must be the quoted lines. A quoted command is a line "    $ COMMAND" of an indented block
#     (a line ending in "\" continues on the next); its output is the block's lines after it, up
#     to the next "$ " line or the end of the block. The commands of one file run in its order,
#     in a scratch folder of their own that holds train, probe and report (BIN_DIR's), configs/,
#     scripts/ and a copy of docs/, with standard output and error merged. In a quoted line "…"
#     stands for any text (a time, a path), and a line "..." for any number of lines;
#   - README.md's "ends at X % accuracy" is the s = 1 run's val_acc that
#     scripts/attention_figure.sh prints where docs/USAGE.md quotes it;
#   - the check can fail: a quoted line changed by one character, or an extra line, is caught.
# The figures are compared where a doc quotes the `cmp` that compares them. Only for the -O3
# builds (tests/run.sh with `golden`): the quoted numbers are their bits.
#
#   tests/docs.sh BIN_DIR          prints "N passed, N failed"; exit 1 when one failed
set -u
bin=$(cd "${1:?usage: tests/docs.sh BIN_DIR}" && pwd)
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root" || exit 2
dir=${TEST_TMPDIR:-$(mktemp -d)}/docs
rm -rf "$dir"
mkdir -p "$dir"
passed=0
failed=0
ok() { passed=$((passed + 1)); echo "ok    $1"; }
bad() { failed=$((failed + 1)); echo "FAIL  $1"; shift; for line in "$@"; do echo "    $line"; done; }

# quoted DOC OUT: the quoted commands of DOC as OUT/cmd.K (the command) and OUT/want.K (its
# quoted output), K = 1, 2, ...; prints how many
quoted() {
    LC_ALL=C awk -v out="$2" '
    function flush() {
        if (!k || done == k) return                   # none yet, or written already
        done = k
        while (nw > 0 && want[nw] == "") nw--          # the blank lines that end the block
        f = out "/want." k; printf "" >f
        for (i = 1; i <= nw; i++) print want[i] >f
        close(f)
        nw = 0
    }
    cont { cmd = cmd "\n" substr($0, 5); cont = /\\$/; if (!cont) { printf "%s\n", cmd >(out "/cmd." k); close(out "/cmd." k) }; next }
    /^    \$ / { flush(); k++; cmd = substr($0, 7); cont = /\\$/
                 if (!cont) { printf "%s\n", cmd >(out "/cmd." k); close(out "/cmd." k) }
                 inblock = 1; next }
    inblock && (/^    / || /^$/) { want[++nw] = substr($0, 5); next }
    { if (inblock) flush(); inblock = 0 }
    END { if (inblock) flush(); print k + 0 }' "$1"
}

# matches WANT GOT: GOT's lines are WANT's, where "…" in a line stands for any text and a line
# "..." for any number of lines
matches() {
    LC_ALL=C awk '
    function line_ok(p, s,    parts, n, k, pos, at, last) {
        n = split(p, parts, "…")
        if (n == 1) return p == s
        if (substr(s, 1, length(parts[1])) != parts[1]) return 0
        pos = length(parts[1]) + 1
        for (k = 2; k < n; k++) {
            at = index(substr(s, pos), parts[k])
            if (!at) return 0
            pos += at - 1 + length(parts[k])
        }
        last = parts[n]
        return length(s) - pos + 1 >= length(last) && substr(s, length(s) - length(last) + 1) == last
    }
    function m(i, j,    k) {
        if (i > ne) return j > na
        if (e[i] == "...") { for (k = j; k <= na + 1; k++) if (m(i + 1, k)) return 1; return 0 }
        if (j > na || !line_ok(e[i], a[j])) return 0
        return m(i + 1, j + 1)
    }
    FNR == NR { e[++ne] = $0; next }
    { a[++na] = $0 }
    END { exit !m(1, 1) }' "$1" "$2"
}

# a scratch folder per document, with the programs, configs/, scripts/ and a copy of docs/
scratch() {
    local w=$dir/run/$1
    mkdir -p "$w"
    for p in train probe report; do ln -s "$bin/$p" "$w/$p"; done
    ln -s "$root/configs" "$w/configs"
    ln -s "$root/scripts" "$w/scripts"
    cp -R "$root/docs" "$w/docs"
    echo "$w"
}

total=0
for doc in README.md docs/*.md; do
    q=$dir/quoted/$doc
    mkdir -p "$q"
    n=$(quoted "$doc" "$q")
    [ "$n" -gt 0 ] || continue
    work=$(scratch "$(echo "$doc" | tr / _)")
    for ((k = 1; k <= n; k++)); do
        (cd "$work" && sh -c "$(cat "$q/cmd.$k")") >"$q/got.$k" 2>&1 </dev/null
        if matches "$q/want.$k" "$q/got.$k"; then
            ok "$doc: \$ $(head -c 90 "$q/cmd.$k" | head -n 1)"
        else
            bad "$doc: \$ $(head -n 1 "$q/cmd.$k") prints what the doc quotes" \
                "quoted:" "$(sed 's/^/  | /' "$q/want.$k" | head -n 12)" \
                "printed:" "$(sed 's/^/  | /' "$q/got.$k" | head -n 12)"
        fi
        total=$((total + 1))
    done
done
[ "$total" -ge 8 ] || bad "the docs quote at least 8 commands with their output" "found $total"

# README.md's accuracy of the s = 1 run in its figure, from the figure script's output
readme_pct=$(tr '\n' ' ' <README.md | grep -o 'ends at [0-9.]* % accuracy' | grep -o '[0-9.]*' | head -n 1)
script_acc=$(cat "$dir"/quoted/docs/USAGE.md/got.* 2>/dev/null | grep -o '^--scale=1: val_acc=[0-9.]*' | head -n 1 | cut -d= -f3)
if [ -n "$readme_pct" ] && [ -n "$script_acc" ] &&
    [ "$(awk -v a="$script_acc" 'BEGIN { printf "%.1f", 100 * a }')" = "$readme_pct" ]; then
    ok "README.md's figure caption: s = 1 ends at $readme_pct % accuracy, as scripts/attention_figure.sh prints"
else
    bad "README.md's figure caption quotes the s = 1 run's accuracy" "README: '$readme_pct' %, script: val_acc=$script_acc"
fi

# README.md's "Try the scale": the score std its comments and its prose quote, against the
# progress line of one step (layer 1's std, the first number after "std")
std_at() { "$bin/train" --task=translate --steps=1 --dk="$1" --scale="$2" "${@:3}" | sed -n 's/^step .* std \([0-9.]*\) .*/\1/p'; }
# same_as QUOTED MEASURED: MEASURED rounded to QUOTED's decimals is QUOTED
same_as() { awk -v q="$1" -v m="$2" 'BEGIN { d = index(q, ".") ? length(q) - index(q, ".") : 0; exit !(q != "" && sprintf("%.*f", d, m) == q) }'; }
flat=$(tr '\n' ' ' <README.md)
quoted_std=(
    "$(grep -o 'scale=1 *# raw q·k: score std [0-9.]*' <<<"$flat" | grep -o '[0-9.]*$')"
    "$(grep -o 'scale=sqrt *# s = 1/sqrt(dk): score std [0-9.]*' <<<"$flat" | grep -o '[0-9.]*$')"
    "$(grep -o 'scale=dk *# s = 1/dk: score std [0-9.]*' <<<"$flat" | grep -o '[0-9.]*$')")
measured_std=("$(std_at 256 1 --qk-init=unit)" "$(std_at 256 sqrt --qk-init=unit)" "$(std_at 256 dk --qk-init=unit)")
xavier=$(grep -o 'it is [0-9.]*, [0-9.]* and [0-9.]* at D = 16, 64, 256, and 1/√dₖ gives [0-9.]*, [0-9.]* and [0-9.]*' <<<"$flat" |
    grep -o '[0-9.]*[0-9]' | grep -v -x -e 16 -e 64 -e 256 -e 1 | tr '\n' ' ')
read -r -a xq <<<"$xavier"
xm=("$(std_at 16 1)" "$(std_at 64 1)" "$(std_at 256 1)" "$(std_at 16 sqrt)" "$(std_at 64 sqrt)" "$(std_at 256 sqrt)")
wrong=""
for i in 0 1 2; do same_as "${quoted_std[$i]}" "${measured_std[$i]}" || wrong="$wrong unit:${quoted_std[$i]}/${measured_std[$i]}"; done
[ ${#xq[@]} -eq 6 ] || wrong="$wrong xavier-sentence-not-found"
for i in 0 1 2 3 4 5; do same_as "${xq[$i]:-}" "${xm[$i]}" || wrong="$wrong xavier:${xq[$i]:-}/${xm[$i]}"; done
if [ -z "$wrong" ]; then
    ok "README.md's Try the scale: the score std it quotes (unit ${quoted_std[*]}; Xavier ${xq[*]}) is step 1's"
else
    bad "README.md's Try the scale quotes the score std step 1 shows (quoted/measured)" "$wrong"
fi

# the check can fail: one character changed in a quoted line, an extra line, a wildcard too few
printf 'summary: steps=600 val_acc=1.0000 time_s=…\n' >"$dir/w1"
printf 'summary: steps=600 val_acc=1.0000 time_s=2.6\n' >"$dir/g1"
printf 'summary: steps=600 val_acc=0.0000 time_s=2.6\n' >"$dir/g2"
printf 'summary: steps=600 val_acc=1.0000 time_s=2.6\nmore\n' >"$dir/g3"
printf 'head\n...\nsummary: steps=600 val_acc=1.0000 time_s=…\n' >"$dir/w4"
printf 'head\na\nb\nsummary: steps=600 val_acc=1.0000 time_s=9\n' >"$dir/g4"
if matches "$dir/w1" "$dir/g1" && ! matches "$dir/w1" "$dir/g2" && ! matches "$dir/w1" "$dir/g3" &&
    matches "$dir/w4" "$dir/g4" && ! matches "$dir/w4" "$dir/g2" && ! matches "$dir/w1" "$dir/g4"; then
    ok "the comparison can fail: a changed digit, an extra line, lines no \"...\" stands for"
else
    bad "the comparison tells a quoted output from a different one"
fi

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
