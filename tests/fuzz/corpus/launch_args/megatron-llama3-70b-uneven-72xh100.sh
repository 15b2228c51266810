# Megatron-LM arguments for "Llama 3 70B, uneven pipeline on 72 H100", written by Parallax.
# Flag names as in Megatron-LM core_r0.14.0 (megatron/training/arguments.py).
# 72 GPUs = tp 8 x cp 1 x pp 9 x dp 1
# parallax-name: Llama 3 70B, uneven pipeline on 72 H100
# parallax-scenario: gpu=h100-sxm nic_gbps=400 nics_per_node=8 schedule=1f1b zero=1 order=tp-cp-ep-dp-pp model=llama3-70b

TORCHRUN_ARGS=(
    --nnodes 9
    --nproc-per-node 8
)

MODEL_ARGS=(
    --num-layers 80
    --hidden-size 8192
    --ffn-hidden-size 28672
    --num-attention-heads 64
    --group-query-attention
    --num-query-groups 8
    --seq-length 8192
    --max-position-embeddings 8192
    --vocab-size 128256
    --swiglu
    --normalization RMSNorm
    --position-embedding-type rope
    --untie-embeddings-and-output-weights
    --disable-bias-linear
    --attention-dropout 0.0
    --hidden-dropout 0.0
)

PARALLEL_ARGS=(
    --tensor-model-parallel-size 8
    --sequence-parallel
    --context-parallel-size 1
    --pipeline-model-parallel-size 9
    --decoder-first-pipeline-num-layers 9
    --decoder-last-pipeline-num-layers 8
    --use-distributed-optimizer
    --overlap-grad-reduce
    --overlap-param-gather
)

TRAINING_ARGS=(
    --micro-batch-size 1
    --global-batch-size 64
    --bf16
    --recompute-granularity selective
)

# torchrun "${TORCHRUN_ARGS[@]}" pretrain_gpt.py "${MODEL_ARGS[@]}" "${PARALLEL_ARGS[@]}" "${TRAINING_ARGS[@]}" <data, tokenizer and optimizer arguments>
