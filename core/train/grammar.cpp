#include "grammar.h"

#include <QFile>

#include <algorithm>
#include <array>
#include <vector>

namespace attn {

namespace {

using Words = std::vector<std::string>;

struct EnNoun {
    const char *word, *plural, *pronoun, *food;
};
const EnNoun kEnNouns[] = {
    {"boy", "boys", "he", "apple"},     {"girl", "girls", "she", "cake"},  {"man", "men", "he", "bread"},
    {"woman", "women", "she", "rice"},  {"king", "kings", "he", "meat"},   {"queen", "queens", "she", "soup"},
    {"cat", "cats", "it", "fish"},      {"dog", "dogs", "it", "bone"},     {"bird", "birds", "it", "seed"},
};
const std::array<std::pair<const char *, const char *>, 6> kEnVerbs = {
    {{"sees", "see"}, {"likes", "like"}, {"helps", "help"}, {"finds", "find"}, {"chases", "chase"}, {"loves", "love"}}};
const Words kEnThings = {"ball", "book", "box", "mat", "car", "tree", "hat", "cup"};
const Words kEnAdj = {"big", "small", "red", "old", "happy", "sad", "tired", "hungry"};
const Words kEnPlaces = {"on the mat", "in the box", "near the tree", "by the cars", "under the hats", "with the dogs"};

struct ZhNoun {
    const char *word, *pronoun, *food;
};
const ZhNoun kZhNouns[] = {
    {"小明", "他", "苹果"}, {"小红", "她", "蛋糕"}, {"爸爸", "他", "面包"}, {"妈妈", "她", "米饭"}, {"哥哥", "他", "肉"},
    {"姐姐", "她", "汤"},  {"猫", "它", "鱼"},     {"狗", "它", "骨头"},   {"鸟", "它", "米"},
};
const Words kZhVerbs = {"看见", "喜欢", "帮助", "找到", "追", "爱", "打"};
const Words kZhThings = {"球", "书", "盒子", "车", "树", "帽子", "杯子", "垫子"};
const Words kZhAdj = {"高兴", "难过", "累", "饿", "大", "小"};
const Words kZhPlaces = {"在 家", "在 树 下", "在 车 里", "在 学校"};

// The translation pairs' dictionary (the nouns of both lists that have one).
const std::array<std::pair<const char *, const char *>, 7> kPairNouns = {
    {{"boy", "小明"}, {"girl", "小红"}, {"man", "爸爸"}, {"woman", "妈妈"}, {"cat", "猫"}, {"dog", "狗"}, {"bird", "鸟"}}};
const std::array<const char *, 6> kPairVerbs = {"看见", "喜欢", "帮助", "找到", "追", "爱"};
const std::array<const char *, 8> kPairThings = {"球", "书", "盒子", "垫子", "车", "树", "帽子", "杯子"};
// kEnThings in the order of kPairThings' translations.
const std::array<const char *, 8> kPairThingsEn = {"ball", "book", "box", "mat", "car", "tree", "hat", "cup"};

int below(Rng &r, int n)
{
    return std::min(n - 1, int(r.uniform() * n));
}
template <typename C>
const auto &pick(Rng &r, const C &c)
{
    return c[std::size_t(below(r, int(std::size(c))))];
}

Words sortedUnique(Words w)
{
    std::sort(w.begin(), w.end());
    w.erase(std::unique(w.begin(), w.end()), w.end());
    return w;
}

const Words &enWords()
{
    static const Words w = [] {
        Words all(kEnThings);
        all.insert(all.end(), kEnAdj.begin(), kEnAdj.end());
        for (const EnNoun &n : kEnNouns)
            all.insert(all.end(), {n.word, n.plural, n.food});
        return sortedUnique(all);
    }();
    return w;
}

const Words &zhWords()
{
    static const Words w = [] {
        Words all(kZhThings);
        all.insert(all.end(), kZhAdj.begin(), kZhAdj.end());
        all.insert(all.end(), kZhVerbs.begin(), kZhVerbs.end());
        for (const ZhNoun &n : kZhNouns)
            all.insert(all.end(), {n.word, n.food});
        return sortedUnique(all);
    }();
    return w;
}

std::string enSentence(Rng &r)
{
    const double kind = r.uniform();
    const EnNoun &noun = pick(r, kEnNouns);
    const bool plural = r.uniform() < 0.35;
    const std::string subj = plural ? noun.plural : noun.word;
    const std::string pron = plural ? "they" : noun.pronoun;
    const std::string adj = r.uniform() < 0.3 ? pick(r, kEnAdj) + " " : "";
    const std::string be = plural ? "are" : "is", eats = plural ? "eat" : "eats";
    if (kind < 0.30) { // agreement across a prepositional phrase
        const auto &v = pick(r, kEnVerbs);
        const std::string place = r.uniform() < 0.6 ? " " + pick(r, kEnPlaces) : "";
        return "the " + adj + subj + place + " " + (plural ? v.second : v.first) + " the " + pick(r, kEnThings) + " .";
    }
    if (kind < 0.55) { // a pronoun that refers back to the subject
        const auto &v = pick(r, kEnVerbs);
        const std::string other = pick(r, kEnNouns).word;
        return "the " + adj + subj + " " + (plural ? v.second : v.first) + " the " + other + " . " + pron + " " + be + " "
               + pick(r, kEnAdj) + " .";
    }
    if (kind < 0.75) // the object chosen by the subject
        return "the " + adj + subj + " " + eats + " the " + noun.food + " .";
    if (kind < 0.88)
        return "the " + subj + " sat on the " + pick(r, kEnThings) + " .";
    return "when the " + subj + " " + be + " " + pick(r, kEnAdj) + " , " + pron + " " + eats + " the " + noun.food + " .";
}

std::string zhSentence(Rng &r)
{
    const double kind = r.uniform();
    const ZhNoun &noun = pick(r, kZhNouns);
    if (kind < 0.25) {
        const std::string subj = pick(r, Words{"我", "你", noun.word});
        const std::string obj = pick(r, Words{"我", "你", pick(r, kZhNouns).word, pick(r, kZhThings)});
        const std::string place = r.uniform() < 0.4 ? " " + pick(r, kZhPlaces) : "";
        return subj + place + " " + pick(r, kZhVerbs) + " " + obj + " 。";
    }
    if (kind < 0.55) {
        const std::string other = pick(r, kZhNouns).word;
        return std::string(noun.word) + " " + pick(r, kZhVerbs) + " 了 " + other + " ， " + noun.pronoun + " 很 "
               + pick(r, kZhAdj) + " 。";
    }
    if (kind < 0.8) {
        const std::string place = r.uniform() < 0.4 ? " " + pick(r, kZhPlaces) : "";
        return std::string(noun.word) + place + " 吃 " + noun.food + " 。";
    }
    return std::string(noun.word) + " 很 " + pick(r, kZhAdj) + " ， 因为 " + noun.pronoun + " 吃 了 " + noun.food + " 。";
}

std::string copySentence(Rng &r)
{
    const bool en = r.uniform() < 0.5;
    const Words &words = en ? enWords() : zhWords();
    std::string span;
    const int n = 3 + below(r, 5);
    for (int i = 0; i < n; ++i)
        span += (i ? " " : "") + pick(r, words);
    return en ? "say " + span + " . say " + span + " ." : "说 " + span + " 。 说 " + span + " 。";
}

std::string pairSentence(Rng &r)
{
    const auto &noun = pick(r, kPairNouns);
    const int v = below(r, int(kEnVerbs.size()));
    const int t = below(r, int(kPairThings.size()));
    const std::string en = std::string("the ") + noun.first + " " + kEnVerbs[std::size_t(v)].first + " the "
                           + kPairThingsEn[std::size_t(t)] + " .";
    const std::string zh = std::string(noun.second) + " " + kPairVerbs[std::size_t(v)] + " " + kPairThings[std::size_t(t)] + " 。";
    return r.uniform() < 0.5 ? en + " = " + zh : zh + " = " + en;
}

QByteArray resource(const char *name)
{
    QFile f(QStringLiteral("%1/%2").arg(QLatin1String(kBuiltinModelFolder), QLatin1String(name)));
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

} // namespace

std::string grammarSentence(Rng &r)
{
    const double x = r.uniform();
    if (x < 0.33)
        return enSentence(r);
    if (x < 0.66)
        return zhSentence(r);
    if (x < 0.86)
        return copySentence(r);
    return pairSentence(r);
}

const BpeTokenizer &grammarTokenizer()
{
    static const BpeTokenizer t = [] {
        auto loaded = BpeTokenizer::fromData(resource("vocab.json"), resource("merges.txt"), QStringLiteral("vocab.json"),
                                             QStringLiteral("merges.txt"));
        return loaded.ok() ? loaded.value() : BpeTokenizer();
    }();
    return t;
}

int grammarVocabularySize()
{
    return std::max(1, grammarTokenizer().size());
}

TrainBatch grammarBatch(int batch, int length, Rng &rng)
{
    TrainBatch out;
    out.batch = batch;
    out.length = length;
    const BpeTokenizer &tok = grammarTokenizer();
    for (int b = 0; b < batch; ++b) {
        std::vector<int> ids;
        while (int(ids.size()) < 2 * length + 1) {
            const std::vector<int> s = tok.encode(QString::fromStdString(grammarSentence(rng) + "\n"));
            ids.insert(ids.end(), s.begin(), s.end());
        }
        // A window that starts anywhere in the first sentences.
        const int start = below(rng, int(ids.size()) - length);
        out.ids.insert(out.ids.end(), ids.begin() + start, ids.begin() + start + length);
        out.targets.insert(out.targets.end(), ids.begin() + start + 1, ids.begin() + start + length + 1);
    }
    return out;
}

} // namespace attn
