// What a reconstruction may write, checked on 2 ranks before the first generation (issue 15,
// items 1-5 and 8): the output is never the input (through any path or link) nor a device;
// an existing checkpoint or output needs --resume or --overwrite; a second job on the same
// output is refused naming the first; a checkpoint is resumed only with its own data set and
// settings; --resume with fewer generations than done is an error and with as many does
// nothing; negative intensities are counted and warned about. Every error reaches every rank.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <functional>

#include "dist/partition.hpp"
#include "input_warnings.hpp"
#include "mpi_fixture.hpp"
#include "nufftmp/mtip.hpp"
#include "sim_fixture.hpp"
#include "spinifel_fixture.hpp"

using namespace nufftmp::mtip;

namespace {
using mtip_test::rank_of;

constexpr std::int64_t kM = 15, kImages = 40, kSide = 12;

// Rank 0 writes a small data set (known orientations); everyone waits.
void write_data_set(const std::string& path, std::uint64_t seed) {
  if (rank_of() == 0) {
    const auto s = mtip_test::simulate(kM, kImages, kSide, /*fluence=*/500, seed, /*atoms=*/12);
    mtip_test::write_nufftmp(path, s, kSide);
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

ReconstructOptions options(const std::string& input, const std::string& output) {
  ReconstructOptions ro;
  ro.input = input;
  ro.output = output;
  ro.known_orientations = true;
  ro.generations = 1;
  ro.M = kM;
  ro.phase.cycles = 2;
  ro.merge.max_iter = 30;
  ro.nufft.backend = nufftmp::Backend::Cpu;
  ro.verbose = false;
  return ro;
}

// reconstruct must throw on every rank, with `code` and a message containing `needle`.
void expect_refused(const ReconstructOptions& ro, nufftmp::ErrorCode code,
                    const std::string& needle) {
  std::string msg;
  try {
    reconstruct(MPI_COMM_WORLD, ro);
  } catch (const nufftmp::Error& e) {
    EXPECT_EQ(e.code(), rank_of() == 0 ? code : e.code());  // others may see RemoteFailure
    msg = e.what();
  }
  EXPECT_NE(msg.find(needle), std::string::npos)
      << "rank " << rank_of() << " got '" << msg << "', expected '" << needle << "'";
  MPI_Barrier(MPI_COMM_WORLD);
}

bool exists(const std::string& p) {
  struct stat st {};
  return stat(p.c_str(), &st) == 0;
}

struct Files {
  std::string base = mtip_test::shared_temp_prefix("nufftmp_run_outputs");
  std::vector<std::string> made;
  std::string name(const std::string& suffix) {
    made.push_back(base + suffix);
    return made.back();
  }
  ~Files() {
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank_of() == 0)
      for (const auto& f : made) std::remove(f.c_str());
  }
};

TEST(MtipRunOutputs, OutputIsNeverTheInput) {
  Files f;
  const std::string data = f.name("_data.h5");
  write_data_set(data, 5);
  struct stat before {};
  ASSERT_EQ(stat(data.c_str(), &before), 0);
  const std::string link = f.name("_link.h5"), hard = f.name("_hard.h5");
  if (rank_of() == 0) {
    ASSERT_EQ(symlink(data.c_str(), link.c_str()), 0);
    ASSERT_EQ(::link(data.c_str(), hard.c_str()), 0);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  // The same file through another spelling, a symlink and a hard link; with --overwrite too.
  const std::string dir = data.substr(0, data.find_last_of('/'));
  const std::string dotted = dir + "/./" + data.substr(data.find_last_of('/') + 1);
  for (const std::string& out : {dotted, link, hard}) {
    auto ro = options(data, out);
    ro.overwrite = true;
    expect_refused(ro, nufftmp::ErrorCode::IoFailure, "is the input data set");
  }
  auto ro = options(data, f.name("_out.h5"));
  f.name("_out.best.h5");  // the best generation's file beside it
  ro.checkpoint = link;
  expect_refused(ro, nufftmp::ErrorCode::IoFailure, "checkpoint '" + link + "' is the input");
  ro.checkpoint.clear();
  ro.best_output = hard;
  expect_refused(ro, nufftmp::ErrorCode::IoFailure,
                 "best-generation output '" + hard + "' is the input");
  ro.best_output.clear();
  struct stat after {};
  ASSERT_EQ(stat(data.c_str(), &after), 0);
  EXPECT_EQ(after.st_size, before.st_size);
  EXPECT_EQ(after.st_ino, before.st_ino);
  EXPECT_EQ(probe_data(MPI_COMM_WORLD, data).n_images, kImages);
  // Output and checkpoint may not be one file either.
  ro = options(data, f.name("_same.h5"));
  ro.checkpoint = ro.output;
  expect_refused(ro, nufftmp::ErrorCode::IoFailure, "are the same file");
  ro.checkpoint.clear();
  ro.best_output = ro.output;  // nor the best generation's file and the output
  expect_refused(ro, nufftmp::ErrorCode::IoFailure, "are the same file");
}

TEST(MtipRunOutputs, UnwritableOutputsFailBeforeTheFirstGeneration) {
  Files f;
  const std::string data = f.name("_data.h5");
  write_data_set(data, 5);
  auto ro = options(data, "/dev/null");
  ro.overwrite = true;
  expect_refused(ro, nufftmp::ErrorCode::IoFailure, "is a character device");
  // A missing directory for the output: refused before any generation, so the checkpoint
  // (whose directory exists) is not written either.
  ro = options(data, f.base + "_no_such_dir/out.h5");
  ro.checkpoint = f.name("_ckpt.h5");
  expect_refused(ro, nufftmp::ErrorCode::IoFailure, "does not exist");
  EXPECT_FALSE(exists(ro.checkpoint));
}

TEST(MtipRunOutputs, ExistingFilesNeedResumeOrOverwrite) {
  Files f;
  const std::string data = f.name("_data.h5");
  write_data_set(data, 5);
  auto ro = options(data, f.name("_out.h5"));
  f.name("_out.best.h5");  // the best generation's file beside it
  f.name("_out.h5.ckpt.h5");
  ASSERT_EQ(reconstruct(MPI_COMM_WORLD, ro).size(), 1u);
  // Forgetting --resume does not restart the run over its checkpoint.
  expect_refused(ro, nufftmp::ErrorCode::IoFailure, "pass --resume");
  if (rank_of() == 0) EXPECT_EQ(read_attribute(ro.output + ".ckpt.h5", "generation"), 1.0);
  // Only the output there (its checkpoint elsewhere now): refused as well.
  ro.checkpoint = f.name("_other.ckpt.h5");
  expect_refused(ro, nufftmp::ErrorCode::IoFailure, "output '" + ro.output + "' exists");
  // Only the best generation's file there (output and checkpoint elsewhere): refused too.
  ro.output = f.name("_out2.h5");
  ro.checkpoint = f.name("_out2.ckpt.h5");
  ro.best_output = f.name("_out.best.h5");
  expect_refused(ro, nufftmp::ErrorCode::IoFailure,
                 "best-generation output '" + ro.best_output + "' exists");
  ro.output = f.name("_out.h5");
  ro.best_output.clear();
  ro.checkpoint.clear();
  ro.overwrite = true;
  EXPECT_EQ(reconstruct(MPI_COMM_WORLD, ro).size(), 1u);
  ro.resume = true;  // both: contradictory
  expect_refused(ro, nufftmp::ErrorCode::InvalidArgument, "exclude each other");
  // Nothing but the two files (no temporary or lock file left behind).
  if (rank_of() == 0) {
    for (const char* suffix : {".lock", ".ckpt.h5.lock"})
      EXPECT_FALSE(exists(ro.output + suffix)) << suffix;
    EXPECT_FALSE(exists(f.base + "_out.best.h5.lock"));
  }
}

TEST(MtipRunOutputs, AnotherJobHoldingTheOutputIsNamed) {
  Files f;
  const std::string data = f.name("_data.h5");
  write_data_set(data, 5);
  auto ro = options(data, f.name("_out.h5"));
  f.name("_out.best.h5");  // the best generation's file beside it
  const std::string lock = f.name("_out.h5.lock");
  int fd = -1;
  if (rank_of() == 0) {  // the other job: a lock held by another open file
    fd = open(lock.c_str(), O_RDWR | O_CREAT, 0644);
    ASSERT_GE(fd, 0);
    ASSERT_EQ(flock(fd, LOCK_EX | LOCK_NB), 0);
    const std::string who = "pid 4242 on node17\n";
    ASSERT_EQ(write(fd, who.data(), who.size()), static_cast<ssize_t>(who.size()));
  }
  MPI_Barrier(MPI_COMM_WORLD);
  expect_refused(ro, nufftmp::ErrorCode::IoFailure, "in use by another job (pid 4242 on node17");
  EXPECT_FALSE(exists(ro.output));
  if (rank_of() == 0) close(fd);
  MPI_Barrier(MPI_COMM_WORLD);
  f.name("_out.h5.ckpt.h5");
  EXPECT_EQ(reconstruct(MPI_COMM_WORLD, ro).size(), 1u);  // free again
}

TEST(MtipRunOutputs, ResumeChecksTheCheckpointsIdentityAndGenerations) {
  Files f;
  const std::string data = f.name("_data.h5"), other = f.name("_other.h5");
  write_data_set(data, 5);
  write_data_set(other, 6);  // same shapes, other molecule
  auto ro = options(data, f.name("_out.h5"));
  f.name("_out.best.h5");  // the best generation's file beside it
  const std::string ckpt = f.name("_out.h5.ckpt.h5");
  ro.generations = 2;
  ASSERT_EQ(reconstruct(MPI_COMM_WORLD, ro).size(), 2u);
  if (rank_of() == 0) {
    EXPECT_EQ(read_string_attribute(ckpt, "settings").find("M=15;"), 0u);
    EXPECT_EQ(read_string_attribute(ckpt, "input_digest").size(), 16u);
  }
  ro.resume = true;
  ro.generations = 3;
  // Another data set of the same shape.
  auto wrong = ro;
  wrong.input = other;
  expect_refused(wrong, nufftmp::ErrorCode::IoFailure, "belongs to another data set");
  // Other settings.
  wrong = ro;
  wrong.merge.lambda = 1e-2;
  expect_refused(wrong, nufftmp::ErrorCode::IoFailure,
                 "merge_lambda: checkpoint 0.001, this run 0.01");
  // Fewer generations than done: an error; as many: nothing to do, nothing written.
  wrong = ro;
  wrong.generations = 1;
  expect_refused(wrong, nufftmp::ErrorCode::InvalidArgument, "already holds generation 2");
  wrong.generations = 2;
  EXPECT_TRUE(reconstruct(MPI_COMM_WORLD, wrong).empty());
  if (rank_of() == 0) EXPECT_EQ(read_attribute(ckpt, "generation"), 2.0);
  // The data set moved elsewhere (same content): resumes.
  const std::string moved = f.name("_moved.h5");
  if (rank_of() == 0) ASSERT_EQ(std::rename(data.c_str(), moved.c_str()), 0);
  MPI_Barrier(MPI_COMM_WORLD);
  auto ok = ro;
  ok.input = moved;
  const auto rep = reconstruct(MPI_COMM_WORLD, ok);
  ASSERT_EQ(rep.size(), 1u);
  EXPECT_EQ(rep[0].generation, 3);
  // A checkpoint without identity (an older nufftmp's): refused, saying why.
  const std::string old = f.name("_old.ckpt.h5");
  if (rank_of() == 0) {
    H5Writer w(old);
    const double g = 1;
    w.write("x", {1}, &g);
    w.write_attribute("generation", 1.0);
    w.commit();
  }
  MPI_Barrier(MPI_COMM_WORLD);
  ok.checkpoint = old;
  expect_refused(ok, nufftmp::ErrorCode::IoFailure, "has no 'input_path' attribute");
}

TEST(MtipRunOutputs, NegativeIntensitiesAreCountedOnEveryRank) {
  LocalImages local;
  local.share = {nufftmp::dist::detail::share_offset(4, 2, rank_of()),
                 nufftmp::dist::detail::share_count(4, 2, rank_of())};
  local.intensities = {1.0f, -0.5f, 2.0f, 0.0f, 3.0f, 1.0f, 2.0f, 4.0f};  // 2 images of 4
  if (rank_of() == 1) local.intensities[6] = -3.0f;
  int size = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const std::int64_t n =
      detail::warn_negative_intensities(MPI_COMM_WORLD, "test.h5", local, /*npix=*/4);
  EXPECT_EQ(n, size == 1 ? 1 : 3);
  local.intensities = {1.0f, 2.0f};
  EXPECT_EQ(detail::warn_negative_intensities(MPI_COMM_WORLD, "test.h5", local, 1), 0);
}

}  // namespace
