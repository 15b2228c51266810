// SPDX-License-Identifier: Apache-2.0
// The "Model" group: the preset, its parameter count, and the architecture and MoE fields that turn it into
// an inline (custom) model when edited.
#include "ui/ConfigPanel.h"

#include "core/io/PresetLibrary.h"
#include "core/model/ModelMath.h"
#include "ui/ScenarioDocument.h"

#include <QComboBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QLabel>
#include <QSpinBox>
#include <QVBoxLayout>
#include <algorithm>
#include <string>
#include <vector>

namespace parallax::ui {

namespace {
constexpr int kMaxInt = 2'000'000'000;

core::MoeSpec& moeOf(core::Scenario& s)
{
    if (!s.model.moe)
        s.model.moe = core::MoeSpec {};
    return *s.model.moe;
}

// A model field edit turns a preset model into an inline (custom) one.
void customModel(core::Scenario& s)
{
    s.modelPreset.clear();
}
} // namespace

QGroupBox* ConfigPanel::buildModelGroup()
{
    auto* box = new QGroupBox(tr("Model"), this);
    auto* v = new QVBoxLayout(box);
    auto* top = new QFormLayout;
    top->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    m_modelPreset = new QComboBox(box);
    m_modelPreset->setObjectName(QStringLiteral("modelPreset"));
    m_modelPreset->addItem(tr("Custom"), QString());
    // By size, as a user looks for "the 70B": names sort as text (1.7B, 145.6B, 18.4B).
    std::vector<const core::ModelSpec*> byParams;
    for (const auto& m : core::PresetLibrary::instance().models())
        byParams.push_back(&m);
    std::stable_sort(byParams.begin(), byParams.end(), [](const core::ModelSpec* a, const core::ModelSpec* b) {
        return core::totalParameters(*a) < core::totalParameters(*b);
    });
    for (const core::ModelSpec* m : byParams)
        m_modelPreset->addItem(QString::fromStdString(m->name), QString::fromStdString(m->id));
    top->addRow(tr("Preset:"), m_modelPreset);
    connect(m_modelPreset, &QComboBox::currentIndexChanged, this, [this](int index) {
        const std::string id = m_modelPreset->itemData(index).toString().toStdString();
        if (m_updating || id.empty() || id == m_document->scenario().modelPreset)
            return;
        const auto model = core::PresetLibrary::instance().model(id);
        if (!model)
            return;
        m_document->edit(tr("Use model %1").arg(QString::fromStdString(model->name)), [model, id](core::Scenario& s) {
            s.model = *model;
            s.modelPreset = id;
        });
    });
    m_modelSummary = new QLabel(box);
    m_modelSummary->setWordWrap(true);
    top->addRow(m_modelSummary);
    v->addLayout(top);

    m_architectureGroup = new QGroupBox(tr("Model architecture"), this);
    auto* av = new QVBoxLayout(m_architectureGroup);
    auto* form = new QFormLayout;
    form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    av->addLayout(form);
    using S = core::Scenario;
    intField(
        form, tr("Layers:"), QStringLiteral("model.layers"), 1, 4096, [](const S& s) { return s.model.layers; },
        [](S& s, int v) {
            s.model.layers = v;
            customModel(s);
        });
    intField(
        form, tr("Hidden size:"), QStringLiteral("model.hidden"), 1, 1 << 20,
        [](const S& s) { return static_cast<int>(s.model.hidden); },
        [](S& s, int v) {
            s.model.hidden = v;
            customModel(s);
        });
    intField(
        form, tr("Attention heads:"), QStringLiteral("model.heads"), 1, 16384, [](const S& s) { return s.model.heads; },
        [](S& s, int v) {
            s.model.heads = v;
            customModel(s);
        });
    intField(
        form, tr("KV heads:"), QStringLiteral("model.kv_heads"), 1, 16384, [](const S& s) { return s.model.kvHeads; },
        [](S& s, int v) {
            s.model.kvHeads = v;
            customModel(s);
        },
        tr("Key/value heads (grouped-query attention); equal to heads for multi-head attention"));
    intField(
        form, tr("FFN hidden:"), QStringLiteral("model.ffn_hidden"), 1, kMaxInt,
        [](const S& s) { return static_cast<int>(s.model.ffnHidden); },
        [](S& s, int v) {
            s.model.ffnHidden = v;
            customModel(s);
        });
    intField(
        form, tr("Vocabulary:"), QStringLiteral("model.vocab"), 1, 1 << 24,
        [](const S& s) { return static_cast<int>(s.model.vocab); },
        [](S& s, int v) {
            s.model.vocab = v;
            customModel(s);
        });
    choiceField(
        form, tr("Activation:"), QStringLiteral("model.activation"),
        { { QStringLiteral("swiglu"), QStringLiteral("SwiGLU") }, { QStringLiteral("gelu"), QStringLiteral("GELU") } },
        [](const S& s) {
            return s.model.activation == core::Activation::Gelu ? QStringLiteral("gelu") : QStringLiteral("swiglu");
        },
        [](S& s, const QString& v) {
            s.model.activation = v == QLatin1String("gelu") ? core::Activation::Gelu : core::Activation::SwiGlu;
            customModel(s);
        });
    boolField(
        form, tr("Tied embeddings:"), QStringLiteral("model.tied_embeddings"),
        [](const S& s) { return s.model.tiedEmbeddings; },
        [](S& s, bool on) {
            s.model.tiedEmbeddings = on;
            customModel(s);
        });
    boolField(
        form, tr("Parallel attention + MLP:"), QStringLiteral("model.parallel_block"),
        [](const S& s) { return s.model.parallelBlock; },
        [](S& s, bool on) {
            s.model.parallelBlock = on;
            customModel(s);
        },
        tr("Attention and MLP read one normed input and their outputs are summed: one tensor-parallel reduction "
           "per layer instead of two (PaLM, GPT-J, GPT-NeoX use_parallel_residual, MegaScale's parallel "
           "transformer block). Dense layers only."));
    intField(
        form, tr("MTP depths:"), QStringLiteral("model.mtp_layers"), 0, 16,
        [](const S& s) { return s.model.mtpLayers; },
        [](S& s, int v) {
            s.model.mtpLayers = v;
            customModel(s);
        },
        tr("Multi-token prediction: each depth adds a projection, one block like the last layer and another "
           "output-head pass on the last pipeline stage (Megatron --mtp-num-layers, Hugging Face "
           "num_nextn_predict_layers; DeepSeek-V3: 1). 0: none."));
    intField(
        form, tr("Attention window:"), QStringLiteral("model.sliding_window"), 0, 1 << 24,
        [](const S& s) { return s.model.slidingWindow; },
        [](S& s, int v) {
            s.model.slidingWindow = v;
            customModel(s);
        },
        tr("Sliding-window attention: the windowed layers attend to the last W tokens (Mistral, Gemma; Hugging Face "
           "sliding_window, Megatron --window-size W,0). Training pays only those pairs with a fused kernel, and "
           "serving caches at most W tokens on those layers. 0: full attention on every layer."));
    if (auto* window = qobject_cast<QSpinBox*>(fieldEditor(QStringLiteral("model.sliding_window"))))
        window->setSpecialValueText(tr("none (full)"));
    intField(
        form, tr("Full attention every N-th:"), QStringLiteral("model.sliding_window_pattern"), 0, 1024,
        [](const S& s) { return s.model.slidingWindowPattern; },
        [](S& s, int v) {
            s.model.slidingWindowPattern = v;
            customModel(s);
        },
        tr("Every N-th layer keeps full attention and the others are windowed (Gemma 3: 6, Llama 4: 4; Megatron "
           "--window-attn-skip-freq N). 0: every layer windowed."));
    if (auto* pattern = qobject_cast<QSpinBox*>(fieldEditor(QStringLiteral("model.sliding_window_pattern"))))
        pattern->setSpecialValueText(tr("none (all windowed)"));
    boolField(
        form, tr("Chunked attention:"), QStringLiteral("model.chunked_attention"),
        [](const S& s) { return s.model.chunkedAttention; },
        [](S& s, bool on) {
            s.model.chunkedAttention = on;
            customModel(s);
        },
        tr("The windowed layers attend within fixed chunks of the window's size instead of the last W tokens "
           "(Llama 4's chunked local attention, Hugging Face attention_chunk_size)."));

    m_moeGroup = new QGroupBox(tr("Mixture of experts"), m_architectureGroup);
    m_moeGroup->setCheckable(true);
    auto* moe = new QFormLayout(m_moeGroup);
    moe->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    intField(
        moe, tr("Routed experts:"), QStringLiteral("model.moe.experts"), 1, 16384,
        [](const S& s) { return s.model.moe ? s.model.moe->experts : 8; },
        [](S& s, int v) {
            moeOf(s).experts = v;
            customModel(s);
        });
    intField(
        moe, tr("Top-k:"), QStringLiteral("model.moe.top_k"), 1, 1024,
        [](const S& s) { return s.model.moe ? s.model.moe->topK : 2; },
        [](S& s, int v) {
            moeOf(s).topK = v;
            customModel(s);
        });
    intField(
        moe, tr("Shared experts:"), QStringLiteral("model.moe.shared_experts"), 0, 1024,
        [](const S& s) { return s.model.moe ? s.model.moe->sharedExperts : 0; },
        [](S& s, int v) {
            moeOf(s).sharedExperts = v;
            customModel(s);
        });
    intField(
        moe, tr("Router groups:"), QStringLiteral("model.moe.router_groups"), 0, 16384,
        [](const S& s) { return s.model.moe ? s.model.moe->routerGroups : 0; },
        [](S& s, int v) {
            moeOf(s).routerGroups = v;
            customModel(s);
        },
        tr("Group-limited routing: the experts form this many equal groups and each token picks its experts from "
           "its best groups (Hugging Face n_group, Megatron --moe-router-num-groups; DeepSeek-V3: 8, one per "
           "node). 0: no groups."));
    intField(
        moe, tr("Groups per token:"), QStringLiteral("model.moe.router_group_topk"), 0, 16384,
        [](const S& s) { return s.model.moe ? s.model.moe->routerGroupTopk : 0; },
        [](S& s, int v) {
            moeOf(s).routerGroupTopk = v;
            customModel(s);
        },
        tr("How many of the router groups a token may use (Hugging Face topk_group, Megatron "
           "--moe-router-group-topk; DeepSeek-V3: 4, so a token reaches at most 4 nodes). 0: no groups."));
    intField(
        moe, tr("Expert FFN hidden:"), QStringLiteral("model.moe.expert_ffn_hidden"), 1, kMaxInt,
        [](const S& s) { return s.model.moe ? static_cast<int>(s.model.moe->expertFfnHidden) : 1; },
        [](S& s, int v) {
            moeOf(s).expertFfnHidden = v;
            customModel(s);
        });
    intField(
        moe, tr("Dense layers first:"), QStringLiteral("model.moe.first_dense_layers"), 0, 4096,
        [](const S& s) { return s.model.moe ? s.model.moe->firstDenseLayers : 0; },
        [](S& s, int v) {
            moeOf(s).firstDenseLayers = v;
            customModel(s);
        });
    intField(
        moe, tr("MoE every N-th layer:"), QStringLiteral("model.moe.layer_step"), 1, 64,
        [](const S& s) { return s.model.moe ? s.model.moe->layerStep : 1; },
        [](S& s, int v) {
            moeOf(s).layerStep = v;
            customModel(s);
        },
        tr("1: every layer after the dense ones is MoE; 2: dense and MoE layers alternate, dense first (Llama 4 "
           "Maverick; Hugging Face interleave_moe_layer_step, Megatron --moe-layer-freq \"([0,1]*24)\")."));
    av->addWidget(m_moeGroup);
    connect(m_moeGroup, &QGroupBox::toggled, this, [this](bool on) {
        if (m_updating || on == m_document->scenario().model.isMoe())
            return;
        m_document->edit(
            on ? tr("Make the model a mixture of experts") : tr("Make the model dense"), [on](core::Scenario& s) {
                if (on)
                    s.model.moe = core::MoeSpec { 8, 2, 0, s.model.ffnHidden, 0 };
                else
                    s.model.moe.reset();
                customModel(s);
            });
    });
    return box;
}

} // namespace parallax::ui
