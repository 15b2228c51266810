// SPDX-License-Identifier: Apache-2.0
#include "core/probe/NcclLibrary.h"

#include <dlfcn.h>

#include <cstdlib>
#include <type_traits>

namespace parallax::probe {

NcclLibrary::~NcclLibrary()
{
    if (m_handle)
        dlclose(m_handle);
}

std::string NcclLibrary::defaultName()
{
    const char* name = std::getenv("PARALLAX_NCCL_LIBRARY");
    return name && *name ? name : "libnccl.so.2";
}

bool NcclLibrary::load(const std::string& soname, std::string& error)
{
    void* handle = dlopen(soname.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
        const char* why = dlerror();
        error = why ? why : soname + ": cannot be loaded";
        return false;
    }
    bool complete = true;
    auto bind = [&](auto& fn, const char* name) {
        fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(dlsym(handle, name));
        if (!fn && complete) {
            complete = false;
            error = soname + ": symbol " + name + " is missing";
        }
    };
    bind(getVersion, "ncclGetVersion");
    bind(getErrorString, "ncclGetErrorString");
    bind(commInitAll, "ncclCommInitAll");
    bind(commDestroy, "ncclCommDestroy");
    bind(groupStart, "ncclGroupStart");
    bind(groupEnd, "ncclGroupEnd");
    bind(allReduce, "ncclAllReduce");
    bind(allGather, "ncclAllGather");
    bind(reduceScatter, "ncclReduceScatter");
    bind(send, "ncclSend");
    bind(recv, "ncclRecv");
    if (!complete) {
        dlclose(handle);
        return false;
    }
    m_handle = handle;
    return true;
}

std::string NcclLibrary::versionText() const
{
    int code = 0;
    if (!getVersion || getVersion(&code) != kSuccess)
        return "unknown";
    // NCCL_VERSION(X, Y, Z) = X * 10000 + Y * 100 + Z since 2.9 (X * 1000 + Y * 100 + Z before).
    const int major = code >= 10000 ? code / 10000 : code / 1000;
    const int minor = code >= 10000 ? code / 100 % 100 : code / 100 % 10;
    return std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(code % 100);
}

std::string NcclLibrary::errorText(int result) const
{
    const char* text = getErrorString ? getErrorString(result) : nullptr;
    return std::string(text ? text : "NCCL error") + " (" + std::to_string(result) + ")";
}

} // namespace parallax::probe
