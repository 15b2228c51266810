# Megatron-LM arguments for "Llama 3 8B, hierarchical CP", written by Parallax.
# Flag names as in Megatron-LM core_r0.14.0 (megatron/training/arguments.py).
# 32 GPUs = tp 1 x cp 8 x pp 2 x dp 2
# parallax-name: Llama 3 8B, hierarchical CP
# parallax-scenario: gpu=h100-sxm nic_gbps=400 nics_per_node=8 oversubscription=2 schedule=1f1b zero=1 order=tp-cp-ep-pp-dp model=llama3-8b

TORCHRUN_ARGS=(
    --nnodes 4
    --nproc-per-node 8
)

MODEL_ARGS=(
    --num-layers 32
    --hidden-size 4096
    --ffn-hidden-size 14336
    --num-attention-heads 32
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
    --tensor-model-parallel-size 1
    --sequence-parallel
    --context-parallel-size 8
    --cp-comm-type a2a+p2p
    --hierarchical-context-parallel-sizes 2 4
    --pipeline-model-parallel-size 2
    --use-tp-pp-dp-mapping
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
