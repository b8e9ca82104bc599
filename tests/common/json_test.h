#pragma once
// JSON helpers of the suites that read the trace JSON (CLI and io): where a
// number is not finite, and a matrix back from rows of numbers.

#include "attn_test.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QJsonValue>

namespace attn::test {

// The first place in `v` holding a number that is not finite, or a null
// (Qt writes NaN and ±Inf as null); "argmax" may be null (a fully masked row).
inline std::optional<QString> nonFiniteIn(const QJsonValue &v, const QString &place)
{
    if (v.isDouble() && !std::isfinite(v.toDouble()))
        return place + QStringLiteral(" is ") + num(v.toDouble());
    if (v.isNull() && !place.endsWith(QLatin1String(".argmax")))
        return place + QStringLiteral(" is null");
    if (v.isArray()) {
        const QJsonArray a = v.toArray();
        for (qsizetype i = 0; i < a.size(); ++i)
            if (auto bad = nonFiniteIn(a[i], place + QStringLiteral("[%1]").arg(i)))
                return bad;
    }
    if (v.isObject()) {
        const QJsonObject o = v.toObject();
        for (auto it = o.begin(); it != o.end(); ++it)
            if (auto bad = nonFiniteIn(it.value(), place + QLatin1Char('.') + it.key()))
                return bad;
    }
    return std::nullopt;
}

inline Eigen::MatrixXd matrixFromJson(const QJsonValue &v)
{
    const QJsonArray rows = v.toArray();
    Eigen::MatrixXd m(rows.size(), rows.isEmpty() ? 0 : rows[0].toArray().size());
    for (qsizetype i = 0; i < rows.size(); ++i)
        for (qsizetype j = 0; j < rows[i].toArray().size(); ++j)
            m(i, j) = rows[i].toArray()[j].toDouble();
    return m;
}

} // namespace attn::test
