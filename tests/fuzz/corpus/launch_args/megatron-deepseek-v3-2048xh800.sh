# Megatron-LM arguments for "DeepSeek-V3 on 2048 H800", written by Parallax.
# Flag names as in Megatron-LM core_r0.14.0 (megatron/training/arguments.py).
# 2048 GPUs = tp 1 x cp 1 x pp 16 x dp 128
# parallax-name: DeepSeek-V3 on 2048 H800
# parallax-scenario: gpu=h800-sxm nic_gbps=400 nics_per_node=8 schedule=dualpipe zero=1 order=tp-cp-ep-dp-pp model=deepseek-v3 deepseek_activation_cache=true deepseek_fp8_dispatch=true

TORCHRUN_ARGS=(
    --nnodes 256
    --nproc-per-node 8
)

MODEL_ARGS=(
    --num-layers 61
    --hidden-size 7168
    --ffn-hidden-size 18432
    --num-attention-heads 128
    --kv-channels 128
    --multi-latent-attention
    --q-lora-rank 1536
    --kv-lora-rank 512
    --qk-head-dim 128
    --qk-pos-emb-head-dim 64
    --v-head-dim 128
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
    --mtp-num-layers 1
)

MOE_ARGS=(
    --num-experts 256
    --moe-router-topk 8
    --moe-ffn-hidden-size 2048
    --moe-shared-expert-intermediate-size 2048
    --moe-layer-freq "([0]*3+[1]*58)"
    --moe-router-num-groups 8
    --moe-router-group-topk 4
    --moe-grouped-gemm
    --moe-token-dispatcher-type flex
    --moe-flex-dispatcher-backend deepep
    --moe-deepep-num-sms 20
    # NOTE: Megatron-LM's DeepEP dispatch sends bf16 tokens; DeepSeek-V3's fp8 dispatch (arXiv:2412.19437 sec. 3.3.2) has no flag, so the dispatch moves about twice the bytes the scenario assumes
    --expert-model-parallel-size 64
    --expert-tensor-parallel-size 1
)

PARALLEL_ARGS=(
    --tensor-model-parallel-size 1
    --context-parallel-size 1
    --pipeline-model-parallel-size 16
    # NOTE: Megatron-LM has no dualpipe schedule (arXiv:2412.19437 sec. 3.2.1); use interleaved 1F1B (--num-layers-per-virtual-pipeline-stage), or torchtitan's DualPipeV
    --decoder-last-pipeline-num-layers 1
    --use-distributed-optimizer
    --use-precision-aware-optimizer
    --exp-avg-dtype bf16
    --exp-avg-sq-dtype bf16
    --no-store-param-remainders
    --overlap-grad-reduce
    --overlap-param-gather
)

TRAINING_ARGS=(
    --micro-batch-size 1
    --global-batch-size 15360
    --bf16
    --fp8-format hybrid
    # NOTE: DeepSeek-V3's FP8 recipe uses 1x128 / 128x128 block scaling; Megatron-LM's closest is --fp8-recipe blockwise (Transformer Engine 2.3+)
    --recompute-granularity selective
    --recompute-modules moe_act layernorm mla_up_proj
    # NOTE: Megatron-LM has no flag for DeepSeek-V3's activation cache (fp8 SwiGLU inputs under moe_act recompute, E5M6 attention output; arXiv:2412.19437 sec. 3.3.2): it runs with more activation memory than the scenario assumes
)

# torchrun "${TORCHRUN_ARGS[@]}" pretrain_gpt.py "${MODEL_ARGS[@]}" "${MOE_ARGS[@]}" "${PARALLEL_ARGS[@]}" "${TRAINING_ARGS[@]}" <data, tokenizer and optimizer arguments>
