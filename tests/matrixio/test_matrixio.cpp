// Matrices in and out: .npy files written by NumPy itself (the
// fixtures beside this file, made with Debian's python3-numpy), CSV with
// its errors in place, paste and copy through the matrix model and panel as
// one undo step, import and export of a table.

#include "attn_test.h"
#include "lesson_test.h"

#include "document.h"
#include "edit.h"
#include "matrixio.h"
#include "matrixmodel.h"
#include "matrixpanel.h"
#include "numbers.h"

#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QFile>
#include <QHeaderView>
#include <QSignalSpy>
#include <QPointer>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <QLineEdit>
#include <QStatusBar>
#include <QMainWindow>

#include <cmath>
#include <limits>

using namespace attn;
using attn::test::lesson;

namespace {

QByteArray fixture(const QString &name)
{
    QFile f(attn::test::sourceDir() + QStringLiteral("/tests/matrixio/") + name);
    if (!f.open(QIODevice::ReadOnly))
        qFatal("fixture %s cannot be read", qPrintable(name));
    return f.readAll();
}

// What the fixtures hold: numpy.array([[1.5, -2.25, 0.1], [3.0, 1e-3, -7.125]]).
Matrix fixtureValues()
{
    Matrix m(2, 3);
    m << 1.5, -2.25, 0.1, 3.0, 1e-3, -7.125;
    return m;
}

// The same stored as float32: each value rounded to the nearest float.
Matrix fixtureValuesAsFloat()
{
    Matrix m = fixtureValues();
    for (Eigen::Index i = 0; i < m.size(); ++i)
        m.data()[i] = double(float(m.data()[i]));
    return m;
}

Matrix read(const Result<Matrix> &r)
{
    if (const Problem *p = r.problem())
        qFatal("unexpected problem: %s", p->toString().c_str());
    return r.value();
}

QString problemOf(const Result<Matrix> &r)
{
    const Problem *p = r.problem();
    return p ? QString::fromStdString(p->toString()) : QString();
}

// Bitwise: two doubles that print alike are not enough for a round trip.
bool sameBits(const Matrix &a, const Matrix &b)
{
    if (a.rows() != b.rows() || a.cols() != b.cols())
        return false;
    for (Eigen::Index i = 0; i < a.size(); ++i)
        if (std::bit_cast<std::uint64_t>(a.data()[i] + 0.0) != std::bit_cast<std::uint64_t>(b.data()[i] + 0.0))
            return false; // + 0.0: -0 and 0 are the same number here ("never -0")
    return true;
}

// Numbers that a short decimal does not hold exactly.
Matrix awkward(Eigen::Index rows, Eigen::Index cols)
{
    Matrix m(rows, cols);
    const double pool[] = {0.1 + 0.2, 1.0 / 3.0, -1e-7, 123456.789, -2.5e-300, 6.02214076e11, 0.0, -1.0 / 7.0};
    for (Eigen::Index i = 0; i < rows; ++i)
        for (Eigen::Index j = 0; j < cols; ++j)
            m(i, j) = pool[(i * cols + j) % 8] * (1.0 + double(i) * 0.01);
    return m;
}

} // namespace

class TestMatrixIo : public QObject {
    Q_OBJECT

private slots:
    void npyFromNumPy_data();
    void npyFromNumPy();
    void npyOneDimensionIsOneRow();
    void npyRefusedWithReason_data();
    void npyRefusedWithReason();
    void npyWriterMatchesNumPy();
    void npyRoundTrip();
    void csvReads();
    void csvRefusedInPlace_data();
    void csvRefusedInPlace();
    void csvRoundTrip();
    void filesByExtension();
    void tabSeparatedSplit();
    void pasteIsOneUndoStep();
    void refusedPasteChangesNothing_data();
    void refusedPasteChangesNothing();
    void copyThenPasteIsExact();
    void panelClipboardAndFiles();
    void importWrongShapeNamesBoth();
    void rowHeaderSelectsQuery();
    void typedWordIsExplained();
    void pasteWhileEditingGoesToTheTable();
    void longTokenNameIsRefusedInWords();
};

