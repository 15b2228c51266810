// SPDX-License-Identifier: Apache-2.0
#pragma once

namespace parallax::probe {

// Exit codes of parallax-probe (docs/probe.md). Scripts and the app rely on 3 meaning "no GPU
// here, keep the datasheet numbers", so that case never shares a code with a real failure.
enum ExitCode : int {
    kExitOk = 0, // every planned measurement ran and verified; the calibration file was written
    kExitError = 1, // fatal: the output could not be written, or an unexpected error stopped the run
    kExitUsage = 2, // bad command-line arguments (one line on stderr)
    kExitNoDevice = 3, // no usable CUDA device (cudaGetDeviceCount failed or found 0)
    kExitMeasurementFailed = 4, // file written, but some measurements failed (listed under "failures")
};

} // namespace parallax::probe
