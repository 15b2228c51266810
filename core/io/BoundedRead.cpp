// SPDX-License-Identifier: Apache-2.0
#include "core/io/BoundedRead.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace parallax::core::io {

namespace {

std::string mib(std::uintmax_t bytes)
{
    return std::to_string((bytes + (1 << 20) - 1) >> 20) + " MiB";
}

std::string kindOf(mode_t mode)
{
    if (S_ISDIR(mode))
        return "a directory";
    if (S_ISCHR(mode) || S_ISBLK(mode))
        return "a device";
    if (S_ISFIFO(mode))
        return "a pipe";
    if (S_ISSOCK(mode))
        return "a socket";
    return "not a regular file";
}

} // namespace

bool readFileBounded(const std::string& path, std::string& content, std::string& error, std::uintmax_t maxBytes)
{
    content.clear();
    // O_NONBLOCK: opening a FIFO must not hang waiting for a writer before fstat refuses it.
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) {
        error = "cannot open \"" + path + "\" for reading: " + std::strerror(errno);
        return false;
    }
    struct stat st { };
    if (::fstat(fd, &st) != 0) {
        error = "cannot read \"" + path + "\": " + std::strerror(errno);
        ::close(fd);
        return false;
    }
    if (!S_ISREG(st.st_mode)) {
        error = "\"" + path + "\" is " + kindOf(st.st_mode) + ": give a regular file";
        ::close(fd);
        return false;
    }
    if (static_cast<std::uintmax_t>(st.st_size) > maxBytes) {
        error = "\"" + path + "\" is " + mib(static_cast<std::uintmax_t>(st.st_size)) + "; input files are limited to "
            + mib(maxBytes);
        ::close(fd);
        return false;
    }
    // Read at most one byte past the cap so that a file growing while read is still refused.
    content.resize(static_cast<std::size_t>(st.st_size));
    std::size_t used = 0;
    char spill[4096];
    for (;;) {
        char* dst = used < content.size() ? content.data() + used : spill;
        const std::size_t room = used < content.size() ? content.size() - used : sizeof spill;
        const ssize_t n = ::read(fd, dst, room);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            error = "reading \"" + path + "\" failed: " + std::strerror(errno);
            ::close(fd);
            content.clear();
            return false;
        }
        if (n == 0)
            break;
        if (dst == spill)
            content.append(spill, static_cast<std::size_t>(n));
        used += static_cast<std::size_t>(n);
        if (used > maxBytes) {
            error = "\"" + path + "\" grew past the input limit of " + mib(maxBytes) + " while being read";
            ::close(fd);
            content.clear();
            return false;
        }
    }
    content.resize(used);
    ::close(fd);
    return true;
}

} // namespace parallax::core::io
