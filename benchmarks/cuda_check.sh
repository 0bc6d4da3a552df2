#!/usr/bin/env bash
# The model jobs on a CUDA GPU: what no CPU machine (CI included) can check. Run on a machine
# with a GPU, from the repository root, after a CPU run of a configuration has written its
# tokenizer, tokens and prompts:
#
#   bash benchmarks/cuda_check.sh RESULTS OUT
#
# RESULTS: that run's results folder (tokenizers/<tok>, tokens/<tok>/{train,valid}.{npy,json},
# prompts/prompts.jsonl; the tokenizer named by CUDA_CHECK_TOK, default bpe). OUT: a folder for
# the logs and the table. It trains the default config's t4x256 spec (models.train
# overridden by CUDA_CHECK_TOKENS, default 200000 tokens) with --device cuda (bf16 autocast
# where the GPU has it), samples its continuations under pure, top-k 40, greedy and beam 4 on
# CUDA, and does the same on the CPU for the timing ratio; then runs the test files whose
# device paths differ on a GPU (tests/lm/test_lm.py, tests/lm/test_decode.py, tests/lm/test_gguf.py).
# A step that fails is reported and the script goes on; the exit status is that of the
# first failure.
set -uo pipefail
RESULTS=${1:?usage: cuda_check.sh RESULTS OUT}
OUT=${2:?usage: cuda_check.sh RESULTS OUT}
TOK=${CUDA_CHECK_TOK:-bpe}
TOKENS=${CUDA_CHECK_TOKENS:-200000}
PY=${PYTHON:-python3}
mkdir -p "$OUT"
export PYTHONPATH="$PWD/src${PYTHONPATH:+:$PYTHONPATH}"
status=0
step() {  # step NAME COMMAND…: run, time, log to $OUT/NAME.log, one line in $OUT/steps.tsv
    local name=$1
    shift
    local t0 t1 rc
    t0=$(date +%s%N)
    "$@" >"$OUT/$name.log" 2>&1
    rc=$?
    t1=$(date +%s%N)
    printf '%s\t%s\t%d.%d\n' "$name" "$rc" $(((t1 - t0) / 1000000000)) \
        $(((t1 - t0) / 100000000 % 10)) | tee -a "$OUT/steps.tsv"
    [ "$rc" -ne 0 ] && [ "$status" -eq 0 ] && status=$rc
    return 0
}
printf 'step\trc\tseconds\n' >"$OUT/steps.tsv"
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv >"$OUT/gpu.txt" 2>&1
$PY -c 'import torch, transformers; print("torch", torch.__version__, "cuda", torch.version.cuda,
"available", torch.cuda.is_available(), "bf16", torch.cuda.is_available() and
torch.cuda.is_bf16_supported(), "transformers", transformers.__version__)' >>"$OUT/gpu.txt" 2>&1

SPEC=$($PY - "$TOKENS" <<'EOF'
import json, sys
from copyscope.config import load_file, validate
cfg = validate(load_file("config/config.yaml"))
spec = dict(cfg["models"]["zoo"]["t4x256"])
spec["train"] = {**cfg["models"]["train"], **spec.get("train", {}), "tokens": int(sys.argv[1])}
print(json.dumps(spec))
EOF
)
DATA=(--tokenizer "$RESULTS/tokenizers/$TOK"
    --train-npy "$RESULTS/tokens/$TOK/train.npy" --train-json "$RESULTS/tokens/$TOK/train.json"
    --valid-npy "$RESULTS/tokens/$TOK/valid.npy" --valid-json "$RESULTS/tokens/$TOK/valid.json")
for dev in cuda cpu; do
    step "train_$dev" $PY -m copyscope lm train --model-name t4x256 --params-json "$SPEC" \
        "${DATA[@]}" --seed 0 --device "$dev" --out "$OUT/model_$dev" \
        --log-csv "$OUT/training_$dev.csv"
done
# the prompt lengths of the prompts file (its first window's)
LENGTHS=$($PY -c 'import json,sys; print(*json.loads(open(sys.argv[1]).readline())["prompts"])' \
    "$RESULTS/prompts/prompts.jsonl")
DECODINGS='{"pure": {"kind": "sample", "temperature": 1.0},
 "top_k_40": {"kind": "sample", "temperature": 1.0, "top_k": 40},
 "greedy": {"kind": "greedy"}, "beam_4": {"kind": "beam", "num_beams": 4}}'
for dev in cuda cpu; do
    for d in pure top_k_40 greedy beam_4; do
        params=$($PY -c 'import json,sys; print(json.dumps(json.loads(sys.argv[1])[sys.argv[2]]))' \
            "$DECODINGS" "$d")
        step "sample_${dev}_$d" $PY -m copyscope sample generate --model "$OUT/model_cuda" \
            --model-name t4x256 --decoding "$d" --params-json "$params" \
            --prompts "$RESULTS/prompts/prompts.jsonl" \
            --prompt-tokenizer "$RESULTS/tokenizers/$TOK" --prompt-lengths $LENGTHS \
            --new-tokens 128 --seed 0 --batch-size 50 --device "$dev" \
            --out "$OUT/samples_${dev}_$d.jsonl"
    done
done
# greedy continuations on CUDA against the CPU's: the share of prompts with the same tokens
step compare_greedy $PY - "$OUT" <<'EOF'
import json, sys
out = sys.argv[1]
def rows(dev):
    return [json.loads(line) for line in open(f"{out}/samples_{dev}_greedy.jsonl")]
a, b = rows("cuda"), rows("cpu")
assert len(a) == len(b) and a, (len(a), len(b))
key = next(k for k in ("ids", "tokens", "text") if k in a[0])
same = sum(x[key] == y[key] for x, y in zip(a, b))
print(f"greedy on cuda vs cpu: {same} of {len(a)} continuations identical ({key})")
EOF
[ "${CUDA_CHECK_TESTS:-1}" = 1 ] && step tests $PY -m pytest -q -p no:cacheprovider tests/lm/test_lm.py tests/lm/test_decode.py \
    tests/lm/test_gguf.py
exit $status
