// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/Scenario.h"

#include <QString>

// Edits of a topology as the editor performs them: pure functions on core types, so that they are
// tested without a window and each one becomes one undo step. Functions that can refuse return
// the reason (empty when done).
namespace parallax::ui::edits {

QString moveGpu(core::Topology& t, int fromDomain, int toDomain);
QString addGpu(core::Topology& t, int domain, const core::GpuSpec& gpu);
// Removes one GPU; a domain that empties is removed with it (the file format has no empty domains).
void removeGpu(core::Topology& t, int domain);
int addDomain(core::Topology& t, const core::GpuSpec& gpu, int gpuCount, int fabric); // returns its index
int addFabric(core::Topology& t, double nicGbps);
// Moves a domain off the fabric it is drawn in (its first) onto `fabric`; its other fabrics (a
// spine above its leaf) stay. Fabric -1 detaches it from every fabric.
void attachDomain(core::Topology& t, int domain, int fabric);
// Adds a fabric to a domain's fabrics (leaf fabrics under a spine) / takes one away.
void alsoAttachDomain(core::Topology& t, int domain, int fabric);
void leaveFabric(core::Topology& t, int domain, int fabric);
void removeDomain(core::Topology& t, int domain);
void removeFabric(core::Topology& t, int fabric); // its domains stay, on no fabric
QString renameDomain(core::Topology& t, int domain, const QString& name);
QString renameFabric(core::Topology& t, int fabric, const QString& name);
QString uniqueDomainName(const core::Topology& t);
core::Topology generateCluster(const core::GpuSpec& gpu, int nodes, int gpusPerNode, double nicGbps);

// After a topology edit: keeps the file's compact regular form (`nodes` x `gpus_per_node`) when the
// topology is still regular, and switches to the explicit form otherwise.
void normalizeCluster(core::Scenario& s);
// dp = GPUs / (tp * cp * pp) when that divides (Megatron derives dp the same way); true if changed.
bool fitDataParallel(core::Scenario& s);

} // namespace parallax::ui::edits