void TestMatrixIo::npyFromNumPy_data()
{
    QTest::addColumn<QString>("file");
    QTest::addColumn<bool>("float32");
    QTest::newRow("<f8, C order") << "c_f8.npy" << false;
    QTest::newRow("<f4, C order") << "c_f4.npy" << true;
    QTest::newRow("<f8, Fortran order") << "fortran_f8.npy" << false;
    QTest::newRow("<f4, Fortran order") << "fortran_f4.npy" << true;
    QTest::newRow("version 2.0") << "c_f8_v2.npy" << false;
    QTest::newRow("version 3.0") << "c_f8_v3.npy" << false;
}

void TestMatrixIo::npyFromNumPy()
{
    QFETCH(QString, file);
    QFETCH(bool, float32);
    const Matrix m = read(matrixFromNpy(fixture(file)));
    const Matrix expected = float32 ? fixtureValuesAsFloat() : fixtureValues();
    QVERIFY2(sameBits(m, expected), qPrintable(QString::fromStdString(shapeText(m.rows(), m.cols()))));
    if (float32) // 0.1 as a float is not 0.1: the reader keeps the float's exact value
        QCOMPARE(m(0, 2), 0.10000000149011612);
}

void TestMatrixIo::npyOneDimensionIsOneRow()
{
    const Matrix m = read(matrixFromNpy(fixture(QStringLiteral("vector_f8.npy"))));
    QCOMPARE(m.rows(), Eigen::Index(1));
    QCOMPARE(m.cols(), Eigen::Index(4));
    QCOMPARE(m(0, 0), 0.5);
    QCOMPARE(m(0, 1), -1.0);
    QCOMPARE(m(0, 2), 2.0);
    QCOMPARE(m(0, 3), 1.0 / 3.0);
}

void TestMatrixIo::npyRefusedWithReason_data()
{
    QTest::addColumn<QByteArray>("bytes");
    QTest::addColumn<QString>("expected");
    const QByteArray good = fixture(QStringLiteral("c_f8.npy"));
    QTest::newRow("big-endian") << fixture(QStringLiteral("big_endian_f8.npy")) << "header: the dtype '>f8' is big-endian";
    QTest::newRow("integers") << fixture(QStringLiteral("int64.npy")) << "header: the dtype '<i8' holds integers";
    QTest::newRow("3-D") << fixture(QStringLiteral("three_d.npy")) << "header: the array has 3 dimensions";
    QTest::newRow("one value short") << good.left(good.size() - 8)
                                     << "data: the header says 2 by 3 values of 8 bytes (48 bytes), but 40 bytes follow it";
    QTest::newRow("a byte too many") << good + QByteArray(1, '\0') << "but 49 bytes follow it";
    QTest::newRow("not npy") << QByteArray("1,2,3\n") << "header: not a NumPy .npy file";
    QTest::newRow("cut in the header") << good.left(40) << "the file ends before that";
    QTest::newRow("version 4") << QByteArray("\x93NUMPY\x04\x00\x10\x00", 10) + QByteArray(16, ' ') << "format version 4.0";

    // A header longer than the limit is refused before it is read.
    QByteArray huge("\x93NUMPY\x02\x00", 8);
    const quint32 len = 100000;
    huge += char(len & 0xff);
    huge += char((len >> 8) & 0xff);
    huge += char((len >> 16) & 0xff);
    huge += char(0);
    huge += QByteArray(64, ' ');
    QTest::newRow("header over 64 KB") << huge << "the header is 100000 bytes, more than the limit of 65536";

    auto withHeader = [](const QByteArray &dict, const QByteArray &data = QByteArray(48, '\0')) {
        QByteArray h = dict + '\n';
        QByteArray out("\x93NUMPY\x01\x00", 8);
        out += char(h.size() & 0xff);
        out += char(h.size() >> 8);
        return out + h + data;
    };
    QTest::newRow("a trillion by a trillion") << withHeader("{'descr': '<f8', 'fortran_order': False, 'shape': (999999999999, 999999999999), }")
                                              << "header: the array is 999999999999 by 999999999999, more than 16777216 values";
    QTest::newRow("13 digits") << withHeader("{'descr': '<f8', 'fortran_order': False, 'shape': (1000000000000,), }")
                               << "header: a dimension of 'shape' is too large";
    QTest::newRow("structured") << withHeader("{'descr': [('a', '<f8')], 'fortran_order': False, 'shape': (6,), }")
                                << "the dtype is structured";
    QTest::newRow("objects") << withHeader("{'descr': '|O', 'fortran_order': False, 'shape': (6,), }")
                             << "the dtype '|O' holds Python objects";
    QTest::newRow("float16") << withHeader("{'descr': '<f2', 'fortran_order': False, 'shape': (6,), }")
                             << "the dtype '<f2' is a float of another width";
    QTest::newRow("extra key") << withHeader("{'descr': '<f8', 'fortran_order': False, 'shape': (6,), 'x': 1}")
                               << "the header has the key 'x'";
    QTest::newRow("key twice") << withHeader("{'descr': '<f8', 'descr': '<f8', 'fortran_order': False, 'shape': (6,)}")
                               << "'descr' is given twice";
    QTest::newRow("no shape") << withHeader("{'descr': '<f8', 'fortran_order': False}") << "the header lacks 'shape'";
    QTest::newRow("not a dict") << withHeader("['descr']") << "not a Python dict";
    QTest::newRow("scalar") << withHeader("{'descr': '<f8', 'fortran_order': False, 'shape': (), }", QByteArray(8, '\0'))
                            << "a single number";
    QTest::newRow("empty") << withHeader("{'descr': '<f8', 'fortran_order': False, 'shape': (0, 3), }", QByteArray())
                           << "the array is empty (0 by 3)";
    QTest::newRow("order not a bool") << withHeader("{'descr': '<f8', 'fortran_order': 0, 'shape': (6,), }")
                                      << "'fortran_order' is neither True nor False";
    // NaN (0x7ff8...) as the second row's first value of a C-order 2 by 3 array.
    QByteArray nan(48, '\0');
    nan[3 * 8 + 6] = char(0xf8);
    nan[3 * 8 + 7] = char(0x7f);
    QTest::newRow("NaN") << withHeader("{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3), }", nan)
                         << "row 2, column 1: NaN is not a finite number";
}

