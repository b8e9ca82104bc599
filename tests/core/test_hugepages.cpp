// The large stages ask for huge pages (core/hugepages.h): the trace's n x n
// matrices at n = 1024 sit in a mapping the kernel marks as advised
// ("hg" in /proc/self/smaps' VmFlags), whether or not it had a huge page to
// give; small ones and odd ranges are left alone. A hint only: the values
// are the same either way (the core's other tests).

#include "attention.h"
#include "hugepages.h"

#include <QFile>
#include <QObject>
#include <QTest>

#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

using namespace attn;

namespace {

constexpr std::uintptr_t kHuge = std::uintptr_t(2) << 20;

// The VmFlags of the mapping holding `address`, or empty when none does.
QByteArray flagsAt(std::uintptr_t address)
{
    // std::ifstream: QFile takes a /proc file's size of 0 for its end.
    std::ifstream smaps("/proc/self/smaps");
    bool inside = false;
    for (std::string text; std::getline(smaps, text);) {
        const QByteArray line = QByteArray::fromStdString(text).trimmed();
        const int dash = line.indexOf('-'), space = line.indexOf(' ');
        // A mapping's first line starts "begin-end perms ..."; its fields "Name: ...".
        if (dash > 0 && space > dash && !line.left(space).contains(':')) {
            bool okBegin = false, okEnd = false;
            const auto begin = std::uintptr_t(line.left(dash).toULongLong(&okBegin, 16));
            const auto end = std::uintptr_t(line.mid(dash + 1, space - dash - 1).toULongLong(&okEnd, 16));
            inside = okBegin && okEnd && address >= begin && address < end;
        } else if (inside && line.startsWith("VmFlags:")) {
            return line.mid(8).trimmed();
        }
    }
    return {};
}

bool advised(std::uintptr_t address)
{
    return flagsAt(address).split(' ').contains("hg");
}

// The first 2 MB boundary inside [p, p + bytes), if a whole huge page fits there.
std::uintptr_t firstWholeHugePage(const void *p, std::size_t bytes)
{
    const auto start = reinterpret_cast<std::uintptr_t>(p);
    const std::uintptr_t begin = (start + kHuge - 1) & ~(kHuge - 1);
    return begin + kHuge <= start + bytes ? begin : 0;
}

} // namespace

class TestHugePages : public QObject {
    Q_OBJECT

private slots:
    void initTestCase()
    {
#if !defined(__linux__)
        QSKIP("transparent huge pages are Linux's");
#endif
        if (!QFile::exists(QStringLiteral("/sys/kernel/mm/transparent_hugepage/enabled")))
            QSKIP("this kernel has no transparent huge pages");
    }

    // First, while nothing in the process is advised yet: below 4 MB
    // nothing is, of a longer range only its whole huge pages, and a null
    // pointer is nothing to advise.
    void smallAndOddRangesAreLeftAlone()
    {
        adviseHugePages(nullptr, std::size_t(64) << 20);
        std::vector<char> small(std::size_t(3) << 20);
        adviseHugePages(small.data(), small.size());
        const std::uintptr_t inside = firstWholeHugePage(small.data(), small.size());
        if (inside)
            QVERIFY2(!advised(inside), flagsAt(inside).constData());
        // From 1 byte past a boundary, 4 MB: one whole page, [2 MB, 4 MB).
        void *block = std::aligned_alloc(kHuge, std::size_t(8) << 20);
        QVERIFY(block);
        adviseHugePages(static_cast<char *>(block) + 1, kHuge * 2);
        QVERIFY(advised(reinterpret_cast<std::uintptr_t>(block) + kHuge));
        QVERIFY(!advised(reinterpret_cast<std::uintptr_t>(block) + 2 * kHuge));
        std::free(block);
    }

    // n = 1024, one head: the scores and the weights are 8 MB each, fresh
    // memory, advised before the passes touch them.
    void largeStagesAreAdvised()
    {
        Scenario s;
        const int n = 1024;
        s.Q = Matrix::Constant(n, 2, 0.5);
        s.K = Matrix::Constant(n, 2, 0.25);
        s.V = Matrix::Constant(n, 2, 1.0);
        const Trace t = compute(s);
        QCOMPARE(t.heads.size(), std::size_t(1));
        const HeadTrace &head = t.heads[0];
        const std::size_t bytes = std::size_t(n) * n * sizeof(double);
        for (const Matrix *m : {&head.scores, &head.scaled, &head.weights}) {
            QCOMPARE(std::size_t(m->size()) * sizeof(double), bytes);
            const std::uintptr_t page = firstWholeHugePage(m->data(), bytes);
            QVERIFY(page != 0); // 8 MB always holds three whole 2 MB pages
            QVERIFY2(advised(page), flagsAt(page).constData());
            QVERIFY(advised(page + 2 * kHuge));
        }
        // The weights are right all the same: every key alike, 1 / n each.
        QCOMPARE(head.weights(0, 0), 1.0 / n);
        QCOMPARE(head.weights(n - 1, n - 1), 1.0 / n);
    }
};

QTEST_GUILESS_MAIN(TestHugePages)
#include "test_hugepages.moc"
