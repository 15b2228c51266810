// SPDX-License-Identifier: Apache-2.0
#include "ui/ConfigPanel.h"

#include "core/io/PresetLibrary.h"
#include "core/model/ModelMath.h"
#include "ui/DegreeSuggestions.h"
#include "ui/Format.h"
#include "ui/MessageModel.h"
#include "ui/ScenarioDocument.h"
#include "ui/Theme.h"

#include <QButtonGroup>
#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QGridLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPainter>
#include <QPushButton>
#include <QSpinBox>
#include <QToolButton>
#include <QVBoxLayout>
#include <cmath>

namespace parallax::ui {

namespace {
// Draws the validation mark around a field's editor, leaving the editor's own look alone (a
// style sheet border would restyle a spin box's buttons).
class MarkFrame : public QWidget {
public:
    explicit MarkFrame(QWidget* parent)
        : QWidget(parent)
    {
        auto* layout = new QHBoxLayout(this);
        layout->setContentsMargins(2, 2, 2, 2);
        layout->setSpacing(0);
    }
    void setMark(const QColor& color)
    {
        m_color = color;
        setProperty("mark", color.isValid() ? color.name() : QString());
        update();
    }

protected:
    void paintEvent(QPaintEvent*) override
    {
        if (!m_color.isValid())
            return;
        QPainter p(this);
        p.setRenderHint(QPainter::Antialiasing);
        p.setPen(QPen(m_color, 2));
        p.drawRoundedRect(QRectF(rect()).adjusted(1, 1, -1, -1), 4, 4);
    }

private:
    QColor m_color;
};
} // namespace

ConfigPanel::ConfigPanel(ScenarioDocument* document, QWidget* parent)
    : QWidget(parent)
    , m_document(document)
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(6, 6, 6, 6);
    layout->setSpacing(8);
    layout->addWidget(buildModeSwitch());

    auto* messagesBox = new QGroupBox(tr("Findings"), this);
    auto* messagesLayout = new QVBoxLayout(messagesBox);
    m_messageSummary = new QLabel(messagesBox);
    m_messageSummary->setWordWrap(true);
    messagesLayout->addWidget(m_messageSummary);
    m_messages = new MessageModel(this);
    m_findings = new QLabel(messagesBox);
    m_findings->setObjectName(QStringLiteral("findings"));
    m_findings->setWordWrap(true);
    m_findings->setTextFormat(Qt::RichText);
    m_findings->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_findings->setAlignment(Qt::AlignTop | Qt::AlignLeft);
    messagesLayout->addWidget(m_findings);
    layout->addWidget(messagesBox);

    // The model preset comes first (at 1366x768 it must be in view without scrolling); its
    // architecture fields, edited rarely, go last.
    layout->addWidget(buildModelGroup());
    layout->addWidget(buildParallelGroup());
    layout->addWidget(m_inferenceGroup = buildInferenceGroup());
    layout->addWidget(m_trainingGroup = buildTrainingGroup());
    layout->addWidget(m_recomputeModulesGroup = buildRecomputeModulesGroup());
    layout->addWidget(m_optimizerGroup = buildOptimizerGroup());
    layout->addWidget(m_kernelsGroup = buildKernelsGroup());
    layout->addWidget(m_architectureGroup);
    layout->addStretch(1);

    connect(m_document, &ScenarioDocument::scenarioChanged, this, &ConfigPanel::refreshFromScenario);
    connect(m_document, &ScenarioDocument::evaluationChanged, this, &ConfigPanel::refreshFromEvaluation);
    refreshFromScenario();
    refreshFromEvaluation();
}

ConfigPanel::~ConfigPanel() = default;

ConfigPanel::Field& ConfigPanel::addField(
    QFormLayout* form, const QString& label, const QString& path, QWidget* editor, const QString& tip)
{
    auto* container = new QWidget(form->parentWidget());
    auto* v = new QVBoxLayout(container);
    v->setContentsMargins(0, 0, 0, 0);
    v->setSpacing(2);
    auto* frame = new MarkFrame(container);
    frame->layout()->addWidget(editor);
    v->addWidget(frame);
    auto* hint = new QWidget(container);
    auto* hv = new QVBoxLayout(hint);
    hv->setContentsMargins(0, 0, 0, 2);
    hv->setSpacing(2);
    auto* hintText = new QLabel(hint);
    hintText->setWordWrap(true);
    hintText->setTextInteractionFlags(Qt::TextSelectableByMouse);
    hv->addWidget(hintText);
    // Fix buttons one to a row: a row of three or four does not fit a narrow dock (1366x768).
    auto* buttons = new QWidget(hint);
    auto* hb = new QGridLayout(buttons);
    hb->setContentsMargins(0, 0, 0, 0);
    hb->setSpacing(4);
    hv->addWidget(buttons);
    hint->setVisible(false);
    v->addWidget(hint);
    editor->setObjectName(QStringLiteral("field:") + path);
    editor->setToolTip(tip);
    editor->setProperty("baseToolTip", tip);
    if (label.isEmpty())
        form->addRow(container);
    else
        form->addRow(label, container);

    Field f;
    f.path = path;
    f.editor = editor;
    f.frame = frame;
    f.hint = hint;
    f.hintText = hintText;
    f.buttons = buttons;
    f.form = form;
    f.row = container;
    m_byPath.insert(path, m_fields.size());
    m_fields.push_back(std::move(f));
    return m_fields.back();
}

void ConfigPanel::intField(QFormLayout* form, const QString& label, const QString& path, int minimum, int maximum,
    std::function<int(const core::Scenario&)> get, std::function<void(core::Scenario&, int)> set, const QString& tip)
{
    auto* spin = new QSpinBox(form->parentWidget());
    spin->setRange(minimum, maximum);
    spin->setKeyboardTracking(false); // one edit per committed value, not per keystroke
    spin->setAccelerated(true);
    Field& f = addField(form, label, path, spin, tip);
    f.refresh = [this, spin, get] { spin->setValue(get(m_document->scenario())); };
    connect(spin, &QSpinBox::valueChanged, this, [this, label, path, set, get](int value) {
        if (m_updating || get(m_document->scenario()) == value)
            return;
        QString name = label;
        name.remove(QLatin1Char(':'));
        m_document->edit(
            tr("Set %1 to %2").arg(name).arg(value), [set, value](core::Scenario& s) { set(s, value); }, path);
    });
}

