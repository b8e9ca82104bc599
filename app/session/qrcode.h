#pragma once
// A QR code of a short text (the student page's address), drawn black on
// white with its four-module quiet zone, by Debian's libqrencode.

#include <QImage>
#include <QString>

namespace attn {

// Each module `moduleSize` pixels square; a null image when the text does
// not fit a QR code.
QImage qrCodeImage(const QString &text, int moduleSize = 8);
// The modules across, quiet zone excluded (0 when it does not fit): for tests.
int qrCodeWidth(const QString &text);

} // namespace attn
