// SPDX-License-Identifier: Apache-2.0
#include "core/calibration/Calibration.h"
#include "core/calibration/CalibrationFormat.h"
#include "core/io/JsonReader.h"
#include "core/io/JsonText.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <climits>
#include <cmath>
#include <set>
#include <sstream>

// The strict reader of the calibration file: every value checked, every error naming its JSON
// path, unknown keys refused.

namespace {

using parallax::core::Calibration;
using namespace parallax::core::calibration_format;

template <typename Table> std::string choices(const Table& table)
{
    std::string out;
    for (const auto& e : table)
        out += std::string(out.empty() ? "" : ", ") + "\"" + e.name + "\"";
    return out;
}

std::string show(double v)
{
    std::ostringstream out;
    out << v;
    return out.str();
}

struct ReadError {
    std::string path;
    std::string message;
};

// Strict view on one JSON object: typed getters that name the path on failure, and a final check
// that every key present was one the format knows.
class StrictObject {
public:
    StrictObject(const nlohmann::json& j, std::string path)
        : m_json(j)
        , m_path(std::move(path))
    {
        if (!m_json.is_object())
            throw ReadError { m_path, "must be an object, got " + parallax::core::jsonTypeName(m_json) };
    }

    std::string child(const std::string& key) const { return m_path.empty() ? key : m_path + "." + key; }

    bool has(const std::string& key)
    {
        m_known.insert(key);
        return m_json.contains(key);
    }

    const nlohmann::json& at(const std::string& key)
    {
        if (!has(key))
            fail(key, "is missing");
        return m_json.at(key);
    }

    [[noreturn]] void fail(const std::string& key, const std::string& message) const
    {
        throw ReadError { child(key), message };
    }

    double positive(const std::string& key)
    {
        const nlohmann::json& v = at(key);
        if (!v.is_number())
            fail(key, "must be a positive number, got " + parallax::core::jsonTypeName(v));
        const double d = v.get<double>();
        if (!std::isfinite(d) || d <= 0)
            fail(key, "must be a positive number, got " + show(d));
        return d;
    }

    std::optional<double> optionalPositive(const std::string& key)
    {
        return has(key) ? std::optional<double>(positive(key)) : std::nullopt;
    }

    double nonNegative(const std::string& key)
    {
        const nlohmann::json& v = at(key);
        if (!v.is_number())
            fail(key, "must be a number >= 0, got " + parallax::core::jsonTypeName(v));
        const double d = v.get<double>();
        if (!std::isfinite(d) || d < 0)
            fail(key, "must be a number >= 0, got " + show(d));
        return d;
    }

    // Every count of the format fits an int; the cap is checked before any narrowing cast.
    long long integer(const std::string& key, long long min, long long max = INT_MAX)
    {
        const nlohmann::json& v = at(key);
        // ">= min" for a value below it or of the wrong kind; the whole range for one above the cap.
        const std::string atLeast = "must be an integer >= " + std::to_string(min);
        const std::string range = "must be an integer from " + std::to_string(min) + " to " + std::to_string(max);
        if (!v.is_number_integer())
            fail(key, atLeast + ", got " + (v.is_number() ? show(v.get<double>()) : parallax::core::jsonTypeName(v)));
        if (v.is_number_unsigned() && v.get<unsigned long long>() > static_cast<unsigned long long>(max))
            fail(key, range + ", got " + std::to_string(v.get<unsigned long long>()));
        const long long i = v.get<long long>();
        if (i < min)
            fail(key, atLeast + ", got " + std::to_string(i));
        if (i > max)
            fail(key, range + ", got " + std::to_string(i));
        return i;
    }

    // A byte count, written back as a JSON integer: positive and exactly representable (2^53).
    std::optional<double> optionalBytes(const std::string& key)
    {
        if (!has(key))
            return std::nullopt;
        const double d = positive(key);
        constexpr double kMaxExactBytes = 9007199254740992.0; // 2^53
        if (d > kMaxExactBytes || std::floor(d) != d)
            fail(key, "must be a whole number of bytes from 1 to 2^53, got " + show(d));
        return d;
    }

