#include "core/validation/PublishedRun.h"

#include "core/PresetLibrary.h"
#include "core/validation/SourceConventions.h"

#include <cmath>

namespace parallax::core {

namespace {

using nlohmann::json;

std::optional<double> number(const json& j, const char* key)
{
    if (!j.is_object() || !j.contains(key) || !j[key].is_number())
        return std::nullopt;
    return j[key].get<double>();
}

std::string text(const json& j, const char* key)
{
    return j.is_object() && j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : std::string();
}

bool contains(const std::string& haystack, const char* needle)
{
    return haystack.find(needle) != std::string::npos;
}

// GPU preset of a record's hardware description ("NVIDIA A100 SXM 80GB", "NVIDIA H100 80GB HBM3 SXM").
std::string gpuPreset(const std::string& gpu)
{
    if (contains(gpu, "GB200"))
        return "gb200";
    if (contains(gpu, "B200"))
        return "b200";
    if (contains(gpu, "H200"))
        return "h200";
    if (contains(gpu, "H800"))
        return "h800-sxm";
    if (contains(gpu, "H100"))
        return "h100-sxm";
    if (contains(gpu, "MI300X"))
        return "mi300x";
    if (contains(gpu, "A100"))
        return "a100-sxm-80gb"; // the 40 GB part is this preset with its own HBM (see below)
    return {};
}

PublishedRunConversion skip(const std::string& id, std::string reason)
{
    PublishedRunConversion c;
    c.id = id;
    c.reason = std::move(reason);
    return c;
}

bool readSchedule(const std::string& s, int vpp, ScheduleKind& kind)
{
    if (contains(s, "ZB-V") || contains(s, "zb-v"))
        kind = ScheduleKind::ZbV;
    else if (contains(s, "DualPipeV"))
        kind = ScheduleKind::DualPipeV;
    else if (contains(s, "DualPipe"))
        kind = ScheduleKind::DualPipe;
    else if (contains(s, "2p") || contains(s, "ZB-H2"))
        kind = ScheduleKind::ZbH2;
    else if (contains(s, "Zero Bubble") || contains(s, "ZB-1p") || contains(s, "ZB-H1"))
        kind = ScheduleKind::ZbH1;
    else if (contains(s, "GPipe"))
        kind = ScheduleKind::GPipe;
    else if (contains(s, "interleaved") && vpp > 1)
        kind = ScheduleKind::Interleaved1F1B;
    else
        kind = vpp > 1 ? ScheduleKind::Interleaved1F1B : ScheduleKind::OneFOneB;
    return true;
}

} // namespace

PublishedRunConversion convertPublishedRun(const json& r)
{
    const std::string id = text(r, "id");
    if (!r.is_object() || !r.contains("model") || !r.contains("hardware") || !r.contains("parallel")
        || !r.contains("measured"))
        return skip(id, "record lacks model, hardware, parallel or measured");
    const json& m = r["model"];
    const json& hw = r["hardware"];
    const json& p = r["parallel"];
    const json& me = r["measured"];
    const std::string kind = text(r, "run_kind");
    if (contains(kind, "pipeline_bubble_reference"))
        return skip(id,
            "theoretical bubble rates from profiled pass times, not an end-to-end run (the schedule "
            "simulator is checked against them: tests/validation/BubbleReferenceTest.cpp)");
    if (contains(kind, "ramp-up") || contains(kind, "start of training"))
        return skip(id,
            "measured during the batch-size ramp-up at the start of a production run, not a steady-state "
            "step (data/README.md caveat 3)");
    if (contains(kind, "per_layer"))
        return skip(id, "per-layer microbenchmark, not a training step");

    const SourceConventions conv = sourceConventions(r);
    std::vector<std::string> assumed;

    // What to compare.
    PublishedRun run;
    run.id = id;
    run.source = conv.label;
    run.system = text(r, "system");
    const auto iteration = number(me, "iteration_time_s");
    const auto tokensPerSecond = number(me, "tokens_per_s");
    const auto tflops = number(me, "tflops_per_gpu");
    const auto mfu = number(me, "mfu");
    if (!iteration && !tokensPerSecond && !tflops && !mfu) {
        if (number(me, "tflops_per_gpu_up_to"))
            return skip(id, "only an upper bound (\"up to\" TFLOP/s) is printed");
        return skip(id, "nothing the engine predicts is printed (no step time, tokens/s, TFLOP/s or MFU)");
    }

    // Hardware.
    const std::string gpu = gpuPreset(text(hw, "gpu"));
    if (gpu.empty())
        return skip(id, "no GPU preset for \"" + text(hw, "gpu") + "\"");
    auto gpuSpec = PresetLibrary::instance().gpu(gpu);
    const auto gpuCount = number(hw, "gpu_count");
    if (gpuSpec && gpu == "a100-sxm-80gb" && number(hw, "gpu_memory_gb").value_or(80) < 79) {
        // A100 SXM4 40GB: 40 GiB of HBM2 at 1,555 GB/s, otherwise the 80 GB part (NVIDIA A100 datasheet).
        gpuSpec->id = "a100-sxm-40gb";
        gpuSpec->name = "NVIDIA A100 SXM4 40GB";
        gpuSpec->hbmBytes = 40.0 * 1024 * 1024 * 1024;
        gpuSpec->hbmBytesPerSecond = 1.555e12;
        assumed.emplace_back("GPU: A100 SXM4 40GB (40 GiB, 1,555 GB/s; the A100 preset otherwise)");
    }
    if (!gpuSpec || !gpuCount || *gpuCount < 1)
        return skip(id, "hardware.gpu_count not stated");
    run.gpu = gpu;
    int perNode = static_cast<int>(number(hw, "gpus_per_node").value_or(0));
    if (perNode <= 0) {
        perNode = 8;
        assumed.emplace_back("hardware.gpus_per_node = 8 (DGX/HGX node)");
    }
    const int gpus = static_cast<int>(*gpuCount);
    if (gpus % perNode != 0 && gpus > perNode)
        return skip(id, "gpu_count is not a multiple of gpus_per_node");
    // Rack-scale NVLink (GB200 NVL72): the domain is the rack, not the 4-GPU tray.
    int domain = perNode;
    if (gpuSpec->nvlinkDomainSize > perNode && gpus % gpuSpec->nvlinkDomainSize == 0) {
        domain = gpuSpec->nvlinkDomainSize;
        assumed.push_back("NVLink domain = " + std::to_string(domain) + " GPUs (rack-scale NVLink of " + gpu + ")");
    }
    const int nodes = std::max(1, gpus / domain);
    const int inNode = std::min(gpus, domain);
    const int nics = std::max(1, conv.nicsPerNode * inNode / 8); // the source's NICs per 8 GPUs
    run.scenario.topology = Topology::regular(*gpuSpec, nodes, inNode, conv.nicGbps, nics);
    run.scenario.nodes = nodes;
    run.scenario.gpusPerNode = inNode;
    run.scenario.gpuPreset = gpu;
    if (!conv.networkNote.empty())
        assumed.push_back(conv.networkNote);

    // Model.
    for (const char* k : { "layers", "hidden", "heads", "seq_len" }) {
        if (!number(m, k))
            return skip(id, std::string("model.") + k + " not stated");
    }
    ModelSpec& model = run.scenario.model;
    model.id = id;
    model.name = text(m, "name");
    model.layers = static_cast<int>(*number(m, "layers"));
    model.hidden = static_cast<std::int64_t>(*number(m, "hidden"));
    model.heads = static_cast<int>(*number(m, "heads"));
    model.seqLen = static_cast<int>(*number(m, "seq_len"));
    if (auto kv = number(m, "kv_heads")) {
        model.kvHeads = static_cast<int>(*kv);
    } else {
        model.kvHeads = model.heads;
        assumed.emplace_back("model.kv_heads = heads (multi-head attention, the framework default)");
    }
    if (auto ffn = number(m, "ffn_hidden")) {
        model.ffnHidden = static_cast<std::int64_t>(*ffn);
    } else {
        model.ffnHidden = 4 * model.hidden;
        assumed.emplace_back("model.ffn_hidden = 4 h (the framework default)");
    }
    if (auto vocab = number(m, "vocab")) {
        model.vocab = static_cast<std::int64_t>(*vocab);
    } else if (conv.defaultVocab > 0) {
        model.vocab = conv.defaultVocab;
        assumed.push_back("model.vocab = " + std::to_string(conv.defaultVocab) + " (" + conv.vocabNote + ")");
    } else {
        return skip(id, "model.vocab not stated and the source's framework has no default");
    }
    const std::string arch = text(m, "arch");
    model.activation = contains(arch, "SwiGLU") || contains(arch, "swiglu") ? Activation::SwiGlu : Activation::Gelu;
    model.biases = conv.gptStyle;
    model.learnedPositionEmbeddings = conv.gptStyle && !contains(arch, "ALiBi");
    model.tiedEmbeddings = conv.tiedEmbeddings || contains(arch, "tied");
    model.dropout = conv.dropout;
    if (m.contains("moe") && m["moe"].is_object()) {
        const json& moe = m["moe"];
        MoeSpec spec;
        spec.experts = static_cast<int>(number(moe, "n_routed_experts").value_or(0));
        spec.topK = static_cast<int>(number(moe, "top_k").value_or(0));
        spec.sharedExperts = static_cast<int>(number(moe, "n_shared_experts").value_or(0));
        spec.expertFfnHidden = static_cast<std::int64_t>(number(moe, "expert_ffn_hidden").value_or(0));
        for (const char* k : { "first_dense_layers", "first_k_dense_replace", "n_dense_layers", "dense_layers" })
            spec.firstDenseLayers = std::max(spec.firstDenseLayers, static_cast<int>(number(moe, k).value_or(0)));
        if (spec.experts <= 0 || spec.topK <= 0)
            return skip(id, "model.moe lacks n_routed_experts or top_k");
        if (spec.expertFfnHidden <= 0) {
            spec.expertFfnHidden = model.ffnHidden;
            assumed.emplace_back("model.moe.expert_ffn_hidden = ffn_hidden");
        }
        model.moe = spec;
    }
    if (m.contains("mla") && m["mla"].is_object()) {
        const json& mla = m["mla"];
        MlaSpec spec;
        spec.qLoraRank = static_cast<int>(number(mla, "q_lora_rank").value_or(0));
        spec.kvLoraRank = static_cast<int>(number(mla, "kv_lora_rank").value_or(0));
        spec.qkNopeHeadDim = static_cast<int>(number(mla, "qk_nope_head_dim").value_or(0));
        spec.qkRopeHeadDim = static_cast<int>(number(mla, "qk_rope_head_dim").value_or(0));
        spec.vHeadDim = static_cast<int>(number(mla, "v_head_dim").value_or(0));
        if (spec.kvLoraRank > 0)
            model.mla = spec;
    }

    // Parallel layout.
    ParallelConfig& par = run.scenario.parallel;
    TrainingConfig& train = run.scenario.training;
    const auto tp = number(p, "tp");
    if (!tp)
        return skip(id, "parallel.tp not stated");
    par.tp = static_cast<int>(*tp);
    par.pp = static_cast<int>(number(p, "pp").value_or(1));
    par.cp = static_cast<int>(number(p, "cp").value_or(1));
    par.ep = static_cast<int>(number(p, "ep").value_or(1));
    par.etp = static_cast<int>(number(p, "etp").value_or(1));
    const int modelParallel = par.tp * par.pp * par.cp;
    if (modelParallel <= 0 || gpus % modelParallel != 0)
        return skip(id, "gpu_count is not a multiple of tp * pp * cp");
    par.dp = gpus / modelParallel;
    if (p.contains("sp") && p["sp"].is_boolean()) {
        par.sp = p["sp"].get<bool>() && par.tp > 1;
    } else {
        par.sp = conv.sequenceParallelDefault && par.tp > 1;
        if (par.tp > 1)
            assumed.push_back(std::string("parallel.sp = ") + (par.sp ? "on" : "off") + " (framework default)");
    }
    if (auto z = number(p, "zero_stage")) {
        par.zero = static_cast<int>(*z);
    } else {
        par.zero = conv.defaultZero;
        assumed.push_back("parallel.zero = " + std::to_string(conv.defaultZero) + " (" + conv.zeroNote + ")");
    }
    const auto vppField = number(p, "vpp");
    par.vpp = static_cast<int>(vppField.value_or(1));
    const std::string schedule = text(p, "schedule");
    readSchedule(schedule, par.vpp, par.schedule);

    // Training.
    train.seqLen = 0;
    train.dtype = contains(text(p, "precision"), "fp8") ? DType::Fp8 : DType::Bf16;
    if (auto mb = number(p, "micro_batch")) {
        train.microBatch = static_cast<int>(*mb);
    } else {
        train.microBatch = 1;
        assumed.emplace_back("training.micro_batch = 1 (not printed)");
    }
    if (auto gb = number(p, "global_batch")) {
        train.globalBatch = static_cast<int>(*gb);
    } else if (auto tokens = number(p, "global_batch_tokens")) {
        train.globalBatch = static_cast<int>(std::lround(*tokens / model.seqLen));
        assumed.emplace_back("training.global_batch = global_batch_tokens / seq_len");
    } else {
        return skip(id, "parallel.global_batch not stated");
    }
    const std::string recompute = text(p, "recompute");
    if (contains(recompute, "full"))
        train.recompute = Recompute::Full;
    else if (contains(recompute, "selective"))
        train.recompute = Recompute::Selective;
    else if (contains(recompute, "none"))
        train.recompute = Recompute::None;
    else {
        train.recompute = conv.defaultRecompute;
        assumed.push_back(
            std::string("training.recompute = ") + toString(conv.defaultRecompute) + " (" + conv.recomputeNote + ")");
    }
    train.flashAttention = conv.flashAttention;
    par.tpCommOverlap = conv.tpCommOverlap && par.tp > 1;
    if (contains(text(p, "comm_overlap"), "--tp-comm-overlap"))
        par.tpCommOverlap = par.tp > 1;
    par.dpOverlap = conv.dpOverlap;
    par.p2pOverlap = conv.p2pOverlap;
    const std::string precision = text(p, "precision");
    par.gradReduceInFp32 = !contains(precision, "fp16"); // Megatron: fp32 for bf16, 16-bit for fp16
    if (contains(precision, "fp16"))
        assumed.emplace_back("fp16 training: gradients reduced in 16 bits (Megatron's fp16 default)");
    assumed.push_back(conv.kernelNote);

    // Interleaving not printed: the source's framework default (sourceConventions says which).
    const bool interleavingPossible = contains(schedule, "interleaved") || contains(schedule, "not stated");
    if (!vppField && par.pp > 1 && interleavingPossible && conv.defaultVirtualStages > 1) {
        const int m = par.dp > 0 ? train.globalBatch / (train.microBatch * par.dp) : 0;
        const int v = conv.defaultVirtualStages;
        if (model.layers % (par.pp * v) == 0 && m % par.pp == 0) {
            par.vpp = v;
            par.schedule = ScheduleKind::Interleaved1F1B;
            assumed.push_back("parallel.vpp = " + std::to_string(v) + " (interleaved, chunks not printed)");
        }
    }
    if (par.schedule != ScheduleKind::Interleaved1F1B)
        par.vpp = 1; // V-shaped and DualPipe schedules place their own two chunks
    if (par.pp == 1) {
        par.vpp = 1;
        par.schedule = ScheduleKind::OneFOneB;
    }
    run.scenario.name = id;

    // The published figure.
    if (iteration) {
        run.metric = PublishedMetric::StepTime;
        run.published = *iteration;
    } else if (tokensPerSecond) {
        run.metric = PublishedMetric::StepTime;
        run.published = static_cast<double>(train.globalBatch) * model.seqLen / *tokensPerSecond;
        assumed.emplace_back("step time = global batch tokens / printed tokens/s");
    } else {
        run.metric = PublishedMetric::TflopsPerGpu;
        run.sourceFlopsPerStep = sourceFlopsPerStep(conv.flopConvention, run.scenario, r);
        if (run.sourceFlopsPerStep <= 0)
            return skip(id, "TFLOP/s printed but the source's FLOP convention is unknown");
        run.published = tflops ? *tflops : *mfu * gpuSpec->bf16FlopsPerSecond / 1e12;
        if (!tflops)
            assumed.emplace_back("TFLOP/s per GPU = printed MFU x 989 TFLOP/s (the peak the source used)");
    }
    if (auto bytes = number(me, "peak_memory_bytes"))
        run.peakMemoryBytes = *bytes;
    else if (auto gb = number(me, "peak_memory_gb"))
        run.peakMemoryBytes = *gb * conv.memoryUnitBytes;
    run.assumptions = std::move(assumed);

    PublishedRunConversion out;
    out.id = id;
    out.run = std::move(run);
    return out;
}

} // namespace parallax::core
