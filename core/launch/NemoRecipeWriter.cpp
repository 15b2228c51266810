// SPDX-License-Identifier: Apache-2.0
#include "core/launch/NemoRecipeWriter.h"
#include "core/search/NumberText.h"

#include "core/launch/FrameworkGaps.h"
#include "core/launch/LaunchHosts.h"
#include "core/launch/LaunchMarker.h"
#include "core/model/MoeLayerPattern.h"

#include <map>
#include <sstream>

namespace parallax::core {

namespace {
const char* py(bool b)
{
    return b ? "True" : "False";
}

// Parallax model presets that NeMo ships a recipe for (nemo/collections/llm/recipes/*.py).
std::string recipeFor(const std::string& preset)
{
    static const std::map<std::string, std::string> recipes { { "llama3-8b", "llama3_8b" },
        { "llama3-70b", "llama3_70b" }, { "llama3-405b", "llama31_405b" }, { "mixtral-8x7b", "mixtral_8x7b" },
        { "deepseek-v3", "deepseek_v3" }, { "gpt3-175b", "gpt3_175b" } };
    const auto it = recipes.find(preset);
    return it == recipes.end() ? std::string() : it->second;
}
} // namespace

std::string NemoRecipeWriter::write(const Scenario& s)
{
    const ParallelConfig& p = s.parallel;
    const TrainingConfig& t = s.training;
    const ModelSpec& m = s.model;
    const LaunchHosts hosts = launchHosts(s.topology);
    const int nodes = hosts.hosts;
    const int perNode = hosts.gpusPerHost;
    std::ostringstream o;
    o << "# NeMo 2.0 recipe overrides for \"" << LaunchMarker::oneLine(s.name) << "\", written by Parallax.\n"
      << "# Names as in NeMo 25.07: nemo.collections.llm recipes, nemo.lightning.MegatronStrategy, Megatron-Core\n"
      << "# TransformerConfig and DistributedDataParallelConfig.\n";
    for (const auto& line : LaunchMarker::lines(s))
        o << line << "\n";
    o << "import nemo_run as run\nimport torch\nfrom nemo.collections import llm\n"
      << "from nemo.collections.llm.recipes.precision.mixed_precision import bf16_mixed\n\n";
    std::string recipe = recipeFor(s.modelPreset);
    if (recipe.empty()) {
        o << "# NOTE: NeMo ships no recipe for " << LaunchMarker::oneLine(m.name)
          << "; this starts from llama3_8b and sets the whole model shape below\n";
        recipe = "llama3_8b";
    }
    o << "recipe = llm." << recipe << ".pretrain_recipe(name=\"parallax\", num_nodes=" << nodes
      << ", num_gpus_per_node=" << perNode << ")\n"
      << "recipe.trainer.num_nodes = " << nodes << "\n"
      << "recipe.trainer.devices = " << perNode << "\n\n";

    const std::string st = "recipe.trainer.strategy.";
    o << "# Parallelism\n"
      << st << "tensor_model_parallel_size = " << p.tp << "\n"
      << st << "sequence_parallel = " << py(p.sp) << "\n"
      << st << "context_parallel_size = " << p.cp << "\n"
      << st << "pipeline_model_parallel_size = " << p.pp << "\n";
    // TE's p2p ring has no sliding windows: all_gather on the windowed layers (a string, or a list per layer).
    if (const std::vector<std::string> types = megatronCpCommTypes(s); types.size() == 1) {
        o << "recipe.model.config.cp_comm_type = \"" << types.front() << "\"\n";
    } else if (!types.empty()) {
        o << "recipe.model.config.cp_comm_type = [";
        for (std::size_t i = 0; i < types.size(); ++i)
            o << (i > 0 ? ", \"" : "\"") << types[i] << "\"";
        o << "]\n";
    }
    if (p.cp > 1 && p.cpCommType == CpCommType::A2aP2p && p.cpA2aSize > 0) // ModelParallelConfig, the a2a level first
        o << "recipe.model.config.hierarchical_context_parallel_sizes = [" << p.cpA2aSize << ", " << p.cp / p.cpA2aSize
          << "]\n";
    if (p.pp > 1)
        o << st << "pipeline_dtype = torch.bfloat16\n";
    o << st << "virtual_pipeline_model_parallel_size = " << (p.vpp > 1 ? std::to_string(p.vpp) : "None") << "\n";
    // Uneven split: MegatronStrategy's num_layers_in_first/last_pipeline_stage and account_for_*_in_pipeline_split
    // (the TransformerConfig fields of the same names, core/parallel/PipelineSplit.h).
    if (p.firstStageLayers > 0)
        o << st << "num_layers_in_first_pipeline_stage = " << p.firstStageLayers << "\n";
    if (p.lastStageLayers > 0)
        o << st << "num_layers_in_last_pipeline_stage = " << p.lastStageLayers << "\n";
    if (p.accountForEmbedding)
        o << st << "account_for_embedding_in_pipeline_split = True\n";
    if (p.accountForLoss)
        o << st << "account_for_loss_in_pipeline_split = True\n";
    // TransformerConfig.pipeline_model_parallel_layout, the field --pipeline-model-parallel-layout sets.
    if (!p.pipelineLayout.empty())
        o << st << "pipeline_model_parallel_layout = \"" << p.pipelineLayout << "\"\n";
    o << gapNoteText(s, LaunchFramework::Nemo, GapPlace::Pipeline);
    if (m.isMoe())
        o << st << "expert_model_parallel_size = " << p.ep << "\n"
          << st << "expert_tensor_parallel_size = " << p.etp << "\n";
    if (p.order == "tp-cp-ep-pp-dp")
        o << st << "use_tp_pp_dp_mapping = True\n";
    o << gapNoteText(s, LaunchFramework::Nemo, GapPlace::Parallel);
    o << "recipe.optim.config.use_distributed_optimizer = " << py(p.zero >= 1) << "\n";
    const OptimizerPrecision& opt = s.training.optimizer;
    if (opt.precisionAware) {
        // Megatron-Core OptimizerConfig (megatron/core/optimizer/optimizer_config.py): torch dtypes.
        o << "recipe.optim.config.use_precision_aware_optimizer = True\n";
        for (OptimizerField f : kOptimizerFields) {
            if (fieldValue(opt, f) != StateDType::Fp32)
                o << "recipe.optim.config." << fieldKey(f) << " = " << torchDtypeName(fieldValue(opt, f)) << "\n";
        }
        if (!opt.storeParamRemainders)
            o << "recipe.optim.config.store_param_remainders = False\n";
    }
    if (p.zero >= 2)
        o << st << "fsdp = \"megatron\"\n"
          << st << "ddp.data_parallel_sharding_strategy = \"" << (p.zero == 2 ? "optim_grads" : "optim_grads_params")
          << "\"\n";
    o << st << "ddp.overlap_grad_reduce = " << py(p.dpOverlap) << "\n"
      << st << "ddp.overlap_param_gather = " << py(p.dpOverlap && p.zero >= 1) << "\n"
      << st << "ddp.grad_reduce_in_fp32 = " << py(p.gradReduceInFp32) << "\n";
    if (p.ddpBucketSize > 0 && p.dpOverlap)
        o << st << "ddp.bucket_size = " << p.ddpBucketSize << "\n";
    if (p.tpCommOverlap)
        o << "from nemo.lightning.pytorch.callbacks.megatron_comm_overlap import MegatronCommOverlapCallback\n"
          << "recipe.trainer.callbacks.append(run.Config(MegatronCommOverlapCallback, tp_comm_overlap=True))\n";

    const std::string mc = "recipe.model.config.";
    o << "\n# Batch and sequence\n"
      << "recipe.data.micro_batch_size = " << t.microBatch << "\n"
      << "recipe.data.global_batch_size = " << t.globalBatch << "\n"
      << "recipe.data.seq_length = " << s.seqLen() << "\n"
      << mc << "seq_length = " << s.seqLen() << "\n";

    o << "\n# Model shape\n"
      << mc << "num_layers = " << m.layers << "\n"
      << mc << "hidden_size = " << m.hidden << "\n"
      << mc << "ffn_hidden_size = " << m.ffnHidden << "\n"
      << mc << "num_attention_heads = " << m.heads << "\n"
      << mc << "num_query_groups = " << (m.mla ? m.heads : m.kvHeads) << "\n";
    if (m.headDim > 0)
        o << mc << "kv_channels = " << m.headDim << "\n";
    o << mc << "vocab_size = " << m.vocab << "\n"
      << mc << "max_position_embeddings = " << m.seqLen << "\n"
      << mc << "gated_linear_unit = " << py(m.activation == Activation::SwiGlu) << "\n"
      << mc << "add_bias_linear = " << py(m.biases) << "\n"
      << mc << "share_embeddings_and_output_weights = " << py(m.tiedEmbeddings) << "\n"
      << mc << "position_embedding_type = \"" << (m.learnedPositionEmbeddings ? "learned_absolute" : "rope") << "\"\n"
      << mc << "normalization = \"" << (m.biases ? "LayerNorm" : "RMSNorm") << "\"\n"
      << mc << "attention_dropout = " << (m.dropout ? "0.1" : "0.0") << "\n"
      << mc << "hidden_dropout = " << (m.dropout ? "0.1" : "0.0") << "\n";
    if (m.mtpLayers > 0)
        o << mc << "mtp_num_layers = " << m.mtpLayers << "\n";
    if (m.slidingWindow > 0) { // Megatron-Core TransformerConfig: window (left, right), one full layer every N
        o << mc << "window_size = (" << m.slidingWindow << ", 0)\n";
        if (m.slidingWindowPattern > 0)
            o << mc << "window_attn_skip_freq = " << m.slidingWindowPattern << "\n";
    }
    if (m.parallelBlock)
        o << LaunchMarker::serialBlockNote("NeMo's Megatron-Core GPT") << "\n";
    if (m.mla) {
        if (m.mla->qLoraRank > 0)
            o << mc << "q_lora_rank = " << m.mla->qLoraRank << "\n";
        o << mc << "kv_lora_rank = " << m.mla->kvLoraRank << "\n"
          << mc << "qk_head_dim = " << m.mla->qkNopeHeadDim << "\n"
          << mc << "qk_pos_emb_head_dim = " << m.mla->qkRopeHeadDim << "\n"
          << mc << "v_head_dim = " << m.mla->vHeadDim << "\n";
    }
    if (m.isMoe()) {
        o << mc << "num_moe_experts = " << m.moe->experts << "\n"
          << mc << "moe_router_topk = " << m.moe->topK << "\n"
          << mc << "moe_ffn_hidden_size = " << m.moe->expertFfnHidden << "\n";
        if (m.moe->sharedExperts > 0)
            o << mc << "moe_shared_expert_intermediate_size = " << m.moe->sharedExperts * m.moe->expertFfnHidden
              << "\n";
        if (const std::string freq = moeLayerFreqPattern(m); !freq.empty())
            o << mc << "moe_layer_freq = " << freq << "\n";
        if (s.training.moeExpertCapacityFactor > 0)
            o << mc << "moe_expert_capacity_factor = " << fixedText(s.training.moeExpertCapacityFactor, 2) << "\n";
        if (s.training.moePadExpertInputToCapacity && s.training.moeExpertCapacityFactor > 0)
            o << mc << "moe_pad_expert_input_to_capacity = True\n";
        if (m.moe->routerGroups > 0)
            o << mc << "moe_router_num_groups = " << m.moe->routerGroups << "\n"
              << mc << "moe_router_group_topk = " << m.moe->routerGroupTopk << "\n";
        if (s.training.moeTokenDispatcher == MoeDispatcher::DeepEp)
            o << mc << "moe_token_dispatcher_type = \"flex\"\n"
              << mc << "moe_flex_dispatcher_backend = \"deepep\"\n"
              << mc << "moe_deepep_num_sms = " << s.training.moeDeepepNumSms << "\n";
        o << gapNoteText(s, LaunchFramework::Nemo, GapPlace::Moe);
    }

    o << "\n# Recompute and precision\n";
    if (t.recompute == Recompute::None)
        o << mc << "recompute_granularity = None\n";
    else if (t.recompute == Recompute::Selective) {
        o << mc << "recompute_granularity = \"selective\"\n";
        if (t.recomputeModules != recompute_module::kDefault) {
            o << mc << "recompute_modules = [";
            const std::vector<std::string> names = recomputeModuleNames(t.recomputeModules);
            for (std::size_t i = 0; i < names.size(); ++i)
                o << (i == 0 ? "\"" : ", \"") << names[i] << "\"";
            o << "]\n";
        }
    } else
        o << mc << "recompute_granularity = \"full\"\n"
          << mc << "recompute_method = \"uniform\"\n"
          << mc << "recompute_num_layers = 1\n";
    if (!t.flashAttention)
        o << "from megatron.core.transformer.enums import AttnBackend\n"
          << mc << "attention_backend = AttnBackend.unfused\n";
    if (t.activationFuncFp8InputStore)
        o << mc << "activation_func_fp8_input_store = True\n";
    o << gapNoteText(s, LaunchFramework::Nemo, GapPlace::Training);
    o << "recipe.trainer.plugins = bf16_mixed()\n";
    if (t.dtype == DType::Fp8)
        o << "recipe.trainer.plugins.fp8 = \"hybrid\"\n";
    o << "\nrun.run(recipe, executor=run.LocalExecutor(ntasks_per_node=" << perNode << ", launcher=\"torchrun\"))\n";
    return o.str();
}

} // namespace parallax::core
