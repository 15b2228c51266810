#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# A Megatron-LM launch in the shape of its examples/gpt3 script: GPT-3 175B on 16 nodes of 8 GPUs.
GPT_MODEL_ARGS=(
    --num-layers 96
    --hidden-size 12288
    --num-attention-heads 96
    --seq-length 2048
    --max-position-embeddings 2048
    --vocab-size 50257
    --attention-backend auto
)
TRAINING_ARGS=(
    --micro-batch-size 1
    --global-batch-size 1536
    --train-iters 500000
    --bf16
    --lr 6.0e-5
    --recompute-granularity selective
)
MODEL_PARALLEL_ARGS=(
    --tensor-model-parallel-size 8
    --pipeline-model-parallel-size 16
    --sequence-parallel
    --use-distributed-optimizer
    --overlap-grad-reduce
)
torchrun --nproc_per_node 8 --nnodes 16 --master_addr $MASTER_ADDR pretrain_gpt.py \
    "${GPT_MODEL_ARGS[@]}" "${TRAINING_ARGS[@]}" "${MODEL_PARALLEL_ARGS[@]}" --data-path $DATA_PATH