void TestMatrixIo::npyRefusedWithReason()
{
    QFETCH(QByteArray, bytes);
    QFETCH(QString, expected);
    const Result<Matrix> r = matrixFromNpy(bytes);
    QVERIFY(!r.ok());
    QVERIFY2(problemOf(r).contains(expected), qPrintable(problemOf(r)));
}

void TestMatrixIo::npyWriterMatchesNumPy()
{
    // numpy.save of the same float64 array, C order: the same bytes, header padding and all.
    QCOMPARE(matrixToNpy(fixtureValues()), fixture(QStringLiteral("c_f8.npy")));
}

void TestMatrixIo::npyRoundTrip()
{
    for (auto [r, c] : {std::pair{1, 1}, std::pair{3, 5}, std::pair{17, 2}}) {
        const Matrix m = awkward(r, c);
        const QByteArray bytes = matrixToNpy(m);
        QCOMPARE((8 + 2 + (quint8(bytes[8]) | quint8(bytes[9]) << 8)) % 64, 0); // data aligned as NumPy aligns it
        QCOMPARE(bytes.size() - (8 + 2 + (quint8(bytes[8]) | quint8(bytes[9]) << 8)), qsizetype(r * c * 8));
        QVERIFY(sameBits(read(matrixFromNpy(bytes)), m));
    }
}

void TestMatrixIo::csvReads()
{
    Matrix expected(2, 3);
    expected << 1, -2.5, 1000, 0.1, 2, -0.001;
    for (const char *text : {"1,-2.5,1e3\n0.1,+2,-0.001\n", "1,-2.5,1e3\r\n0.1,+2,-0.001\r\n", "1, -2.5 ,1e3\n0.1,2,-1e-3",
                             "\xEF\xBB\xBF" "1,-2.5,1000\n0.1,2,-0.001\n\n\n"}) {
        const Matrix m = read(matrixFromCsv(QByteArray(text)));
        QVERIFY2(sameBits(m, expected), text);
    }
}

