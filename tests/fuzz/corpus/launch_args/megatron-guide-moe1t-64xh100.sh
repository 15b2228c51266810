# Megatron-LM arguments for "Guide: 1T MoE on 64 H100", written by Parallax.
# Flag names as in Megatron-LM core_r0.14.0 (megatron/training/arguments.py).
# 64 GPUs = tp 1 x cp 1 x pp 1 x dp 64
# parallax-name: Guide: 1T MoE on 64 H100
# parallax-scenario: gpu=h100-sxm nic_gbps=400 nics_per_node=8 schedule=1f1b zero=1 order=tp-cp-ep-dp-pp model=moe-1t

TORCHRUN_ARGS=(
    --nnodes 8
    --nproc-per-node 8
)

MODEL_ARGS=(
    --num-layers 61
    --hidden-size 7168
    --ffn-hidden-size 18432
    --num-attention-heads 56
    --group-query-attention
    --num-query-groups 8
    --seq-length 4096
    --max-position-embeddings 4096
    --vocab-size 129280
    --swiglu
    --normalization RMSNorm
    --position-embedding-type rope
    --untie-embeddings-and-output-weights
    --disable-bias-linear
    --attention-dropout 0.0
    --hidden-dropout 0.0
)

MOE_ARGS=(
    --num-experts 128
    --moe-router-topk 2
    --moe-ffn-hidden-size 6144
    --moe-shared-expert-intermediate-size 6144
    --moe-layer-freq "([0]*3+[1]*58)"
    --moe-grouped-gemm
    --moe-token-dispatcher-type alltoall
    --expert-model-parallel-size 64
    --expert-tensor-parallel-size 1
)

PARALLEL_ARGS=(
    --tensor-model-parallel-size 1
    --context-parallel-size 1
    --pipeline-model-parallel-size 1
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

# torchrun "${TORCHRUN_ARGS[@]}" pretrain_gpt.py "${MODEL_ARGS[@]}" "${MOE_ARGS[@]}" "${PARALLEL_ARGS[@]}" "${TRAINING_ARGS[@]}" <data, tokenizer and optimizer arguments>
