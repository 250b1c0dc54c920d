// Atomic durable file replacement (src/fileio/durable_replace.hpp) and H5Writer over it: unique
// temporary names, fsync of the file before the rename and of the directory after it (seen by
// interposing fsync and rename: this executable's definitions take precedence over libc's for
// the library's calls), symlinks written through, non-regular targets refused, nothing left
// behind, permissions kept; and the output lock (src/mtip/output_lock.hpp).
#include <dirent.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <functional>
#include <iterator>
#include <string>
#include <vector>

#include "fileio/durable_replace.hpp"
#include "nufftmp/mtip.hpp"
#include "output_lock.hpp"

namespace {

// The calls seen by the interposed functions below, in order ("fsync <path>", "rename a b").
std::vector<std::string>& calls() {
  static std::vector<std::string> c;
  return c;
}
bool recording = false;

std::string fd_path(int fd) {
  char link[64], buf[4096];
  std::snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
  const ssize_t n = readlink(link, buf, sizeof buf - 1);
  return n > 0 ? std::string(buf, static_cast<std::size_t>(n)) : "?";
}

}  // namespace

extern "C" int fsync(int fd) {
  using Fn = int (*)(int);
  static Fn real = reinterpret_cast<Fn>(dlsym(RTLD_NEXT, "fsync"));
  if (recording) calls().push_back("fsync " + fd_path(fd));
  return real(fd);
}

extern "C" int rename(const char* from, const char* to) {
  using Fn = int (*)(const char*, const char*);
  static Fn real = reinterpret_cast<Fn>(dlsym(RTLD_NEXT, "rename"));
  if (recording) calls().push_back(std::string("rename ") + from + " " + to);
  return real(from, to);
}