    std::string string(const std::string& key)
    {
        const nlohmann::json& v = at(key);
        if (!v.is_string())
            fail(key, "must be a string, got " + parallax::core::jsonTypeName(v));
        return v.get<std::string>();
    }

    const nlohmann::json& array(const std::string& key)
    {
        const nlohmann::json& v = at(key);
        if (!v.is_array())
            fail(key, "must be an array, got " + parallax::core::jsonTypeName(v));
        return v;
    }

    StrictObject object(const std::string& key) { return StrictObject(at(key), child(key)); }

    // A rate given as <prefix>_median with optional <prefix>_p10 and <prefix>_p90 (both or
    // neither), scaled from the file's unit to the engine's (FLOP/s, bytes/s).
    std::optional<std::pair<double, Calibration::Percentiles>> rate(const std::string& prefix, double unit)
    {
        const std::string medianKey = prefix + "_median", p10Key = prefix + "_p10", p90Key = prefix + "_p90";
        const bool hasMedian = has(medianKey), hasP10 = has(p10Key), hasP90 = has(p90Key);
        if (!hasMedian) {
            if (hasP10 || hasP90)
                fail(medianKey, "is missing (percentiles without a median)");
            return std::nullopt;
        }
        const double median = positive(medianKey);
        Calibration::Percentiles p;
        if (hasP10 != hasP90)
            fail(hasP10 ? p90Key : p10Key, "is missing (give both percentiles or neither)");
        if (hasP10) {
            p.p10 = positive(p10Key);
            p.p90 = positive(p90Key);
            if (p.p10 > median)
                fail(p10Key, "must be <= " + medianKey + " (" + show(median) + "), got " + show(p.p10));
            if (p.p90 < median)
                fail(p90Key, "must be >= " + medianKey + " (" + show(median) + "), got " + show(p.p90));
            p.p10 *= unit;
            p.p90 *= unit;
        }
        return std::make_pair(median * unit, p);
    }

