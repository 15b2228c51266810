// SPDX-License-Identifier: Apache-2.0
#include "core/io/AtomicFile.h"

#include "core/io/BoundedRead.h"

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <string_view>
#include <sys/stat.h>
#include <unistd.h>

namespace parallax::core::io {

namespace {

const char* kTmpMarker = ".tmp-";

std::string folderOf(const std::string& path)
{
    const auto slash = path.find_last_of('/');
    if (slash == std::string::npos)
        return ".";
    return slash == 0 ? "/" : path.substr(0, slash);
}

std::string baseName(const std::string& path)
{
    const auto slash = path.find_last_of('/');
    return slash == std::string::npos ? path : path.substr(slash + 1);
}

std::string reason()
{
    return std::strerror(errno);
}

bool writeAll(int fd, const std::string& content)
{
    std::size_t done = 0;
    while (done < content.size()) {
        const ssize_t n = ::write(fd, content.data() + done, content.size() - done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return false;
        done += static_cast<std::size_t>(n);
    }
    return true;
}

// "<name>.tmp-<pid>" files beside the target whose process no longer runs: a crashed save.
void removeStaleTemporaries(const std::string& folder, const std::string& name)
{
    DIR* dir = ::opendir(folder.c_str());
    if (!dir)
        return;
    const std::string prefix = name + kTmpMarker;
    while (const dirent* e = ::readdir(dir)) {
        const std::string_view entry(e->d_name);
        if (entry.size() <= prefix.size() || entry.substr(0, prefix.size()) != prefix)
            continue;
        const std::string_view digits = entry.substr(prefix.size());
        if (digits.find_first_not_of("0123456789") != std::string_view::npos || digits.size() > 9)
            continue;
        const pid_t pid = static_cast<pid_t>(std::stol(std::string(digits)));
        if (pid == ::getpid() || (::kill(pid, 0) != 0 && errno == ESRCH))
            ::unlink((folder + "/" + std::string(entry)).c_str());
    }
    ::closedir(dir);
}

} // namespace

bool writeFileAtomically(const std::string& filePath, const std::string& content, std::string& error)
{
    const std::string folder = folderOf(filePath);
    const std::string named = filePath + kTmpMarker + std::to_string(::getpid());
    removeStaleTemporaries(folder, baseName(filePath));

    struct stat old { };
    const bool replacing = ::stat(filePath.c_str(), &old) == 0;
    if (replacing && !S_ISREG(old.st_mode)) {
        error = "cannot write \"" + filePath + "\": it exists and is not a regular file";
        return false;
    }

    bool unnamed = true;
    int fd = -1;
#ifdef O_TMPFILE
    fd = ::open(folder.c_str(), O_TMPFILE | O_WRONLY | O_CLOEXEC, 0666);
#endif
    if (fd < 0) {
        unnamed = false;
        fd = ::open(named.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    }
    if (fd < 0) {
        error = "cannot write \"" + filePath + "\": " + reason() + " (does the folder exist and is it writable?)";
        return false;
    }
    auto fail = [&](const std::string& what) {
        error = what;
        ::close(fd);
        if (!unnamed)
            ::unlink(named.c_str());
        return false;
    };
    if (replacing)
        ::fchmod(fd, old.st_mode & 07777); // best effort: keep the old file's permission bits
    if (!writeAll(fd, content))
        return fail("writing \"" + filePath + "\" failed: " + reason() + " (disk full?); the old file is unchanged");
    if (::fsync(fd) != 0)
        return fail("flushing \"" + filePath + "\" to disk failed: " + reason() + "; the old file is unchanged");
    if (unnamed) {
        // An unnamed file gets a name only now, when it is complete; a crash before leaves nothing.
        const std::string self = "/proc/self/fd/" + std::to_string(fd);
        ::unlink(named.c_str());
        if (::linkat(AT_FDCWD, self.c_str(), AT_FDCWD, named.c_str(), AT_SYMLINK_FOLLOW) != 0)
            return fail("cannot write \"" + filePath + "\": " + reason());
        unnamed = false;
    }
    if (::close(fd) != 0) {
        fd = -1;
        ::unlink(named.c_str());
        error = "closing \"" + filePath + "\" failed: " + reason() + "; the old file is unchanged";
        return false;
    }
    if (std::rename(named.c_str(), filePath.c_str()) != 0) {
        error = "cannot replace \"" + filePath + "\": " + reason();
        ::unlink(named.c_str());
        return false;
    }
    // The rename is durable only once the folder's entry is on disk.
    const int dirFd = ::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dirFd >= 0) {
        ::fsync(dirFd);
        ::close(dirFd);
    }
    return true;
}

bool copyFileAtomically(const std::string& fromPath, const std::string& toPath, std::string& error)
{
    std::string content;
    return readFileBounded(fromPath, content, error) && writeFileAtomically(toPath, content, error);
}

} // namespace parallax::core::io
