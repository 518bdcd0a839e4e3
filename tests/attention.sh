#!/usr/bin/env bash
# attention.sh - --attention-svg: the figure is well-formed XML, and every cell it draws holds
# the attention weight that --dump-state stored for the same example and the same parameters
# (read here from the dump's bytes with od, not with the program's own reader). Prints
# "N passed, N failed".
#
#   tests/attention.sh BIN_DIR      the folder holding train (e.g. . or build/asan32)
set -u
bin=${1:?usage: tests/attention.sh BIN_DIR}
bin=$(cd "$bin" && pwd)
train=$bin/train
dir=${TEST_TMPDIR:-$(mktemp -d)}/attention
rm -rf "$dir"
mkdir -p "$dir"
cd "$dir" || exit 2
passed=0
failed=0

ok() { passed=$((passed + 1)); echo "ok    $1"; }
bad() { failed=$((failed + 1)); echo "FAIL  $1"; shift; for line in "$@"; do echo "    $line"; done; }

# ---------------------------------------------------------------- readers
# well_formed FILE: XML well-formedness, in awk: every tag closed in order, one root <svg>,
# attributes quoted, no stray & or <. Prints what is wrong; fails then.
well_formed() {
    awk 'BEGIN { RS = "<"; depth = 0; roots = 0; bad = "" }
    NR == 1 { if ($0 ~ /[^ \t\r\n]/) bad = bad " text before the root;"; next }
    {
        close_at = index($0, ">")
        if (!close_at) { bad = bad " a tag without >;"; next }
        tag = substr($0, 1, close_at - 1); text = substr($0, close_at + 1)
        if (tag ~ /^[?!]/) next
        t = text; gsub(/&(amp|lt|gt|quot|apos|#[0-9]+|#x[0-9a-fA-F]+);/, "", t)
        if (t ~ /[&>]/) bad = bad " a stray & or > in text;"
        if (depth == 0 && text ~ /[^ \t\r\n]/ && tag !~ /^\//) bad = bad " text outside the root;"
        if (tag ~ /^\//) {
            name = substr(tag, 2)
            if (depth == 0 || stack[depth] != name) { bad = bad " </" name "> closes " (depth ? stack[depth] : "nothing") ";"; next }
            depth--
            if (depth == 0 && text ~ /[^ \t\r\n]/) bad = bad " text after the root;"
            next
        }
        self = tag ~ /\/$/; if (self) tag = substr(tag, 1, length(tag) - 1)
        name = tag; sub(/[ \t\r\n].*/, "", name); attrs = substr(tag, length(name) + 1)
        if (name !~ /^[A-Za-z_][-A-Za-z0-9_.:]*$/) bad = bad " a bad tag name <" name ">;"
        a = attrs; gsub(/&(amp|lt|gt|quot|apos|#[0-9]+);/, "", a)
        if (a !~ /^([ \t\r\n]+[A-Za-z_:][-A-Za-z0-9_.:]*="[^"<&]*")*[ \t\r\n]*$/) bad = bad " bad attributes in <" name ">;"
        if (depth == 0) { roots++; if (name != "svg") bad = bad " the root is <" name ">;" }
        if (!self) stack[++depth] = name
    }
    END {
        if (depth) bad = bad " <" stack[depth] "> never closed;"
        if (roots != 1) bad = bad " " roots " roots;"
        if (bad != "") { print bad; exit 1 }
    }' "$1"
}
# xml_ok FILE: well_formed, and xmllint --noout when it is installed (not needed)
have_xmllint=0
command -v xmllint >/dev/null 2>&1 && have_xmllint=1
xml_ok() { well_formed "$1" && { [ $have_xmllint = 0 ] || xmllint --noout "$1"; }; }

# svg_cells FILE MAP: one line "index value" per drawn cell of grid MAP (data-map), index =
# ((l H + h) n + i) n + j as in the dump's [L, H, n, n]; first a line "shape L H n n", then one
# "hidden L H" per masked region
svg_cells() {
    awk -v want="$2" '
    function attr(name,   m) { if (match($0, " " name "=\"[^\"]*\"")) return substr($0, RSTART + length(name) + 3, RLENGTH - length(name) - 4); return "" }
    /<g class="map"/ { inmap = attr("data-map") == want; if (inmap) { n = attr("data-n"); H = attr("data-heads"); print "shape", attr("data-layers"), H, n, n } }
    inmap && /<g class="panel"/ { l = attr("data-l"); h = attr("data-h") }
    inmap && /<rect class="cell"/ { i = attr("data-i"); j = attr("data-j"); print ((l * H + h) * n + i) * n + j, attr("data-p") }
    inmap && /<path class="masked"/ { print "hidden", l, h }
    ' "$1"
}
# svg_tokens FILE MAP: the token ids of the query labels of MAP's first panel, in order
svg_tokens() {
    awk -v want="$2" '
    function attr(name) { if (match($0, " " name "=\"[^\"]*\"")) return substr($0, RSTART + length(name) + 3, RLENGTH - length(name) - 4); return "" }
    /<g class="map"/ { inmap = attr("data-map") == want; panels = 0 }
    inmap && /<g class="panel"/ { panels++ }
    inmap && panels == 1 && /<text class="query"/ { printf "%s ", attr("data-token") }
    ' "$1"
}
# dump_tensor FILE NAME: its shape ("shape d0 d1 ..."), then its values one a line (F32 or I32),
# straight from the safetensors bytes: 8-byte header length, JSON header, data
dump_tensor() {
    local hlen entry dtype shape begin end fmt
    hlen=$(od -An -t u8 -N 8 "$1" | tr -d ' ')
    entry=$(head -c $((8 + hlen)) "$1" | tail -c "$hlen" | grep -a -o "\"$2\":{[^}]*}")
    [ -n "$entry" ] || return 1
    dtype=$(echo "$entry" | sed 's/.*"dtype":"\([A-Z0-9]*\)".*/\1/')
    shape=$(echo "$entry" | sed 's/.*"shape":\[\([0-9,]*\)\].*/\1/' | tr ',' ' ')
    begin=$(echo "$entry" | sed 's/.*"data_offsets":\[\([0-9]*\),\([0-9]*\)\].*/\1/')
    end=$(echo "$entry" | sed 's/.*"data_offsets":\[\([0-9]*\),\([0-9]*\)\].*/\2/')
    fmt=f4
    [ "$dtype" = I32 ] && fmt=d4
    echo "shape $shape"
    od -An -v -t $fmt -j $((8 + hlen + begin)) -N $((end - begin)) "$1" | tr -s ' \t' '\n' | sed '/^$/d'
}
# same_weights SVG MAP DUMP: every cell of MAP equals the dump's heldout.attention at its index
# (to within the float's last bit: od and the SVG spell the same float differently), the masked
# region of every panel holds zeros only, and each visible entry is drawn once. Prints why not.
same_weights() {
    awk '
    FNR == 1 { file++ }
    file == 1 && $1 == "shape" { dshape = $2 " " $3 " " $4 " " $5; L = $2; H = $3; n = $4; next }
    file == 1 { w[nd++] = $1 + 0; next }
    $1 == "shape" { sshape = $2 " " $3 " " $4 " " $5; next }
    $1 == "hidden" { hidden++; next }
    { k = $1 + 0; if (k in seen) { print "cell " k " drawn twice"; bad = 1 } seen[k] = 1; cells++
      d = w[k]; v = $2 + 0; tol = 2e-7 * (d < 0 ? -d : d)
      if ((v - d > tol) || (d - v > tol)) { if (shown++ < 3) print "cell " k ": svg " $2 ", dump " d; bad = 1 } }
    END {
        if (dshape != sshape) { print "shapes: dump [" dshape "], svg [" sshape "]"; exit 1 }
        want = L * H * n * (n + 1) / 2
        if (cells != want) { print cells " cells drawn, " want " visible ones"; bad = 1 }
        if (n > 1 && hidden != L * H) { print hidden " masked regions, " L * H " panels"; bad = 1 }
        for (k = 0; k < nd; k++) { i = int(k / n) % n; j = k % n
            if (j > i && w[k] != 0) { print "dump entry " k " (j > i) is " w[k]; bad = 1 }
            if (j > i && (k in seen)) { print "cell " k " (j > i) drawn as a weight"; bad = 1 } }
        exit bad
    }' <(dump_tensor "$3" heldout.attention) <(svg_cells "$1" "$2")
}
dump_tokens() { dump_tensor "$1" heldout.tokens | sed 1d | tr '\n' ' '; }

small=(--layers=2 --dmodel=32 --heads=2 --batch=8 --max-len=6 --val-size=64 --eval-examples=32 --quiet)

# ---------------------------------------------------------------- a run, its dump and its figure
"$train" "${small[@]}" --steps=6 --dump-state=init.st --attention-svg=a.svg --attention-svg-at=both --save=a.st \
    >a.out 2>&1
rc=$?
if [ $rc -eq 0 ] && [ -s a.svg ] && why=$(xml_ok a.svg 2>&1); then
    ok "--attention-svg-at=both: a well-formed SVG$([ $have_xmllint = 1 ] && echo ' (awk check and xmllint)')"
else
    bad "--attention-svg writes a well-formed SVG" "exit $rc" "${why:-}" "$(head -n 3 a.out)"
fi
[ $have_xmllint = 0 ] && echo "note: xmllint not found: the SVGs are checked by the awk reader only"
if why=$(same_weights a.svg init init.st); then
    ok "the grid at initialisation: every cell = the dump's heldout.attention (same parameters), hidden cells masked"
else
    bad "init grid = --dump-state's attention" "$why"
fi
if [ "$(svg_tokens a.svg init)" = "$(dump_tokens init.st)" ] && [ -n "$(dump_tokens init.st)" ] &&
    [ "$(svg_tokens a.svg end)" = "$(dump_tokens init.st)" ]; then
    ok "the rows are labelled with the example's tokens, the same in both grids"
else
    bad "token labels" "svg: $(svg_tokens a.svg init)" "dump: $(dump_tokens init.st)"
fi
grep -q '&lt;bos&gt;' a.svg && ! grep -q '<bos>' a.svg && ok "special tokens are escaped (&lt;bos&gt;)" ||
    bad "token labels are escaped" "$(grep -m 1 'bos' a.svg)"
cmd=$(grep -o '>\./train [^<]*<' a.svg | head -n 1)
if [ "$cmd" = ">./train --max-len=6 --val-size=64 --dmodel=32 --heads=2 --batch=8 --steps=6 --eval-examples=32 --attention-svg=a.svg --attention-svg-at=both<" ]; then
    ok "the figure names the command that makes it, without this machine's paths"
else
    bad "the figure's command" "$cmd"
fi

# the end of that run = the start of a run resumed from its checkpoint: the resumed run's dump
# holds the weights the first figure drew after training
"$train" --load=a.st --steps=7 --dump-state=resumed.st --quiet >/dev/null 2>&1
if why=$(same_weights a.svg end resumed.st); then
    ok "the grid after training = the dump of a run resumed from its checkpoint"
else
    bad "end grid = resumed run's dump" "$why"
fi
# a finished checkpoint, drawn without training: the same two grids (init recomputed from --seed)
"$train" --load=a.st --attention-svg=b.svg --attention-svg-at=both --quiet >b.out 2>&1
rc=$?
if [ $rc -eq 0 ] && grep -q '^summary: steps=6 ' b.out && why=$(same_weights b.svg end resumed.st) &&
    why=$(same_weights b.svg init init.st); then
    ok "--load of a finished run: nothing trained, the same grids (init from --seed)"
else
    bad "--load=finished --attention-svg" "exit $rc" "${why:-}" "$(head -n 2 b.out)"
fi
# a paused checkpoint: --stop-at=its step draws it; --steps=0 is refused with that advice
"$train" "${small[@]}" --steps=10 --stop-at=6 --save=p.st >/dev/null 2>&1
"$train" --load=p.st --stop-at=6 --attention-svg=p.svg --quiet >p.out 2>&1
rc=$?
"$train" --load=p.st --steps=0 --attention-svg=p0.svg --quiet >p0.out 2>&1
rc0=$?
"$train" --load=p.st --stop-at=7 --dump-state=p.dump --quiet >/dev/null 2>&1
if [ $rc -eq 0 ] && why=$(same_weights p.svg end p.dump) && [ $rc0 -eq 2 ] && grep -q "give --stop-at=6" p0.out &&
    [ ! -e p0.svg ]; then
    ok "--load of a paused run with --stop-at=its step: drawn untrained; --steps=0 refused, naming --stop-at=6"
else
    bad "drawing a paused checkpoint" "exit $rc / $rc0" "${why:-}" "$(cat p.out p0.out | head -n 3)"
fi
# another example, and a fresh run of zero steps (end = init), captioned as the initialisation
"$train" "${small[@]}" --steps=0 --attention-svg=z.svg --attention-example=5 --quiet >/dev/null 2>&1
"$train" "${small[@]}" --steps=1 --dump-state=z.st --attention-example=5 --quiet >/dev/null 2>&1
if why=$(same_weights z.svg end z.st) && [ "$(svg_tokens z.svg end)" = "$(dump_tokens z.st)" ] &&
    [ "$(svg_tokens z.svg end)" != "$(dump_tokens init.st)" ]; then
    ok "--attention-example=5 draws (and dumps) another example; --steps=0 draws the initial weights"
else
    bad "--attention-example" "${why:-}"
fi
if grep -q '>at initialisation (step 0: --steps=0, nothing trained; validation accuracy [0-9.]*%)<' z.svg &&
    ! grep -q 'after training' z.svg; then
    ok "--steps=0: the grid is captioned as the initialisation, not \"after training\""
else
    bad "the caption of a --steps=0 grid" "$(grep -o '<text[^>]*font-size="13"[^>]*>[^<]*' z.svg)"
fi
"$train" "${small[@]}" --steps=0 --attention-svg=z2.svg --attention-svg-at=both --quiet >z2.out 2>&1
rc=$?
if [ $rc -eq 2 ] && grep -q '^error: --attention-svg-at=both with --steps=0: .*both grids would be the initial weights' z2.out &&
    [ "$(wc -l <z2.out)" -eq 1 ] && [ ! -e z2.svg ]; then
    ok "--steps=0 --attention-svg-at=both: refused in one line (two copies of the initial weights), nothing drawn"
else
    bad "--steps=0 --attention-svg-at=both" "exit $rc" "$(cat z2.out)"
fi

# a resumed run's figure: "resumed from a checkpoint at step 4:" and the command that continued it,
# which makes the same figure again from a copy of that checkpoint (a fresh command with the
# resumed run's options would not: steps 1-4 ran with other ones)
"$train" "${small[@]}" --steps=4 --lr=1e-3 --dropout=0.1 --save=q.st --quiet >/dev/null 2>&1
mkdir -p again && cp q.st again/q.st
"$train" --load=q.st --steps=6 --lr=5e-3 --save=q.st --attention-svg=q.svg --quiet >q.out 2>&1
heading=$(grep -o '>resumed from a checkpoint at step [^<]*<' q.svg | sed 's/^>//; s/<$//')
want="resumed from a checkpoint at step 4: ./train --load=q.st --steps=6 --lr=0.005 --attention-svg=q.svg (steps 1 to 4 ran with the options stored in the checkpoint)"
cmd=$(echo "$heading" | sed 's/^[^:]*: //; s/ (steps 1 to .*//')
(cd again && eval "$train${cmd#./train}" >/dev/null 2>&1)
if [ "$heading" = "$want" ] && [ -s again/q.svg ] && cmp -s q.svg again/q.svg; then
    ok "a resumed run's figure names its checkpoint's step and the command that remakes it from there (checked)"
else
    bad "the heading of a resumed run's figure" "got:  $heading" "want: $want" \
        "the command again: $(cmp q.svg again/q.svg 2>&1)"
fi
"$train" --load=q.st --attention-svg=d.svg --attention-svg-at=both --quiet >/dev/null 2>&1
if grep -q '>drawn untrained from a checkpoint at step 6: ./train --load=q.st --attention-svg=d.svg --attention-svg-at=both (' d.svg; then
    ok "a finished checkpoint drawn untrained: the heading says so"
else
    bad "the heading of a drawn checkpoint" "$(grep -o '>[^<]*checkpoint[^<]*<' d.svg)"
fi

# non-finite weights (fp16, raw q.k at dk = 512, --nan=continue): H is "NaN", never "-nan nats"
"$train" "${small[@]}" --precision=fp16 --softmax=naive --scale=1 --dk=512 --qk-init=unit --nan=continue --steps=2 \
    --attention-svg=n.svg --quiet >/dev/null 2>&1
titles=$(grep -c 'H = NaN (non-finite weights)<' n.svg)
if [ "$titles" -ge 1 ] && [ "$(grep -c 'data-entropy="nan"' n.svg)" = "$titles" ] && ! grep -q -- '"-nan"\|nan nats' n.svg &&
    xml_ok n.svg >/dev/null; then
    ok "a non-finite entropy: \"H = NaN (non-finite weights)\" and data-entropy=\"nan\" in each of $titles panels"
else
    bad "non-finite entropies" "$(grep -o 'H = [^<]*' n.svg | sort | uniq -c)" "$(grep -o 'data-entropy="[^"]*"' n.svg | sort -u)"
fi
# learned multipliers: each panel's title has its head's own
"$train" "${small[@]}" --steps=3 --attn=cosine --attention-svg=c.svg --quiet >/dev/null 2>&1
taus=$(grep -o 'tau = [0-9.]*, H = [0-9.]* nats' c.svg | sort -u | wc -l)
if [ "$taus" -ge 2 ] && xml_ok c.svg >/dev/null; then ok "--attn=cosine: each panel titled with its own tau and entropy"; else
    bad "cosine titles" "$taus distinct titles"; fi

# ---------------------------------------------------------------- the checks can fail
sed '0,/data-p="[^"]*"/s//data-p="0.5"/' a.svg >wrong.svg
sed '0,/data-i="1" data-j="0"/s//data-i="0" data-j="1"/' a.svg >swapped.svg
if ! same_weights wrong.svg init init.st >/dev/null && ! same_weights swapped.svg init init.st >/dev/null &&
    ! same_weights a.svg init resumed.st >/dev/null; then
    ok "the comparison fails for a changed value, a cell above the diagonal, or another model's dump"
else
    bad "the comparison cannot fail"
fi
sed '0,/<\/g>/s///' a.svg >broken.svg
sed '0,/ fill="white"/s// fill=white/' a.svg >unquoted.svg
sed '0,/&lt;bos&gt;/s//<bos>/' a.svg >raw.svg
if ! well_formed broken.svg >/dev/null && ! well_formed unquoted.svg >/dev/null && ! well_formed raw.svg >/dev/null; then
    ok "the well-formedness check fails for a missing </g>, an unquoted attribute, a raw <bos>"
else
    bad "the well-formedness check cannot fail"
fi

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
