// One job at a time per output: an exclusive advisory lock (flock, not waiting) on
// "<file>.lock" beside the file. The kernel drops the lock when the holder ends, however it
// ends, so a job killed at its wall-time limit leaves no stale lock behind: the next job (the
// resubmitted one) takes it at once. The lock file records "pid <pid> on <host>" for the
// message another job gets. Where the file system cannot lock (some NFS or Lustre mounts), a
// warning says that concurrent jobs will not be detected and the run goes on.
#pragma once

#include <string>

namespace nufftmp::mtip::detail {

class OutputLock {
 public:
  OutputLock() = default;  // holds nothing
  // Throws Error(IoFailure) naming the holder when another process holds file's lock.
  explicit OutputLock(const std::string& file);
  ~OutputLock();  // removes the lock file and releases the lock
  OutputLock(OutputLock&& o) noexcept;
  OutputLock& operator=(OutputLock&& o) noexcept;
  OutputLock(const OutputLock&) = delete;
  OutputLock& operator=(const OutputLock&) = delete;

  bool held() const { return fd_ >= 0; }
  const std::string& lock_path() const { return path_; }

 private:
  void release() noexcept;
  std::string path_;
  int fd_ = -1;
};

}  // namespace nufftmp::mtip::detail
