// HDF5 data sets: round trip of each rank's share, atomic writes, and bad files (missing data
// sets, wrong shapes, NaN) failing with a clear error on every rank, including NaN in an image
// that only the last rank reads.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>

#include "dist/partition.hpp"
#include "mpi_fixture.hpp"
#include "nufftmp/mtip.hpp"

using namespace nufftmp::mtip;

namespace {
using mtip_test::rank_of;

// A unique file name prefix agreed by all ranks.
std::string test_dir() { return mtip_test::shared_temp_prefix("nufftmp_mtip_h5io") + "_"; }

struct Layout {
  std::int64_t n = 5, ny = 3, nx = 4;
  bool intensities = true, positions = true, orientations = true;
  std::int64_t pos_rows = 3;
  std::int64_t orient_cols = 4;
  std::int64_t nan_at = -1;  // flat index into intensities
};

// Rank 0 writes; everyone waits for it.
void write_file(const std::string& path, const Layout& l) {
  if (rank_of() == 0) {
    H5Writer w(path);
    std::vector<float> I(l.n * l.ny * l.nx);
    for (std::size_t i = 0; i < I.size(); ++i) I[i] = static_cast<float>(i);
    if (l.nan_at >= 0) I[l.nan_at] = NAN;
    if (l.intensities) w.write("intensities", {l.n, l.ny, l.nx}, I.data());
    std::vector<double> p(l.pos_rows * l.ny * l.nx, 0.25);
    if (l.positions) w.write("pixel_position_reciprocal", {l.pos_rows, l.ny, l.nx}, p.data());
    std::vector<double> q(l.n * l.orient_cols, 0.0);
    for (std::int64_t i = 0; i < l.n; ++i) q[i * l.orient_cols] = 1.0;
    if (l.orientations) w.write("orientations", {l.n, l.orient_cols}, q.data());
    w.commit();
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

// Every rank must throw: IoFailure where the file was bad, RemoteFailure (naming the failing
// rank's IoFailure) on the ranks whose own part was good; the message contains `needle`.
void expect_error_everywhere(const std::string& path, const std::string& needle) {
  std::string msg;
  try {
    const DataInfo info = probe_data(MPI_COMM_WORLD, path);
    read_local_images(MPI_COMM_WORLD, path, info, true);
  } catch (const nufftmp::Error& e) {
    msg = e.what();
    if (e.code() == nufftmp::ErrorCode::RemoteFailure)
      EXPECT_NE(msg.find(nufftmp::error_code_name(nufftmp::ErrorCode::IoFailure)),
                std::string::npos) << msg;
    else
      EXPECT_EQ(e.code(), nufftmp::ErrorCode::IoFailure) << msg;
  }
  EXPECT_NE(msg.find(needle), std::string::npos)
      << "rank " << rank_of() << " got '" << msg << "', expected '" << needle << "'";
}
}  // namespace

TEST(MtipH5io, EachRankReadsItsShare) {
  const std::string path = test_dir() + "good.h5";
  Layout l;
  write_file(path, l);
  const DataInfo info = probe_data(MPI_COMM_WORLD, path);
  EXPECT_EQ(info.n_images, 5);
  EXPECT_EQ(info.ny, 3);
  EXPECT_EQ(info.nx, 4);
  EXPECT_TRUE(info.has_orientations);
  EXPECT_FALSE(info.has_volume);
  const LocalImages li = read_local_images(MPI_COMM_WORLD, path, info, true);
  int size = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const Share s{nufftmp::dist::detail::share_offset(5, size, rank_of()),
                nufftmp::dist::detail::share_count(5, size, rank_of())};
  EXPECT_EQ(li.share.first, s.first);
  ASSERT_EQ(li.intensities.size(), static_cast<std::size_t>(s.count * 12));
  for (std::int64_t i = 0; i < s.count * 12; ++i)
    EXPECT_EQ(li.intensities[i], static_cast<float>(s.first * 12 + i));
  EXPECT_EQ(li.positions.size(), 36u);
  EXPECT_EQ(li.orientations.size(), static_cast<std::size_t>(s.count));
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank_of() == 0) std::remove(path.c_str());
}

TEST(MtipH5io, AtomicWriterLeavesNoTornFile) {
  const std::string path = test_dir() + "atomic.h5";  // collective: before the rank filter
  if (rank_of() != 0) return;
  {
    H5Writer w(path);
    const double v = 1;
    w.write("x", {1}, &v);
    // Not committed: neither the target nor the temporary remains.
  }
  EXPECT_FALSE(std::ifstream(path).good());
  EXPECT_FALSE(std::ifstream(path + ".tmp").good());
  {
    H5Writer w(path);
    const double v = 2;
    w.write("x", {1}, &v);
    w.write_attribute("generation", 3.0);
    w.commit();
  }
  EXPECT_EQ(read_dataset(path, "x")[0], 2.0);
  EXPECT_EQ(read_attribute(path, "generation"), 3.0);
  EXPECT_THROW(read_attribute(path, "nope"), nufftmp::Error);
  std::remove(path.c_str());
}

TEST(MtipH5io, BadFilesFailOnEveryRank) {
  const std::string dir = test_dir();
  expect_error_everywhere(dir + "does_not_exist.h5", "cannot open");
  {
    Layout l;
    l.positions = false;
    write_file(dir + "missing.h5", l);
    expect_error_everywhere(dir + "missing.h5", "'pixel_position_reciprocal' is missing");
  }
  {
    Layout l;
    l.intensities = false;
    write_file(dir + "missing2.h5", l);
    expect_error_everywhere(dir + "missing2.h5", "'intensities' is missing");
  }
  {
    Layout l;
    l.pos_rows = 2;
    write_file(dir + "shape.h5", l);
    expect_error_everywhere(dir + "shape.h5", "pixel_position_reciprocal has shape [2, 3, 4]");
  }
  {
    Layout l;
    l.orient_cols = 3;
    write_file(dir + "orient.h5", l);
    expect_error_everywhere(dir + "orient.h5", "orientations has shape [5, 3]");
  }
  {
    Layout l;
    l.nan_at = 4 * 12 + 7;  // the last image: read by the last rank only
    write_file(dir + "nan.h5", l);
    expect_error_everywhere(dir + "nan.h5", "non-finite value (nan) at flat index 55");
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank_of() == 0)
    for (const char* f : {"missing.h5", "missing2.h5", "shape.h5", "orient.h5", "nan.h5"})
      std::remove((dir + f).c_str());
}