void TestMatrixIo::csvRefusedInPlace_data()
{
    QTest::addColumn<QByteArray>("text");
    QTest::addColumn<QString>("expected");
    QTest::newRow("a word") << QByteArray("1,2,3\n4,5,abc\n") << "row 2, column 3: 'abc' is not a number";
    QTest::newRow("a header row") << QByteArray("a,b\n1,2\n") << "row 1, column 1: 'a' is not a number";
    QTest::newRow("NaN") << QByteArray("1,nan\n") << "row 1, column 2: 'nan' is not a finite number";
    QTest::newRow("infinity") << QByteArray("1,2\n-inf,3\n") << "row 2, column 1: '-inf' is not a finite number";
    QTest::newRow("too large") << QByteArray("1e999\n") << "row 1, column 1: '1e999' is out of the range of a double";
    QTest::newRow("empty cell") << QByteArray("1,,3\n") << "row 1, column 2: the cell is empty";
    QTest::newRow("ragged") << QByteArray("1,2\n3\n") << "row 2: it has 1 value, row 1 has 2";
    QTest::newRow("blank line inside") << QByteArray("1,2\n\n3,4\n") << "row 2: the line is empty";
    QTest::newRow("nothing") << QByteArray("\n \n") << "there are no numbers in it";
    QTest::newRow("semicolons") << QByteArray("1;2\n") << "row 1, column 1: '1;2' is not a number";
    QTest::newRow("two signs") << QByteArray("+-1\n") << "row 1, column 1: '+-1' is not a number";
    QTest::newRow("a tab inside") << QByteArray("1\t2\n") << "row 1, column 1: '1\\t2' is not a number";
}

void TestMatrixIo::csvRefusedInPlace()
{
    QFETCH(QByteArray, text);
    QFETCH(QString, expected);
    const Result<Matrix> r = matrixFromCsv(text);
    QVERIFY(!r.ok());
    QVERIFY2(problemOf(r).startsWith(expected), qPrintable(problemOf(r)));
}

void TestMatrixIo::csvRoundTrip()
{
    const Matrix m = awkward(4, 3);
    const QByteArray text = matrixToCsv(m);
    QVERIFY(!text.contains("\xE2\x88\x92")); // ASCII minus only, so spreadsheets read it
    QVERIFY(sameBits(read(matrixFromCsv(text)), m));
    QCOMPARE(matrixToCsv(read(matrixFromCsv("0.1,-2\n"))), QByteArray("0.1,-2\n"));
}

void TestMatrixIo::filesByExtension()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const Matrix m = awkward(3, 2);
    for (const QString &name : {QStringLiteral("m.csv"), QStringLiteral("m.npy"), QStringLiteral("M.NPY")}) {
        const QString path = dir.filePath(name);
        QVERIFY(!saveMatrixFile(path, m));
        QVERIFY(sameBits(read(loadMatrixFile(path)), m));
    }
    QCOMPARE(fixture(QStringLiteral("c_f8.npy")).size(), qsizetype(176)); // the fixture NumPy wrote
    QVERIFY(saveMatrixFile(dir.filePath(QStringLiteral("m.txt")), m).has_value());
    QVERIFY(saveMatrixFile(dir.filePath(QStringLiteral("missing/m.csv")), m).has_value());

    // A problem in the file: the path, then the place inside it.
    const QString bad = dir.filePath(QStringLiteral("bad.csv"));
    {
        QFile f(bad);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("1,2\n3,x\n");
    }
    const QString why = problemOf(loadMatrixFile(bad));
    QVERIFY2(why == bad + QStringLiteral(": row 2, column 2: 'x' is not a number"), qPrintable(why));
    QVERIFY(problemOf(loadMatrixFile(dir.filePath(QStringLiteral("absent.npy")))).contains(QStringLiteral("cannot be read")));
}

void TestMatrixIo::tabSeparatedSplit()
{
    const auto rows = splitTabSeparated(QStringLiteral("1\t2\r\n3\t4\r\n"));
    QCOMPARE(rows.size(), std::size_t(2));
    QCOMPARE(rows[1], QStringList({QStringLiteral("3"), QStringLiteral("4")}));
    QCOMPARE(splitTabSeparated(QStringLiteral("5")).size(), std::size_t(1));
    QCOMPARE(splitTabSeparated(QStringLiteral("1\r2\r")).size(), std::size_t(2));
    QCOMPARE(splitTabSeparated(QString()).size(), std::size_t(0));
    QCOMPARE(matrixToTabSeparated(fixtureValues()), QStringLiteral("1.5\t-2.25\t0.1\n3\t0.001\t-7.125\n"));
}

