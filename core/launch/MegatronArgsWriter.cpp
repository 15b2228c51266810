// SPDX-License-Identifier: Apache-2.0
#include "core/launch/MegatronArgsWriter.h"
#include "core/search/NumberText.h"

#include "core/launch/FrameworkGaps.h"
#include "core/launch/LaunchHosts.h"
#include "core/launch/LaunchMarker.h"
#include "core/model/MoeLayerPattern.h"
#include "core/parallel/PipelineSplit.h"
#include "core/parallel/StageLayout.h"

#include <sstream>
#include <vector>

namespace parallax::core {

namespace {
struct Block {
    std::string name;
    std::vector<std::string> lines; // "--flag value" or "# NOTE: ..."
};

std::string num(long long v)
{
    return std::to_string(v);
}

// What Megatron-LM lacks of the design (core/launch/FrameworkGaps.h), as NOTE lines at their place.
void addGapNotes(const Scenario& s, GapPlace place, std::vector<std::string>& l)
{
    for (std::string& note : gapNotes(s, LaunchFramework::MegatronLm, place))
        l.push_back(std::move(note));
}

Block modelArgs(const Scenario& s)
{
    const ModelSpec& m = s.model;
    Block b { "MODEL_ARGS", {} };
    auto& l = b.lines;
    l.emplace_back("--num-layers " + num(m.layers));
    l.emplace_back("--hidden-size " + num(m.hidden));
    l.emplace_back("--ffn-hidden-size " + num(m.ffnHidden));
    l.emplace_back("--num-attention-heads " + num(m.heads));
    if (!m.mla && m.kvHeads > 0 && m.kvHeads != m.heads) {
        l.emplace_back("--group-query-attention");
        l.emplace_back("--num-query-groups " + num(m.kvHeads));
    }
    if (m.headDim > 0 && m.headDim * static_cast<long long>(m.heads) != m.hidden)
        l.emplace_back("--kv-channels " + num(m.headDim));
    if (m.mla) {
        l.emplace_back("--multi-latent-attention");
        if (m.mla->qLoraRank > 0)
            l.emplace_back("--q-lora-rank " + num(m.mla->qLoraRank));
        l.emplace_back("--kv-lora-rank " + num(m.mla->kvLoraRank));
        l.emplace_back("--qk-head-dim " + num(m.mla->qkNopeHeadDim));
        l.emplace_back("--qk-pos-emb-head-dim " + num(m.mla->qkRopeHeadDim));
        l.emplace_back("--v-head-dim " + num(m.mla->vHeadDim));
    }
    // Sliding-window attention (Megatron-Core TransformerConfig window_size, window_attn_skip_freq: one full layer
    // after N - 1 windowed ones); chunks run as windows of the chunk size (FrameworkGaps).
    if (m.slidingWindow > 0) {
        l.emplace_back("--window-size " + num(m.slidingWindow) + ",0");
        if (m.slidingWindowPattern > 0)
            l.emplace_back("--window-attn-skip-freq " + num(m.slidingWindowPattern));
    }
    l.emplace_back("--seq-length " + num(s.seqLen()));
    l.emplace_back("--max-position-embeddings " + num(m.seqLen));
    l.emplace_back("--vocab-size " + num(m.vocab));
    if (m.activation == Activation::SwiGlu)
        l.emplace_back("--swiglu");
    l.push_back(std::string("--normalization ") + (m.biases ? "LayerNorm" : "RMSNorm"));
    l.push_back(
        std::string("--position-embedding-type ") + (m.learnedPositionEmbeddings ? "learned_absolute" : "rope"));
    if (!m.tiedEmbeddings)
        l.emplace_back("--untie-embeddings-and-output-weights");
    if (!m.biases)
        l.emplace_back("--disable-bias-linear");
    const char* dropout = m.dropout ? "0.1" : "0.0";
    l.push_back(std::string("--attention-dropout ") + dropout);
    l.push_back(std::string("--hidden-dropout ") + dropout);
    if (!s.training.flashAttention)
        l.emplace_back("--attention-backend unfused");
    // Multi-token prediction on the last pipeline stage (Megatron-Core docs, "Multi-Token Prediction").
    if (m.mtpLayers > 0)
        l.emplace_back("--mtp-num-layers " + num(m.mtpLayers));
    if (m.parallelBlock)
        l.emplace_back(LaunchMarker::serialBlockNote("Megatron-LM"));
    return b;
}

Block moeArgs(const Scenario& s)
{
    const ModelSpec& m = s.model;
    Block b { "MOE_ARGS", {} };
    auto& l = b.lines;
    l.emplace_back("--num-experts " + num(m.moe->experts));
    l.emplace_back("--moe-router-topk " + num(m.moe->topK));
    l.emplace_back("--moe-ffn-hidden-size " + num(m.moe->expertFfnHidden));
    if (m.moe->sharedExperts > 0)
        l.emplace_back("--moe-shared-expert-intermediate-size " + num(m.moe->sharedExperts * m.moe->expertFfnHidden));
    if (const std::string freq = moeLayerFreqPattern(m); !freq.empty())
        l.push_back("--moe-layer-freq \"" + freq + "\"");
    if (m.moe->routerGroups > 0) {
        l.emplace_back("--moe-router-num-groups " + num(m.moe->routerGroups));
        l.emplace_back("--moe-router-group-topk " + num(m.moe->routerGroupTopk));
    }
    l.emplace_back("--moe-grouped-gemm");
    if (s.training.moeTokenDispatcher == MoeDispatcher::DeepEp) {
        l.emplace_back("--moe-token-dispatcher-type flex");
        l.emplace_back("--moe-flex-dispatcher-backend deepep");
        l.emplace_back("--moe-deepep-num-sms " + num(s.training.moeDeepepNumSms));
    } else {
        l.emplace_back("--moe-token-dispatcher-type alltoall");
    }
    addGapNotes(s, GapPlace::Moe, l);
    if (s.training.moeExpertCapacityFactor > 0)
        l.emplace_back("--moe-expert-capacity-factor " + fixedText(s.training.moeExpertCapacityFactor, 2));
    if (s.training.moePadExpertInputToCapacity && s.training.moeExpertCapacityFactor > 0)
        l.emplace_back("--moe-pad-expert-input-to-capacity");
    l.emplace_back("--expert-model-parallel-size " + num(s.parallel.ep));
    l.emplace_back("--expert-tensor-parallel-size " + num(s.parallel.etp));
    return b;
}

void pipelineArgs(const Scenario& s, std::vector<std::string>& l)
{
    const ParallelConfig& p = s.parallel;
    const int layers = s.model.layers;
    l.emplace_back("--pipeline-model-parallel-size " + num(p.pp));
    addGapNotes(s, GapPlace::Pipeline, l);
    if (hasUnevenSplit(p)) {
        // The scenario's own split (parallel.first/last_stage_layers, account_for_*): Megatron-Core's flags of
        // the same meaning (core/parallel/PipelineSplit.h).
        if (p.firstStageLayers > 0)
            l.emplace_back("--decoder-first-pipeline-num-layers " + num(p.firstStageLayers));
        if (p.lastStageLayers > 0)
            l.emplace_back("--decoder-last-pipeline-num-layers " + num(p.lastStageLayers));
        if (p.accountForEmbedding)
            l.emplace_back("--account-for-embedding-in-pipeline-split");
        if (p.accountForLoss)
            l.emplace_back("--account-for-loss-in-pipeline-split");
        // A custom layout states its virtual stages itself (Megatron-Core infers vpp from it).
        if (!p.pipelineLayout.empty())
            l.emplace_back("--pipeline-model-parallel-layout \"" + p.pipelineLayout + "\"");
        else if (p.vpp > 1)
            l.emplace_back("--num-virtual-stages-per-pipeline-rank " + num(p.vpp));
    } else if (p.vpp > 1) {
        if (layers % (p.pp * p.vpp) == 0)
            l.emplace_back("--num-layers-per-virtual-pipeline-stage " + num(layers / (p.pp * p.vpp)));
        else
            l.emplace_back("--num-virtual-stages-per-pipeline-rank " + num(p.vpp));
    } else if (p.pp > 1 && layers % p.pp != 0) {
        // Megatron splits evenly unless told the first and last stages' share; Parallax's StageLayout
        // gives the remainder's shortfall to those two stages (Llama 3, arXiv:2407.21783 sec. 3.3.2).
        const StageLayout layout(layers, p.pp);
        bool middleEven = true;
        for (int st = 2; st + 1 < p.pp; ++st)
            middleEven = middleEven && layout.layerCount(st) == layout.layerCount(1);
        if (middleEven) {
            l.emplace_back("--decoder-first-pipeline-num-layers " + num(layout.layerCount(0)));
            l.emplace_back("--decoder-last-pipeline-num-layers " + num(layout.layerCount(p.pp - 1)));
        } else {
            l.emplace_back("# NOTE: " + num(layers) + " layers over pp=" + num(p.pp)
                + " leave middle stages of unequal size, which Megatron-LM cannot express; choose pp so that the "
                  "middle stages are equal");
        }
    }
}

Block parallelArgs(const Scenario& s)
{
    const ParallelConfig& p = s.parallel;
    Block b { "PARALLEL_ARGS", {} };
    auto& l = b.lines;
    l.emplace_back("--tensor-model-parallel-size " + num(p.tp));
    if (p.sp)
        l.emplace_back("--sequence-parallel");
    l.emplace_back("--context-parallel-size " + num(p.cp));
    // TE's p2p ring has no sliding windows (Megatron-LM PR #1160): all_gather on the windowed layers (nargs='+').
    if (const std::vector<std::string> types = megatronCpCommTypes(s); !types.empty()) {
        std::string flag = "--cp-comm-type";
        for (const std::string& t : types)
            flag += " " + t;
        l.push_back(flag);
    }
    if (p.cp > 1 && p.cpCommType == CpCommType::A2aP2p && p.cpA2aSize > 0) // the all-to-all level first
        l.emplace_back("--hierarchical-context-parallel-sizes " + num(p.cpA2aSize) + " " + num(p.cp / p.cpA2aSize));
    pipelineArgs(s, l);
    if (p.order == "tp-cp-ep-pp-dp")
        l.emplace_back("--use-tp-pp-dp-mapping");
    addGapNotes(s, GapPlace::Parallel, l);
    if (p.zero >= 1)
        l.emplace_back("--use-distributed-optimizer");
    const OptimizerPrecision& o = s.training.optimizer;
    if (o.precisionAware) {
        // megatron/training/arguments.py: the precision-aware optimizer and its dtypes.
        l.emplace_back("--use-precision-aware-optimizer");
        for (OptimizerField f : kOptimizerFields) {
            if (fieldValue(o, f) == StateDType::Fp32)
                continue;
            l.push_back(megatronFlag(f) + " " + toString(fieldValue(o, f)));
        }
        if (!o.storeParamRemainders)
            l.emplace_back("--no-store-param-remainders");
    }
    if (p.zero >= 2) {
        l.emplace_back("--use-megatron-fsdp");
        l.push_back(
            std::string("--data-parallel-sharding-strategy ") + (p.zero == 2 ? "optim_grads" : "optim_grads_params"));
        l.emplace_back("--ckpt-format fsdp_dtensor");
    }
    if (p.dpOverlap) {
        l.emplace_back("--overlap-grad-reduce");
        if (p.zero >= 1)
            l.emplace_back("--overlap-param-gather");
        if (p.ddpBucketSize > 0)
            l.emplace_back("--ddp-bucket-size " + std::to_string(p.ddpBucketSize));
    }
    if (p.tpCommOverlap)
        l.emplace_back("--tp-comm-overlap");
    if (!p.p2pOverlap)
        l.emplace_back("--no-overlap-p2p-communication");
    if (!p.gradReduceInFp32)
        l.emplace_back("--grad-reduce-in-bf16");
    return b;
}

Block trainingArgs(const Scenario& s)
{
    const TrainingConfig& t = s.training;
    Block b { "TRAINING_ARGS", {} };
    auto& l = b.lines;
    l.emplace_back("--micro-batch-size " + num(t.microBatch));
    l.emplace_back("--global-batch-size " + num(t.globalBatch));
    l.emplace_back("--bf16");
    if (t.dtype == DType::Fp8) {
        l.emplace_back("--fp8-format hybrid");
        if (s.model.isMoe())
            l.emplace_back("# NOTE: DeepSeek-V3's FP8 recipe uses 1x128 / 128x128 block scaling; Megatron-LM's closest "
                           "is --fp8-recipe blockwise (Transformer Engine 2.3+)");
    }
    if (t.recompute == Recompute::Selective) {
        l.emplace_back("--recompute-granularity selective");
        if (t.recomputeModules != recompute_module::kDefault) {
            std::string modules = "--recompute-modules";
            for (const std::string& name : recomputeModuleNames(t.recomputeModules))
                modules += " " + name;
            l.push_back(modules);
        }
    } else if (t.recompute == Recompute::Full) {
        l.emplace_back("--recompute-granularity full");
        l.emplace_back("--recompute-method uniform");
        l.emplace_back("--recompute-num-layers 1");
    }
    if (t.activationFuncFp8InputStore)
        l.emplace_back("--activation-func-fp8-input-store");
    addGapNotes(s, GapPlace::Training, l);
    return b;
}

std::vector<Block> blocks(const Scenario& s)
{
    std::vector<Block> out;
    const LaunchHosts hosts = launchHosts(s.topology);
    out.push_back(
        { "TORCHRUN_ARGS", { "--nnodes " + num(hosts.hosts), "--nproc-per-node " + num(hosts.gpusPerHost) } });
    out.push_back(modelArgs(s));
    if (s.model.isMoe())
        out.push_back(moeArgs(s));
    out.push_back(parallelArgs(s));
    out.push_back(trainingArgs(s));
    return out;
}
} // namespace

namespace {
void printBlock(std::ostringstream& o, const Block& b)
{
    o << "\n" << b.name << "=(\n";
    for (const auto& line : b.lines)
        o << "    " << line << "\n";
    o << ")\n";
}
} // namespace

std::string MegatronArgsWriter::write(const Scenario& s)
{
    std::ostringstream o;
    const ParallelConfig& p = s.parallel;
    o << "# Megatron-LM arguments for \"" << LaunchMarker::oneLine(s.name) << "\", written by Parallax.\n"
      << "# Flag names as in Megatron-LM core_r0.14.0 (megatron/training/arguments.py).\n"
      << "# " << s.topology.gpuCount() << " GPUs = tp " << p.tp << " x cp " << p.cp << " x pp " << p.pp << " x dp "
      << p.dp << "\n";
    for (const auto& line : LaunchMarker::lines(s))
        o << line << "\n";
    const auto all = blocks(s);
    for (const auto& b : all)
        printBlock(o, b);
    o << "\n# torchrun \"${TORCHRUN_ARGS[@]}\" pretrain_gpt.py";
    for (const auto& b : all) {
        if (b.name != "TORCHRUN_ARGS")
            o << " \"${" << b.name << "[@]}\"";
    }
    o << " <data, tokenizer and optimizer arguments>\n";
    return o.str();
}

std::string MegatronArgsWriter::argumentArrays(const Scenario& s, std::vector<std::string>& names)
{
    std::ostringstream o;
    names.clear();
    for (const auto& b : blocks(s)) {
        if (b.name == "TORCHRUN_ARGS")
            continue;
        printBlock(o, b);
        names.push_back(b.name);
    }
    return o.str();
}

std::string MegatronArgsWriter::flagsOnly(const Scenario& s)
{
    std::ostringstream o;
    for (const auto& b : blocks(s)) {
        if (b.name == "TORCHRUN_ARGS")
            continue;
        for (const auto& line : b.lines) {
            if (line.rfind('#', 0) != 0)
                o << line << "\n";
        }
    }
    return o.str();
}

} // namespace parallax::core
