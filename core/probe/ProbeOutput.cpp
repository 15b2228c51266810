// SPDX-License-Identifier: Apache-2.0
#include "core/probe/ProbeOutput.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <ctime>

#include <fcntl.h>
#include <unistd.h>

namespace parallax::probe {

bool writeFileAtomically(const std::string& path, const std::string& content, std::string& error)
{
    const std::string temporary = path + ".tmp." + std::to_string(static_cast<long>(getpid()));
    const int fd = open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) {
        error = "cannot create " + temporary + ": " + std::strerror(errno);
        return false;
    }
    auto failed = [&](const char* step) {
        error = std::string(step) + " " + temporary + ": " + std::strerror(errno);
        close(fd);
        unlink(temporary.c_str());
        return false;
    };
    std::size_t written = 0;
    while (written < content.size()) {
        const ssize_t n = write(fd, content.data() + written, content.size() - written);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return failed("cannot write");
        written += static_cast<std::size_t>(n);
    }
    if (fsync(fd) != 0)
        return failed("cannot flush");
    if (close(fd) != 0) {
        error = "cannot close " + temporary + ": " + std::strerror(errno);
        unlink(temporary.c_str());
        return false;
    }
    if (std::rename(temporary.c_str(), path.c_str()) != 0) {
        error = "cannot rename " + temporary + " to " + path + ": " + std::strerror(errno);
        unlink(temporary.c_str());
        return false;
    }
    return true;
}

std::string utcTimestamp()
{
    const std::time_t now = std::time(nullptr);
    std::tm utc {};
    gmtime_r(&now, &utc);
    char buffer[32];
    std::strftime(buffer, sizeof buffer, "%Y-%m-%dT%H:%M:%SZ", &utc);
    return buffer;
}

} // namespace parallax::probe