void ConfigPanel::doubleField(QFormLayout* form, const QString& label, const QString& path, double minimum,
    double maximum, double step, int decimals, std::function<double(const core::Scenario&)> get,
    std::function<void(core::Scenario&, double)> set, const QString& tip)
{
    auto* spin = new QDoubleSpinBox(form->parentWidget());
    spin->setRange(minimum, maximum);
    spin->setSingleStep(step);
    spin->setDecimals(decimals);
    spin->setKeyboardTracking(false);
    Field& f = addField(form, label, path, spin, tip);
    f.refresh = [this, spin, get] { spin->setValue(get(m_document->scenario())); };
    connect(spin, &QDoubleSpinBox::valueChanged, this, [this, label, path, set, get, decimals](double value) {
        if (m_updating || qAbs(get(m_document->scenario()) - value) < 0.5 * std::pow(10.0, -decimals))
            return;
        QString name = label;
        name.remove(QLatin1Char(':'));
        m_document->edit(
            tr("Set %1 to %2").arg(name, QString::number(value, 'f', decimals)),
            [set, value](core::Scenario& s) { set(s, value); }, path);
    });
}

void ConfigPanel::choiceField(QFormLayout* form, const QString& label, const QString& path,
    const std::vector<std::pair<QString, QString>>& values, std::function<QString(const core::Scenario&)> get,
    std::function<void(core::Scenario&, const QString&)> set, const QString& tip)
{
    auto* combo = new QComboBox(form->parentWidget());
    for (const auto& [value, text] : values)
        combo->addItem(text, value);
    Field& f = addField(form, label, path, combo, tip);
    f.refresh = [this, combo, get] {
        const QString value = get(m_document->scenario());
        int index = combo->findData(value);
        if (index < 0) {
            combo->addItem(value, value); // a value from a newer file: shown, kept
            index = combo->count() - 1;
        }
        combo->setCurrentIndex(index);
    };
    connect(combo, &QComboBox::currentIndexChanged, this, [this, combo, label, set, get](int index) {
        const QString value = combo->itemData(index).toString();
        if (m_updating || index < 0 || get(m_document->scenario()) == value)
            return;
        QString name = label;
        name.remove(QLatin1Char(':'));
        m_document->edit(
            tr("Set %1 to %2").arg(name, combo->itemText(index)), [set, value](core::Scenario& s) { set(s, value); });
    });
}

void ConfigPanel::boolField(QFormLayout* form, const QString& label, const QString& path,
    std::function<bool(const core::Scenario&)> get, std::function<void(core::Scenario&, bool)> set, const QString& tip,
    bool labelOnBox)
{
    auto* check = new QCheckBox(labelOnBox ? label : QString(), form->parentWidget());
    Field& f = addField(form, labelOnBox ? QString() : label, path, check, tip);
    f.refresh = [this, check, get] { check->setChecked(get(m_document->scenario())); };
    connect(check, &QCheckBox::toggled, this, [this, label, set, get](bool on) {
        if (m_updating || get(m_document->scenario()) == on)
            return;
        QString name = label;
        name.remove(QLatin1Char(':'));
        m_document->edit(on ? tr("Turn on %1").arg(name) : tr("Turn off %1").arg(name),
            [set, on](core::Scenario& s) { set(s, on); });
    });
}

