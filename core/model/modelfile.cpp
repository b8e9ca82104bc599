#include "modelfile.h"
#include "utf8.h"

#include <QFileInfo>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <unordered_set>
#include <vector>

#ifdef Q_OS_UNIX
#include <cerrno>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#endif

namespace attn {

namespace {

Problem tooBig(const std::string &name, qint64 size, qint64 limit, const std::string &what)
{
    return Problem{name, "the file is too big (" + groupedNumber(double(size)) + " bytes; the limit for " + what + " is "
                             + groupedNumber(double(limit)) + ")"};
}

#ifdef Q_OS_UNIX
std::string kindOf(mode_t mode)
{
    if (S_ISDIR(mode))
        return "a folder";
    if (S_ISCHR(mode))
        return "a character device";
    if (S_ISBLK(mode))
        return "a block device";
    if (S_ISFIFO(mode))
        return "a FIFO";
    if (S_ISSOCK(mode))
        return "a socket";
    return "not a file";
}

Problem notRegular(const std::string &name, mode_t mode)
{
    return Problem{name, "not a regular file (" + kindOf(mode) + ")"};
}
#endif

} // namespace

std::optional<std::string> firstDuplicateKey(const QByteArray &json)
{
    struct Frame {
        bool object = false;
        bool keyNext = false;
        std::string place;
        std::unordered_set<std::string> keys;
    };
    std::vector<Frame> stack;
    std::string childPlace; // of the value that comes next
    const qsizetype n = json.size();
    qsizetype i = 0;
    auto hex4 = [&](std::uint32_t *v) {
        *v = 0;
        for (int k = 0; k < 4; ++k) {
            const int h = i < n ? hexDigit(json[i]) : -1;
            if (h < 0)
                return false;
            *v = *v * 16 + std::uint32_t(h);
            ++i;
        }
        return true;
    };
    // The string at json[i] (its opening quote), decoded.
    auto string = [&]() {
        std::string out;
        ++i;
        while (i < n && json[i] != '"') {
            if (json[i] != '\\') {
                out += json[i++];
                continue;
            }
            ++i;
            const char e = i < n ? json[i++] : '\0';
            switch (e) {
            case 'b': out += '\b'; break;
            case 'f': out += '\f'; break;
            case 'n': out += '\n'; break;
            case 'r': out += '\r'; break;
            case 't': out += '\t'; break;
            case 'u': {
                std::uint32_t u = 0;
                if (!hex4(&u)) {
                    u = 0xfffd;
                } else if (u >= 0xd800 && u <= 0xdbff && i + 1 < n && json[i] == '\\' && json[i + 1] == 'u') {
                    const qsizetype save = i;
                    i += 2;
                    std::uint32_t low = 0;
                    if (hex4(&low) && low >= 0xdc00 && low <= 0xdfff)
                        u = 0x10000 + ((u - 0xd800) << 10) + (low - 0xdc00);
                    else
                        i = save;
                }
                if (u >= 0xd800 && u <= 0xdfff)
                    u = 0xfffd; // a lone surrogate: Qt's parser makes it U+FFFD too
                appendUtf8(out, u);
                break;
            }
            default: out += e; break; // \" \\ \/
            }
        }
        ++i; // the closing quote
        return out;
    };
    while (i < n) {
        const char c = json[i];
        if (c == '{' || c == '[') {
            Frame f;
            f.object = c == '{';
            f.keyNext = f.object;
            f.place = childPlace;
            stack.push_back(std::move(f));
            if (c == '[')
                childPlace = stack.back().place + "[]";
            ++i;
        } else if (c == '}' || c == ']') {
            if (!stack.empty())
                stack.pop_back();
            ++i;
        } else if (c == ',') {
            if (!stack.empty() && stack.back().object)
                stack.back().keyNext = true;
            else if (!stack.empty())
                childPlace = stack.back().place + "[]";
            ++i;
        } else if (c == '"') {
            std::string s = string();
            if (!stack.empty() && stack.back().keyNext) {
                Frame &f = stack.back();
                f.keyNext = false;
                childPlace = f.place.empty() ? s : f.place + "." + s;
                if (!f.keys.insert(std::move(s)).second)
                    return childPlace;
            }
        } else {
            ++i; // white space, ':', a number, true, false, null
        }
    }
    return std::nullopt;
}

std::string groupedNumber(double v)
{
    std::string digits = std::to_string(static_cast<long long>(std::llround(v)));
    const int first = digits[0] == '-' ? 1 : 0;
    for (int i = int(digits.size()) - 3; i > first; i -= 3)
        digits.insert(std::size_t(i), ",");
    return digits;
}

// Where the file system cannot be asked directly (Qt's resources, which are
// what the program was built with; systems without stat).
std::optional<Problem> openThroughQt(QFile &file, const QString &path, const std::string &name, qint64 limit,
                                     const std::string &what)
{
    const QFileInfo info(path);
    if (!info.exists())
        return Problem{name, "the file is missing"};
    if (!info.isFile())
        return Problem{name, "not a regular file"};
    if (info.size() > limit)
        return tooBig(name, info.size(), limit, what);
    file.setFileName(path);
    if (!file.open(QIODevice::ReadOnly))
        return Problem{name, "cannot be read: " + file.errorString().toStdString()};
    return std::nullopt;
}

std::optional<Problem> openRegularFile(QFile &file, const QString &path, const std::string &name, qint64 limit,
                                       const std::string &what)
{
    // Qt's resources (the built-in model) are no file system's files.
    if (path.startsWith(QLatin1Char(':')))
        return openThroughQt(file, path, name, limit, what);
#ifdef Q_OS_UNIX
    const QByteArray native = QFile::encodeName(path);
    struct stat st{};
    if (::stat(native.constData(), &st) != 0) {
        const int e = errno;
        struct stat link{};
        if (e == ENOENT && ::lstat(native.constData(), &link) == 0 && S_ISLNK(link.st_mode))
            return Problem{name, "a symbolic link to nothing (its target is missing)"};
        if (e == ENOENT || e == ENOTDIR)
            return Problem{name, "the file is missing"};
        if (e == ELOOP)
            return Problem{name, "a loop of symbolic links (or too many links in a row)"};
        return Problem{name, std::string("cannot be read: ") + std::strerror(e)};
    }
    if (!S_ISREG(st.st_mode))
        return notRegular(name, st.st_mode);
    if (st.st_size > limit)
        return tooBig(name, qint64(st.st_size), limit, what);
    // O_NONBLOCK: if a FIFO took the file's place since stat(), the open
    // returns at once instead of waiting for a writer; fstat() then sees it.
    const int fd = ::open(native.constData(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return Problem{name, std::string("cannot be read: ") + std::strerror(errno)};
    struct stat opened{};
    if (::fstat(fd, &opened) != 0 || !S_ISREG(opened.st_mode)) {
        const mode_t mode = opened.st_mode;
        ::close(fd);
        return notRegular(name, mode);
    }
    if (opened.st_size > limit) {
        ::close(fd);
        return tooBig(name, qint64(opened.st_size), limit, what);
    }
    // A regular file reads the same with or without O_NONBLOCK; clear it all the same.
    ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
    if (!file.open(fd, QIODevice::ReadOnly, QFileDevice::AutoCloseHandle)) {
        ::close(fd);
        return Problem{name, "cannot be read: " + file.errorString().toStdString()};
    }
    return std::nullopt;
#else
    return openThroughQt(file, path, name, limit, what);
#endif
}

Result<QByteArray> readRegularFile(const QString &path, const std::string &name, qint64 limit, const std::string &what)
{
    QFile file;
    if (auto p = openRegularFile(file, path, name, limit, what))
        return *p;
    // The size the file system gave, and then never more than limit + 1
    // bytes in all, whatever the file does meanwhile.
    QByteArray bytes = file.read(std::min(file.size(), limit) + 1);
    while (bytes.size() <= limit && !file.atEnd()) {
        const QByteArray more = file.read(std::min<qint64>(limit + 1 - bytes.size(), qint64(1) << 20));
        if (more.isEmpty())
            break;
        bytes += more;
    }
    if (file.error() != QFileDevice::NoError)
        return Problem{name, "cannot be read: " + file.errorString().toStdString()};
    if (bytes.size() > limit)
        return tooBig(name, bytes.size(), limit, what);
    return bytes;
}

} // namespace attn
