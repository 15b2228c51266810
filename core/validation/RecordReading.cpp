// SPDX-License-Identifier: Apache-2.0
#include "core/validation/RecordReading.h"

#include "core/Limits.h"
#include "core/io/JsonReader.h"
#include "core/io/PresetLibrary.h"

#include <algorithm>
#include <cctype>

namespace parallax::core::record {

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

std::string missingNumber(const json& j, const std::string& section, const char* key)
{
    const std::string field = section + "." + key;
    if (!j.is_object() || !j.contains(key) || j[key].is_null())
        return field + " not stated";
    const json& v = j[key];
    std::string shown = v.dump();
    if (shown.size() > 40)
        shown = shown.substr(0, 37) + "...";
    return field + " must be a number, found " + jsonTypeName(v) + " " + shown;
}

// Case-insensitive: records spell "FP8" and "fp8", "Full" and "full".
bool contains(const std::string& haystack, const char* needle)
{
    std::string h = haystack, n = needle;
    std::transform(h.begin(), h.end(), h.begin(), [](unsigned char c) { return std::tolower(c); });
    std::transform(n.begin(), n.end(), n.begin(), [](unsigned char c) { return std::tolower(c); });
    return h.find(n) != std::string::npos;
}

std::string outOfRange(const json& j, const std::string& section, std::initializer_list<NumberLimit> limits)
{
    for (const NumberLimit& l : limits) {
        const auto v = number(j, l.key);
        if (v && !(*v >= 0 && *v <= l.max))
            return section + "." + l.key + " = " + json(*v).dump() + " is outside the supported range 0 to "
                + json(l.max).dump();
    }
    return {};
}

namespace {

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
        return "a100-sxm-80gb"; // the 40 GB part is this preset with its own HBM (readHardware)
    return {};
}

// Rack-scale NVLink (GB200 NVL72): the domain is the rack, not the tray; as many whole trays of the
// rack as divide the run (64 of 72 when the count is a power of two).
int nvlinkDomain(const GpuSpec& gpu, int gpus, int perNode)
{
    for (int d = gpu.nvlinkDomainSize; d > perNode; --d) {
        if (d % perNode == 0 && gpus % d == 0)
            return d;
    }
    return perNode;
}

} // namespace

std::string readHardware(
    const json& hw, const SourceConventions& conv, Scenario& s, std::string& gpu, std::vector<std::string>& assumed)
{
    if (hw.is_object() && hw.contains("gpu") && !hw["gpu"].is_string())
        return "hardware.gpu must be the GPU's name, found " + jsonTypeName(hw["gpu"]);
    gpu = gpuPreset(text(hw, "gpu"));
    if (gpu.empty())
        return "no GPU preset for \"" + text(hw, "gpu") + "\"";
    if (std::string why = outOfRange(hw, "hardware",
            { { "gpu_count", static_cast<double>(kMaxGpus) }, { "gpus_per_node", static_cast<double>(kMaxGpus) } });
        !why.empty())
        return why;
    auto spec = PresetLibrary::instance().gpu(gpu);
    const auto count = number(hw, "gpu_count");
    if (!count)
        return missingNumber(hw, "hardware", "gpu_count");
    if (!spec || *count < 1)
        return "hardware.gpu_count not stated";
    if (gpu == "a100-sxm-80gb" && number(hw, "gpu_memory_gb").value_or(80) < 79) {
        // A100 SXM4 40GB: 40 GiB of HBM2 at 1,555 GB/s, otherwise the 80 GB part (NVIDIA A100 datasheet).
        spec->id = "a100-sxm-40gb";
        spec->name = "NVIDIA A100 SXM4 40GB";
        spec->hbmBytes = 40.0 * 1024 * 1024 * 1024;
        spec->hbmBytesPerSecond = 1.555e12;
        assumed.emplace_back("GPU: A100 SXM4 40GB (40 GiB, 1,555 GB/s; the A100 preset otherwise)");
    }
    int perNode = static_cast<int>(number(hw, "gpus_per_node").value_or(0));
    if (perNode <= 0) {
        perNode = 8;
        assumed.emplace_back("hardware.gpus_per_node = 8 (DGX/HGX node)");
    }
    if (*count > kMaxGpus)
        return "hardware.gpu_count " + std::to_string(static_cast<long long>(*count)) + " exceeds the supported "
            + std::to_string(kMaxGpus);
    const int gpus = static_cast<int>(*count);
    if (gpus % perNode != 0 && gpus > perNode)
        return "gpu_count is not a multiple of gpus_per_node";
    const int domain = nvlinkDomain(*spec, gpus, perNode);
    if (domain > perNode)
        assumed.push_back("NVLink domain = " + std::to_string(domain) + " GPUs (rack-scale NVLink of " + gpu + ")");
    const int nodes = std::max(1, gpus / domain);
    const int inNode = std::min(gpus, domain);
    const int nics = std::max(1, conv.nicsPerNode * inNode / 8); // the source's NICs per 8 GPUs
    s.topology = Topology::regular(*spec, nodes, inNode, conv.nicGbps, nics);
    s.nodes = nodes;
    s.gpusPerNode = inNode;
    s.gpuPreset = gpu;
    if (!conv.networkNote.empty())
        assumed.push_back(conv.networkNote);
    return {};
}

} // namespace parallax::core::record
