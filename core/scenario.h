#pragma once
// The scenario: everything a lesson needs to compute one attention forward
// pass. Plain data, no behaviour; see docs/scenario-format.md for the file
// that stores it and attention.h for what is computed from it.

#include <Eigen/Dense>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace attn {

using Matrix = Eigen::MatrixXd;
// A big model's weights in float32, row-major as safetensors stores them.
using FloatMatrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using BoolMatrix = Eigen::Array<bool, Eigen::Dynamic, Eigen::Dynamic>;
using BoolVector = Eigen::Array<bool, Eigen::Dynamic, 1>;

enum class InputMode { Direct, Projected };
enum class Similarity { Dot, Cosine, NegSqDistance };
enum class Scale { SqrtDk, None, Dk };
enum class MaskStage { BeforeSoftmax, AfterSoftmax };
enum class Encoding { None, Sinusoidal, Learned, Rope };
// The row normaliser: the ordinary softmax, w_i = e^(x_i) / sum_j e^(x_j),
// or softmax_1 (Miller 2023, "attention is off by one"; StreamingLLM's zero
// sink), w_i = e^(x_i) / (1 + sum_j e^(x_j)): a key of score 0 and value 0
// beside the real ones, so a row may attend to nothing and sum below 1.
enum class SoftmaxKind { Standard, PlusOne };

// The sparse patterns (sliding window, dilated, block-local, global
// tokens) say which cells are open, by position; each is off at its
// default. Query i may see key j (0-based) when every pattern that is on
// allows it, or when i or j is a global token:
//   window W:   |i - j| < W·D        (D the dilation, 1 unless set)
//   dilation D: (i - j) mod D == 0   (alone: a strided pattern)
//   block B:    floor(i / B) == floor(j / B)
// Causal, padding and the cells blocked by hand then block what they block.
struct Mask {
    bool causal = false;
    int window = 0;          // W >= 1; 0: no window
    int dilation = 1;        // D >= 1; 1: every position
    int block = 0;           // B >= 1; 0: no blocks
    std::vector<int> global; // 0-based positions, ascending, each once; the file writes them 1-based
    BoolVector keyPadding;  // n_k entries; empty means no padding
    BoolMatrix blocked;     // n_q by n_k; empty means nothing blocked by hand

    // A window, a dilation or blocks: a pattern that leaves some pairs out.
    bool sparse() const { return window > 0 || dilation > 1 || block > 0; }

    // Same flags and same arrays (shapes and entries). Written by hand (the
    // arrays compare element-wise), with a structured binding that stops
    // compiling when a member is added and not compared.
    bool operator==(const Mask &) const;
};

// The attention settings of a scenario: everything but the matrices, the
// labels, the text and the shape (the heads count changes d_k, so it is a
// shape edit). A Scenario is a Settings with its inputs (it derives from
// it), so `s.scale` and `s.mask.causal` read the same everywhere and one
// equality serves both: a setting added here is compared by Settings and
// Scenario alike. The places that list the settings one by one (the file's
// reader and writer, the tests) unpack them with a structured binding, so a
// member added here fails to compile there until it is listed.
struct Settings {
    Similarity similarity = Similarity::Dot;
    Scale scale = Scale::SqrtDk;
    double temperature = 1.0;
    Mask mask;
    MaskStage maskStage = MaskStage::BeforeSoftmax;
    SoftmaxKind softmax = SoftmaxKind::Standard;
    Encoding encoding = Encoding::None;
    std::uint64_t seed = 7;  // draws the learned positional table

    bool operator==(const Settings &) const = default;
};

// Some settings to change and the rest to keep: what a quiz question's
// "open" sets after opening its lesson. Read and checked once, with the
// file (core/io/scenario_json.cpp).
struct SettingsPatch {
    std::optional<Similarity> similarity;
    std::optional<Scale> scale;
    std::optional<bool> causal;
    std::optional<MaskStage> maskStage;
    std::optional<Encoding> encoding;

    bool empty() const;
    void applyTo(Settings &s) const;
    bool operator==(const SettingsPatch &) const = default;

};

// Text in several languages: language code ("en", "zh_CN") to UTF-8 text.
using LocalText = std::map<std::string, std::string>;

// One question of a lesson's quiz (the optional "quiz" key): its
// choices, the indices of the right ones (more than one: pick every right
// one), the explanation, and what to open to see it live.
struct QuizQuestion {
    std::string id;                        // unique within the lesson, e.g. "seed000-q1"
    LocalText question;
    std::vector<LocalText> choices;        // at least two
    std::vector<int> answer;               // 0-based indices into choices, at least one
    LocalText explanation;
    std::string lesson;                    // a built-in lesson to open; empty: none
    std::string view;                      // a view to show after it ("steps", "lab", ...); empty: none
    SettingsPatch settings;                // settings to set after opening: "scale": "none", ...
};

struct Scenario : Settings {
    std::string title;
    std::string description;
    std::vector<std::string> tokens;        // n_q labels of the query rows
    std::vector<std::string> sourceTokens;  // n_k labels of the key rows; empty: same as tokens

