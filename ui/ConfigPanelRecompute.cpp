// SPDX-License-Identifier: Apache-2.0
// The Training group's "Selective recompute modules" box: one check box per Megatron-Core module.
#include "ui/ConfigPanel.h"

#include "core/parallel/ParallelConfig.h"

#include <QFormLayout>
#include <QGroupBox>

namespace parallax::ui {

QGroupBox* ConfigPanel::buildRecomputeModulesGroup()
{
    namespace rm = core::recompute_module;
    auto* box = new QGroupBox(tr("Selective recompute modules"), this);
    box->setObjectName(QStringLiteral("recomputeModules"));
    box->setToolTip(tr("What selective recompute re-runs in the backward (Megatron-Core --recompute-modules); "
                       "shown while Recompute is \"selective\""));
    auto* form = new QFormLayout(box);
    form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    struct Module {
        unsigned bit;
        const char* name;
        QString tip;
    };
    const Module modules[] = {
        { rm::kCoreAttn, "core_attn",
            tr("The attention core: its scores (unfused) or its kernel's saved output and statistics (fused) are "
               "rebuilt from Q, K, V; the default") },
        { rm::kLayernorm, "layernorm",
            tr("The norms that are modules of their own (before MLA's down projections, before the MoE router); "
               "their outputs are discarded and rebuilt") },
        { rm::kMlaUpProj, "mla_up_proj",
            tr("MLA's up projections and RoPE: Q, K and V are rebuilt from the latents (DeepSeek-V3, "
               "arXiv:2412.19437 sec. 3.2.3)") },
        { rm::kMoeAct, "moe_act",
            tr("The experts' activation function: its output, the down projection's input, "
               "is discarded and rebuilt") },
        { rm::kMlp, "mlp", tr("Dense MLPs, checkpointed from their input") },
        { rm::kMoe, "moe", tr("Whole MoE layers from their input, the dispatch and combine all-to-alls included") },
        { rm::kSharedExperts, "shared_experts", tr("The shared experts of MoE layers") },
    };
    for (const Module& m : modules) {
        const unsigned bit = m.bit;
        boolField(
            form, QString::fromLatin1(m.name),
            QStringLiteral("training.recompute_modules.") + QString::fromLatin1(m.name),
            [bit](const core::Scenario& s) { return (s.training.recomputeModules & bit) != 0; },
            [bit](core::Scenario& s, bool on) {
                s.training.recomputeModules
                    = on ? s.training.recomputeModules | bit : s.training.recomputeModules & ~bit;
            },
            m.tip, true);
    }
    return box;
}

} // namespace parallax::ui