QGroupBox* ConfigPanel::buildParallelGroup()
{
    auto* box = new QGroupBox(tr("Parallelism"), this);
    auto* v = new QVBoxLayout(box);
    auto* form = new QFormLayout;
    form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    v->addLayout(form);
    using S = core::Scenario;
    intField(
        form, tr("Tensor (tp):"), QStringLiteral("parallel.tp"), 1, 65536, [](const S& s) { return s.parallel.tp; },
        [](S& s, int v) { s.parallel.tp = v; },
        tr("Tensor parallel degree: splits each layer's matrices; keep it inside an NVLink domain"));
    boolField(
        form, tr("Sequence parallel:"), QStringLiteral("parallel.sp"), [](const S& s) { return s.parallel.sp; },
        [](S& s, bool on) { s.parallel.sp = on; }, tr("Shards norms and dropout activations over tp (needs tp > 1)"));
    intField(
        form, tr("Context (cp):"), QStringLiteral("parallel.cp"), 1, 65536, [](const S& s) { return s.parallel.cp; },
        [](S& s, int v) { s.parallel.cp = v; }, tr("Context parallel degree: splits the sequence"));
    choiceField(
        form, tr("CP communication:"), QStringLiteral("parallel.cp_comm_type"),
        { { QStringLiteral("p2p"), tr("ring (p2p)") }, { QStringLiteral("all_gather"), tr("all-gather") },
            { QStringLiteral("a2a"), tr("all-to-all (Ulysses)") },
            { QStringLiteral("a2a+p2p"), tr("all-to-all, then ring") } },
        [](const S& s) { return QString::fromLatin1(core::toString(s.parallel.cpCommType)); },
        [](S& s, const QString& v) {
            core::parseCpCommType(v.toStdString(), s.parallel.cpCommType);
            // a2a+p2p needs its all-to-all level: start at the smallest that leaves a ring.
            if (s.parallel.cpCommType == core::CpCommType::A2aP2p && s.parallel.cpA2aSize == 0) {
                for (int a = 2; a < s.parallel.cp && s.parallel.cpA2aSize == 0; ++a)
                    s.parallel.cpA2aSize = s.parallel.cp % a == 0 ? a : 0;
            }
        },
        tr("How the cp ranks share the sequence's keys and values (--cp-comm-type). The ring passes K/V behind the "
           "attention (windowed layers all-gather instead); all-gather collects them before each attention, exposed; "
           "all-to-all (DeepSpeed-Ulysses) swaps the sequence shard for a head shard and back, exposed, and needs the "
           "heads of a TP rank divisible by cp; all-to-all then ring runs Ulysses within groups of the size below and "
           "the ring across them"));
    intField(
        form, tr("CP all-to-all level:"), QStringLiteral("parallel.cp_a2a_size"), 0, 65536,
        [](const S& s) { return s.parallel.cpA2aSize; }, [](S& s, int v) { s.parallel.cpA2aSize = v; },
        tr("Adjacent cp ranks of each all-to-all group under all-to-all then ring; the ring spans cp / this many "
           "groups (--hierarchical-context-parallel-sizes)"));
    if (auto* spin = qobject_cast<QSpinBox*>(fieldEditor(QStringLiteral("parallel.cp_a2a_size"))))
        spin->setSpecialValueText(tr("none"));
    intField(
        form, tr("Pipeline (pp):"), QStringLiteral("parallel.pp"), 1, 65536, [](const S& s) { return s.parallel.pp; },
        [](S& s, int v) { s.parallel.pp = v; }, tr("Pipeline stages"));
    intField(
        form, tr("Virtual stages (vpp):"), QStringLiteral("parallel.vpp"), 1, 1024,
        [](const S& s) { return s.parallel.vpp; }, [](S& s, int v) { s.parallel.vpp = v; },
        tr("Model chunks per pipeline rank (interleaved 1F1B)"));

    // dp, with "follow the cluster": dp = GPUs / (tp * cp * pp).
    auto* dpRow = new QWidget(box);
    auto* dpLayout = new QHBoxLayout(dpRow);
    dpLayout->setContentsMargins(0, 0, 0, 0);
    auto* dpSpin = new QSpinBox(dpRow);
    dpSpin->setRange(1, 65536);
    dpSpin->setKeyboardTracking(false);
    m_autoDp = new QCheckBox(tr("auto"), dpRow);
    m_autoDp->setObjectName(QStringLiteral("autoDataParallel"));
    m_autoDp->setToolTip(tr("dp follows the cluster: GPUs / (tp × cp × pp)"));
    dpLayout->addWidget(dpSpin, 1);
    dpLayout->addWidget(m_autoDp);
    Field& dp = addField(form, tr("Data (dp):"), QStringLiteral("parallel.dp"), dpRow, tr("Data parallel replicas"));
    dp.refresh = [this, dpSpin] {
        dpSpin->setValue(m_document->scenario().parallel.dp);
        m_autoDp->setChecked(m_document->autoDataParallel());
        dpSpin->setEnabled(!m_document->autoDataParallel());
    };
    connect(dpSpin, &QSpinBox::valueChanged, this, [this](int value) {
        if (m_updating || value == m_document->scenario().parallel.dp)
            return;
        m_document->edit(
            tr("Set dp to %1").arg(value), [value](core::Scenario& s) { s.parallel.dp = value; },
            QStringLiteral("parallel.dp"));
    });
    connect(m_autoDp, &QCheckBox::toggled, this, [this, dpSpin](bool on) {
        if (m_updating)
            return;
        m_document->setAutoDataParallel(on);
        dpSpin->setEnabled(!on);
        if (on)
            m_document->edit(tr("Let dp follow the cluster"), [](core::Scenario&) {});
    });

    intField(
        form, tr("Expert (ep):"), QStringLiteral("parallel.ep"), 1, 65536, [](const S& s) { return s.parallel.ep; },
        [](S& s, int v) { s.parallel.ep = v; }, tr("Expert parallel degree (MoE): experts are sharded over ep ranks"));
    // Serving: DP-attention (SGLang --enable-dp-attention) turns the attention's tp ranks into dp
    // replicas of tp = 1 while the experts stay split over ep of them; off, the replicas become tp again.
    boolField(
        form, tr("DP-attention"), QStringLiteral("parallel.dp_attention"),
        [](const S& s) { return s.parallel.dp > 1 && s.parallel.ep > 1; },
        [](S& s, bool on) {
            if (on) {
                s.parallel.dp *= s.parallel.tp;
                s.parallel.tp = 1;
                if (s.model.isMoe() && s.parallel.ep <= 1) {
                    s.parallel.ep = s.parallel.dp;
                    while (s.parallel.ep > 1 && s.model.moe->experts % s.parallel.ep != 0)
                        s.parallel.ep /= 2;
                }
            } else {
                s.parallel.tp *= s.parallel.dp;
                s.parallel.dp = 1;
            }
        },
        tr("Attention replicated over dp ranks (each caching its own requests) while the experts are split over ep "
           "of them, as SGLang --enable-dp-attention and vLLM serve DeepSeek-V3; on: dp = tp × dp and tp = 1, off: "
           "tp = tp × dp and dp = 1"),
        true);
    m_dpAttention = qobject_cast<QCheckBox*>(fieldEditor(QStringLiteral("parallel.dp_attention")));
    intField(
        form, tr("ZeRO stage:"), QStringLiteral("parallel.zero"), 0, 3, [](const S& s) { return s.parallel.zero; },
        [](S& s, int v) { s.parallel.zero = v; },
        tr("0 none; 1 shards optimizer state; 2 also gradients; 3 also weights (over dp)"));
    std::vector<std::pair<QString, QString>> schedules;
    for (auto k : { core::ScheduleKind::GPipe, core::ScheduleKind::OneFOneB, core::ScheduleKind::Interleaved1F1B,
             core::ScheduleKind::ZbH1, core::ScheduleKind::ZbH2, core::ScheduleKind::ZbV, core::ScheduleKind::DualPipe,
             core::ScheduleKind::DualPipeV })
        schedules.emplace_back(QString::fromLatin1(core::toString(k)), format::scheduleName(k));
    choiceField(
        form, tr("Schedule:"), QStringLiteral("parallel.schedule"), schedules,
        [](const S& s) { return QString::fromLatin1(core::toString(s.parallel.schedule)); },
        [](S& s, const QString& v) { core::parseSchedule(v.toStdString(), s.parallel.schedule); });
    choiceField(
        form, tr("Rank order:"), QStringLiteral("parallel.order"),
        { { QStringLiteral("tp-cp-ep-dp-pp"), QStringLiteral("tp-cp-ep-dp-pp (Megatron default)") },
            { QStringLiteral("tp-cp-ep-pp-dp"), QStringLiteral("tp-cp-ep-pp-dp") } },
        [](const S& s) { return QString::fromStdString(s.parallel.order); },
        [](S& s, const QString& v) { s.parallel.order = v.toStdString(); },
        tr("Megatron-Core rank order, fastest-varying first"));
    // Megatron-Core's --pipeline-model-parallel-layout, committed when the edit finishes (one undo step).
    auto* layout = new QLineEdit(form->parentWidget());
    layout->setPlaceholderText(tr("even split"));
    Field& layoutField = addField(form, tr("PP layout:"), QStringLiteral("parallel.pipeline_layout"), layout,
        tr("Megatron-Core --pipeline-model-parallel-layout: the layers of each virtual stage, split by '|' (E "
           "embedding, t layer, m MTP layer, L loss; t*3 and (tt|)*29 repeat), e.g. \"Et*3|(tt|)*29,m|L\" for "
           "DeepSeek-V3 on pp 16 x vpp 2 (its MTP layer in a stage of its own). Empty: the split set above"));
    layoutField.refresh
        = [this, layout] { layout->setText(QString::fromStdString(m_document->scenario().parallel.pipelineLayout)); };
    connect(layout, &QLineEdit::editingFinished, this, [this, layout] {
        const std::string text = layout->text().trimmed().toStdString();
        if (m_updating || text == m_document->scenario().parallel.pipelineLayout)
            return;
        m_document->edit(
            text.empty() ? tr("Clear the pipeline layout") : tr("Set the pipeline layout to %1").arg(layout->text()),
            [text](core::Scenario& s) { s.parallel.pipelineLayout = text; },
            QStringLiteral("parallel.pipeline_layout"));
    });
    m_parallelSummary = new QLabel(box);
    m_parallelSummary->setWordWrap(true);
    v->addWidget(m_parallelSummary);
    return box;
}

