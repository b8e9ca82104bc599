#include "qrcode.h"

#include <QPainter>

#include <memory>
#include <qrencode.h>

namespace attn {

namespace {

struct QrFree {
    void operator()(QRcode *code) const { QRcode_free(code); }
};
using QrPointer = std::unique_ptr<QRcode, QrFree>;

QrPointer encode(const QString &text)
{
    const QByteArray utf8 = text.toUtf8();
    // Level M: a projector's glare or a smudge still reads (15% recoverable).
    return QrPointer(QRcode_encodeString8bit(utf8.constData(), 0, QR_ECLEVEL_M));
}

} // namespace

int qrCodeWidth(const QString &text)
{
    const QrPointer code = encode(text);
    return code ? code->width : 0;
}

QImage qrCodeImage(const QString &text, int moduleSize)
{
    const QrPointer code = encode(text);
    if (!code || moduleSize < 1)
        return {};
    const int quiet = 4, w = code->width, side = (w + 2 * quiet) * moduleSize;
    QImage image(side, side, QImage::Format_RGB32);
    image.fill(Qt::white);
    QPainter p(&image);
    for (int y = 0; y < w; ++y)
        for (int x = 0; x < w; ++x)
            if (code->data[y * w + x] & 1) // bit 0: a dark module
                p.fillRect((x + quiet) * moduleSize, (y + quiet) * moduleSize, moduleSize, moduleSize, Qt::black);
    return image;
}

} // namespace attn