    InputMode mode = InputMode::Direct;

    // Direct mode: the vectors themselves.
    Matrix Q;  // n_q by h*d_k
    Matrix K;  // n_k by h*d_k
    Matrix V;  // n_k by h*d_v

    // Projected mode: embeddings and learned projections.
    Matrix X;                     // n_q by d_model (queries' sequence)
    std::optional<Matrix> source; // n_k by d_model (cross-attention); none: S = X
    Matrix Wq;                    // d_model by h*d_k
    Matrix Wk;                    // d_model by h*d_k
    Matrix Wv;                    // d_model by h*d_v
    std::optional<Matrix> Wo;     // h*d_v by d_out; none: output = concat

    int heads = 1;
    // The settings (similarity, scale, temperature, mask, mask stage,
    // softmax, encoding, seed) are the Settings this derives from.

    // Keys of the file this version does not read (a newer version's, or a
    // teacher's own such as "title_zh_CN"), kept so that saving writes them
    // back unchanged: the text of a JSON object, or empty. Its form is the
    // scenario file's business (core/io/scenario_json.cpp); nothing computed
    // depends on it, so operator== does not compare it.
    std::string extra;

    // The lesson's notes ("notes") and questions ("quiz"), read from the file
    // for the notes pane and the quiz. Their text stays in `extra`
    // too, so saving writes them back as they were; nothing computed depends
    // on them, so operator== does not compare them.
    LocalText notes;
    std::vector<QuizQuestion> quiz;

    // Equal when everything the lesson computes and shows is equal: the
    // settings by Settings' own equality, then the rest.
    bool operator==(const Scenario &) const;
};

// The settings part of a scenario, to read, copy or assign as one value.
inline const Settings &settingsOf(const Scenario &s) { return s; }
inline Settings &settingsOf(Scenario &s) { return s; }

// Sizes read off the inputs (no validation: see validate.h).
int queryCount(const Scenario &s);   // n_q
int keyCount(const Scenario &s);     // n_k
int keyWidth(const Scenario &s);     // h*d_k
int valueWidth(const Scenario &s);   // h*d_v
int modelWidth(const Scenario &s);   // d_model; 0 in direct mode
int headDim(const Scenario &s);      // d_k of one head
int headValueDim(const Scenario &s); // d_v of one head

// Labels of the query rows and key columns, with defaults ("q1", "k1", ...)
// where the scenario gives none.
std::vector<std::string> queryLabels(const Scenario &s);
std::vector<std::string> keyLabels(const Scenario &s);

// Whether the sparse patterns (window, dilation, block, global; not causal,
// padding or the hand) leave query i and key j open (0-based).
bool sparseOpen(const Mask &m, int i, int j);

// The settings bar's presets of the sparse patterns: none (every pair),
// a sliding window of W, the same dilated by 2, blocks of B, and the first
// token global beside a window of W. Custom: a file's own combination.
enum class SparsePreset { Full, Window, Dilated, Block, GlobalWindow, Custom };
SparsePreset sparsePresetOf(const Mask &m);
// The mask with its patterns set to `p` at width w (the window's W or the
// block's B); causal, padding and the cells blocked by hand kept. Custom
// leaves it as it is.
Mask withSparsePreset(const Mask &m, SparsePreset p, int w);
// The width a preset shows: the window's W, else the block's B; 0 for none.
inline int sparseWidth(const Mask &m) { return m.window > 0 ? m.window : m.block; }

// The sparse patterns in words, for the command line's trace: "sliding
// window W = 2 (dilation 2), blocks of 3, global tokens 1, 5" (1-based);
// empty when there is none.
std::string sparseMaskText(const Mask &m);

// blocked(i, j) = (causal and j > i) or key_padding[j] or blocked[i][j]
// or not sparseOpen(i, j); n_q by n_k. Assumes the mask's shapes were
// validated.
BoolMatrix blockedMatrix(const Scenario &s);

// Names used in files and on the command line ("sqrt_dk", "rope", ...).
const char *toString(InputMode v);
const char *toString(Similarity v);
const char *toString(Scale v);
const char *toString(MaskStage v);
const char *toString(Encoding v);
const char *toString(SoftmaxKind v);
std::optional<InputMode> inputModeFromString(const std::string &s);
std::optional<Similarity> similarityFromString(const std::string &s);
std::optional<Scale> scaleFromString(const std::string &s);
std::optional<MaskStage> maskStageFromString(const std::string &s);
std::optional<Encoding> encodingFromString(const std::string &s);
std::optional<SoftmaxKind> softmaxFromString(const std::string &s);

// Every accepted name of an enum, for error messages: "dot, cosine, ...".
std::string allNames(Similarity);
std::string allNames(Scale);
std::string allNames(MaskStage);
std::string allNames(Encoding);
std::string allNames(SoftmaxKind);
std::string allNames(InputMode);

} // namespace attn