QWidget* ConfigPanel::buildModeSwitch()
{
    auto* box = new QWidget(this);
    auto* form = new QFormLayout(box);
    form->setContentsMargins(0, 0, 0, 0);
    form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    auto* buttons = new QWidget(box);
    auto* h = new QHBoxLayout(buttons);
    h->setContentsMargins(0, 0, 0, 0);
    h->setSpacing(0);
    auto* group = new QButtonGroup(buttons);
    group->setExclusive(true);
    auto makeButton = [&](const QString& text, const QString& name, const QString& tip) {
        auto* b = new QToolButton(buttons);
        b->setText(text);
        b->setObjectName(name);
        b->setToolTip(tip);
        b->setCheckable(true);
        b->setToolButtonStyle(Qt::ToolButtonTextOnly);
        b->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
        group->addButton(b);
        h->addWidget(b, 1);
        return b;
    };
    m_trainingMode = makeButton(tr("Training"), QStringLiteral("modeTraining"),
        tr("Plan a training run: step time, MFU and memory per pipeline stage"));
    m_inferenceMode = makeButton(tr("Inference"), QStringLiteral("modeInference"),
        tr("Plan serving: weights and KV cache per GPU, the concurrency that fits, TTFT, TPOT and tokens/s"));
    Field& f = addField(form, tr("Plan for:"), QStringLiteral("mode"), buttons,
        tr("Training or serving (inference) of the same model on the same cluster"));
    f.refresh = [this] {
        const bool inference = m_document->scenario().mode == core::ScenarioMode::Inference;
        m_inferenceMode->setChecked(inference);
        m_trainingMode->setChecked(!inference);
    };
    for (QAbstractButton* b : { m_trainingMode, m_inferenceMode }) {
        connect(b, &QAbstractButton::toggled, this, [this, b](bool on) {
            const auto mode = b == m_inferenceMode ? core::ScenarioMode::Inference : core::ScenarioMode::Training;
            if (m_updating || !on || m_document->scenario().mode == mode)
                return;
            m_document->edit(mode == core::ScenarioMode::Inference ? tr("Plan for inference") : tr("Plan for training"),
                [mode](core::Scenario& s) { s.mode = mode; });
        });
    }
    return box;
}

QGroupBox* ConfigPanel::buildInferenceGroup()
{
    auto* box = new QGroupBox(tr("Serving"), this);
    box->setObjectName(QStringLiteral("inferenceGroup"));
    auto* form = new QFormLayout(box);
    form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    using S = core::Scenario;
    using core::WeightFormat;
    std::vector<std::pair<QString, QString>> weights;
    const std::pair<WeightFormat, QString> weightTexts[] = {
        { WeightFormat::Bf16, tr("BF16 (2 B)") },
        { WeightFormat::Fp8, tr("FP8, 128×128 block scales") },
        { WeightFormat::Int8, tr("INT8, per-channel scales") },
        { WeightFormat::Int4, tr("INT4 W4A16, group 128") },
        { WeightFormat::Nvfp4, tr("NVFP4, e4m3 scale per 16") },
        { WeightFormat::Mxfp4, tr("MXFP4, e8m0 scale per 32") },
    };
    for (const auto& [format, text] : weightTexts)
        weights.emplace_back(QString::fromLatin1(core::toString(format)), text);
    choiceField(
        form, tr("Weights:"), QStringLiteral("inference.weight_dtype"), weights,
        [](const S& s) { return QString::fromLatin1(core::toString(s.inference.weightFormat)); },
        [](S& s, const QString& v) { core::parseWeightFormat(v.toStdString(), s.inference.weightFormat); },
        tr("Storage format of the transformer's linears, block scales included; embeddings, LM head, norms and "
           "routers stay BF16 (as vLLM and SGLang load quantized checkpoints)"));
    choiceField(
        form, tr("KV cache:"), QStringLiteral("inference.kv_dtype"),
        { { QStringLiteral("bf16"), tr("BF16 (2 B)") }, { QStringLiteral("fp8"), tr("FP8 (1 B)") } },
        [](const S& s) { return QString::fromLatin1(core::toString(s.inference.kvDtype)); },
        [](S& s, const QString& v) { core::parseKvDtype(v.toStdString(), s.inference.kvDtype); },
        tr("Bytes per cached key/value element (vLLM --kv-cache-dtype)"));
    intField(
        form, tr("Input tokens (isl):"), QStringLiteral("inference.isl"), 1, 1 << 24,
        [](const S& s) { return s.inference.isl; }, [](S& s, int v) { s.inference.isl = v; },
        tr("Prompt tokens per request; TTFT is the prefill of this many tokens"));
    intField(
        form, tr("Output tokens (osl):"), QStringLiteral("inference.osl"), 1, 1 << 24,
        [](const S& s) { return s.inference.osl; }, [](S& s, int v) { s.inference.osl = v; },
        tr("Generated tokens per request"));
    intField(
        form, tr("Context length:"), QStringLiteral("inference.context_len"), 0, 1 << 24,
        [](const S& s) { return s.inference.contextLen; }, [](S& s, int v) { s.inference.contextLen = v; },
        tr("Tokens of KV cache a request may hold (vLLM --max-model-len); at least isl + osl, 0 uses isl + osl"));
    if (auto* spin = qobject_cast<QSpinBox*>(fieldEditor(QStringLiteral("inference.context_len"))))
        spin->setSpecialValueText(tr("isl + osl"));
    intField(
        form, tr("Concurrency:"), QStringLiteral("inference.concurrency"), 0, 1 << 20,
        [](const S& s) { return s.inference.concurrency; }, [](S& s, int v) { s.inference.concurrency = v; },
        tr("Requests in flight over all replicas; \"max\" solves for what the KV cache holds"));
    if (auto* spin = qobject_cast<QSpinBox*>(fieldEditor(QStringLiteral("inference.concurrency"))))
        spin->setSpecialValueText(tr("max (solve)"));
    doubleField(
        form, tr("GPU memory use:"), QStringLiteral("inference.gpu_memory_utilization"), 0.05, 1.0, 0.01, 2,
        [](const S& s) { return s.inference.gpuMemoryUtilization; },
        [](S& s, double v) { s.inference.gpuMemoryUtilization = v; },
        tr("Share of each GPU's HBM the serving engine may use (vLLM --gpu-memory-utilization, default 0.9); the "
           "rest is the reserve left to the driver and other processes"));
    // One choice for the method and its draft model: "" the MTP module, "eagle3" an EAGLE-3 head, else a preset.
    const QString eagle3 = QString::fromLatin1(core::toString(core::SpeculativeMethod::Eagle3));
    std::vector<std::pair<QString, QString>> drafters { { QString(), tr("the model's MTP module") },
        { eagle3, tr("an EAGLE-3 head") } };
    for (const auto& m : core::PresetLibrary::instance().models())
        drafters.emplace_back(QString::fromStdString(m.id), QString::fromStdString(m.name));
    choiceField(
        form, tr("Drafter:"), QStringLiteral("inference.draft_model"), drafters,
        [eagle3](const S& s) {
            return s.inference.speculativeMethod == core::SpeculativeMethod::Eagle3
                ? eagle3
                : QString::fromStdString(s.inference.draftModel);
        },
        [eagle3](S& s, const QString& v) {
            s.inference.speculativeMethod = v.isEmpty() ? core::SpeculativeMethod::Mtp
                : v == eagle3                           ? core::SpeculativeMethod::Eagle3
                                                        : core::SpeculativeMethod::DraftModel;
            s.inference.draftModel = s.inference.speculativeMethod == core::SpeculativeMethod::DraftModel
                ? v.toStdString()
                : std::string();
        },
        tr("What proposes the draft tokens: the model's own multi-token-prediction module (vLLM method \"mtp\"), an "
           "EAGLE-3 head (one layer beside the model, arXiv:2503.01840; vLLM \"eagle3\"), or a smaller model of "
           "the same tokenizer run beside it at the same tp (vLLM \"draft_model\", SGLang STANDALONE, TensorRT-LLM "
           "DraftTarget); drafters other than MTP run in bf16"));
    intField(
        form, tr("Draft tokens:"), QStringLiteral("inference.speculative_tokens"), 0, 8,
        [](const S& s) { return s.inference.speculativeTokens; },
        [](S& s, int v) { s.inference.speculativeTokens = v; },
        tr("Speculative decoding: draft tokens per step (vLLM --speculative-config num_speculative_tokens, SGLang "
           "--speculative-num-steps); 0 decodes one token per step. The MTP module needs MTP depths >= 1"));
    if (auto* spin = qobject_cast<QSpinBox*>(fieldEditor(QStringLiteral("inference.speculative_tokens"))))
        spin->setSpecialValueText(tr("off"));
    doubleField(
        form, tr("Draft acceptance:"), QStringLiteral("inference.draft_acceptance"), 0.0, 1.0, 0.01, 2,
        [](const S& s) { return s.inference.draftAcceptance; }, [](S& s, double v) { s.inference.draftAcceptance = v; },
        tr("Probability that each draft token is accepted; DeepSeek-V3 reports 85-90% for its MTP module "
           "(arXiv:2412.19437 sec. 5.4.3). It depends on the traffic: measure it and set it here"));
    return box;
}