void TestMatrixIo::pasteIsOneUndoStep()
{
    Document doc;
    doc.replace(lesson(QStringLiteral("causal")), QString(), QStringLiteral("causal"));
    const Scenario before = doc.scenario();
    MatrixModel k(&doc, MatrixId::K);
    QCOMPARE(k.rowCount(), 5);
    QCOMPARE(k.columnCount(), 2);
    const int steps = doc.undoStack()->count();
    // A 2 by 2 block from a spreadsheet (CRLF, a last newline, a typographic minus) at row 2, column 1.
    QVERIFY(!k.paste(k.index(1, 0), QStringLiteral("9\t8.5\r\n−7\t0.25\r\n")));
    QCOMPARE(doc.undoStack()->count(), steps + 1);
    Matrix expected = before.K;
    expected(1, 0) = 9;
    expected(1, 1) = 8.5;
    expected(2, 0) = -7;
    expected(2, 1) = 0.25;
    QVERIFY(sameBits(doc.scenario().K, expected));
    // The trace follows: the scores' column 2 is now q·(9, 8.5).
    QCOMPARE(doc.trace().heads[0].scores(0, 1), before.Q(0, 0) * 9 + before.Q(0, 1) * 8.5);
    doc.undo();
    QVERIFY(doc.scenario() == before);
    doc.redo();
    QVERIFY(sameBits(doc.scenario().K, expected));
    // One cell is one step too.
    QVERIFY(!k.paste(k.index(4, 1), QStringLiteral("3\n")));
    QCOMPARE(doc.scenario().K(4, 1), 3.0);
    QCOMPARE(doc.undoStack()->count(), steps + 2);
}

void TestMatrixIo::refusedPasteChangesNothing_data()
{
    QTest::addColumn<int>("row");
    QTest::addColumn<int>("col");
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("expected");
    QTest::newRow("a word") << 0 << 0 << "1\t2\n3\tabc\n" << "K row “喜欢”, column 2: \"abc\" is not a number; nothing was pasted";
    QTest::newRow("an empty cell") << 0 << 0 << "1\t\n" << "K row “我”, column 2: a number is needed here";
    QTest::newRow("infinity") << 3 << 1 << "inf" << "K row “注意力”, column 2: \"inf\" is not a finite number";
    QTest::newRow("too large") << 0 << 0 << "1e13" << "K row “我”, column 1:";
    QTest::newRow("too wide") << 0 << 0 << "1\t2\t3\n"
                              << "A block of 1 by 3 cells pasted at K row “我”, column 1 runs past the edge of K, which is 5 by 2";
    QTest::newRow("too tall") << 3 << 0 << "1\n2\n3\n"
                              << "A block of 3 by 1 cells pasted at K row “注意力”, column 1 runs past the edge of K, which is 5 by 2";
    QTest::newRow("ragged") << 0 << 0 << "1\t2\n3\n" << "Line 2 of the pasted text has 1 cells and line 1 has 2";
    QTest::newRow("nothing") << 0 << 0 << "" << "The clipboard holds no cells to paste";
}

void TestMatrixIo::refusedPasteChangesNothing()
{
    QFETCH(int, row);
    QFETCH(int, col);
    QFETCH(QString, text);
    QFETCH(QString, expected);
    Document doc;
    doc.replace(lesson(QStringLiteral("causal")), QString(), QStringLiteral("causal"));
    const Scenario before = doc.scenario();
    MatrixModel k(&doc, MatrixId::K);
    QSignalSpy refused(&k, &MatrixModel::refused);
    QSignalSpy changed(&doc, &Document::changed);
    const auto why = k.paste(k.index(row, col), text);
    QVERIFY(why.has_value());
    QVERIFY2(why->startsWith(expected), qPrintable(*why));
    QCOMPARE(refused.count(), 1);
    QCOMPARE(refused.first().at(1).toString(), *why);
    QCOMPARE(changed.count(), 0);
    QCOMPARE(doc.undoStack()->count(), 0);
    QVERIFY(doc.scenario() == before);
}

