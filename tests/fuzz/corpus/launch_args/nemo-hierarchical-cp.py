# NeMo 2.0 recipe overrides for "Llama 3 8B, hierarchical CP", written by Parallax.
# Names as in NeMo 25.07: nemo.collections.llm recipes, nemo.lightning.MegatronStrategy, Megatron-Core
# TransformerConfig and DistributedDataParallelConfig.
# parallax-name: Llama 3 8B, hierarchical CP
# parallax-scenario: gpu=h100-sxm nic_gbps=400 nics_per_node=8 oversubscription=2 schedule=1f1b zero=1 order=tp-cp-ep-pp-dp model=llama3-8b
import nemo_run as run
import torch
from nemo.collections import llm
from nemo.collections.llm.recipes.precision.mixed_precision import bf16_mixed

recipe = llm.llama3_8b.pretrain_recipe(name="parallax", num_nodes=4, num_gpus_per_node=8)
recipe.trainer.num_nodes = 4
recipe.trainer.devices = 8

# Parallelism
recipe.trainer.strategy.tensor_model_parallel_size = 1
recipe.trainer.strategy.sequence_parallel = True
recipe.trainer.strategy.context_parallel_size = 8
recipe.trainer.strategy.pipeline_model_parallel_size = 2
recipe.model.config.cp_comm_type = "a2a+p2p"
recipe.model.config.hierarchical_context_parallel_sizes = [2, 4]
recipe.trainer.strategy.pipeline_dtype = torch.bfloat16
recipe.trainer.strategy.virtual_pipeline_model_parallel_size = None
recipe.trainer.strategy.use_tp_pp_dp_mapping = True
recipe.optim.config.use_distributed_optimizer = True
recipe.trainer.strategy.ddp.overlap_grad_reduce = True
recipe.trainer.strategy.ddp.overlap_param_gather = True
recipe.trainer.strategy.ddp.grad_reduce_in_fp32 = True

# Batch and sequence
recipe.data.micro_batch_size = 1
recipe.data.global_batch_size = 64
recipe.data.seq_length = 8192
recipe.model.config.seq_length = 8192

# Model shape
recipe.model.config.num_layers = 32
recipe.model.config.hidden_size = 4096
recipe.model.config.ffn_hidden_size = 14336
recipe.model.config.num_attention_heads = 32
recipe.model.config.num_query_groups = 8
recipe.model.config.kv_channels = 128
recipe.model.config.vocab_size = 128256
recipe.model.config.max_position_embeddings = 8192
recipe.model.config.gated_linear_unit = True
recipe.model.config.add_bias_linear = False
recipe.model.config.share_embeddings_and_output_weights = False
recipe.model.config.position_embedding_type = "rope"
recipe.model.config.normalization = "RMSNorm"
recipe.model.config.attention_dropout = 0.0
recipe.model.config.hidden_dropout = 0.0

# Recompute and precision
recipe.model.config.recompute_granularity = "selective"
recipe.trainer.plugins = bf16_mixed()

run.run(recipe, executor=run.LocalExecutor(ntasks_per_node=8, launcher="torchrun"))