void ConfigPanel::showFieldsOfMode(bool inference)
{
    const core::Scenario& s = m_document->scenario();
    m_inferenceGroup->setVisible(inference);
    m_trainingGroup->setVisible(!inference);
    m_kernelsGroup->setVisible(!inference);
    m_optimizerGroup->setVisible(!inference);
    m_recomputeModulesGroup->setVisible(!inference && s.training.recompute == core::Recompute::Selective);
    // Degrees serving does not use; cp stays in view while it is not 1, so that its error can be fixed.
    for (const char* path : { "parallel.sp", "parallel.cp_comm_type", "parallel.cp_a2a_size", "parallel.vpp",
             "parallel.zero", "parallel.schedule", "parallel.order", "parallel.pipeline_layout" }) {
        if (const auto it = m_byPath.constFind(QLatin1String(path)); it != m_byPath.constEnd())
            m_fields[*it].form->setRowVisible(m_fields[*it].row, !inference);
    }
    if (const auto it = m_byPath.constFind(QStringLiteral("parallel.cp")); it != m_byPath.constEnd())
        m_fields[*it].form->setRowVisible(m_fields[*it].row, !inference || s.parallel.cp != 1);
    if (const auto it = m_byPath.constFind(QStringLiteral("parallel.dp_attention")); it != m_byPath.constEnd())
        m_fields[*it].form->setRowVisible(m_fields[*it].row, inference);
    m_dpAttention->setEnabled(s.model.isMoe() || (s.parallel.dp > 1 && s.parallel.ep > 1));
}

QGroupBox* ConfigPanel::buildTrainingGroup()
{
    auto* box = new QGroupBox(tr("Training"), this);
    auto* form = new QFormLayout(box);
    form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    using S = core::Scenario;
    intField(
        form, tr("Micro-batch:"), QStringLiteral("training.micro_batch"), 1, 1 << 20,
        [](const S& s) { return s.training.microBatch; }, [](S& s, int v) { s.training.microBatch = v; },
        tr("Sequences per micro-batch"));
    intField(
        form, tr("Global batch:"), QStringLiteral("training.global_batch"), 1, 1 << 26,
        [](const S& s) { return s.training.globalBatch; }, [](S& s, int v) { s.training.globalBatch = v; },
        tr("Sequences per optimizer step"));
    intField(
        form, tr("Sequence length:"), QStringLiteral("training.seq_len"), 0, 1 << 24,
        [](const S& s) { return s.training.seqLen; }, [](S& s, int v) { s.training.seqLen = v; },
        tr("Tokens per sequence; 0 uses the model's default"));
    if (auto* spin = qobject_cast<QSpinBox*>(fieldEditor(QStringLiteral("training.seq_len"))))
        spin->setSpecialValueText(tr("model default"));
    choiceField(
        form, tr("Recompute:"), QStringLiteral("training.recompute"),
        { { QStringLiteral("none"), tr("none") }, { QStringLiteral("selective"), tr("selective (modules below)") },
            { QStringLiteral("full"), tr("full") } },
        [](const S& s) { return QString::fromLatin1(core::toString(s.training.recompute)); },
        [](S& s, const QString& v) { core::parseRecompute(v.toStdString(), s.training.recompute); });
    choiceField(
        form, tr("Data type:"), QStringLiteral("training.dtype"),
        { { QStringLiteral("bf16"), QStringLiteral("BF16") }, { QStringLiteral("fp8"), QStringLiteral("FP8") } },
        [](const S& s) { return QString::fromLatin1(core::toString(s.training.dtype)); },
        [](S& s, const QString& v) { core::parseDType(v.toStdString(), s.training.dtype); });
    doubleField(
        form, tr("Expert capacity:"), QStringLiteral("training.moe_expert_capacity_factor"), 0.0, 64.0, 0.05, 2,
        [](const S& s) { return s.training.moeExpertCapacityFactor; },
        [](S& s, double v) { s.training.moeExpertCapacityFactor = v; },
        tr("MoE token dropping: an expert takes at most this multiple of the mean tokens and drops the rest, so the "
           "busiest expert's load is capped there (--moe-expert-capacity-factor); 0 is dropless, where the engine "
           "sizes the busiest expert at 1.25x the mean"));
    if (auto* spin = qobject_cast<QDoubleSpinBox*>(fieldEditor(QStringLiteral("training.moe_expert_capacity_factor"))))
        spin->setSpecialValueText(tr("dropless"));
    boolField(
        form, tr("Pad experts to capacity"), QStringLiteral("training.moe_pad_expert_input_to_capacity"),
        [](const S& s) { return s.training.moePadExpertInputToCapacity; },
        [](S& s, bool on) { s.training.moePadExpertInputToCapacity = on; },
        tr("Every expert's input is padded to exactly the capacity: fixed shapes, each expert computes capacity x "
           "mean tokens (--moe-pad-expert-input-to-capacity; needs an expert capacity)"),
        true);
    choiceField(
        form, tr("Token dispatcher:"), QStringLiteral("training.moe_token_dispatcher"),
        { { QStringLiteral("alltoall"), tr("all-to-all (NCCL)") }, { QStringLiteral("deepep"), tr("DeepEP") } },
        [](const S& s) { return QString::fromLatin1(core::toString(s.training.moeTokenDispatcher)); },
        [](S& s, const QString& v) { core::parseMoeDispatcher(v.toStdString(), s.training.moeTokenDispatcher); },
        tr("All-to-all sends one copy of a token per expert; DeepEP sends it once per node over InfiniBand and "
           "forwards it over NVLink (--moe-token-dispatcher-type flex --moe-flex-dispatcher-backend deepep)"));
    intField(
        form, tr("DeepEP SMs:"), QStringLiteral("training.moe_deepep_num_sms"), 1, 1024,
        [](const S& s) { return s.training.moeDeepepNumSms; }, [](S& s, int v) { s.training.moeDeepepNumSms = v; },
        tr("SMs DeepEP's kernels hold; compute running beside an overlapped dispatch gets the rest "
           "(--moe-deepep-num-sms, default 20; DeepSeek-V3 used 20 of 132)"));
    boolField(
        form, tr("FP8 dispatch (DeepSeek-V3)"), QStringLiteral("training.deepseek_fp8_dispatch"),
        [](const S& s) { return s.training.deepseekFp8Dispatch; },
        [](S& s, bool on) { s.training.deepseekFp8Dispatch = on; },
        tr("DeepSeek-V3 dispatches tokens in fp8 with one scale per 128 values and combines in bf16 "
           "(arXiv:2412.19437 sec. 3.3.2); needs FP8 and DeepEP, no Megatron-Core flag"),
        true);
    return box;
}

