#!/usr/bin/env bash
# reproduce.sh - does today's ./train make a study's numbers again? Re-runs K done rows of a
# runs.csv (./report's table of a study) and compares each run's summary line with the row:
# steps, final_loss, val_loss, val_acc, steps_to_threshold, the NaN and fp counts, test_loss,
# test_acc, test_examples, as text (the report copies them from the summary line, so the same bits
# print the same text). time_s is not compared.
#
#   tests/reproduce.sh BIN_DIR RUNS.csv [K [SEED [MAX_S]]]   K rows (default 3) among the done
#                     rows whose time_s was at most MAX_S (default: any), which keeps a check in
#                     make test short. SEED "-" (the default): a fixed choice, the same rows every
#                     time for a given runs.csv: the kinds of cell (task, scale, variant), in
#                     order, taken K at even steps through the list (so each task comes up when K is
#                     at least the number of tasks), the fastest row of each kind. A number:
#                     K rows at random, shuffled with that seed (printed, so a failure can be re-run).
# A row's command is the one its study ran; its ./train and its --config are replaced by BIN_DIR's
# and configs/ of this tree (the paths of the machine it ran on), its --log and redirections
# dropped. Prints "N passed, N failed"; exit 1 when one failed, 2 on bad arguments.
set -u
bin=$(cd "${1:?usage: tests/reproduce.sh BIN_DIR RUNS.csv [K [SEED]]}" && pwd)
runs=${2:?usage: tests/reproduce.sh BIN_DIR RUNS.csv [K [SEED]]}
k=${3:-3}
seed=${4:--}
max_s=${5:-}
[ -f "$runs" ] || { echo "error: no file $runs" >&2; exit 2; }
[[ "$k" =~ ^[1-9][0-9]{0,3}$ ]] || { echo "error: K=$k: expected a whole number from 1 to 9999" >&2; exit 2; }
[ "$seed" = - ] || [[ "$seed" =~ ^[0-9]{1,18}$ ]] || { echo "error: SEED=$seed: expected - (a fixed choice) or a whole number" >&2; exit 2; }
[ -z "$max_s" ] || [[ "$max_s" =~ ^[0-9]+(\.[0-9]+)?$ ]] || { echo "error: MAX_S=$max_s: expected a number of seconds" >&2; exit 2; }
root=$(cd "$(dirname "$0")/.." && pwd)
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
passed=0 failed=0
ok() { passed=$((passed + 1)); echo "ok    $1"; }
bad() { failed=$((failed + 1)); echo "FAIL  $1"; shift; for line in "$@"; do echo "    $line"; done; }

fields="steps final_loss val_loss val_acc steps_to_threshold nan_count fp_overflows fp_underflows fp_nans test_loss test_acc test_examples"
# the chosen rows, one per line: id, then "name=value" for each field, then the ./train flags
awk -v k="$k" -v seed="$seed" -v fields="$fields" -v max_s="$max_s" '
    # split_csv(LINE, F): the fields of one CSV line into F[1..n] (quotes "" inside a quoted field)
    function split_csv(s, F,    n, i, c, q, v) {
        n = 1; v = ""; q = 0
        for (i = 1; i <= length(s); i++) {
            c = substr(s, i, 1)
            if (q && c == "\"" && substr(s, i + 1, 1) == "\"") { v = v c; i++ }
            else if (c == "\"") q = !q
            else if (c == "," && !q) { F[n++] = v; v = "" }
            else v = v c
        }
        F[n] = v
        return n
    }
    NR == 1 { split_csv($0, h); for (i in h) col[h[i]] = i; next }
    { split_csv($0, F); if (F[col["status"]] == "done" && (max_s == "" || F[col["time_s"]] + 0 <= max_s + 0)) row[++n] = $0 }
    # sort_rows(A, n, KEYS): insertion sort of A[1..n] by KEYS[A[i]] (awk has no portable sort)
    function sort_rows(A, n, KEYS,    i, j, t) {
        for (i = 2; i <= n; i++) for (j = i; j > 1 && KEYS[A[j]] < KEYS[A[j - 1]]; j--) { t = A[j]; A[j] = A[j - 1]; A[j - 1] = t }
    }
    END {
        m = split(fields, f, " ")
        if (seed == "-") { # the fastest row of each kind of cell; kinds in order, at even steps
            for (i = 1; i <= n; i++) {
                split_csv(row[i], F); kind = F[col["task"]] "|" F[col["scale"]] "|" F[col["variant"]]
                t = F[col["time_s"]] + 0 # the fastest row of the kind; of equal times, the first by id
                if (!(kind in first) || t < first_t[kind] || (t == first_t[kind] && F[col["id"]] < first_id[kind])) {
                    first[kind] = i; first_t[kind] = t; first_id[kind] = F[col["id"]]
                }
            }
            nk = 0
            for (kind in first) { kinds[++nk] = kind; key[kind] = kind }
            sort_rows(kinds, nk, key)
            c = 0
            for (r = 0; r < (k < nk ? k : nk); r++) chosen[++c] = row[first[kinds[int((r + 0.5) * nk / (k < nk ? k : nk)) + 1]]]
        } else {
            srand(seed)
            for (i = n; i > 1; i--) { j = int(rand() * i) + 1; t = row[i]; row[i] = row[j]; row[j] = t }
            for (c = 0; c < (k < n ? k : n); c++) chosen[c + 1] = row[c + 1]
        }
        for (r = 1; r <= c; r++) {
            split_csv(chosen[r], F); line = F[col["id"]]
            for (i = 1; i <= m; i++) line = line "\t" f[i] "=" F[col[f[i]]]
            print line "\t" F[col["command"]]
        }
    }' "$runs" >"$dir/rows"
[ -s "$dir/rows" ] || { bad "$runs has no done row"; echo "$passed passed, $failed failed"; exit 1; }
echo "reproduce: $(wc -l <"$dir/rows") of the done rows of $runs${max_s:+ that took at most $max_s s}, $([ "$seed" = - ] && echo "a fixed choice, one per kind of cell" || echo "chosen with seed $seed")"

n_fields=$(echo "$fields" | wc -w)
while IFS= read -r line; do
    id=${line%%$'\t'*}
    cmd=${line##*$'\t'}
    want=$(printf '%s\n' "$line" | cut -f2-$((n_fields + 1)) | tr '\t' ' ')
    # the flags: the words after the program up to --log (the study's commands quote a word only
    # when it needs quoting, and its flags do not)
    flags=()
    for w in $cmd; do
        case "$w" in
        --log=* | ">"* | "&&"*) break ;;
        --config=*) flags+=("--config=$root/configs/${w##*/}") ;;
        --*) flags+=("$w") ;;
        esac
    done
    "$bin/train" "${flags[@]}" --quiet >"$dir/out" 2>&1
    got=$(sed -n 's/^summary: //p' "$dir/out" | tr ' ' '\n' | awk -F= -v fields="$fields" '
        BEGIN { m = split(fields, f, " ") } { v[$1] = $2 }
        END { for (i = 1; i <= m; i++) printf "%s%s=%s", (i > 1 ? " " : ""), f[i], ((f[i] in v) ? v[f[i]] : "") }')
    if [ "$got" = "$want" ]; then
        ok "$id: the same summary ($(echo "$want" | cut -d' ' -f2-4))"
    else
        bad "$id: another summary than runs.csv's" "runs.csv: $want" "now:      $got" "$(tail -n 1 "$dir/out")"
    fi
done <"$dir/rows"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
