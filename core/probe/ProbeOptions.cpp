// SPDX-License-Identifier: Apache-2.0
#include "core/probe/ProbeOptions.h"

#include <charconv>

namespace {

using parallax::probe::ModelDims;
using parallax::probe::ProbeOptions;

// Integer flags, one row each: the table is the parser and the validation of ranges.
struct IntegerFlag {
    const char* name;
    long min;
    long max;
    void (*set)(ProbeOptions&, long);
};

constexpr long kMaxDim = 1L << 24; // 16 Mi elements: far above any real model dimension

const IntegerFlag kIntegerFlags[] = {
    { "--repeats", 1, 10000, [](ProbeOptions& o, long v) { o.repeats = static_cast<int>(v); } },
    { "--max-square", 0, 65536, [](ProbeOptions& o, long v) { o.maxSquare = v; } },
    { "--hidden", 1, kMaxDim, [](ProbeOptions& o, long v) { o.model.hidden = v; } },
    { "--ffn", 1, kMaxDim, [](ProbeOptions& o, long v) { o.model.ffnHidden = v; } },
    { "--heads", 1, 4096, [](ProbeOptions& o, long v) { o.model.heads = static_cast<int>(v); } },
    { "--kv-heads", 1, 4096, [](ProbeOptions& o, long v) { o.model.kvHeads = static_cast<int>(v); } },
    { "--vocab", 1, kMaxDim, [](ProbeOptions& o, long v) { o.model.vocab = v; } },
    { "--tokens", 1, kMaxDim, [](ProbeOptions& o, long v) { o.model.tokens = v; } },
    { "--seq", 1, kMaxDim, [](ProbeOptions& o, long v) { o.model.seqLen = v; } },
    { "--tp", 1, 1024, [](ProbeOptions& o, long v) { o.model.tp = static_cast<int>(v); } },
    { "--experts", 0, 65536, [](ProbeOptions& o, long v) { o.model.experts = static_cast<int>(v); } },
    { "--top-k", 1, 1024, [](ProbeOptions& o, long v) { o.model.topK = static_cast<int>(v); } },
    { "--expert-ffn", 1, kMaxDim, [](ProbeOptions& o, long v) { o.model.expertFfnHidden = v; } },
    { "--ep", 1, 65536, [](ProbeOptions& o, long v) { o.model.ep = static_cast<int>(v); } },
};

std::string flagValue(const std::string& flag, long v)
{
    return flag + "=" + std::to_string(v);
}

// Divisibility rules of a Megatron-style sharding; each message names both flags and a fix.
std::string validateModel(const ModelDims& m)
{
    if (m.hidden % m.heads != 0)
        return flagValue("--hidden", m.hidden) + " is not divisible by " + flagValue("--heads", m.heads)
            + ": the head dimension must be whole";
    if (m.kvHeads > m.heads || m.heads % m.kvHeads != 0)
        return flagValue("--heads", m.heads) + " is not a multiple of " + flagValue("--kv-heads", m.kvHeads)
            + ": each KV head serves a whole group of query heads";
    if (m.heads % m.tp != 0)
        return flagValue("--heads", m.heads) + " is not divisible by " + flagValue("--tp", m.tp)
            + ": choose a tp that divides the head count";
    // Megatron-Core requires num_query_groups % tensor_model_parallel_size == 0.
    if (m.kvHeads % m.tp != 0)
        return flagValue("--kv-heads", m.kvHeads) + " is not divisible by " + flagValue("--tp", m.tp)
            + ": each rank needs whole KV heads; use a tp that divides " + std::to_string(m.kvHeads);
    if (m.ffnHidden % m.tp != 0)
        return flagValue("--ffn", m.ffnHidden) + " is not divisible by " + flagValue("--tp", m.tp);
    if (m.tokens % m.effectiveSeqLen() != 0)
        return flagValue("--tokens", m.tokens) + " is not a multiple of " + flagValue("--seq", m.seqLen)
            + ": tokens = micro-batch size x sequence length";
    if (m.experts == 0) {
        if (m.topK != 0)
            return "--top-k needs --experts";
        if (m.expertFfnHidden != 0)
            return "--expert-ffn needs --experts";
        if (m.ep != 1)
            return "--ep needs --experts";
        return {};
    }
    if (m.topK == 0)
        return "--experts needs --top-k (experts each token is routed to)";
    if (m.topK > m.experts)
        return flagValue("--top-k", m.topK) + " exceeds " + flagValue("--experts", m.experts);
    if (m.expertFfnHidden == 0)
        return "--experts needs --expert-ffn (FFN hidden size of one expert)";
    if (m.experts % m.ep != 0)
        return flagValue("--experts", m.experts) + " is not divisible by " + flagValue("--ep", m.ep)
            + ": each rank holds the same number of experts";
    return {};
}

} // namespace