void TestMatrixIo::copyThenPasteIsExact()
{
    Document doc;
    Scenario s = lesson(QStringLiteral("causal"));
    s.K = awkward(5, 2);
    s.V.col(0) = awkward(5, 1);
    QVERIFY(!doc.replace(s, QString()));
    MatrixModel k(&doc, MatrixId::K), v(&doc, MatrixId::V);
    const QString text = k.copy(0, 0, 4, 1);
    QVERIFY(!text.contains(QChar(0x2212)));
    QCOMPARE(text.count(QLatin1Char('\n')), qsizetype(5));
    // Into V (same shape), then V is K bit for bit.
    QVERIFY(!v.paste(v.index(0, 0), text));
    QVERIFY(sameBits(doc.scenario().V, s.K));
    // A part of it, back into K elsewhere: the same doubles.
    const QString part = k.copy(1, 1, 3, 1);
    QVERIFY(!k.paste(k.index(0, 0), part));
    QCOMPARE(doc.scenario().K(0, 0), s.K(1, 1));
    QCOMPARE(doc.scenario().K(2, 0), s.K(3, 1));
}

void TestMatrixIo::panelClipboardAndFiles()
{
    Document doc;
    doc.replace(lesson(QStringLiteral("causal")), QString(), QStringLiteral("causal"));
    const Scenario before = doc.scenario();
    MatrixPanel panel(&doc);
    panel.resize(500, 600);
    panel.show();
    panel.showMatrix(MatrixId::K);
    QTableView *view = panel.table(MatrixId::K);
    QVERIFY(view);
    // Select rows 2 to 3 of K and copy: two lines of two numbers.
    view->selectionModel()->select(QItemSelection(view->model()->index(1, 0), view->model()->index(2, 1)),
                                   QItemSelectionModel::ClearAndSelect);
    panel.copySelection();
    const QString copied = QApplication::clipboard()->text();
    QCOMPARE(copied, QString::fromStdString(shortest(before.K(1, 0)) + "\t" + shortest(before.K(1, 1)) + "\n"
                                            + shortest(before.K(2, 0)) + "\t" + shortest(before.K(2, 1)) + "\n"));
    // Paste it at row 4: one undo step; Ctrl+Z gives back the lesson.
    view->selectionModel()->select(view->model()->index(3, 0), QItemSelectionModel::ClearAndSelect);
    view->setCurrentIndex(view->model()->index(3, 0));
    panel.pasteClipboard();
    QCOMPARE(doc.undoStack()->count(), 1);
    QVERIFY(doc.scenario().K.row(3) == before.K.row(1));
    QVERIFY(doc.scenario().K.row(4) == before.K.row(2));
    doc.undo();
    QVERIFY(doc.scenario() == before);

    // The table's Ctrl+V action does the same, and a refusal shows its message.
    QAction *pasteAction = nullptr;
    for (QAction *a : view->actions())
        if (a->shortcut() == QKeySequence(QKeySequence::Paste))
            pasteAction = a;
    QVERIFY(pasteAction);
    QApplication::clipboard()->setText(QStringLiteral("1\tx\n"));
    view->selectionModel()->clearSelection();
    view->setCurrentIndex(view->model()->index(0, 0));
    pasteAction->trigger();
    QVERIFY2(panel.message().startsWith(QStringLiteral("K row “我”, column 2: \"x\" is not a number")), qPrintable(panel.message()));
    QVERIFY(doc.scenario() == before);

    // Export K and import it into a changed K: the file's numbers come back as one step.
    QTemporaryDir dir;
    for (const QString &name : {QStringLiteral("k.csv"), QStringLiteral("k.npy")}) {
        const QString path = dir.filePath(name);
        QVERIFY(!panel.exportFile(path));
        QVERIFY(!doc.edit([&] { Scenario s = doc.scenario(); s.K.setConstant(0.5); return s; }(), QStringLiteral("flat")));
        const int steps = doc.undoStack()->index();
        QVERIFY(!panel.importFile(path));
        QCOMPARE(doc.undoStack()->index(), steps + 1);
        QVERIFY(sameBits(doc.scenario().K, before.K));
    }
}