QGroupBox* ConfigPanel::buildKernelsGroup()
{
    auto* box = new QGroupBox(tr("Kernels and overlap"), this);
    auto* form = new QFormLayout(box);
    form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    using S = core::Scenario;
    boolField(
        form, tr("Fused attention (FlashAttention)"), QStringLiteral("training.flash_attention"),
        [](const S& s) { return s.training.flashAttention; }, [](S& s, bool on) { s.training.flashAttention = on; },
        tr("Fused attention stores no s×s scores and runs at the attention rate; off, the scores are stored and the "
           "softmax/dropout passes are memory-bound (arXiv:2205.05198 sec. 4.1)"),
        true);
    boolField(
        form, tr("FP8 SwiGLU input store"), QStringLiteral("training.activation_func_fp8_input_store"),
        [](const S& s) { return s.training.activationFuncFp8InputStore; },
        [](S& s, bool on) { s.training.activationFuncFp8InputStore = on; },
        tr("The fused SwiGLU saves its input in fp8 for the backward, half the bytes of its largest saved tensor "
           "(--activation-func-fp8-input-store); no effect where moe_act recompute checkpoints the activation"),
        true);
    boolField(
        form, tr("DeepSeek-V3 activation cache"), QStringLiteral("training.deepseek_activation_cache"),
        [](const S& s) { return s.training.deepseekActivationCache; },
        [](S& s, bool on) { s.training.deepseekActivationCache = on; },
        tr("DeepSeek-V3's own FP8 memory saving: the MoE SwiGLU inputs cached in fp8 and the attention output "
           "once in 12-bit E5M6 (arXiv:2412.19437 sec. 3.3.2); needs FP8, no Megatron-Core flag"),
        true);
    boolField(
        form, tr("TP comm overlap"), QStringLiteral("parallel.tp_comm_overlap"),
        [](const S& s) { return s.parallel.tpCommOverlap; }, [](S& s, bool on) { s.parallel.tpCommOverlap = on; },
        tr("TP all-gathers and reduce-scatters are chunked and pipelined with the layer's GEMMs, so only the part "
           "longer than the GEMMs stays exposed (--tp-comm-overlap; needs tp > 1)"),
        true);
    boolField(
        form, tr("DP overlap (grads/params)"), QStringLiteral("parallel.dp_overlap"),
        [](const S& s) { return s.parallel.dpOverlap; }, [](S& s, bool on) { s.parallel.dpOverlap = on; },
        tr("Gradient reductions run behind the backward and parameter all-gathers behind the forward; off, they run "
           "after the backward, fully exposed (--overlap-grad-reduce / --overlap-param-gather)"),
        true);
    intField(
        form, tr("DDP bucket (M params):"), QStringLiteral("parallel.ddp_bucket_size"), 0, 1000000,
        [](const S& s) { return static_cast<int>(std::llround(static_cast<double>(s.parallel.ddpBucketSize) / 1e6)); },
        [](S& s, int v) { s.parallel.ddpBucketSize = static_cast<long long>(v) * 1000000; },
        tr("Parameters per gradient bucket of pipeline rank 0's first model chunk, the only one Megatron-Core "
           "buckets: the last bucket is reduced after the backward ends and the first gathered before the forward "
           "starts, so smaller buckets expose less, until each collective becomes latency-bound "
           "(--ddp-bucket-size). Megatron default: max(40M, 1M x dp)."));
    if (auto* spin = qobject_cast<QSpinBox*>(fieldEditor(QStringLiteral("parallel.ddp_bucket_size"))))
        spin->setSpecialValueText(tr("Megatron default"));
    boolField(
        form, tr("Overlap pipeline sends"), QStringLiteral("parallel.p2p_overlap"),
        [](const S& s) { return s.parallel.p2pOverlap; }, [](S& s, bool on) { s.parallel.p2pOverlap = on; },
        tr("Pipeline sends and receives run beside compute; off, each forward and backward waits for its send to "
           "reach the neighbouring stage (--overlap-p2p-comm)"),
        true);
    boolField(
        form, tr("Reduce gradients in fp32"), QStringLiteral("parallel.grad_reduce_fp32"),
        [](const S& s) { return s.parallel.gradReduceInFp32; }, [](S& s, bool on) { s.parallel.gradReduceInFp32 = on; },
        tr("Data-parallel gradient all-reduces and reduce-scatters move 4 bytes per parameter; off, 2 bytes "
           "(--accumulate-allreduce-grads-in-fp32)"),
        true);
    return box;
}