    // Rejects keys the reads above did not ask for (typos would otherwise drop data silently).
    void finish() const
    {
        for (auto it = m_json.begin(); it != m_json.end(); ++it) {
            if (!m_known.count(it.key()))
                throw ReadError { child(it.key()), "unknown key" };
        }
    }

private:
    const nlohmann::json& m_json;
    std::string m_path;
    std::set<std::string> m_known;
};

std::string indexPath(const std::string& path, std::size_t i)
{
    return path + "[" + std::to_string(i) + "]";
}

void readGpu(StrictObject gpu, Calibration& c)
{
    c.gpuName = gpu.string("name");
    if (c.gpuName.empty())
        gpu.fail("name", "must not be empty");
    if (gpu.has("count"))
        c.gpuCount = static_cast<int>(gpu.integer("count", 1));
    if (gpu.has("compute_capability"))
        c.computeCapability = gpu.string("compute_capability");
    if (gpu.has("sm_count"))
        c.smCount = static_cast<int>(gpu.integer("sm_count", 1));
    c.gpuMemoryBytes = gpu.optionalBytes("memory_bytes").value_or(0);
    c.smClockMHz = gpu.optionalPositive("sm_clock_mhz").value_or(0);
    c.memoryClockMHz = gpu.optionalPositive("memory_clock_mhz").value_or(0);
    if (gpu.has("driver"))
        c.driver = gpu.string("driver");
    if (gpu.has("cuda_runtime"))
        c.cudaRuntime = gpu.string("cuda_runtime");
    gpu.finish();
}

Calibration::GemmPoint readGemmPoint(StrictObject g)
{
    Calibration::GemmPoint p;
    if (g.has("label"))
        p.label = g.string("label");
    p.m = static_cast<long>(g.integer("m", 1));
    p.n = static_cast<long>(g.integer("n", 1));
    p.k = static_cast<long>(g.integer("k", 1));
    const std::string dtype = g.string("dtype");
    const auto* d = std::find_if(
        std::begin(kDTypeNames), std::end(kDTypeNames), [&](const DTypeName& e) { return dtype == e.name; });
    if (d == std::end(kDTypeNames))
        g.fail("dtype", "must be one of " + choices(kDTypeNames) + ", got \"" + dtype + "\"");
    p.dtype = d->value;
    const auto rate = g.rate("tflops", kTflops);
    if (!rate)
        g.fail("tflops_median", "is missing");
    p.flopsPerSecond = rate->first;
    p.percentiles = rate->second;
    p.spread = p.percentiles.known() ? (p.percentiles.p90 - p.percentiles.p10) / p.flopsPerSecond : 0.0;
    if (g.has("max_error_to_bound")) {
        p.maxErrorToBound = g.nonNegative("max_error_to_bound");
        // The probe never writes a GEMM that failed verification: such a point is not a measurement.
        if (p.maxErrorToBound > 1)
            g.fail("max_error_to_bound", "is " + show(p.maxErrorToBound) + " > 1: this GEMM failed verification");
    }
    g.finish();
    return p;
}

Calibration::CollectivePoint readCollectivePoint(StrictObject o)
{
    Calibration::CollectivePoint p;
    const std::string kind = o.string("kind");
    const auto* k
        = std::find_if(std::begin(kKindNames), std::end(kKindNames), [&](const KindName& e) { return kind == e.name; });
    if (k == std::end(kKindNames))
        o.fail("kind", "must be one of " + choices(kKindNames) + ", got \"" + kind + "\"");
    p.kind = k->value;
    p.ranks = static_cast<int>(o.integer("ranks", 2));
    p.bytes = static_cast<double>(o.integer("bytes", 1, 1LL << 53));
    const auto rate = o.rate("bus_gb_per_s", kGbPerS);
    if (!rate)
        o.fail("bus_gb_per_s_median", "is missing");
    p.busBytesPerSecond = rate->first;
    p.percentiles = rate->second;
    o.finish();
    return p;
}

// Reads one "<prefix>_median/_p10/_p90" group into an optional scalar and its percentiles.
void readScalarRate(
    StrictObject& o, const std::string& prefix, std::optional<double>& median, Calibration::Percentiles& percentiles)
{
    if (const auto rate = o.rate(prefix, kGbPerS)) {
        median = rate->first;
        percentiles = rate->second;
    }
}

Calibration readRoot(const nlohmann::json& root)
{
    StrictObject top(root, "");
    Calibration c;
    const std::string format = top.string("format");
    if (format != kFormat)
        top.fail("format", std::string("must be \"") + kFormat + "\", got \"" + format + "\"");
    const long long version = top.integer("version", 1);
    if (version != kVersion)
        top.fail("version",
            "unsupported version " + std::to_string(version) + " (this build reads version " + std::to_string(kVersion)
                + ")");
    if (top.has("probe_version"))
        c.probeVersion = top.string("probe_version");
    c.date = top.string("date");
    readGpu(top.object("gpu"), c);

    if (top.has("method")) {
        StrictObject method = top.object("method");
        c.warmup = static_cast<int>(method.integer("warmup", 0));
        c.repeats = static_cast<int>(method.integer("repeats", 1));
        method.finish();
    }

    if (top.has("gemm")) {
        const nlohmann::json& gemm = top.array("gemm");
        for (std::size_t i = 0; i < gemm.size(); ++i)
            c.gemm.push_back(readGemmPoint(StrictObject(gemm[i], indexPath("gemm", i))));
    }

    if (top.has("attention")) {
        StrictObject a = top.object("attention");
        c.attentionShape.batch = static_cast<int>(a.integer("batch", 1));
        c.attentionShape.heads = static_cast<int>(a.integer("heads", 1));
        c.attentionShape.seqLen = static_cast<long>(a.integer("seq_len", 1));
        c.attentionShape.headDim = static_cast<int>(a.integer("head_dim", 1));
        const auto rate = a.rate("tflops", kTflops);
        if (!rate)
            a.fail("tflops_median", "is missing");
        c.attentionFlopsPerSecond = rate->first;
        c.attentionPercentiles = rate->second;
        a.finish();
    }

    if (top.has("hbm")) {
        StrictObject h = top.object("hbm");
        c.hbmBufferBytes = h.optionalBytes("buffer_bytes").value_or(0);
        readScalarRate(h, "stream_gb_per_s", c.hbmBytesPerSecond, c.hbmPercentiles);
        readScalarRate(h, "device_copy_gb_per_s", c.deviceCopyBytesPerSecond, c.deviceCopyPercentiles);
        h.finish();
    }

    if (top.has("copies")) {
        StrictObject cp = top.object("copies");
        c.copyBufferBytes = cp.optionalBytes("buffer_bytes").value_or(0);
        readScalarRate(cp, "host_to_device_gb_per_s", c.hostToDeviceBytesPerSecond, c.hostToDevicePercentiles);
        readScalarRate(cp, "device_to_host_gb_per_s", c.deviceToHostBytesPerSecond, c.deviceToHostPercentiles);
        readScalarRate(cp, "peer_gb_per_s", c.peerBytesPerSecond, c.peerPercentiles);
        if (cp.has("peer")) {
            const nlohmann::json& peers = cp.array("peer");
            for (std::size_t i = 0; i < peers.size(); ++i) {
                StrictObject e(peers[i], indexPath(cp.child("peer"), i));
                Calibration::PeerPoint p;
                p.source = static_cast<int>(e.integer("src", 0));
                p.destination = static_cast<int>(e.integer("dst", 0));
                if (p.source == p.destination)
                    e.fail("dst", "must differ from src (" + std::to_string(p.source) + ")");
                const auto rate = e.rate("gb_per_s", kGbPerS);
                if (!rate)
                    e.fail("gb_per_s_median", "is missing");
                p.bytesPerSecond = rate->first;
                p.percentiles = rate->second;
                e.finish();
                c.peers.push_back(p);
            }
        }
        cp.finish();
    }

    if (top.has("collectives")) {
        const nlohmann::json& coll = top.array("collectives");
        for (std::size_t i = 0; i < coll.size(); ++i)
            c.collectives.push_back(readCollectivePoint(StrictObject(coll[i], indexPath("collectives", i))));
    }

    if (top.has("failures")) {
        const nlohmann::json& failures = top.array("failures");
        for (std::size_t i = 0; i < failures.size(); ++i) {
            StrictObject f(failures[i], indexPath("failures", i));
            c.failures.push_back({ f.string("what"), f.string("reason") });
            f.finish();
        }
    }
    top.finish();
    return c;
}
} // namespace

namespace parallax::core {

std::optional<Calibration> readCalibration(const std::string& jsonText, std::string& error)
{
    std::string field;
    std::optional<nlohmann::json> root = parallax::core::io::parseJsonBounded(jsonText, error, &field);
    if (!root) {
        if (!field.empty())
            error = field + ": " + error;
        return std::nullopt;
    }
    try {
        Calibration c = readRoot(*root);
        error.clear();
        return c;
    } catch (const ReadError& e) {
        error = e.path.empty() ? e.message : e.path + ": " + e.message;
    } catch (const nlohmann::json::exception& e) {
        error = parallax::core::io::jsonExceptionText(e);
    } catch (const std::exception& e) {
        error = std::string("cannot read the calibration: ") + e.what();
    }
    return std::nullopt;
}

} // namespace parallax::core
