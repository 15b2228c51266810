# Megatron-LM arguments for "gpt-oss-120b at 32K tokens on 64 H100", written by Parallax.
# Flag names as in Megatron-LM core_r0.14.0 (megatron/training/arguments.py).
# 64 GPUs = tp 4 x cp 2 x pp 4 x dp 2
# parallax-name: gpt-oss-120b at 32K tokens on 64 H100
# parallax-scenario: gpu=h100-sxm nic_gbps=400 nics_per_node=8 schedule=1f1b zero=1 order=tp-cp-ep-dp-pp model=gpt-oss-120b

TORCHRUN_ARGS=(
    --nnodes 8
    --nproc-per-node 8
)

MODEL_ARGS=(
    --num-layers 36
    --hidden-size 2880
    --ffn-hidden-size 2880
    --num-attention-heads 64
    --group-query-attention
    --num-query-groups 8
    --kv-channels 64
    --window-size 128,0
    --window-attn-skip-freq 2
    --seq-length 32768
    --max-position-embeddings 4096
    --vocab-size 201088
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
    --moe-router-topk 4
    --moe-ffn-hidden-size 2880
    --moe-grouped-gemm
    --moe-token-dispatcher-type alltoall
    --expert-model-parallel-size 8
    --expert-tensor-parallel-size 1
)

PARALLEL_ARGS=(
    --tensor-model-parallel-size 4
    --sequence-parallel
    --context-parallel-size 2
    --cp-comm-type all_gather p2p all_gather p2p all_gather p2p all_gather p2p all_gather p2p all_gather p2p all_gather p2p all_gather p2p all_gather p2p all_gather p2p all_gather p2p all_gather p2p all_gather p2p all_gather p2p all_gather p2p all_gather p2p all_gather p2p all_gather p2p
    --pipeline-model-parallel-size 4
    --use-distributed-optimizer
    --overlap-grad-reduce
    --overlap-param-gather
)

TRAINING_ARGS=(
    --micro-batch-size 1
    --global-batch-size 256
    --bf16
    --recompute-granularity selective
)

# torchrun "${TORCHRUN_ARGS[@]}" pretrain_gpt.py "${MODEL_ARGS[@]}" "${MOE_ARGS[@]}" "${PARALLEL_ARGS[@]}" "${TRAINING_ARGS[@]}" <data, tokenizer and optimizer arguments>
