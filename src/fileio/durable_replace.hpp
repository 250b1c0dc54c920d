// Atomic, durable replacement of one file. The new content goes to a temporary file of a unique
// name in the target's directory; commit() fsyncs it, renames it over the target and fsyncs the
// directory. After a crash at any point the target is the old file or the new one, whole, and
// two writers of the same target never share a temporary file. Symlinks are followed: the file
// they point to is replaced and the link stays a link. Single process, POSIX file systems.
#pragma once

#include <string>

namespace nufftmp::fileio {

// The file a write to `path` replaces: symlinks followed to their end (which need not exist).
struct ReplaceTarget {
  std::string path;     // after symlinks
  std::string dir;      // its directory ("." for a bare name)
  bool exists = false;  // a regular file is there now
};
// Throws Error(IoFailure) when what is there is not a regular file (directory, device, fifo,
// socket), for a symlink loop, or when the directory is missing.
ReplaceTarget resolve_replace_target(const std::string& path);

// True when a and b both exist and are the same file (st_dev and st_ino: through any path,
// symlink or hard link).
bool same_file(const std::string& a, const std::string& b);

// Creates (and removes) a temporary file in the target's directory: throws Error(IoFailure)
// naming the directory and the reason when the target cannot be written there.
void probe_creatable(const std::string& path);

class DurableReplacement {
 public:
  // Resolves the target (as resolve_replace_target) and creates the temporary file next to it
  // (mode: the existing target's, else 0666 less the umask).
  explicit DurableReplacement(const std::string& path);
  ~DurableReplacement();  // removes the temporary file unless committed
  DurableReplacement(const DurableReplacement&) = delete;
  DurableReplacement& operator=(const DurableReplacement&) = delete;

  const std::string& temp_path() const { return temp_; }
  const std::string& target() const { return target_.path; }
  // The temporary file's content is complete and closed by its writer: fsync, rename over the
  // target, fsync the directory. Throws Error(IoFailure) naming the step that failed.
  void commit();

 private:
  ReplaceTarget target_;
  std::string temp_;
  bool committed_ = false;
};

}  // namespace nufftmp::fileio