void TestMatrixIo::importWrongShapeNamesBoth()
{
    Document doc;
    doc.replace(lesson(QStringLiteral("causal")), QString(), QStringLiteral("causal"));
    const Scenario before = doc.scenario();
    MatrixPanel panel(&doc);
    panel.showMatrix(MatrixId::K);
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("wide.npy"));
    {
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(fixture(QStringLiteral("c_f8.npy")));
    }
    const auto why = panel.importFile(path);
    QVERIFY(why);
    QCOMPARE(*why, QStringLiteral("wide.npy holds 2 by 3 numbers, but K is 5 by 2; nothing was imported"));
    QVERIFY(doc.scenario() == before);
    QCOMPARE(doc.undoStack()->count(), 0);
    // A file that does not read: its path and the place inside it.
    const auto bad = panel.importFile(attn::test::sourceDir() + QStringLiteral("/tests/matrixio/big_endian_f8.npy"));
    QVERIFY(bad && bad->contains(QStringLiteral("big_endian_f8.npy: header: the dtype '>f8' is big-endian")));
}

void TestMatrixIo::rowHeaderSelectsQuery()
{
    Document doc;
    doc.replace(lesson(QStringLiteral("causal")), QString(), QStringLiteral("causal"));
    MatrixPanel panel(&doc);
    panel.resize(500, 600);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    QTableView *q = panel.table(MatrixId::Q);
    QHeaderView *header = q->verticalHeader();
    const QPoint row3(header->width() / 2, header->sectionViewportPosition(2) + header->sectionSize(2) / 2);
    QTest::mouseClick(header->viewport(), Qt::LeftButton, {}, row3);
    QCOMPARE(doc.currentQuery(), 2);
    QVERIFY(q->model()->headerData(2, Qt::Vertical, Qt::ToolTipRole).toString().contains(QStringLiteral("click to select this query")));
    QVERIFY(q->model()->headerData(2, Qt::Vertical, Qt::FontRole).value<QFont>().bold());
    QVERIFY(!q->model()->headerData(1, Qt::Vertical, Qt::FontRole).isValid());

    // In cross-attention the keys are not queries: their headers select nothing.
    Document cross;
    cross.replace(lesson(QStringLiteral("cross-attention")), QString(), QStringLiteral("cross-attention"));
    MatrixModel source(&cross, MatrixId::Source), x(&cross, MatrixId::X);
    QVERIFY(!source.rowIsQuery(0));
    QVERIFY(!source.headerData(0, Qt::Vertical, Qt::ToolTipRole).toString().contains(QStringLiteral("select")));
    QVERIFY(x.rowIsQuery(0));
    MatrixModel wq(&doc, MatrixId::Wq);
    QVERIFY(!wq.rowIsQuery(0));
}

namespace {

// A panel in a window of its own, with a status bar, shown.
struct PanelWindow {
    Document doc;
    QMainWindow window;
    MatrixPanel *panel;

    PanelWindow()
    {
        doc.replace(lesson(QStringLiteral("causal")), QString(), QStringLiteral("causal"));
        panel = new MatrixPanel(&doc);
        window.setCentralWidget(panel);
        window.resize(600, 700);
        window.show();
        window.activateWindow();
    }
};

// Types `text` into cell (row, col) of `view` as a keyboard does over a
// cell opened for editing (its text selected). Returns the editor.
QLineEdit *typeInto(QTableView *view, int row, int col, const QString &text)
{
    const QModelIndex at = view->model()->index(row, col);
    view->setCurrentIndex(at);
    view->edit(at);
    // The open editor: one closed before may wait for its deleteLater().
    QLineEdit *editor = nullptr;
    for (QLineEdit *e : view->viewport()->findChildren<QLineEdit *>())
        if (e->isVisible())
            editor = e;
    if (!editor)
        return nullptr;
    editor->setFocus();
    editor->selectAll();
    QTest::keyClicks(editor, text);
    return editor;
}

} // namespace

