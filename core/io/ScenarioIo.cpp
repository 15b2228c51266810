// SPDX-License-Identifier: Apache-2.0
#include "core/io/ScenarioIo.h"

#include "core/Limits.h"
#include "core/Units.h"
#include "core/inference/InferenceConfigIo.h"
#include "core/io/AtomicFile.h"
#include "core/io/BoundedRead.h"
#include "core/io/JsonReader.h"
#include "core/io/JsonText.h"
#include "core/io/PresetLibrary.h"
#include "core/io/ScenarioExtras.h"

#include <map>

namespace parallax::core {

using nlohmann::json;

namespace {

GpuSpec readGpu(JsonReader& r)
{
    GpuSpec g;
    g.id = r.string("id", "");
    g.name = r.string("name", g.id);
    g.hbmBytes = r.number("hbm_gib", 1, 1e5) * kGiB;
    g.hbmBytesPerSecond = r.number("hbm_tb_per_s", 0.01, 1e3) * 1e12;
    g.bf16FlopsPerSecond = r.number("bf16_dense_tflops", 1, 1e6) * kTera;
    g.fp8FlopsPerSecond = r.number("fp8_dense_tflops", 0, 1e6, 0) * kTera;
    g.nvlinkBytesPerSecond = r.number("nvlink_gb_per_s_per_direction", 1, 1e5) * kGB;
    g.nvlinkDomainSize = static_cast<int>(r.integer("nvlink_domain_size", 1, kMaxGpus, 8));
    g.nicGbps = r.number("nic_gbps", 1, 1e5, 400);
    g.gemmFractionOfPeak = r.number("gemm_fraction_of_peak", 0, 1, 0);
    g.smCount = static_cast<int>(r.integer("sm_count", 0, 100000, 0));
    g.gemmStreamK = r.boolean("gemm_stream_k", false);
    g.attentionFractionOfPeak = r.number("attention_fraction_of_peak", 0, 1, 0);
    g.attentionKeyOverhead = r.number("attention_key_overhead", 0, 1e6, 0);
    g.hbmFractionOfPeak = r.number("hbm_fraction_of_peak", 0, 1, 0);
    g.allToAllNvlinkFraction = r.number("alltoall_nvlink_fraction", 0, 1, 0);
    g.gpusPerHost = static_cast<int>(r.integer("gpus_per_host", 0, kMaxGpus, 0));
    if (r.has("sources")) {
        const json& s = r.at("sources");
        if (s.is_object()) {
            for (auto it = s.begin(); it != s.end(); ++it) {
                if (it.value().is_string())
                    g.source += (g.source.empty() ? "" : "; ") + it.key() + ": " + it.value().get<std::string>();
            }
        }
    }
    g.source = r.string("source", g.source);
    r.string("format", "");
    r.integer("version", 1, 1, 1);
    return g;
}

MoeSpec readMoe(JsonReader& mr, int layers)
{
    MoeSpec moe;
    moe.experts = static_cast<int>(mr.integer("experts", 1, kMaxExperts));
    moe.topK = static_cast<int>(mr.integer("top_k", 1, moe.experts));
    moe.sharedExperts = static_cast<int>(mr.integer("shared_experts", 0, kMaxExperts, 0));
    moe.expertFfnHidden = mr.integer("expert_ffn_hidden", 1, 1LL << 24);
    moe.firstDenseLayers = static_cast<int>(mr.integer("first_dense_layers", 0, layers - 1, 0));
    // At least one MoE layer after the dense ones.
    moe.layerStep = static_cast<int>(mr.integer("layer_step", 1, layers - moe.firstDenseLayers, 1));
    moe.routerGroups = static_cast<int>(mr.integer("router_groups", 1, moe.experts, 0));
    moe.routerGroupTopk = static_cast<int>(mr.integer("router_group_topk", 1, std::max(1, moe.routerGroups), 0));
    if (moe.routerGroups > 0 && moe.experts % moe.routerGroups != 0)
        mr.fail("router_groups",
            "experts=" + std::to_string(moe.experts) + " is not divisible by router_groups="
                + std::to_string(moe.routerGroups) + ": choose a group count that divides the experts");
    if ((moe.routerGroups > 0) != (moe.routerGroupTopk > 0))
        mr.fail(moe.routerGroups > 0 ? "router_group_topk" : "router_groups",
            "group-limited routing needs both router_groups and router_group_topk (Megatron-Core "
            "--moe-router-num-groups and --moe-router-group-topk)");
    else if (moe.routerGroups > 0
        && static_cast<std::int64_t>(moe.routerGroupTopk) * (moe.experts / moe.routerGroups) < moe.topK)
        mr.fail("router_group_topk",
            "the " + std::to_string(moe.routerGroupTopk) + " chosen groups hold fewer than top_k="
                + std::to_string(moe.topK) + " experts: raise router_group_topk");
    return moe;
}

MlaSpec readMla(JsonReader& ar)
{
    MlaSpec mla;
    mla.qLoraRank = static_cast<int>(ar.integer("q_lora_rank", 0, kMaxHidden, 0));
    mla.kvLoraRank = static_cast<int>(ar.integer("kv_lora_rank", 1, kMaxHidden));
    mla.qkNopeHeadDim = static_cast<int>(ar.integer("qk_nope_head_dim", 1, kMaxHidden));
    mla.qkRopeHeadDim = static_cast<int>(ar.integer("qk_rope_head_dim", 0, kMaxHidden));
    mla.vHeadDim = static_cast<int>(ar.integer("v_head_dim", 1, kMaxHidden));
    return mla;
}

// `kept` receives what the writer will not write back (Scenario::extra, "model").
ModelSpec readModel(JsonReader& r, json& kept)
{
    ModelSpec m;
    m.id = r.string("id", "");
    m.name = r.string("name", m.id.empty() ? "custom" : m.id);
    m.layers = static_cast<int>(r.integer("layers", 1, kMaxLayers));
    m.hidden = r.integer("hidden", 1, kMaxHidden);
    m.heads = static_cast<int>(r.integer("heads", 1, kMaxHeads));
    m.kvHeads = static_cast<int>(r.integer("kv_heads", 1, kMaxHeads, m.heads));
    m.headDim = static_cast<int>(r.integer("head_dim", 1, kMaxHidden, 0));
    m.ffnHidden = r.integer("ffn_hidden", 1, 1LL << 24);
    m.vocab = r.integer("vocab", 1, kMaxVocab);
    m.seqLen = static_cast<int>(r.integer("seq_len", 1, kMaxSeqLen, 2048));
    const std::string act = r.string("activation", "swiglu");
    if (act == "gelu")
        m.activation = Activation::Gelu;
    else if (act == "swiglu")
        m.activation = Activation::SwiGlu;
    else
        r.fail("activation", "must be \"gelu\" or \"swiglu\", got \"" + act + "\"");
    m.tiedEmbeddings = r.boolean("tied_embeddings", false);
    m.learnedPositionEmbeddings = r.boolean("learned_position_embeddings", false);
    m.biases = r.boolean("biases", false);
    m.dropout = r.boolean("dropout", false);
    m.parallelBlock = r.boolean("parallel_block", false);
    m.publishedParams = r.number("params", 0, 1e16, 0);
    r.number("params_active", 0, 1e16, 0);
    m.source = r.string("source", "");
    m.slidingWindow = static_cast<int>(r.integer("sliding_window", 0, kMaxSeqLen, 0));
    m.slidingWindowPattern = static_cast<int>(r.integer("sliding_window_pattern", 0, kMaxLayers, 0));
    m.chunkedAttention = r.boolean("chunked_attention", false);
    if (m.chunkedAttention && m.slidingWindow <= 0)
        r.fail("chunked_attention",
            "chunked attention needs its chunk: set sliding_window to the chunk size (Hugging Face "
            "attention_chunk_size)");
    m.mtpLayers = static_cast<int>(r.integer("mtp_layers", 0, kMaxMtpLayers, 0));
    if (m.kvHeads > m.heads)
        r.fail("kv_heads", "must be <= heads (" + std::to_string(m.heads) + "), got " + std::to_string(m.kvHeads));
    if (m.heads > 0 && m.kvHeads > 0 && m.heads % m.kvHeads != 0)
        r.fail("kv_heads",
            "heads=" + std::to_string(m.heads) + " is not divisible by kv_heads=" + std::to_string(m.kvHeads)
                + ": choose a kv_heads that divides heads");
    if (m.headDim == 0 && m.hidden % m.heads != 0)
        r.fail("head_dim",
            "hidden=" + std::to_string(m.hidden) + " is not divisible by heads=" + std::to_string(m.heads)
                + ": give head_dim explicitly");
    if (r.has("moe")) {
        JsonReader mr = r.object("moe");
        m.moe = readMoe(mr, m.layers);
        keepExtras(kept, "moe", unwrittenKeys(mr));
    }
    if (r.has("mla")) {
        JsonReader ar = r.object("mla");
        m.mla = readMla(ar);
        keepExtras(kept, "mla", unwrittenKeys(ar));
    }
    r.string("format", "");
    r.integer("version", 1, 1, 1);
    // params_active has no field (the engine counts the active parameters itself): kept as it is.
    kept.update(unwrittenKeys(r, { "params_active", "format", "version" }));
    return m;
}

// A GPU preset name or an inline GpuSpec object; kept[key] receives what the writer will not write back of
// the object (its sources fold into GpuSpec::source, which gpuSpecToJson does not write).
GpuSpec resolveGpu(JsonReader& parent, const std::string& key, std::string& presetName, json& kept)
{
    const json& v = parent.at(key);
    if (v.is_string()) {
        presetName = v.get<std::string>();
        if (auto g = PresetLibrary::instance().gpu(presetName))
            return *g;
        std::string known;
        for (const auto& g : PresetLibrary::instance().gpus())
            known += (known.empty() ? "" : ", ") + g.id;
        parent.fail(key, "unknown GPU preset \"" + presetName + "\"; known: " + known);
    }
    presetName.clear();
    JsonReader gr(v, parent.childPath(key));
    GpuSpec gpu = readGpu(gr);
    json gpuKept = unwrittenKeys(gr, { "source", "sources", "format", "version" });
    if (!gpuKept.empty())
        gpuKept["id"] = gpu.id; // the GPU they belong to (ScenarioExtras.h)
    keepExtras(kept, key, std::move(gpuKept));
    return gpu;
}

void readRegularCluster(JsonReader& c, Scenario& s, json& kept)
{
    s.regularCluster = true;
    const GpuSpec gpu = resolveGpu(c, "gpu", s.gpuPreset, kept);
    // Each factor may exceed the GPU cap on its own: the product's check below gives the advice.
    s.nodes = static_cast<int>(c.integer("nodes", 1, 1LL << 30));
    s.gpusPerNode = static_cast<int>(c.integer("gpus_per_node", 1, 1LL << 30));
    const long long total = static_cast<long long>(s.nodes) * s.gpusPerNode;
    if (total > kMaxGpus)
        c.fail("nodes",
            std::to_string(total) + " GPUs (nodes x gpus_per_node) exceeds the supported " + std::to_string(kMaxGpus)
                + "; model one representative slice of the cluster (for example the "
                + "GPUs of one data-parallel replica times a few replicas)");
    double nicGbps = gpu.nicGbps;
    int nicsPerNode = 0;
    Fabric defaults;
    double latency = defaults.latencySeconds;
    double oversub = 1.0;
    bool rail = true;
    bool pxn = true;
    if (c.has("ib")) {
        JsonReader ib = c.object("ib");
        nicGbps = ib.number("nic_gbps", 1, 1e5, nicGbps);
        nicsPerNode = static_cast<int>(ib.integer("nics_per_node", 1, kMaxGpus, 0));
        latency = ib.number("latency_us", 0, 1e6, latency * 1e6) * 1e-6;
        oversub = ib.number("oversubscription", 1, 1e3, 1.0);
        rail = ib.boolean("rail_optimized", true);
        pxn = ib.boolean("pxn", true);
        keepExtras(kept, "ib", unwrittenKeys(ib));
    }
    s.topology = Topology::regular(gpu, s.nodes, s.gpusPerNode, nicGbps, nicsPerNode);
    for (auto& f : s.topology.fabrics) {
        f.latencySeconds = latency;
        f.oversubscription = oversub;
        f.railOptimized = rail;
        f.pxn = pxn;
    }
}

// One element of cluster.topology.domains; `kept` receives what the writer will not write back.
NvlinkDomain readDomain(JsonReader& d, std::size_t index, json& kept)
{
    NvlinkDomain dom;
    dom.name = d.string("name", "domain" + std::to_string(index));
    std::string preset;
    dom.gpu = resolveGpu(d, "gpu", preset, kept);
    dom.gpuCount = static_cast<int>(d.integer("count", 1, kMaxGpus));
    dom.nvlinkBytesPerSecond = d.number("nvlink_gb_per_s_per_direction", 0, 1e5, 0) * kGB;
    kept.update(unwrittenKeys(d));
    return dom;
}

// One element of cluster.topology.fabrics; `byName` indexes the domains read before it.
Fabric readFabric(JsonReader& f, std::size_t index, const std::map<std::string, int>& byName, json& kept)
{
    Fabric fab;
    fab.name = f.string("name", "fabric" + std::to_string(index));
    fab.nicGbps = f.number("nic_gbps", 1, 1e5, 400);
    fab.nicsPerDomain = static_cast<int>(f.integer("nics_per_domain", 1, kMaxGpus, 0));
    fab.latencySeconds = f.number("latency_us", 0, 1e6, 5) * 1e-6;
    fab.oversubscription = f.number("oversubscription", 1, 1e3, 1);
    fab.railOptimized = f.boolean("rail_optimized", true);
    fab.pxn = f.boolean("pxn", true);
    const json& members = f.at("domains");
    if (!members.is_array())
        f.fail("domains", "must be an array of domain names");
    for (const auto& name : members) {
        if (!name.is_string() || !byName.count(name.get<std::string>()))
            f.fail("domains", "names an unknown domain " + name.dump() + "; use a name from topology.domains");
        fab.domains.push_back(byName.at(name.get<std::string>()));
    }
    kept = unwrittenKeys(f);
    return fab;
}

void readFabrics(JsonReader& t, Topology& topo, const std::map<std::string, int>& byName, json& kept)
{
    const json& fabrics = t.at("fabrics");
    if (!fabrics.is_array())
        t.fail("fabrics", "must be an array of { name, nic_gbps, domains }");
    std::vector<std::string> names;
    std::vector<json> keptOf(fabrics.size(), json::object());
    for (std::size_t i = 0; i < fabrics.size(); ++i) {
        JsonReader f(fabrics[i], t.childPath("fabrics") + "[" + std::to_string(i) + "]");
        topo.fabrics.push_back(readFabric(f, i, byName, keptOf[i]));
        names.push_back(topo.fabrics.back().name);
    }
    keepExtras(kept, "fabrics", extrasByName(names, keptOf));
}

// `kept` is the cluster's holder in Scenario::extra: it receives "topology", keyed by domain and fabric name
// (ScenarioExtras.h).
void readExplicitTopology(JsonReader& c, Scenario& s, json& kept)
{
    s.regularCluster = false;
    JsonReader t = c.object("topology");
    const json& domains = t.at("domains");
    if (!domains.is_array() || domains.empty())
        t.fail("domains", "must be a non-empty array of { name, gpu, count }");
    Topology topo;
    std::map<std::string, int> byName;
    std::vector<std::string> names;
    std::vector<json> keptOf(domains.size(), json::object());
    long long total = 0;
    for (std::size_t i = 0; i < domains.size(); ++i) {
        JsonReader d(domains[i], t.childPath("domains") + "[" + std::to_string(i) + "]");
        const NvlinkDomain dom = readDomain(d, i, keptOf[i]);
        total += dom.gpuCount;
        if (total > kMaxGpus)
            d.fail("count",
                "the topology has more than " + std::to_string(kMaxGpus)
                    + " GPUs; model one representative slice of the cluster");
        if (byName.count(dom.name))
            d.fail("name", "duplicate domain name \"" + dom.name + "\": names must be unique");
        byName[dom.name] = static_cast<int>(topo.domains.size());
        names.push_back(dom.name);
        topo.domains.push_back(dom);
    }
    json topologyKept = json::object();
    keepExtras(topologyKept, "domains", extrasByName(names, keptOf));
    if (t.has("fabrics"))
        readFabrics(t, topo, byName, topologyKept);
    s.topology = topo;
    s.nodes = static_cast<int>(topo.domains.size());
    s.gpusPerNode = topo.domains.empty() ? 0 : topo.domains.front().gpuCount;
    topologyKept.update(unwrittenKeys(t));
    keepExtras(kept, "topology", std::move(topologyKept));
}

void readParallel(JsonReader& p, ParallelConfig& c)
{
    c.tp = static_cast<int>(p.integer("tp", 1, kMaxDegree, 1));
    c.sp = p.boolean("sp", c.tp > 1);
    c.cp = static_cast<int>(p.integer("cp", 1, kMaxDegree, 1));
    c.pp = static_cast<int>(p.integer("pp", 1, kMaxDegree, 1));
    c.vpp = static_cast<int>(p.integer("vpp", 1, 1024, 1));
    c.dp = static_cast<int>(p.integer("dp", 1, kMaxDegree, 1));
    c.ep = static_cast<int>(p.integer("ep", 1, kMaxDegree, 1));
    c.etp = static_cast<int>(p.integer("etp", 1, kMaxDegree, 1));
    c.zero = static_cast<int>(p.integer("zero", 0, 3, 0));
    const std::string cpComm = p.string("cp_comm_type", "p2p");
    if (!parseCpCommType(cpComm, c.cpCommType))
        p.fail("cp_comm_type",
            "must be \"p2p\", \"all_gather\", \"a2a\" or \"a2a+p2p\" (Megatron-Core --cp-comm-type), got \"" + cpComm
                + "\"");
    c.cpA2aSize = static_cast<int>(p.integer("cp_a2a_size", 0, kMaxDegree, 0));
    const std::string schedule = p.string("schedule", c.vpp > 1 ? "interleaved-1f1b" : "1f1b");
    if (!parseSchedule(schedule, c.schedule))
        p.fail("schedule",
            "unknown schedule \"" + schedule
                + "\"; use gpipe, 1f1b, interleaved-1f1b, zb-h1, zb-h2, zb-v, dualpipe or dualpipev");
    c.order = p.string("order", c.order);
    c.tpCommOverlap = p.boolean("tp_comm_overlap", false);
    c.epCommOverlap = p.boolean("ep_comm_overlap", false);
    c.dpOverlap = p.boolean("dp_overlap", true);
    c.ddpBucketSize = p.integer("ddp_bucket_size", 0, kMaxDdpBucketSize, 0);
    c.p2pOverlap = p.boolean("p2p_overlap", true);
    c.gradReduceInFp32 = p.boolean("grad_reduce_fp32", true);
    c.firstStageLayers = static_cast<int>(p.integer("first_stage_layers", 0, kMaxDegree, 0));
    c.lastStageLayers = static_cast<int>(p.integer("last_stage_layers", 0, kMaxDegree, 0));
    c.accountForEmbedding = p.boolean("account_for_embedding", false);
    c.accountForLoss = p.boolean("account_for_loss", false);
    c.pipelineLayout = p.string("pipeline_layout", "");
}

// training.recompute_modules: Megatron-Core's --recompute-modules names, read under selective recompute.
void readRecomputeModules(JsonReader& t, TrainingConfig& c)
{
    if (!t.has("recompute_modules"))
        return;
    const json& list = t.at("recompute_modules");
    const std::string choices = recomputeModuleChoices();
    if (!list.is_array())
        t.fail("recompute_modules", "must be a list of module names (" + choices + "), got " + jsonTypeName(list));
    if (c.recompute != Recompute::Selective)
        t.fail("recompute_modules",
            "applies to selective recompute only (Megatron-Core reads --recompute-modules under "
            "--recompute-granularity selective): set training.recompute to \"selective\" or remove the list");
    unsigned modules = 0;
    for (std::size_t i = 0; i < list.size(); ++i) {
        unsigned bit = 0;
        const std::string field = "recompute_modules[" + std::to_string(i) + "]";
        if (!list[i].is_string())
            t.fail(field, "must be a module name (" + choices + "), got " + jsonTypeName(list[i]));
        if (!parseRecomputeModule(list[i].get<std::string>(), bit))
            t.fail(field, "is \"" + list[i].get<std::string>() + "\": expected one of " + choices);
        modules |= bit;
    }
    c.recomputeModules = modules;
}

// training.optimizer: Megatron-Core's precision-aware optimizer (OptimizerConfig); the rules that
// combine its keys with each other and with parallel.zero are checked by validateScenario.
void readOptimizer(JsonReader& t, OptimizerPrecision& o, json& kept)
{
    if (!t.has("optimizer"))
        return;
    JsonReader r = t.object("optimizer");
    o.precisionAware = r.boolean("precision_aware", false);
    o.storeParamRemainders = r.boolean("store_param_remainders", true);
    for (OptimizerField f : kOptimizerFields) {
        const std::string key = fieldKey(f);
        const std::string text = r.string(key, "fp32");
        StateDType d = StateDType::Fp32;
        if (!parseStateDType(text, d) || !stateDTypeAllowed(f, d))
            r.fail(key,
                "must be one of " + stateDTypeChoices(f) + " (Megatron-Core " + megatronFlag(f) + "), got \"" + text
                    + "\"");
        o.*fieldMember(f) = d;
    }
    keepExtras(kept, "optimizer", unwrittenKeys(r));
}

void readTraining(JsonReader& t, TrainingConfig& c, json& kept)
{
    c.microBatch = static_cast<int>(t.integer("micro_batch", 1, 1 << 20, 1));
    c.globalBatch = static_cast<int>(t.integer("global_batch", 1, kMaxGlobalBatch));
    c.seqLen = static_cast<int>(t.integer("seq_len", 1, kMaxSeqLen, 0));
    const std::string rc = t.string("recompute", "none");
    if (!parseRecompute(rc, c.recompute))
        t.fail("recompute", "must be \"none\", \"selective\" or \"full\", got \"" + rc + "\"");
    readRecomputeModules(t, c);
    const std::string dt = t.string("dtype", "bf16");
    if (!parseDType(dt, c.dtype))
        t.fail("dtype", "must be \"bf16\" or \"fp8\", got \"" + dt + "\"");
    c.flashAttention = t.boolean("flash_attention", true);
    c.activationFuncFp8InputStore = t.boolean("activation_func_fp8_input_store", false);
    c.deepseekActivationCache = t.boolean("deepseek_activation_cache", false);
    // Megatron-Core --moe-expert-capacity-factor / --moe-pad-expert-input-to-capacity (token dropping).
    c.moeExpertCapacityFactor = t.number("moe_expert_capacity_factor", 0.0, 64.0, 0.0);
    if (t.has("moe_expert_capacity_factor") && c.moeExpertCapacityFactor <= 0)
        t.fail("moe_expert_capacity_factor", "must be above 0 (remove the key for dropless MoE)");
    c.moePadExpertInputToCapacity = t.boolean("moe_pad_expert_input_to_capacity", false);
    if (c.moePadExpertInputToCapacity && c.moeExpertCapacityFactor <= 0)
        t.fail("moe_pad_expert_input_to_capacity",
            "pads to the capacity moe_expert_capacity_factor sets: give that factor (e.g. 1.0) or remove the key "
            "(Megatron-Core requires --moe-expert-capacity-factor with --moe-pad-expert-input-to-capacity)");
    const std::string dispatcher = t.string("moe_token_dispatcher", "alltoall");
    if (!parseMoeDispatcher(dispatcher, c.moeTokenDispatcher))
        t.fail("moe_token_dispatcher",
            "must be \"alltoall\" or \"deepep\" (Megatron-Core --moe-token-dispatcher-type alltoall, or flex with "
            "--moe-flex-dispatcher-backend deepep), got \""
                + dispatcher + "\"");
    c.moeDeepepNumSms = static_cast<int>(t.integer("moe_deepep_num_sms", 1, 1024, 20));
    c.deepseekFp8Dispatch = t.boolean("deepseek_fp8_dispatch", false);
    readOptimizer(t, c.optimizer, kept);
    kept.update(unwrittenKeys(t));
}

// "model": a preset name or an inline ModelSpec object.
void readScenarioModel(JsonReader& r, Scenario& s, json& extra)
{
    const json& model = r.at("model");
    if (model.is_string()) {
        s.modelPreset = model.get<std::string>();
        auto m = PresetLibrary::instance().model(s.modelPreset);
        if (!m)
            r.fail("model",
                "unknown model preset \"" + s.modelPreset + "\"; known: " + PresetLibrary::instance().modelIds());
        s.model = *m;
        return;
    }
    if (!model.is_object())
        r.fail("model", "must be a model preset name (a string) or a model object, got " + jsonTypeName(model));
    JsonReader mr(model, "model");
    json kept = json::object();
    s.model = readModel(mr, kept);
    keepExtras(extra, "model", std::move(kept));
}

void readCluster(JsonReader& r, Scenario& s, json& extra)
{
    JsonReader c = r.object("cluster");
    json kept = json::object();
    if (c.has("topology"))
        readExplicitTopology(c, s, kept);
    else
        readRegularCluster(c, s, kept);
    kept.update(unwrittenKeys(c));
    keepExtras(extra, "cluster", std::move(kept));
}

Scenario readScenario(const json& doc)
{
    JsonReader r(doc, "");
    Scenario s;
    json extra = json::object(); // what the writer will not write back, by JSON path (ScenarioExtras.h)
    const std::string format = r.string("format", "parallax-scenario");
    if (format != "parallax-scenario")
        r.fail("format", "must be \"parallax-scenario\", got \"" + format + "\"");
    r.integer("version", 1, 1, 1);
    s.name = r.string("name", "Untitled");
    s.description = r.string("description", "");
    readScenarioModel(r, s, extra);
    readCluster(r, s, extra);

    JsonReader p = r.object("parallel");
    readParallel(p, s.parallel);
    keepExtras(extra, "parallel", unwrittenKeys(p));

    const std::string mode = r.string("mode", "training");
    if (!parseScenarioMode(mode, s.mode))
        r.fail("mode", "must be \"training\" or \"inference\", got \"" + mode + "\"");
    // A serving scenario needs no training block; one that has it keeps it.
    if (s.mode == ScenarioMode::Training || r.has("training")) {
        JsonReader t = r.object("training");
        json kept = json::object();
        readTraining(t, s.training, kept);
        keepExtras(extra, "training", std::move(kept));
    }
    if (s.mode == ScenarioMode::Inference) {
        static const json kEmpty = json::object();
        JsonReader in = r.has("inference") ? r.object("inference") : JsonReader(kEmpty, "inference");
        s.inference = readInferenceConfig(in);
        keepExtras(extra, "inference", unwrittenKeys(in));
    }

    extra.update(unwrittenKeys(r));
    if (!extra.empty())
        s.extra = std::make_shared<const json>(std::move(extra));
    return s;
}

} // namespace

std::optional<GpuSpec> parseGpuSpec(const json& j, const std::string& path, LoadError& error)
{
    try {
        JsonReader r(j, path);
        return readGpu(r);
    } catch (const JsonFieldError& e) {
        error = { e.path, e.what() };
    }
    return std::nullopt;
}

std::optional<ModelSpec> parseModelSpec(const json& j, const std::string& path, LoadError& error)
{
    try {
        JsonReader r(j, path);
        json unused = json::object(); // only a scenario keeps what its writer does not write
        return readModel(r, unused);
    } catch (const JsonFieldError& e) {
        error = { e.path, e.what() };
    }
    return std::nullopt;
}

std::optional<Scenario> parseScenario(const std::string& jsonText, LoadError& error)
{
    std::string parseError;
    std::string field;
    std::optional<json> doc = io::parseJsonBounded(jsonText, parseError, &field);
    if (!doc) {
        // A truncated file ends with "unexpected end of input".
        const bool truncated = parseError.find("end of input") != std::string::npos;
        error = { field, parseError + (truncated ? "; check the file is complete" : "") };
        return std::nullopt;
    }
    try {
        return readScenario(*doc);
    } catch (const JsonFieldError& e) {
        error = { e.path, e.what() };
    } catch (const json::exception& e) {
        error = { "", io::jsonExceptionText(e) };
    } catch (const std::exception& e) {
        error = { "", std::string("cannot read the scenario: ") + e.what() };
    }
    return std::nullopt;
}

std::optional<Scenario> loadScenarioFile(const std::string& filePath, LoadError& error)
{
    std::string text;
    std::string readError;
    if (!io::readFileBounded(filePath, text, readError)) {
        error = { "", readError };
        return std::nullopt;
    }
    auto s = parseScenario(text, error);
    if (!s)
        error.message = filePath + ": " + (error.path.empty() ? "" : error.path + ": ") + error.message,
        error.path = "";
    return s;
}

json gpuSpecToJson(const GpuSpec& g)
{
    json j { { "id", g.id }, { "name", g.name }, { "hbm_gib", g.hbmBytes / kGiB },
        { "hbm_tb_per_s", g.hbmBytesPerSecond / 1e12 }, { "bf16_dense_tflops", g.bf16FlopsPerSecond / kTera },
        { "fp8_dense_tflops", g.fp8FlopsPerSecond / kTera },
        { "nvlink_gb_per_s_per_direction", g.nvlinkBytesPerSecond / kGB }, { "nvlink_domain_size", g.nvlinkDomainSize },
        { "nic_gbps", g.nicGbps } };
    if (g.gemmFractionOfPeak > 0)
        j["gemm_fraction_of_peak"] = g.gemmFractionOfPeak;
    if (g.smCount > 0)
        j["sm_count"] = g.smCount;
    if (g.gemmStreamK)
        j["gemm_stream_k"] = true;
    if (g.attentionFractionOfPeak > 0)
        j["attention_fraction_of_peak"] = g.attentionFractionOfPeak;
    if (g.attentionKeyOverhead > 0)
        j["attention_key_overhead"] = g.attentionKeyOverhead;
    if (g.hbmFractionOfPeak > 0)
        j["hbm_fraction_of_peak"] = g.hbmFractionOfPeak;
    if (g.allToAllNvlinkFraction > 0)
        j["alltoall_nvlink_fraction"] = g.allToAllNvlinkFraction;
    if (g.gpusPerHost > 0)
        j["gpus_per_host"] = g.gpusPerHost;
    return j;
}

json modelSpecToJson(const ModelSpec& m)
{
    json j { { "name", m.name }, { "layers", m.layers }, { "hidden", m.hidden }, { "heads", m.heads },
        { "kv_heads", m.kvHeads }, { "head_dim", m.effectiveHeadDim() }, { "ffn_hidden", m.ffnHidden },
        { "vocab", m.vocab }, { "seq_len", m.seqLen },
        { "activation", m.activation == Activation::Gelu ? "gelu" : "swiglu" },
        { "tied_embeddings", m.tiedEmbeddings } };
    if (!m.id.empty())
        j["id"] = m.id;
    if (m.learnedPositionEmbeddings)
        j["learned_position_embeddings"] = true;
    if (m.biases)
        j["biases"] = true;
    if (m.dropout)
        j["dropout"] = true;
    if (m.parallelBlock)
        j["parallel_block"] = true;
    if (m.publishedParams > 0)
        j["params"] = m.publishedParams;
    if (!m.source.empty())
        j["source"] = m.source;
    if (m.slidingWindow > 0)
        j["sliding_window"] = m.slidingWindow;
    if (m.slidingWindowPattern > 0)
        j["sliding_window_pattern"] = m.slidingWindowPattern;
    if (m.chunkedAttention)
        j["chunked_attention"] = true;
    if (m.mtpLayers > 0)
        j["mtp_layers"] = m.mtpLayers;
    if (m.moe)
        j["moe"]
            = { { "experts", m.moe->experts }, { "top_k", m.moe->topK }, { "shared_experts", m.moe->sharedExperts },
                  { "expert_ffn_hidden", m.moe->expertFfnHidden }, { "first_dense_layers", m.moe->firstDenseLayers } };
    if (m.moe && m.moe->layerStep > 1)
        j["moe"]["layer_step"] = m.moe->layerStep;
    if (m.moe && m.moe->routerGroups > 0) {
        j["moe"]["router_groups"] = m.moe->routerGroups;
        j["moe"]["router_group_topk"] = m.moe->routerGroupTopk;
    }
    if (m.mla)
        j["mla"] = { { "q_lora_rank", m.mla->qLoraRank }, { "kv_lora_rank", m.mla->kvLoraRank },
            { "qk_nope_head_dim", m.mla->qkNopeHeadDim }, { "qk_rope_head_dim", m.mla->qkRopeHeadDim },
            { "v_head_dim", m.mla->vHeadDim } };
    return j;
}

namespace {

// A domain's GPU: its preset's name when it equals that preset and its file object kept nothing the writer does
// not write (a custom GPU that borrows a preset's id keeps its own numbers). `presets` caches gpuSpecToJson of
// the presets met so far.
json domainGpuToJson(const GpuSpec& g, bool keptKeys, std::map<std::string, json>& presets)
{
    if (keptKeys || g.id.empty())
        return gpuSpecToJson(g);
    auto found = presets.find(g.id);
    if (found == presets.end()) {
        const auto preset = PresetLibrary::instance().gpu(g.id);
        found = presets.emplace(g.id, preset ? gpuSpecToJson(*preset) : json()).first;
    }
    json spec = gpuSpecToJson(g);
    return spec == found->second ? json(g.id) : spec;
}

// cluster.topology; `extra` is Scenario::extra (null when none), read for the domains' kept GPU keys.
json topologyToJson(const Topology& t, const json* extra)
{
    std::map<std::string, json> presets;
    json domains = json::array();
    for (const auto& d : t.domains) {
        json dj { { "name", d.name }, { "count", d.gpuCount } };
        dj["gpu"] = domainGpuToJson(d.gpu, domainGpuExtras(extra, d.name, d.gpu.id) != nullptr, presets);
        if (d.nvlinkBytesPerSecond > 0)
            dj["nvlink_gb_per_s_per_direction"] = d.nvlinkBytesPerSecond / kGB;
        domains.push_back(dj);
    }
    json fabrics = json::array();
    for (const auto& f : t.fabrics) {
        json names = json::array();
        for (int d : f.domains)
            names.push_back(t.domains[d].name);
        json fj { { "name", f.name }, { "nic_gbps", f.nicGbps }, { "domains", names },
            { "latency_us", f.latencySeconds * 1e6 } };
        if (f.nicsPerDomain > 0)
            fj["nics_per_domain"] = f.nicsPerDomain;
        if (f.oversubscription != 1.0)
            fj["oversubscription"] = f.oversubscription;
        if (!f.railOptimized)
            fj["rail_optimized"] = false;
        if (!f.pxn)
            fj["pxn"] = false;
        fabrics.push_back(fj);
    }
    return { { "domains", domains }, { "fabrics", fabrics } };
}

} // namespace

json scenarioToJson(const Scenario& s)
{
    json j;
    j["format"] = "parallax-scenario";
    j["version"] = 1;
    j["name"] = s.name;
    if (!s.description.empty())
        j["description"] = s.description;
    j["model"] = s.modelPreset.empty() ? modelSpecToJson(s.model) : json(s.modelPreset);

    json cluster;
    const bool regular = s.regularCluster && !s.topology.domains.empty() && s.topology.fabrics.size() <= 1;
    if (regular) {
        const NvlinkDomain& d0 = s.topology.domains.front();
        cluster["gpu"] = s.gpuPreset.empty() ? gpuSpecToJson(d0.gpu) : json(s.gpuPreset);
        cluster["nodes"] = static_cast<int>(s.topology.domains.size());
        cluster["gpus_per_node"] = d0.gpuCount;
        if (!s.topology.fabrics.empty()) {
            const Fabric& f = s.topology.fabrics.front();
            cluster["ib"] = { { "nic_gbps", f.nicGbps },
                { "nics_per_node", f.nicsPerDomain > 0 ? f.nicsPerDomain : d0.gpuCount } };
            if (f.latencySeconds != Fabric {}.latencySeconds)
                cluster["ib"]["latency_us"] = f.latencySeconds * 1e6;
            if (f.oversubscription != 1.0)
                cluster["ib"]["oversubscription"] = f.oversubscription;
            if (!f.railOptimized)
                cluster["ib"]["rail_optimized"] = false;
            if (!f.pxn)
                cluster["ib"]["pxn"] = false;
        }
    } else
        cluster["topology"] = topologyToJson(s.topology, s.extra.get());
    j["cluster"] = cluster;

    const ParallelConfig& p = s.parallel;
    j["parallel"] = { { "tp", p.tp }, { "sp", p.sp }, { "cp", p.cp }, { "pp", p.pp }, { "vpp", p.vpp }, { "dp", p.dp },
        { "ep", p.ep }, { "zero", p.zero }, { "schedule", toString(p.schedule) }, { "order", p.order } };
    if (p.etp != 1)
        j["parallel"]["etp"] = p.etp;
    if (p.cpCommType != CpCommType::P2p)
        j["parallel"]["cp_comm_type"] = toString(p.cpCommType);
    if (p.cpA2aSize > 0)
        j["parallel"]["cp_a2a_size"] = p.cpA2aSize;
    if (p.tpCommOverlap)
        j["parallel"]["tp_comm_overlap"] = true;
    if (p.epCommOverlap)
        j["parallel"]["ep_comm_overlap"] = true;
    if (!p.dpOverlap)
        j["parallel"]["dp_overlap"] = false;
    if (p.ddpBucketSize > 0)
        j["parallel"]["ddp_bucket_size"] = p.ddpBucketSize;
    if (!p.p2pOverlap)
        j["parallel"]["p2p_overlap"] = false;
    if (!p.gradReduceInFp32)
        j["parallel"]["grad_reduce_fp32"] = false;
    if (p.firstStageLayers > 0)
        j["parallel"]["first_stage_layers"] = p.firstStageLayers;
    if (p.lastStageLayers > 0)
        j["parallel"]["last_stage_layers"] = p.lastStageLayers;
    if (p.accountForEmbedding)
        j["parallel"]["account_for_embedding"] = true;
    if (p.accountForLoss)
        j["parallel"]["account_for_loss"] = true;
    if (!p.pipelineLayout.empty())
        j["parallel"]["pipeline_layout"] = p.pipelineLayout;
    const TrainingConfig& t = s.training;
    j["training"] = { { "micro_batch", t.microBatch }, { "global_batch", t.globalBatch },
        { "recompute", toString(t.recompute) }, { "dtype", toString(t.dtype) } };
    if (t.recompute == Recompute::Selective && t.recomputeModules != recompute_module::kDefault)
        j["training"]["recompute_modules"] = recomputeModuleNames(t.recomputeModules);
    if (t.seqLen > 0)
        j["training"]["seq_len"] = t.seqLen;
    if (!t.flashAttention)
        j["training"]["flash_attention"] = false;
    if (t.activationFuncFp8InputStore)
        j["training"]["activation_func_fp8_input_store"] = true;
    if (t.deepseekActivationCache)
        j["training"]["deepseek_activation_cache"] = true;
    if (t.moeExpertCapacityFactor > 0)
        j["training"]["moe_expert_capacity_factor"] = t.moeExpertCapacityFactor;
    if (t.moePadExpertInputToCapacity && t.moeExpertCapacityFactor > 0) // without a capacity it pads to nothing
        j["training"]["moe_pad_expert_input_to_capacity"] = true;
    if (t.moeTokenDispatcher != MoeDispatcher::AllToAll)
        j["training"]["moe_token_dispatcher"] = toString(t.moeTokenDispatcher);
    if (t.moeDeepepNumSms != 20)
        j["training"]["moe_deepep_num_sms"] = t.moeDeepepNumSms;
    if (t.deepseekFp8Dispatch)
        j["training"]["deepseek_fp8_dispatch"] = true;
    if (!(t.optimizer == OptimizerPrecision {}))
        j["training"]["optimizer"] = optimizerPrecisionToJson(t.optimizer);
    if (s.mode == ScenarioMode::Inference) {
        j["mode"] = "inference";
        j["inference"] = inferenceConfigToJson(s.inference);
    }
    if (s.extra)
        mergeScenarioExtras(j, *s.extra);
    return j;
}

json optimizerPrecisionToJson(const OptimizerPrecision& o)
{
    json j = json::object();
    if (o.precisionAware)
        j["precision_aware"] = true;
    for (OptimizerField f : kOptimizerFields) {
        if (fieldValue(o, f) != StateDType::Fp32)
            j[fieldKey(f)] = toString(fieldValue(o, f));
    }
    if (!o.storeParamRemainders)
        j["store_param_remainders"] = false;
    return j;
}

std::string serializeScenario(const Scenario& s)
{
    // The known keys nest at most 5 levels (cluster.topology.fabrics[i].domains); deeper values are
    // unknown keys of a newer file, written on one line so that the file stays about the size it was read at.
    return io::dumpJsonPrettyBounded(scenarioToJson(s), 2, 5) + "\n";
}

bool writeFileAtomically(const std::string& filePath, const std::string& content, std::string& error)
{
    return io::writeFileAtomically(filePath, content, error);
}

bool saveScenarioFile(const Scenario& s, const std::string& filePath, std::string& error)
{
    return writeFileAtomically(filePath, serializeScenario(s), error);
}

} // namespace parallax::core