namespace {

using nufftmp::fileio::DurableReplacement;
using nufftmp::mtip::detail::OutputLock;

// A fresh directory per test, removed with what is in it.
struct Dir {
  std::string path;
  Dir() {
    char tmpl[] = "/tmp/nufftmp_durable_XXXXXX";
    path = mkdtemp(tmpl);
    char real[4096];
    path = realpath(path.c_str(), real);  // /proc/self/fd shows real paths
  }
  ~Dir() {
    if (DIR* d = opendir(path.c_str())) {
      while (dirent* e = readdir(d)) {
        const std::string n = e->d_name;
        if (n != "." && n != "..") unlink((path + "/" + n).c_str());
      }
      closedir(d);
    }
    rmdir(path.c_str());
  }
  std::vector<std::string> entries() const {
    std::vector<std::string> v;
    if (DIR* d = opendir(path.c_str())) {
      while (dirent* e = readdir(d)) {
        const std::string n = e->d_name;
        if (n != "." && n != "..") v.push_back(n);
      }
      closedir(d);
    }
    std::sort(v.begin(), v.end());
    return v;
  }
};

void write_text(const std::string& path, const std::string& text) { std::ofstream(path) << text; }
std::string read_text(const std::string& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

void expect_io_failure(const std::function<void()>& fn, const std::string& needle) {
  try {
    fn();
    ADD_FAILURE() << "no error (expected one containing '" << needle << "')";
  } catch (const nufftmp::Error& e) {
    EXPECT_EQ(e.code(), nufftmp::ErrorCode::IoFailure);
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
  }
}

TEST(DurableReplace, FsyncFileBeforeRenameAndDirectoryAfter) {
  Dir d;
  const std::string target = d.path + "/out.txt";
  write_text(target, "old");
  DurableReplacement r(target);
  write_text(r.temp_path(), "new");
  calls().clear();
  recording = true;
  r.commit();
  recording = false;
  const std::vector<std::string> expected = {
      "fsync " + r.temp_path(), "rename " + r.temp_path() + " " + target, "fsync " + d.path};
  EXPECT_EQ(calls(), expected);
  EXPECT_EQ(read_text(target), "new");
  EXPECT_EQ(d.entries(), std::vector<std::string>{"out.txt"});
}

TEST(DurableReplace, UniqueTemporaryNamesAndNothingLeftBehind) {
  Dir d;
  const std::string target = d.path + "/out.txt";
  {
    // Two writers of one target (two jobs): separate temporary files, the last commit wins.
    DurableReplacement a(target), b(target);
    EXPECT_NE(a.temp_path(), b.temp_path());
    EXPECT_EQ(a.temp_path().rfind(target + ".tmp.", 0), 0u) << a.temp_path();
    write_text(a.temp_path(), "a");
    write_text(b.temp_path(), "b");
    a.commit();
    b.commit();
  }
  EXPECT_EQ(read_text(target), "b");
  {
    DurableReplacement c(target);  // not committed: the target stays, the temporary goes
    write_text(c.temp_path(), "c");
  }
  EXPECT_EQ(read_text(target), "b");
  EXPECT_EQ(d.entries(), std::vector<std::string>{"out.txt"});
}

TEST(DurableReplace, SymlinksAreWrittenThroughAndStayLinks) {
  Dir d;
  const std::string real = d.path + "/real.h5", link = d.path + "/link.h5";
  write_text(real, "old");
  ASSERT_EQ(symlink("real.h5", link.c_str()), 0);  // relative, as users make them
  {
    nufftmp::mtip::H5Writer w(link);
    const double v = 1.5;
    w.write("x", {1}, &v);
    w.commit();
  }
  struct stat st {};
  ASSERT_EQ(lstat(link.c_str(), &st), 0);
  EXPECT_TRUE(S_ISLNK(st.st_mode));
  EXPECT_EQ(nufftmp::mtip::read_dataset(real, "x"), std::vector<double>{1.5});
  // A dangling link: its target is created.
  const std::string dangling = d.path + "/dangling.h5";
  ASSERT_EQ(symlink("new.h5", dangling.c_str()), 0);
  {
    DurableReplacement r(dangling);
    EXPECT_EQ(r.target(), d.path + "/new.h5");
    write_text(r.temp_path(), "n");
    r.commit();
  }
  EXPECT_EQ(read_text(d.path + "/new.h5"), "n");
  ASSERT_EQ(lstat(dangling.c_str(), &st), 0);
  EXPECT_TRUE(S_ISLNK(st.st_mode));
}

TEST(DurableReplace, NonRegularTargetsAndMissingDirectoriesAreRefused) {
  Dir d;
  expect_io_failure([&] { DurableReplacement r(d.path); }, "is a directory");
  expect_io_failure([] { DurableReplacement r("/dev/null"); }, "is a character device");
  const std::string fifo = d.path + "/fifo";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  expect_io_failure([&] { nufftmp::mtip::H5Writer w(fifo); }, "is a fifo");
  const std::string link = d.path + "/to_null";
  ASSERT_EQ(symlink("/dev/null", link.c_str()), 0);
  expect_io_failure([&] { DurableReplacement r(link); }, "the target of");
  expect_io_failure([&] { DurableReplacement r(d.path + "/missing/out.h5"); }, "does not exist");
  const std::string loop = d.path + "/loop";
  ASSERT_EQ(symlink("loop", loop.c_str()), 0);
  expect_io_failure([&] { DurableReplacement r(loop); }, "symbolic links");
  // Refused before anything was written: the device is still a device.
  struct stat st {};
  ASSERT_EQ(stat("/dev/null", &st), 0);
  EXPECT_TRUE(S_ISCHR(st.st_mode));
}

TEST(DurableReplace, KeepsTheReplacedFilesPermissions) {
  Dir d;
  const std::string target = d.path + "/out.txt";
  write_text(target, "old");
  ASSERT_EQ(chmod(target.c_str(), 0640), 0);
  {
    DurableReplacement r(target);
    write_text(r.temp_path(), "new");
    r.commit();
  }
  struct stat st {};
  ASSERT_EQ(stat(target.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0640u);
}

TEST(DurableReplace, H5WriterRefusesAnExistingFileWhenAsked) {
  Dir d;
  const std::string target = d.path + "/data.h5";
  write_text(target, "precious");
  expect_io_failure([&] { nufftmp::mtip::H5Writer w(target, nufftmp::mtip::IfExists::Refuse); },
                    "exists");
  EXPECT_EQ(read_text(target), "precious");
  EXPECT_EQ(d.entries(), std::vector<std::string>{"data.h5"});
}

TEST(OutputLock, SecondHolderIsRefusedNamingTheFirstAndReleaseFreesIt) {
  Dir d;
  const std::string target = d.path + "/out.h5";
  {
    OutputLock first(target);
    ASSERT_TRUE(first.held());
    EXPECT_NE(read_text(target + ".lock").find("pid " + std::to_string(getpid())),
              std::string::npos);
    // A second job (an independent open file description, as another process has).
    expect_io_failure([&] { OutputLock second(target); }, "in use by another job (pid ");
  }
  EXPECT_EQ(d.entries(), std::vector<std::string>{});  // lock file removed on release
  OutputLock again(target);
  EXPECT_TRUE(again.held());
}

TEST(OutputLock, AStaleLockFileOfAnEndedJobDoesNotBlock) {
  Dir d;
  const std::string target = d.path + "/out.h5";
  write_text(target + ".lock", "pid 1 on elsewhere\n");  // left by a job killed mid-run
  OutputLock lock(target);
  EXPECT_TRUE(lock.held());
}

}  // namespace
