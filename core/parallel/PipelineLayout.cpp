// SPDX-License-Identifier: Apache-2.0
#include "core/parallel/PipelineLayout.h"

#include <numeric>

namespace parallax::core {

namespace {

// An expansion bound well above any real model (4096 layers x a few symbols): a runaway "(t*999)*999" is
// an input error, not a reason to allocate.
constexpr std::size_t kMaxExpanded = 1 << 16;

class Expander {
public:
    Expander(const std::string& text, std::string& error)
        : m_text(text)
        , m_error(error)
    {
    }

    std::optional<std::string> run()
    {
        std::string out;
        if (!group(out))
            return std::nullopt;
        if (m_pos < m_text.size()) { // group() stops only at the end or a ')'
            fail("unmatched ')'");
            return std::nullopt;
        }
        return out;
    }

private:
    bool fail(const std::string& what)
    {
        m_error = "position " + std::to_string(m_pos + 1) + ": " + what;
        return false;
    }

    // "*N" after a symbol or group; 1 without one.
    bool repeat(long long& n)
    {
        n = 1;
        if (m_pos >= m_text.size() || m_text[m_pos] != '*')
            return true;
        ++m_pos;
        const std::size_t start = m_pos;
        n = 0;
        while (m_pos < m_text.size() && m_text[m_pos] >= '0' && m_text[m_pos] <= '9' && n <= 1000000)
            n = n * 10 + (m_text[m_pos++] - '0');
        if (m_pos == start)
            return fail("'*' needs a count, as in t*3 or (tt|)*29");
        return true;
    }

    bool append(std::string& out, const std::string& piece, long long n)
    {
        if (static_cast<double>(piece.size()) * n + out.size() > kMaxExpanded)
            return fail("the layout expands past " + std::to_string(kMaxExpanded) + " symbols: check the counts");
        for (long long i = 0; i < n; ++i)
            out += piece;
        return true;
    }

    // Symbols up to the end or a ')'.
    bool group(std::string& out)
    {
        while (m_pos < m_text.size() && m_text[m_pos] != ')') {
            const char c = m_text[m_pos];
            if (c == ',' || c == ' ') {
                ++m_pos;
            } else if (c == '(') {
                ++m_pos;
                std::string inner;
                if (!group(inner))
                    return false;
                if (m_pos >= m_text.size())
                    return fail("'(' is not closed");
                ++m_pos;
                long long n = 1;
                if (!repeat(n) || !append(out, inner, n))
                    return false;
            } else if (c == 'E' || c == 't' || c == 'm' || c == 'L' || c == '|') {
                ++m_pos;
                long long n = 1;
                if (!repeat(n) || !append(out, std::string(1, c), n))
                    return false;
            } else {
                return fail(std::string("unexpected '") + c + "': use E, t, m, L, '|', (...) and *N");
            }
        }
        return true;
    }

    const std::string& m_text;
    std::string& m_error;
    std::size_t m_pos = 0;
};

int sum(const std::vector<int>& v)
{
    return std::accumulate(v.begin(), v.end(), 0);
}

} // namespace

int PipelineLayoutStages::transformerLayers() const
{
    return sum(layers);
}

bool PipelineLayoutStages::mtpOnLastStage() const
{
    return mtp.empty() || sum(mtp) == mtp.back();
}

std::optional<PipelineLayoutStages> parsePipelineLayout(const std::string& text, std::string& error)
{
    Expander expander(text, error);
    const std::optional<std::string> flat = expander.run();
    if (!flat)
        return std::nullopt;
    PipelineLayoutStages l;
    const auto newStage = [&l] {
        l.layers.push_back(0);
        l.mtp.push_back(0);
        l.embedding.push_back(0);
        l.loss.push_back(0);
    };
    newStage();
    for (char c : *flat) {
        switch (c) {
        case '|':
            newStage();
            break;
        case 't':
            ++l.layers.back();
            break;
        case 'm':
            ++l.mtp.back();
            break;
        case 'E':
            ++l.embedding.back();
            break;
        case 'L':
            ++l.loss.back();
            break;
        default:
            break;
        }
    }
    return l;
}

std::string pipelineLayoutProblem(const PipelineLayoutStages& l, int layers, int mtpLayers, int pp, int stages)
{
    const int n = l.stages();
    if (n != stages)
        return "the layout has " + std::to_string(n) + " stages but pp x vpp = " + std::to_string(stages)
            + ": give one '|'-separated stage per virtual pipeline stage, or change pp / vpp";
    if (l.transformerLayers() != layers)
        return "the layout places " + std::to_string(l.transformerLayers())
            + " transformer layers ('t') but the model has " + std::to_string(layers) + ": make the counts add up";
    if (sum(l.embedding) != 1 || l.embedding.front() != 1)
        return "the embedding ('E') must appear once, in the first stage";
    if (sum(l.loss) != 1 || l.loss.back() != 1)
        return "the loss ('L') must appear once, in the last stage";
    if (sum(l.mtp) != mtpLayers)
        return "the layout places " + std::to_string(sum(l.mtp)) + " MTP layers ('m') but the model has "
            + std::to_string(mtpLayers) + " (mtp_layers): make them agree";
    // Megatron-Core's rules for 'm' (PipelineParallelLayerLayout.validate_layer_layout; Megatron-Core docs,
    // "Multi-Token Prediction", Pipeline Parallel Layout for MTP): its stages are in the last virtual round
    // and not on pipeline rank 0; and a depth reads the main model's last hidden state, so it follows the
    // last transformer layer.
    int lastLayerStage = 0;
    for (int k = 0; k < n; ++k)
        lastLayerStage = l.layers[k] > 0 ? k : lastLayerStage;
    for (int k = 0; k < n && pp > 0; ++k) {
        if (l.mtp[k] == 0)
            continue;
        const std::string where = "stage " + std::to_string(k) + " (pipeline rank " + std::to_string(k % pp)
            + ", virtual stage " + std::to_string(k / pp) + ")";
        if (k < n - pp)
            return "the MTP layers ('m') must sit in the last virtual pipeline round (stages " + std::to_string(n - pp)
                + "-" + std::to_string(n - 1) + "), not " + where + ": move them there, as in \"...,m|L\"";
        if (k % pp == 0)
            return "the MTP layers ('m') cannot sit on pipeline rank 0 (" + where
                + "): move them to a later stage, as in \"...,m|L\"";
        if (k < lastLayerStage)
            return "the MTP layers ('m') in " + where + " come before the last transformer layer (stage "
                + std::to_string(lastLayerStage) + "), whose output they read: move them after it";
    }
    return {};
}

} // namespace parallax::core
