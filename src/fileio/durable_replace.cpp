// Atomic durable file replacement (see durable_replace.hpp).
#include "durable_replace.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <random>

#include "nufftmp/errors.hpp"

namespace nufftmp::fileio {

namespace {

[[noreturn]] void io_fail(const std::string& msg) { throw Error(ErrorCode::IoFailure, msg); }

std::string reason() { return std::strerror(errno); }

std::string dir_of(const std::string& path) {
  const auto slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

const char* kind_of(mode_t m) {
  if (S_ISDIR(m)) return "a directory";
  if (S_ISCHR(m)) return "a character device";
  if (S_ISBLK(m)) return "a block device";
  if (S_ISFIFO(m)) return "a fifo";
  if (S_ISSOCK(m)) return "a socket";
  return "not a regular file";
}

// A name no other writer picks: process id, a per-process counter and random bits (two jobs
// on different nodes may share a pid). O_EXCL makes the last doubt a retry.
std::string unique_temp_name(const ReplaceTarget& t) {
  static std::atomic<unsigned> counter{0};
  static thread_local std::mt19937_64 rng{std::random_device{}()};
  char suffix[64];
  std::snprintf(suffix, sizeof suffix, ".tmp.%ld.%u.%08llx", static_cast<long>(getpid()), counter++,
                static_cast<unsigned long long>(rng() & 0xffffffffULL));
  return t.path + suffix;
}

// Creates the temporary file exclusively; returns its name.
std::string create_temp(const ReplaceTarget& t, mode_t mode, bool keep_mode) {
  for (int attempt = 0; attempt < 16; ++attempt) {
    const std::string name = unique_temp_name(t);
    const int fd = ::open(name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd < 0) {
      if (errno == EEXIST) continue;
      io_fail("cannot create a temporary file in '" + t.dir + "' for '" + t.path +
              "': " + reason());
    }
    if (keep_mode) (void)::fchmod(fd, mode);  // the replaced file's permissions
    ::close(fd);
    return name;
  }
  io_fail("cannot find a free temporary name next to '" + t.path + "'");
}

void fsync_path(const std::string& path, int flags, const char* what, bool tolerate_einval) {
  const int fd = ::open(path.c_str(), flags | O_CLOEXEC);
  if (fd < 0)
    io_fail(std::string("cannot open ") + what + " '" + path + "' to fsync it: " + reason());
  const int rc = ::fsync(fd);
  const int err = errno;
  ::close(fd);
  // Some file systems cannot fsync a directory (EINVAL): the rename is then as durable as the
  // file system makes it.
  if (rc != 0 && !(tolerate_einval && err == EINVAL)) {
    errno = err;
    io_fail(std::string("fsync of ") + what + " '" + path + "' failed: " + reason());
  }
}

}  // namespace

ReplaceTarget resolve_replace_target(const std::string& path) {
  if (path.empty()) io_fail("empty output file name");
  std::string p = path;
  for (int hops = 0;; ++hops) {
    if (hops > 40) io_fail("'" + path + "': too many levels of symbolic links");
    struct stat st {};
    if (::lstat(p.c_str(), &st) != 0) {
      if (errno != ENOENT) io_fail("cannot inspect '" + p + "': " + reason());
      break;  // nothing there yet: a new file
    }
    if (!S_ISLNK(st.st_mode)) {
      if (!S_ISREG(st.st_mode))
        io_fail("'" + p + "'" + (p == path ? "" : " (the target of '" + path + "')") + " is " +
                kind_of(st.st_mode) + ", not a regular file: refusing to replace it");
      ReplaceTarget t;
      t.path = p;
      t.dir = dir_of(p);
      t.exists = true;
      return t;
    }
    std::string link(static_cast<std::size_t>(st.st_size > 0 ? st.st_size : 4096) + 1, '\0');
    const ssize_t n = ::readlink(p.c_str(), link.data(), link.size());
    if (n < 0) io_fail("cannot read the symbolic link '" + p + "': " + reason());
    link.resize(static_cast<std::size_t>(n));
    p = (link[0] == '/' || dir_of(p) == ".") ? link : dir_of(p) + "/" + link;
  }
  ReplaceTarget t;
  t.path = p;
  t.dir = dir_of(p);
  struct stat st {};
  if (::stat(t.dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
    io_fail("'" + path + "': directory '" + t.dir + "' does not exist");
  return t;
}

bool same_file(const std::string& a, const std::string& b) {
  struct stat sa {
  }, sb{};
  if (::stat(a.c_str(), &sa) != 0 || ::stat(b.c_str(), &sb) != 0) return false;
  return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

void probe_creatable(const std::string& path) {
  DurableReplacement probe(path);  // its destructor removes the temporary file
}

DurableReplacement::DurableReplacement(const std::string& path)
    : target_(resolve_replace_target(path)) {
  struct stat st {};
  const bool keep = target_.exists && ::stat(target_.path.c_str(), &st) == 0;
  temp_ = create_temp(target_, keep ? (st.st_mode & 07777) : 0666, keep);
}

DurableReplacement::~DurableReplacement() {
  if (!committed_ && !temp_.empty()) ::unlink(temp_.c_str());
}

void DurableReplacement::commit() {
  if (committed_) return;
  fsync_path(temp_, O_RDONLY, "file", false);
  if (::rename(temp_.c_str(), target_.path.c_str()) != 0)
    io_fail("cannot rename '" + temp_ + "' to '" + target_.path + "': " + reason());
  committed_ = true;
  fsync_path(target_.dir, O_RDONLY | O_DIRECTORY, "directory", true);
}

}  // namespace nufftmp::fileio
