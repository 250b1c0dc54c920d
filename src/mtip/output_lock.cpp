// Exclusive hold of an output by one job (see output_lock.hpp).
#include "output_lock.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <utility>

#include "nufftmp/errors.hpp"

namespace nufftmp::mtip::detail {

namespace {

std::string holder_of(int fd) {
  char buf[256] = {0};
  const ssize_t n = ::pread(fd, buf, sizeof buf - 1, 0);
  std::string s = n > 0 ? std::string(buf, static_cast<std::size_t>(n)) : std::string();
  while (!s.empty() && (s.back() == '\n' || s.back() == '\0')) s.pop_back();
  return s.empty() ? "another process" : s;
}

std::string me() {
  char host[256] = {0};
  if (::gethostname(host, sizeof host - 1) != 0) std::snprintf(host, sizeof host, "?");
  return "pid " + std::to_string(static_cast<long>(::getpid())) + " on " + host;
}

}  // namespace

OutputLock::OutputLock(const std::string& file) : path_(file + ".lock") {
  // A holder removes the lock file as it releases: a lock taken on a file that was removed
  // meanwhile protects nothing, so take it again on the file now at the path.
  for (int attempt = 0; attempt < 16; ++attempt) {
    const int fd = ::open(path_.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0666);
    if (fd < 0)
      throw Error(ErrorCode::IoFailure,
                  "cannot create the lock file '" + path_ + "': " + std::strerror(errno));
    if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
      const int err = errno;
      if (err == EWOULDBLOCK) {
        const std::string who = holder_of(fd);
        ::close(fd);
        throw Error(ErrorCode::IoFailure, "'" + file + "' is in use by another job (" + who +
                                              ", lock '" + path_ +
                                              "'): wait for it to end or choose another output");
      }
      ::close(fd);
      ::unlink(path_.c_str());
      std::fprintf(stderr,
                   "nufftmp warning: cannot lock '%s' (%s): another job writing '%s' at the "
                   "same time would not be detected\n",
                   path_.c_str(), std::strerror(err), file.c_str());
      path_.clear();
      return;
    }
    struct stat held {
    }, now{};
    if (::fstat(fd, &held) == 0 && ::stat(path_.c_str(), &now) == 0 && held.st_dev == now.st_dev &&
        held.st_ino == now.st_ino) {
      const std::string who = me() + "\n";
      if (::ftruncate(fd, 0) == 0) (void)!::pwrite(fd, who.data(), who.size(), 0);
      fd_ = fd;
      return;
    }
    ::close(fd);  // the file was replaced under us: try again
  }
  throw Error(ErrorCode::IoFailure, "cannot take the lock '" + path_ + "' (it keeps changing)");
}

void OutputLock::release() noexcept {
  if (fd_ < 0) return;
  ::unlink(path_.c_str());  // while still held: no one else can hold this file now
  ::close(fd_);
  fd_ = -1;
}

OutputLock::~OutputLock() { release(); }

OutputLock::OutputLock(OutputLock&& o) noexcept
    : path_(std::move(o.path_)), fd_(std::exchange(o.fd_, -1)) {}

OutputLock& OutputLock::operator=(OutputLock&& o) noexcept {
  if (this != &o) {
    release();
    path_ = std::move(o.path_);
    fd_ = std::exchange(o.fd_, -1);
  }
  return *this;
}

}  // namespace nufftmp::mtip::detail
