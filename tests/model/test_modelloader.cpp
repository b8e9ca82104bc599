// Loading a model off the GUI thread (app/views/modelloader.h): progress
// that only grows, the model or the Problem once, a cancel that stops the
// load, a FIFO that does not block; and the model view refusing a forward
// that overflows, in words, instead of showing "nan".

#include "attn_test.h"
#include "gpt2.h"
#include "modelloader.h"
#include "modelview.h"

#include <QDir>
#include <QFile>
#include <QLabel>
#include <QTemporaryDir>
#include <QTest>
#include <QThread>

#include <algorithm>
#include <atomic>
#include <optional>
#include <vector>

#include <sys/stat.h>

using namespace attn;

class TestModelLoader : public QObject {
    Q_OBJECT

    struct Seen {
        std::vector<double> progress;
        int finished = 0;
        std::optional<ModelOrProblem> result;
    };

    static void watch(ModelLoader &loader, Seen &seen)
    {
        connect(&loader, &ModelLoader::progress, &loader, [&seen](double f) { seen.progress.push_back(f); });
        connect(&loader, &ModelLoader::finished, &loader,
                [&seen](std::shared_ptr<const Gpt2Model> model, const Problem &problem) {
                    ++seen.finished;
                    if (model)
                        seen.result = ModelOrProblem(std::move(model));
                    else
                        seen.result = ModelOrProblem(problem);
                });
    }

private slots:
    void loadsTheBuiltinModel()
    {
        ModelLoader loader;
        Seen seen;
        watch(loader, seen);
        QVERIFY(loader.start(QString::fromLatin1(kBuiltinModelFolder)));
        QVERIFY(loader.isRunning());
        QVERIFY(!loader.start(QString::fromLatin1(kBuiltinModelFolder))); // one at a time
        QTRY_COMPARE_WITH_TIMEOUT(seen.finished, 1, 60000);
        QVERIFY(!loader.isRunning());
        QVERIFY(seen.result->ok());
        const ModelOrProblem direct = loadBuiltinModel();
        QCOMPARE(seen.result->value()->parameters, direct.value()->parameters);
        QCOMPARE(seen.result->value()->name, direct.value()->name);
        QVERIFY(!seen.progress.empty());
        QVERIFY(std::is_sorted(seen.progress.begin(), seen.progress.end()));
        QCOMPARE(seen.progress.back(), 1.0);
        QVERIFY(seen.progress.size() <= 101);
        QVERIFY(!loader.wasCancelled());
    }

    // A folder whose config.json is a FIFO: the worker does not block on it.
    void refusesAFifoWithoutBlocking()
    {
        QTemporaryDir dir;
        for (const char *f : {"model.safetensors", "vocab.json", "merges.txt"})
            QVERIFY(QFile::copy(test::sourceDir() + QStringLiteral("/resources/models/tiny-bilingual/") + QLatin1String(f),
                                dir.filePath(QLatin1String(f))));
        QCOMPARE(::mkfifo(QFile::encodeName(dir.filePath(QStringLiteral("config.json"))).constData(), 0600), 0);
        ModelLoader loader;
        Seen seen;
        watch(loader, seen);
        QVERIFY(loader.start(dir.path()));
        QTRY_COMPARE_WITH_TIMEOUT(seen.finished, 1, 60000);
        QVERIFY(!seen.result->ok());
        QCOMPARE(seen.result->problem()->place, (QDir::cleanPath(dir.path()) + QStringLiteral("/config.json")).toStdString());
        QCOMPARE(seen.result->problem()->message, std::string("not a regular file (a FIFO)"));
    }

    // cancel() reaches the load through its LoadControl; finished() follows
    // with kLoadCancelled.
    void cancelStopsTheLoad()
    {
        ModelLoader loader;
        Seen seen;
        watch(loader, seen);
        std::atomic<bool> sawCancel{false};
        // A load that reports half way and then waits for the cancel, as
        // the core does between tensors.
        QVERIFY(loader.start(QStringLiteral("slow"), [&sawCancel](const LoadControl &control) -> ModelOrProblem {
            control.report(0.5);
            while (!control.cancelled())
                QThread::yieldCurrentThread();
            sawCancel = true;
            return Problem{"slow", kLoadCancelled};
        }));
        QTRY_VERIFY_WITH_TIMEOUT(!seen.progress.empty(), 60000);
        QCOMPARE(seen.progress.back(), 0.5);
        QCOMPARE(seen.finished, 0);
        loader.cancel();
        QTRY_COMPARE_WITH_TIMEOUT(seen.finished, 1, 60000);
        QVERIFY(sawCancel);
        QVERIFY(loader.wasCancelled());
        QCOMPARE(seen.result->problem()->message, std::string(kLoadCancelled));
        // A new load after it.
        QVERIFY(loader.start(QString::fromLatin1(kBuiltinModelFolder)));
        QVERIFY(!loader.wasCancelled());
        QTRY_COMPARE_WITH_TIMEOUT(seen.finished, 2, 60000);
        QVERIFY(seen.result->ok());
    }

    // Deleting the loader mid-load cancels and waits: no signal reaches a
    // dead object, nothing runs on after it.
    void deletingCancels()
    {
        std::atomic<bool> sawCancel{false};
        {
            ModelLoader loader;
            QVERIFY(loader.start(QStringLiteral("slow"), [&sawCancel](const LoadControl &control) -> ModelOrProblem {
                while (!control.cancelled())
                    QThread::yieldCurrentThread();
                sawCancel = true;
                return Problem{"slow", kLoadCancelled};
            }));
        }
        QVERIFY(sawCancel);
    }

    // The window's forward is the core's runModel: an overflowing model is
    // refused in words, never "nan".
    void modelViewRefusesAnOverflowingForward()
    {
        const ModelOrProblem loaded = loadBuiltinModel();
        QVERIFY(loaded.ok());
        auto big = std::make_shared<Gpt2Model>(*loaded.value());
        big->name = QStringLiteral("big");
        const int d = big->config.nEmbd, dh = big->config.headDim();
        big->layers[0].attnWeight.middleCols(dh, dh) *= 1e160;
        big->layers[0].attnWeight.middleCols(d + dh, dh) *= 1e160;
        ModelView view;
        view.resize(1200, 800);
        view.show();
        view.setModel(big);
        view.setText(QStringLiteral("the cat sat on the mat ."));
        QVERIFY(!view.trace());
        QVERIFY(!view.problemLabel()->isHidden());
        QVERIFY2(view.problemLabel()->text().contains(QLatin1String("layer 1, head 2: the scores overflow (q and k reach ")),
                 qPrintable(view.problemLabel()->text()));
        for (QLabel *l : view.findChildren<QLabel *>())
            QVERIFY2(!l->text().contains(QLatin1String("nan"), Qt::CaseInsensitive) || l == view.problemLabel(), qPrintable(l->text()));
    }
};

QTEST_MAIN(TestModelLoader)
#include "test_modelloader.moc"