void ConfigPanel::refreshFromScenario()
{
    m_updating = true;
    const core::Scenario& s = m_document->scenario();
    for (Field& f : m_fields) {
        if (f.refresh)
            f.refresh();
    }
    const int preset = m_modelPreset->findData(QString::fromStdString(s.modelPreset));
    m_modelPreset->setCurrentIndex(preset < 0 ? 0 : preset);
    m_moeGroup->setChecked(s.model.isMoe());
    // The MoE training knobs act only on a model with experts: greyed out on a dense one.
    for (const char* path : { "training.moe_expert_capacity_factor", "training.moe_pad_expert_input_to_capacity",
             "training.moe_token_dispatcher", "training.moe_deepep_num_sms", "training.deepseek_fp8_dispatch" }) {
        if (QWidget* editor = fieldEditor(QString::fromLatin1(path)))
            editor->setEnabled(s.model.isMoe());
    }
    // Drafts need a drafter (the model's MTP module or a draft model): greyed out without one, unless set (so
    // the error can be fixed).
    const bool drafts = s.model.mtpLayers > 0 || s.inference.speculativeMethod != core::SpeculativeMethod::Mtp
        || s.inference.speculativeTokens > 0;
    for (const char* path : { "inference.speculative_tokens", "inference.draft_acceptance" }) {
        if (QWidget* editor = fieldEditor(QString::fromLatin1(path)))
            editor->setEnabled(drafts);
    }
    // The CP communication type acts only with cp > 1: greyed out at cp=1 unless set (so the note can be cleared).
    if (QWidget* cpComm = fieldEditor(QStringLiteral("parallel.cp_comm_type")))
        cpComm->setEnabled(s.parallel.cp > 1 || s.parallel.cpCommType != core::CpCommType::P2p);
    if (QWidget* level = fieldEditor(QStringLiteral("parallel.cp_a2a_size")))
        level->setEnabled(s.parallel.cpCommType == core::CpCommType::A2aP2p || s.parallel.cpA2aSize != 0);
    // The window's pattern and chunking act only with a window: greyed out without one.
    if (QWidget* pattern = fieldEditor(QStringLiteral("model.sliding_window_pattern")))
        pattern->setEnabled(s.model.slidingWindow > 0);
    if (QWidget* chunked = fieldEditor(QStringLiteral("model.chunked_attention")))
        chunked->setEnabled(s.model.slidingWindow > 0 || s.model.chunkedAttention); // on: so it can be cleared
    // The MTP choice names what the model has: its module, or none to draft with.
    if (auto* drafter = qobject_cast<QComboBox*>(fieldEditor(QStringLiteral("inference.draft_model")))) {
        const int mtp = drafter->findData(QString());
        if (mtp >= 0)
            drafter->setItemText(
                mtp, s.model.mtpLayers > 0 ? tr("the model's MTP module") : tr("none (the model has no MTP module)"));
    }
    const bool inference = s.mode == core::ScenarioMode::Inference;
    showFieldsOfMode(inference);
    if (inference) {
        const long long ranks = static_cast<long long>(s.parallel.tp) * s.parallel.pp * s.parallel.dp;
        QString text = tr("tp × pp × dp = %1 × %2 × %3 = <b>%4</b> ranks on <b>%5</b> GPUs")
                           .arg(s.parallel.tp)
                           .arg(s.parallel.pp)
                           .arg(s.parallel.dp)
                           .arg(ranks)
                           .arg(s.topology.gpuCount());
        if (ranks != s.topology.gpuCount())
            text = QStringLiteral("<span style='color:%1'>%2</span>").arg(theme::problemColor().name(), text);
        text += QStringLiteral("<br>");
        if (s.parallel.dp > 1 && s.parallel.ep > 1)
            text += tr("DP-attention: attention on %1 replicas of tp %2, experts split over ep %3")
                        .arg(s.parallel.dp)
                        .arg(s.parallel.tp)
                        .arg(s.parallel.ep);
        else if (s.parallel.dp > 1)
            text += tr("%1 model replicas of tp %2 × pp %3").arg(s.parallel.dp).arg(s.parallel.tp).arg(s.parallel.pp);
        else
            text += tr("one model replica over all GPUs");
        m_parallelSummary->setText(text);
        m_updating = false;
        return;
    }
    const long long world = static_cast<long long>(s.parallel.tp) * s.parallel.cp * s.parallel.pp * s.parallel.dp;
    const int gpus = s.topology.gpuCount();
    const int m = core::microbatchesPerStep(s.parallel, s.training);
    QString text = tr("tp × cp × pp × dp = %1 × %2 × %3 × %4 = <b>%5</b> ranks on <b>%6</b> GPUs")
                       .arg(s.parallel.tp)
                       .arg(s.parallel.cp)
                       .arg(s.parallel.pp)
                       .arg(s.parallel.dp)
                       .arg(world)
                       .arg(gpus);
    if (world != gpus)
        text = QStringLiteral("<span style='color:%1'>%2</span>").arg(theme::problemColor().name(), text);
    text += QStringLiteral("<br>")
        + tr("%1 micro-batches of %2 per pipeline per step").arg(m).arg(s.training.microBatch);
    m_parallelSummary->setText(text);
    m_updating = false;
}

void ConfigPanel::clearMark(Field& field)
{
    if (!field.hint->isVisibleTo(this) && field.messages.isEmpty())
        return; // nothing to undo
    field.marked = false;
    field.suggestionLabels.clear();
    field.messages.clear();
    field.editor->setProperty("invalid", false);
    field.editor->setProperty("warning", false);
    static_cast<MarkFrame*>(field.frame)->setMark({});
    field.editor->setToolTip(field.editor->property("baseToolTip").toString());
    field.hint->setVisible(false);
    // Deferred: a click on one of these buttons may still be on the stack.
    for (QPushButton* button : field.buttons->findChildren<QPushButton*>(Qt::FindDirectChildrenOnly)) {
        button->hide();
        button->setParent(nullptr);
        button->deleteLater();
    }
}

void ConfigPanel::mark(Field& field, const QString& message, bool error)
{
    const QColor color = error ? theme::problemColor() : theme::warningColor();
    if (error) {
        field.marked = true;
        field.editor->setProperty("invalid", true);
    } else {
        field.editor->setProperty("warning", true);
    }
    if (error || !field.marked)
        static_cast<MarkFrame*>(field.frame)->setMark(color);
    field.messages << message;
    QStringList html;
    for (const QString& m : std::as_const(field.messages))
        html << m.toHtmlEscaped();
    field.hintText->setText(
        QStringLiteral("<span style='color:%1'>%2</span>").arg(color.name(), html.join(QStringLiteral("<br>"))));
    field.editor->setToolTip(field.messages.join(QLatin1Char('\n')));
    field.hint->setVisible(true);
    if (!error || !field.suggestionLabels.isEmpty())
        return;
    const auto suggestions = suggestValues(m_document->scenario(), field.path.toStdString());
    for (std::size_t i = 0; i < suggestions.size(); ++i) {
        auto* button = new QPushButton(tr("Use %1").arg(suggestions[i].label), field.buttons);
        button->setObjectName(QStringLiteral("suggestion"));
        button->setToolTip(tr("Set this value (one undo step); the nearest values that divide"));
        static_cast<QGridLayout*>(field.buttons->layout())->addWidget(button, static_cast<int>(i), 0, Qt::AlignLeft);
        field.suggestionLabels << suggestions[i].label;
        const QString path = field.path;
        connect(button, &QPushButton::clicked, this, [this, path, i] { applySuggestion(path, static_cast<int>(i)); });
    }
    field.buttons->setVisible(!suggestions.empty());
}

