// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstddef>
#include <string>

namespace parallax::probe {

// NCCL loaded at run time (dlopen "libnccl.so.2"), so that the probe builds and runs without it.
// The few declarations needed are restated here with NCCL's stable C ABI (nccl.h: ncclResult_t,
// ncclDataType_t and ncclRedOp_t are C enums, passed as int; ncclComm_t and cudaStream_t are
// pointers), so no NCCL header is needed either.
class NcclLibrary {
public:
    using Comm = void*;
    using Stream = void*; // cudaStream_t
    enum Result : int { kSuccess = 0 };
    enum DataType : int { kBfloat16 = 9 }; // ncclBfloat16
    enum RedOp : int { kSum = 0 }; // ncclSum

    NcclLibrary() = default;
    NcclLibrary(const NcclLibrary&) = delete;
    NcclLibrary& operator=(const NcclLibrary&) = delete;
    ~NcclLibrary();

    // The library to load: $PARALLAX_NCCL_LIBRARY when set (a path, e.g. the NCCL inside a PyTorch
    // installation), else "libnccl.so.2" from the loader's search path.
    static std::string defaultName();

    // False with `error` set ("libnccl.so.2: cannot open shared object file ...") when the library
    // or one of its symbols is missing.
    bool load(const std::string& soname, std::string& error);
    bool loaded() const { return m_handle != nullptr; }
    std::string versionText() const; // "2.28.3"
    std::string errorText(int result) const;

    int (*getVersion)(int*) = nullptr;
    const char* (*getErrorString)(int) = nullptr;
    int (*commInitAll)(Comm*, int, const int*) = nullptr;
    int (*commDestroy)(Comm) = nullptr;
    int (*groupStart)() = nullptr;
    int (*groupEnd)() = nullptr;
    int (*allReduce)(const void*, void*, std::size_t, int, int, Comm, Stream) = nullptr;
    int (*allGather)(const void*, void*, std::size_t, int, Comm, Stream) = nullptr;
    int (*reduceScatter)(const void*, void*, std::size_t, int, int, Comm, Stream) = nullptr;
    int (*send)(const void*, std::size_t, int, int, Comm, Stream) = nullptr;
    int (*recv)(void*, std::size_t, int, int, Comm, Stream) = nullptr;

private:
    void* m_handle = nullptr;
};

} // namespace parallax::probe
