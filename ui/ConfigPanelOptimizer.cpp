// SPDX-License-Identifier: Apache-2.0
// The "Optimizer states" group: Megatron-Core's precision-aware optimizer and the dtypes of its
// main parameters, main gradients and Adam moments (training.optimizer).
#include "ui/ConfigPanel.h"

#include "core/parallel/OptimizerPrecision.h"

#include <QFormLayout>
#include <QGroupBox>

namespace parallax::ui {

QGroupBox* ConfigPanel::buildOptimizerGroup()
{
    auto* box = new QGroupBox(tr("Optimizer states"), this);
    box->setObjectName(QStringLiteral("optimizerStates"));
    auto* form = new QFormLayout(box);
    form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    boolField(
        form, tr("Precision-aware optimizer"), QStringLiteral("training.optimizer.precision_aware"),
        [](const core::Scenario& s) { return s.training.optimizer.precisionAware; },
        [](core::Scenario& s, bool on) { s.training.optimizer.precisionAware = on; },
        tr("Megatron-Core --use-precision-aware-optimizer: Transformer Engine's FusedAdam keeps the main "
           "parameters, gradients and moments in the dtypes below (needs the distributed optimizer, ZeRO-1 "
           "or more); off, they are fp32: 12 bytes per parameter"),
        true);
    struct Row {
        core::OptimizerField field;
        QString label;
        QString tip;
    };
    const Row rows[] = {
        { core::OptimizerField::MainParams, tr("Main parameters"),
            tr("--main-params-dtype: the master copy Adam updates (fp32, or fp16)") },
        { core::OptimizerField::MainGrads, tr("Main gradients"),
            tr("--main-grads-dtype: the gradients Adam reads; bf16 with a bf16 grad buffer needs no fp32 copy") },
        { core::OptimizerField::ExpAvg, tr("Adam exp_avg"),
            tr("--exp-avg-dtype: the first moment (DeepSeek-V3: bf16)") },
        { core::OptimizerField::ExpAvgSq, tr("Adam exp_avg_sq"),
            tr("--exp-avg-sq-dtype: the second moment (DeepSeek-V3: bf16)") },
    };
    for (const Row& row : rows) {
        const core::OptimizerField f = row.field;
        std::vector<std::pair<QString, QString>> values;
        for (core::StateDType d : core::kStateDTypes) {
            if (!core::stateDTypeAllowed(f, d))
                continue;
            const QString name = QString::fromLatin1(core::toString(d));
            values.emplace_back(name, tr("%1 (%2 B)").arg(name).arg(core::stateDTypeBytes(d)));
        }
        choiceField(
            form, row.label, QStringLiteral("training.optimizer.") + QString::fromLatin1(core::fieldKey(f)), values,
            [f](const core::Scenario& s) {
                return QString::fromLatin1(core::toString(core::fieldValue(s.training.optimizer, f)));
            },
            [f](core::Scenario& s, const QString& v) {
                core::StateDType d = core::StateDType::Fp32;
                if (core::parseStateDType(v.toStdString(), d))
                    s.training.optimizer.*core::fieldMember(f) = d;
            },
            row.tip);
    }
    boolField(
        form, tr("Store param remainders"), QStringLiteral("training.optimizer.store_param_remainders"),
        [](const core::Scenario& s) { return s.training.optimizer.storeParamRemainders; },
        [](core::Scenario& s, bool on) { s.training.optimizer.storeParamRemainders = on; },
        tr("OptimizerConfig.store_param_remainders (on by default; --no-store-param-remainders): fp32 main "
           "parameters of bf16 weights keep only the 16 bits the bf16 copy lacks, 2 bytes instead of 4"),
        true);
    return box;
}

} // namespace parallax::ui