ConfigPanel::Field* ConfigPanel::fieldFor(const std::string& path)
{
    QString p = QString::fromStdString(path);
    while (!p.isEmpty()) {
        if (auto it = m_byPath.constFind(p); it != m_byPath.constEnd())
            return &m_fields[*it];
        const int cut = std::max(p.lastIndexOf(QLatin1Char('.')), p.lastIndexOf(QLatin1Char('[')));
        if (cut <= 0)
            break;
        p.truncate(cut);
    }
    return nullptr;
}

QString ConfigPanel::messageFor(const std::string& field, const QString& engineText) const
{
    // With dp automatic the engine's "set dp=16" names a value the user does not set: the dp it
    // quotes is whatever dp was before the cluster stopped dividing.
    const core::Scenario& s = m_document->scenario();
    if (field != "parallel.dp" || !m_document->autoDataParallel())
        return engineText;
    const long long rest = static_cast<long long>(s.parallel.tp) * s.parallel.cp * s.parallel.pp;
    const int gpus = s.topology.gpuCount();
    if (rest <= 0 || gpus <= 0 || gpus % rest == 0)
        return engineText;
    const long long lower = gpus / rest * rest, upper = lower + rest;
    QString sizes = lower > 0 ? tr("%1 or %2").arg(lower).arg(upper) : QString::number(upper);
    return tr("dp is automatic, but %1 GPUs are not a multiple of tp×cp×pp = %2×%3×%4 = %5: change tp, cp or pp, "
              "or make the cluster %6 GPUs")
        .arg(gpus)
        .arg(s.parallel.tp)
        .arg(s.parallel.cp)
        .arg(s.parallel.pp)
        .arg(rest)
        .arg(sizes);
}

void ConfigPanel::refreshFromEvaluation()
{
    const EvaluationPtr e = m_document->evaluation();
    m_messages->setEvaluation(e);
    for (Field& f : m_fields)
        clearMark(f);
    for (const auto& error : e->report.errors) {
        if (Field* f = fieldFor(error.field))
            mark(*f, messageFor(error.field, QString::fromStdString(error.text)), true);
    }
    for (const auto& warning : e->report.warnings) {
        if (Field* f = fieldFor(warning.field); f && !f->marked)
            mark(*f, QString::fromStdString(warning.text), false);
    }
    const int errors = m_messages->count(MessageModel::Error);
    const int warnings = m_messages->count(MessageModel::Warning);
    QStringList parts;
    parts << (errors ? QStringLiteral("<span style='color:%1'><b>%2</b></span>")
                           .arg(theme::problemColor().name(), format::plural(errors, tr("error"), tr("errors")))
                     : tr("no errors"));
    parts << format::plural(warnings, tr("warning"), tr("warnings"));
    m_messageSummary->setText(parts.join(QStringLiteral(" · ")));
    // The findings as rows of (symbol, text): errors, warnings, then the engine's notes.
    QString html = QStringLiteral("<table cellspacing='0' cellpadding='2' width='100%'>");
    int notes = 0;
    for (int row = 0; row < m_messages->rowCount(); ++row) {
        const QModelIndex index = m_messages->index(row, MessageModel::Message);
        const auto severity = static_cast<MessageModel::Severity>(index.data(MessageModel::SeverityRole).toInt());
        if (severity == MessageModel::Note && ++notes > 4)
            continue;
        const QString symbol = severity == MessageModel::Error ? QStringLiteral("✖")
            : severity == MessageModel::Warning                ? QStringLiteral("⚠")
                                                               : QStringLiteral("ℹ");
        const QColor color = severity == MessageModel::Error ? theme::problemColor()
            : severity == MessageModel::Warning              ? theme::warningColor()
                                                             : palette().color(QPalette::PlaceholderText);
        html += QStringLiteral("<tr><td valign='top' width='16'><span style='color:%1'>%2</span></td><td>%3</td></tr>")
                    .arg(color.name(), symbol, index.data().toString().toHtmlEscaped());
    }
    if (notes > 4)
        html += QStringLiteral("<tr><td></td><td><i>%1</i></td></tr>").arg(tr("… and %1 more notes").arg(notes - 4));
    html += QStringLiteral("</table>");
    m_findings->setText(html);
    m_findings->setVisible(m_messages->rowCount() > 0);

    const auto& r = e->report;
    if (r.paramsTotal > 0) {
        QString text = tr("%1 parameters").arg(format::count(r.paramsTotal));
        if (r.paramsActive > 0 && r.paramsActive < r.paramsTotal * 0.999)
            text += tr(", %1 active per token").arg(format::count(r.paramsActive));
        const core::ModelSpec& model = m_document->scenario().model;
        if (model.mtpLayers > 0 && !r.inference)
            text += tr(", %1 of them in multi-token prediction").arg(format::count(core::mtpParameters(model)));
        if (const double published = core::publishedParamsIfDifferent(model, r.paramsTotal); published > 0)
            text += tr(" (published: %1)").arg(format::count(published));
        if (model.parallelBlock)
            text += tr(", parallel attention + MLP blocks");
        m_modelSummary->setText(text);
    } else {
        m_modelSummary->clear();
    }
}

QWidget* ConfigPanel::fieldEditor(const QString& path) const
{
    const auto it = m_byPath.constFind(path);
    return it == m_byPath.constEnd() ? nullptr : m_fields[*it].editor;
}

bool ConfigPanel::isFieldMarked(const QString& path) const
{
    const auto it = m_byPath.constFind(path);
    return it != m_byPath.constEnd() && m_fields[*it].marked;
}

QString ConfigPanel::fieldMessage(const QString& path) const
{
    const auto it = m_byPath.constFind(path);
    return it == m_byPath.constEnd() ? QString() : m_fields[*it].messages.join(QLatin1Char('\n'));
}

QStringList ConfigPanel::suggestions(const QString& path) const
{
    const auto it = m_byPath.constFind(path);
    return it == m_byPath.constEnd() ? QStringList() : m_fields[*it].suggestionLabels;
}

void ConfigPanel::applySuggestion(const QString& path, int index)
{
    const auto all = suggestValues(m_document->scenario(), path.toStdString());
    if (index < 0 || index >= static_cast<int>(all.size()))
        return;
    const Suggestion s = all[static_cast<std::size_t>(index)];
    m_document->edit(tr("Use %1").arg(s.label), [s](core::Scenario& scenario) { s.apply(scenario); });
}

} // namespace parallax::ui