// "abc" typed in a cell is refused, and the window says why where a teacher looks.
void TestMatrixIo::typedWordIsExplained()
{
    PanelWindow p;
    QVERIFY(QTest::qWaitForWindowActive(&p.window));
    const Scenario before = p.doc.scenario();
    QTableView *q = p.panel->table(MatrixId::Q);
    QLineEdit *editor = typeInto(q, 0, 1, QStringLiteral("abc"));
    QVERIFY(editor);
    QCOMPARE(editor->text(), QStringLiteral("abc"));
    QTest::keyClick(editor, Qt::Key_Return); // the delegate commits in a queued call
    QTRY_VERIFY(!p.window.statusBar()->currentMessage().isEmpty());
    QVERIFY(p.doc.scenario() == before);
    const QString said = p.window.statusBar()->currentMessage();
    QVERIFY2(said.contains(QStringLiteral("\"abc\" is not a number")), qPrintable(said));
    QVERIFY2(said.startsWith(QStringLiteral("Q row “我”, column 2")), qPrintable(said));
    QCOMPARE(p.panel->message(), said);
}

// Ctrl+V with a block on the clipboard while a cell is being edited pastes
// the block into the table (one undo step); one number goes into the editor.
void TestMatrixIo::pasteWhileEditingGoesToTheTable()
{
    PanelWindow p;
    QVERIFY(QTest::qWaitForWindowActive(&p.window));
    const Scenario before = p.doc.scenario();
    QTableView *k = p.panel->table(MatrixId::K);
    p.panel->showMatrix(MatrixId::K);
    QApplication::clipboard()->setText(QStringLiteral("1.5\t-2\n0.25\t3\n"));
    QLineEdit *editor = typeInto(k, 1, 0, QStringLiteral("7"));
    QVERIFY(editor);
    const QPointer<QLineEdit> closing = editor;
    QTest::keyClick(editor, Qt::Key_V, Qt::ControlModifier);
    QTRY_VERIFY(closing.isNull() || !closing->isVisible()); // the editor is closed, its text dropped
    QCOMPARE(p.doc.undoStack()->count(), 1);
    Matrix expected = before.K;
    expected.block(1, 0, 2, 2) << 1.5, -2, 0.25, 3;
    QVERIFY(p.doc.scenario().K == expected);
    p.doc.undo();
    QVERIFY(p.doc.scenario() == before);
    // One number: text in the editor, as in any line edit.
    QApplication::clipboard()->setText(QStringLiteral("5"));
    editor = typeInto(k, 0, 0, QStringLiteral("0."));
    QVERIFY(editor);
    QTest::keyClick(editor, Qt::Key_V, Qt::ControlModifier);
    QCOMPARE(editor->text(), QStringLiteral("0.5"));
    QTest::keyClick(editor, Qt::Key_Return);
    QTRY_COMPARE(p.doc.scenario().K(0, 0), 0.5);
}

void TestMatrixIo::longTokenNameIsRefusedInWords()
{
    Document doc;
    doc.replace(lesson(QStringLiteral("causal")), QString(), QStringLiteral("causal"));
    const Scenario before = doc.scenario();
    MatrixModel q(&doc, MatrixId::Q);
    QSignalSpy refused(&q, &MatrixModel::refused);
    QVERIFY(!q.setHeaderData(0, Qt::Vertical, QString(93, QLatin1Char('w')), Qt::EditRole));
    QCOMPARE(refused.size(), 1);
    QCOMPARE(refused[0][1].toString(), QStringLiteral("A token name can have at most 64 characters (this one has 93); token 1 keeps its name"));
    // Characters, not bytes: 65 Chinese characters are 195 bytes.
    QVERIFY(!q.setHeaderData(2, Qt::Vertical, QString(65, QChar(0x6CE8)), Qt::EditRole));
    QCOMPARE(refused[1][1].toString(), QStringLiteral("A token name can have at most 64 characters (this one has 65); token 3 keeps its name"));
    QVERIFY(doc.scenario() == before);
    // 64 are a name.
    QVERIFY(q.setHeaderData(2, Qt::Vertical, QString(64, QChar(0x6CE8)), Qt::EditRole));
    QCOMPARE(QString::fromStdString(doc.scenario().tokens[2]), QString(64, QChar(0x6CE8)));
}

QTEST_MAIN(TestMatrixIo)
#include "test_matrixio.moc"
