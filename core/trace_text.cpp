#include "trace_text.h"

#include "explain.h"
#include "formula.h"

#include <cmath>
#include <sstream>

namespace attn {

namespace {

// Hand calculations are written out in full only while they fit on a line.
constexpr int kMaxTermsWritten = 4;

template <typename Row>
std::string vec(const Row &r)
{
    std::string out = "[";
    for (Eigen::Index j = 0; j < r.size(); ++j)
        out += (j ? ", " : "") + fixed4(r(j));
    return out + "]";
}

template <typename Row>
std::string compactVec(const Row &r)
{
    std::string out = "[";
    for (Eigen::Index j = 0; j < r.size(); ++j)
        out += (j ? ", " : "") + compact(r(j));
    return out + "]";
}

std::string maskText(const Scenario &s)
{
    std::string parts;
    auto add = [&parts](const std::string &p) {
        if (!p.empty())
            parts += (parts.empty() ? "" : ", ") + p;
    };
    if (s.mask.causal)
        add("causal");
    add(sparseMaskText(s.mask));
    if (s.mask.keyPadding.size() && s.mask.keyPadding.any())
        add("key padding");
    if (s.mask.blocked.size() && s.mask.blocked.any())
        add("blocked by hand");
    if (parts.empty())
        return "none";
    return parts + (s.maskStage == MaskStage::BeforeSoftmax ? " (before softmax)" : " (after softmax: the misconception)");
}

std::string label(const std::vector<std::string> &labels, Eigen::Index i)
{
    std::string out(1, '"');
    out += escapeControls(labels[std::size_t(i)]);
    out += '"';
    return out;
}

void appendHex(std::string &out, const char *prefix, unsigned value, int digits)
{
    static const char kHex[] = "0123456789abcdef";
    out += prefix;
    for (int k = digits - 1; k >= 0; --k)
        out += kHex[(value >> (4 * k)) & 0xF];
}

} // namespace

std::string escapeControls(const std::string &in)
{
    std::string out;
    out.reserve(in.size());
    const std::size_t n = in.size();
    auto byte = [&in](std::size_t i) { return static_cast<unsigned char>(in[i]); };
    auto continuation = [&](std::size_t i) { return i < n && (byte(i) & 0xC0) == 0x80; };
    for (std::size_t i = 0; i < n;) {
        const unsigned char c = byte(i);
        if (c < 0x80) {
            if (c == '\n')
                out += "\\n";
            else if (c == '\t')
                out += "\\t";
            else if (c == '\r')
                out += "\\r";
            else if (c < 0x20 || c == 0x7F)
                appendHex(out, "\\x", c, 2);
            else
                out += char(c);
            ++i;
            continue;
        }
        // The length and value of one UTF-8 sequence; anything else is a byte escaped.
        std::size_t len = 0;
        char32_t cp = 0;
        if (c >= 0xC2 && c <= 0xDF) {
            len = 2;
            cp = c & 0x1F;
        } else if (c >= 0xE0 && c <= 0xEF) {
            len = 3;
            cp = c & 0x0F;
        } else if (c >= 0xF0 && c <= 0xF4) {
            len = 4;
            cp = c & 0x07;
        }
        bool valid = len > 0;
        for (std::size_t k = 1; valid && k < len; ++k) {
            valid = continuation(i + k);
            if (valid)
                cp = (cp << 6) | (byte(i + k) & 0x3F);
        }
        valid = valid && !(len == 3 && (cp < 0x800 || (cp >= 0xD800 && cp <= 0xDFFF)))
            && !(len == 4 && (cp < 0x10000 || cp > 0x10FFFF));
        if (!valid) {
            appendHex(out, "\\x", c, 2);
            ++i;
            continue;
        }
        const bool control = (cp >= 0x80 && cp <= 0x9F) || cp == 0x2028 || cp == 0x2029
            || (cp >= 0x202A && cp <= 0x202E) || (cp >= 0x2066 && cp <= 0x2069);
        if (control)
            appendHex(out, "\\u", unsigned(cp), 4);
        else
            out.append(in, i, len);
        i += len;
    }
    return out;
}

std::string traceText(const Scenario &s, const Trace &t)
{
    std::string out;
    writeTraceText(s, t, [&out](const std::string &chunk) {
        out += chunk;
        return true;
    });
    return out;
}

bool writeTraceText(const Scenario &s, const Trace &t, const std::function<bool(const std::string &)> &sink)
{
    std::ostringstream o;
    // Hands what is written so far to the sink once it passes about 1 MB.
    bool ok = true;
    auto flush = [&o, &ok, &sink](bool always) {
        if (ok && (always || o.tellp() >= std::streampos(1 << 20))) {
            ok = sink(o.str());
            o.str(std::string());
        }
        return ok;
    };
    const auto ql = queryLabels(s), kl = keyLabels(s);
    const Formula f = formula(s);
    const int h = int(t.heads.size());
    const Eigen::Index nk = t.blocked.cols();

    o << (s.title.empty() ? std::string("Attention") : escapeControls(s.title)) << "\n";
    o << "  " << f.attention << (f.notRenormalised ? "   (not renormalised)" : "") << "\n";
    if (!f.inputs.empty())
        o << "  " << f.inputs << "\n";
    if (f.rope)
        o << "  R rotates each pair of dimensions (2i, 2i+1) by the angle p·10000^(−2i/d_k)\n";
    if (!f.output.empty())
        o << "  " << f.output << "\n";
    o << "  n_q = " << t.blocked.rows() << ", n_k = " << nk << ", d_k = " << t.dk << ", d_v = " << t.dv
      << ", heads = " << h << ", similarity = " << toString(s.similarity) << ", divisor = " << divisorTerms(s, t)
      << "\n";
    o << "  positional encoding: " << toString(s.encoding) << "; mask: " << maskText(s) << "\n";
    if (s.softmax == SoftmaxKind::PlusOne)
        o << "  softmax_1 (plus_one): w_j = e^(x_j) / (1 + Σ e^(x_k)), a sink of score 0 and value 0 beside the keys\n";

    for (int hi = 0; hi < h; ++hi) {
        const HeadTrace &head = t.heads[std::size_t(hi)];
        o << "\nHead " << hi + 1 << " of " << h << "\n";
        o << "  keys:   ";
        for (Eigen::Index j = 0; j < nk; ++j)
            o << (j ? "; " : "") << label(kl, j) << " " << compactVec(head.K.row(j));
        o << "\n  values: ";
        for (Eigen::Index j = 0; j < nk; ++j)
            o << (j ? "; " : "") << label(kl, j) << " " << compactVec(head.V.row(j));
        o << "\n";

        for (Eigen::Index i = 0; i < head.Q.rows(); ++i) {
            const RowStats &r = head.rows[std::size_t(i)];
            o << "\n  query " << i + 1 << " " << label(ql, i) << " = " << compactVec(head.Q.row(i)) << "\n";
            o << "    scores   s_j = " << (s.similarity == Similarity::Dot ? "q·k_j"
                                           : s.similarity == Similarity::Cosine ? "cos(q, k_j)"
                                                                                 : "−‖q − k_j‖²")
              << "\n";
            for (Eigen::Index j = 0; j < nk; ++j) {
                const std::string hand = scoreTerms(s.similarity, head.Q.row(i), head.K.row(j), kMaxTermsWritten);
                o << "      " << label(kl, j) << ": " << (hand.empty() ? "" : hand + " = ")
                  << fixed4(head.scores(i, j)) << "\n";
            }
            o << "    scaled   s_j / " << divisorTerms(s, t) << "  " << vec(head.scaledRow(i)) << "\n";
            o << "    mask     [";
            for (Eigen::Index j = 0; j < nk; ++j)
                o << (j ? ", " : "") << (t.blocked(i, j) ? "−∞" : "0");
            o << "]";
            if (r.fullyMasked)
                o << "  every key is blocked: weights and output are 0";
            o << "\n";
            if (!r.fullyMasked) {
                const bool before = s.maskStage == MaskStage::BeforeSoftmax;
                const bool plusOne = s.softmax == SoftmaxKind::PlusOne;
                double m = -INFINITY;
                for (Eigen::Index j = 0; j < nk; ++j)
                    if (!(before && t.blocked(i, j)))
                        m = std::max(m, head.scaledAt(i, j));
                if (plusOne)
                    m = std::max(m, 0.0); // the sink's score 0 counts in the maximum
                Eigen::RowVectorXd e(nk);
                for (Eigen::Index j = 0; j < nk; ++j)
                    e(j) = (before && t.blocked(i, j)) ? 0.0 : std::exp(head.scaledAt(i, j) - m);
                const double sink = plusOne ? std::exp(-m) : 0.0;
                const double total = e.sum() + sink;
                o << "    exp      e^(s_j − " << fixed4(m) << ")  " << vec(e);
                if (plusOne)
                    o << "  sink e^(0 − " << fixed4(m) << ") = " << fixed4(sink);
                o << "  Σ = " << fixed4(total) << "\n";
                if (!before && t.blocked.row(i).any()) {
                    Eigen::RowVectorXd full = e / total;
                    o << "    softmax  e_j / Σ  " << vec(full) << "\n";
                    o << "    weights  blocked set to 0, not renormalised  " << vec(head.weights.row(i)) << "\n";
                } else {
                    o << "    weights  e_j / Σ  " << vec(head.weights.row(i)) << "\n";
                }
                o << "             sum " << fixed4(r.sum) << ", max " << fixed4(r.maxWeight) << " at "
                  << label(kl, r.argmax) << ", entropy " << fixed4(r.entropy) << "\n";
                if (plusOne)
                    o << "             softmax_1: the weights sum to " << fixed4(r.sum) << " < 1; the rest, "
                      << fixed4(1 - r.sum) << ", goes to the sink: attending to nothing (its value is 0)\n";
            }
            o << "    output   Σ w_j v_j";
            if (nk <= kMaxTermsWritten && !r.fullyMasked) {
                o << " = ";
                for (Eigen::Index j = 0; j < nk; ++j)
                    o << (j ? " + " : "") << fixed4(head.weights(i, j)) << "·" << compactVec(head.V.row(j));
                o << "\n            ";
            }
            o << " = " << vec(head.output.row(i)) << "\n";
            if (!flush(false))
                return false;
        }
    }

    if (h > 1 || t.output.cols() != t.concat.cols() || !(t.output == t.concat)) {
        o << "\nConcatenated heads\n";
        for (Eigen::Index i = 0; i < t.concat.rows(); ++i)
            if (o << "  " << label(ql, i) << " " << vec(t.concat.row(i)) << "\n"; !flush(false))
                return false;
    }
    o << "\nOutput\n";
    for (Eigen::Index i = 0; i < t.output.rows(); ++i)
        if (o << "  " << label(ql, i) << " " << vec(t.output.row(i)) << "\n"; !flush(false))
            return false;
    return flush(true);
}

} // namespace attn
