// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/probe/CudaTiming.h"
#include "core/probe/ProbeStats.h"

namespace parallax::probe {

// Bandwidths in bytes per second; every copy is checked on sampled windows afterwards.

struct HbmMeasurement {
    Summary streamBytesPerSecond; // streaming kernel, bytes read + written
    Summary deviceCopyBytesPerSecond; // cudaMemcpyAsync device-to-device, bytes read + written
};
// Two buffers of `bufferBytes` on the current device, copied one onto the other.
HbmMeasurement measureHbm(cudaStream_t stream, long bufferBytes, int smCount, const TimingOptions& timing);

struct HostCopyMeasurement {
    Summary hostToDeviceBytesPerSecond;
    Summary deviceToHostBytesPerSecond;
};
// Pinned host memory <-> the current device, one direction at a time.
HostCopyMeasurement measureHostCopies(cudaStream_t stream, long bufferBytes, const TimingOptions& timing);

struct PeerMeasurement {
    Summary bytesPerSecond;
    bool directAccess = false; // cudaDeviceCanAccessPeer: NVLink / PCIe P2P, else staged through the host
};
// cudaMemcpyPeerAsync from `source` to `destination`, issued on a stream of the source device.
PeerMeasurement measurePeerCopy(int source, int destination, long bufferBytes, const TimingOptions& timing);

} // namespace parallax::probe