namespace parallax::probe {

std::optional<ProbeOptions> parseProbeOptions(const std::vector<std::string>& args, std::string& error)
{
    ProbeOptions o;
    error.clear();
    for (std::size_t i = 0; i < args.size(); ++i) {
        std::string flag = args[i];
        std::optional<std::string> value;
        if (const auto eq = flag.find('='); flag.rfind("--", 0) == 0 && eq != std::string::npos) {
            value = flag.substr(eq + 1);
            flag = flag.substr(0, eq);
        }
        auto needValue = [&]() -> std::optional<std::string> {
            if (value)
                return value;
            if (i + 1 < args.size())
                return args[++i];
            error = flag + " needs a value";
            return std::nullopt;
        };
        auto noValue = [&]() {
            if (value)
                error = flag + " takes no value";
            return !value;
        };

        if (flag == "--help" || flag == "-h") {
            if (!noValue())
                return std::nullopt;
            o.help = true;
        } else if (flag == "--version") {
            if (!noValue())
                return std::nullopt;
            o.version = true;
        } else if (flag == "--quick") {
            if (!noValue())
                return std::nullopt;
            o.quick = true;
        } else if (flag == "--list") {
            if (!noValue())
                return std::nullopt;
            o.list = true;
        } else if (flag == "--out") {
            const auto v = needValue();
            if (!v)
                return std::nullopt;
            if (v->empty()) {
                error = "--out needs a file name";
                return std::nullopt;
            }
            o.out = *v;
        } else if (flag == "--activation") {
            const auto v = needValue();
            if (!v)
                return std::nullopt;
            if (*v != "swiglu" && *v != "gelu") {
                error = "--activation must be swiglu or gelu, got '" + *v + "'";
                return std::nullopt;
            }
            o.model.swiglu = *v == "swiglu";
        } else {
            const IntegerFlag* spec = nullptr;
            for (const IntegerFlag& f : kIntegerFlags) {
                if (flag == f.name)
                    spec = &f;
            }
            if (!spec) {
                error = flag.rfind('-', 0) == 0 ? "unknown option '" + flag + "' (see --help)"
                                                : "unexpected argument '" + flag + "' (see --help)";
                return std::nullopt;
            }
            const auto v = needValue();
            if (!v)
                return std::nullopt;
            long n = 0;
            const char* end = v->data() + v->size();
            const auto [ptr, ec] = std::from_chars(v->data(), end, n);
            if (v->empty() || ec != std::errc() || ptr != end) {
                error = flag + " must be an integer, got '" + *v + "'";
                return std::nullopt;
            }
            if (n < spec->min || n > spec->max) {
                error = flag + " must be in [" + std::to_string(spec->min) + ", " + std::to_string(spec->max)
                    + "], got " + std::to_string(n);
                return std::nullopt;
            }
            spec->set(o, n);
        }
    }
    if (o.help || o.version)
        return o; // nothing else matters
    error = validateModel(o.model);
    if (!error.empty())
        return std::nullopt;
    return o;
}

std::string probeUsage()
{
    return R"(Usage: parallax-probe [options]

Measures this machine's GPUs and writes a calibration file that Parallax reads in place of
datasheet numbers: bf16/fp8 GEMM TFLOP/s (cuBLASLt, verified against a host reference),
attention GEMMs, HBM bandwidth, host<->device and GPU<->GPU copies, and NCCL collectives.

Output:
  --out FILE          calibration JSON (default parallax-calibration.json; written atomically)
  --quick             fewer sizes and repeats
  --repeats N         timed repeats per measurement (default 20, 5 with --quick)
  --max-square N      largest square GEMM size (default 16384; 0: no square GEMMs)
  --list              print the planned measurements and exit
  --help, --version

Transformer shapes (defaults: Llama-3-70B at tp 8, one 8192-token micro-batch):
  --hidden N --ffn N --heads N --kv-heads N --vocab N
  --tokens N          tokens per micro-batch (micro-batch size x sequence length)
  --seq N             sequence length for attention (default: --tokens)
  --tp N              tensor-parallel degree the shapes are sharded for
  --activation swiglu|gelu
  --experts N --top-k N --expert-ffn N --ep N   mixture-of-experts layers (expert GEMMs)

Exit codes: 0 done; 1 fatal error; 2 bad arguments; 3 no CUDA device (the app keeps its
datasheet numbers); 4 file written but some measurements failed (see "failures").
)";
}

} // namespace parallax::probe
