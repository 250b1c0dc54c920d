// System files: a crystal written (XYZ and HDF5) and read back on 2 ranks; malformed files
// are IoFailure on the root naming the line or data set, RemoteFailure elsewhere.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "ewald_test_util.hpp"

namespace nufftmp::ewald::test {
namespace {

std::string temp_path(const std::string& name) {
  // The same name on every rank (rank 0's pid), so the ranks agree on the file.
  int pid = static_cast<int>(getpid());
  MPI_Bcast(&pid, 1, MPI_INT, 0, MPI_COMM_WORLD);
  return "/tmp/nufftmp_ewald_" + std::to_string(pid) + "_" + name;
}

void write_text(const std::string& path, const std::string& text) {
  if (world_rank() == 0) std::ofstream(path) << text;
  MPI_Barrier(MPI_COMM_WORLD);
}

// The whole system, gathered from every rank in rank order (the order write_system writes).
System gathered(const System& mine) {
  const int P = world_size();
  int n = static_cast<int>(mine.size());
  std::vector<int> counts(P), displs(P, 0);
  MPI_Allgather(&n, 1, MPI_INT, counts.data(), 1, MPI_INT, MPI_COMM_WORLD);
  for (int r = 1; r < P; ++r) displs[r] = displs[r - 1] + counts[r - 1];
  const int total = displs[P - 1] + counts[P - 1];
  System all;
  all.box = mine.box;
  std::vector<double>* out[4] = {&all.x, &all.y, &all.z, &all.q};
  const std::vector<double>* in[4] = {&mine.x, &mine.y, &mine.z, &mine.q};
  for (int k = 0; k < 4; ++k) {
    out[k]->resize(total);
    MPI_Allgatherv(in[k]->data(), n, MPI_DOUBLE, out[k]->data(), counts.data(), displs.data(),
                   MPI_DOUBLE, MPI_COMM_WORLD);
  }
  return all;
}

void round_trip(const std::string& ext) {
  dist::Context ctx(MPI_COMM_WORLD, cpu_context());
  const System mine = make_crystal(Crystal::Fluorite, 2, ctx.rank(), ctx.size());
  const std::string path = temp_path("roundtrip" + ext);
  write_system(ctx, path, mine);
  const System back = read_system(ctx, path);
  const System a = gathered(mine), b = gathered(back);
  EXPECT_EQ(b.box.L, a.box.L);
  ASSERT_EQ(b.size(), a.size());
  for (std::int64_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(b.x[i], a.x[i]);
    EXPECT_EQ(b.y[i], a.y[i]);
    EXPECT_EQ(b.z[i], a.z[i]);
    EXPECT_EQ(b.q[i], a.q[i]);
  }
  // Near-equal shares of the file.
  EXPECT_LE(std::abs(back.size() - a.size() / ctx.size()), 1);
  // And it gives the crystal's Madelung constant.
  Options o;
  o.accuracy = 1e-10;
  EXPECT_NEAR(madelung_constant(Crystal::Fluorite, 2, run(ctx, back, o).energy), 2.51939, 5e-6);
  if (ctx.rank() == 0) std::remove(path.c_str());
}

TEST(EwaldIo, XyzRoundTrip) { round_trip(".xyz"); }

#ifdef NUFFTMP_TEST_HDF5
TEST(EwaldIo, Hdf5RoundTrip) { round_trip(".h5"); }
#endif

// Writing is an atomic replacement: an existing file is replaced whole (no temporary left
// next to it), and a target that is not a regular file is refused on every rank by name.
TEST(EwaldIo, WriteReplacesAtomicallyAndRefusesDevices) {
  dist::Context ctx(MPI_COMM_WORLD, cpu_context());
  const System mine = make_crystal(Crystal::NaCl, 1, ctx.rank(), ctx.size());
  const std::string path = temp_path("replace.xyz");
  write_text(path, "old content, longer than nothing: it must not survive in part\n");
  write_system(ctx, path, mine);
  const System back = read_system(ctx, path);
  EXPECT_EQ(gathered(back).size(), gathered(mine).size());
  if (ctx.rank() == 0) {
    const std::string dir = "/tmp";
    const std::string base = path.substr(dir.size() + 1);
    int leftovers = 0;
    for (const auto& e : std::filesystem::directory_iterator(dir))
      if (e.path().filename().string().rfind(base, 0) == 0 && e.path().string() != path)
        ++leftovers;
    EXPECT_EQ(leftovers, 0) << "a temporary file of the replacement was left in /tmp";
    std::remove(path.c_str());
  }
  // A directory and (through a symbolic link) a character device, both with a known suffix.
  const std::string dir = temp_path("dir.xyz"), dev = temp_path("dev.xyz");
  if (ctx.rank() == 0) {
    std::filesystem::create_directory(dir);
    std::filesystem::create_symlink("/dev/null", dev);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  for (const std::string& bad : {dir, dev}) {
    try {
      write_system(ctx, bad, mine);
      ADD_FAILURE() << "no error writing to " << bad;
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ctx.rank() == 0 ? ErrorCode::IoFailure : ErrorCode::RemoteFailure)
          << e.what();
    } catch (const std::exception& e) {
      ADD_FAILURE() << "not a nufftmp::Error for " << bad << ": " << e.what();
    }
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (ctx.rank() == 0) {
    std::filesystem::remove(dir);
    std::filesystem::remove(dev);
  }
}

void expect_bad_file(const std::string& text, const std::string& message) {
  dist::Context ctx(MPI_COMM_WORLD, cpu_context());
  const std::string path = temp_path("bad.xyz");
  write_text(path, text);
  try {
    read_system(ctx, path);
    ADD_FAILURE() << "no error for: " << message;
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ctx.rank() == 0 ? ErrorCode::IoFailure : ErrorCode::RemoteFailure)
        << e.what();
    EXPECT_NE(std::string(e.what()).find(message), std::string::npos) << e.what();
  }
  if (ctx.rank() == 0) std::remove(path.c_str());
}

const char* kLattice = "Lattice=\"4 0 0 0 4 0 0 0 4\"\n";

TEST(EwaldIo, MalformedXyz) {
  expect_bad_file("", "line 1: empty file");
  expect_bad_file("two\n", "line 1: 'two' is not a positive ion count");
  expect_bad_file("2\nno box here\n", "line 2: no Lattice=");
  expect_bad_file("1\nLattice=\"4 0 0 0 4 1 0 0 4\"\nNa 0 0 0 1\n",
                  "line 2: the lattice is not orthorhombic");
  expect_bad_file(std::string("2\n") + kLattice + "Na 0 0 0 1\n", "the file ends after 1 of 2");
  expect_bad_file(std::string("1\n") + kLattice + "Na 0 0.5x 0 1\n", "line 3: y '0.5x'");
  expect_bad_file(std::string("1\n") + kLattice + "Na 0 0 0\n", "line 3: 4 fields, 5 expected");
  expect_bad_file(std::string("1\n") + kLattice + "Na 0 0 0 nan\n",
                  "line 3: charge 'nan' is not a finite number");
  expect_bad_file(std::string("1\n") + kLattice + "Na 0 0 0 1\nCl 1 0 0 -1\n",
                  "line 4: more ion lines than the count 1");
}

TEST(EwaldIo, MissingFileAndUnknownFormat) {
  dist::Context ctx(MPI_COMM_WORLD, cpu_context());
  try {
    read_system(ctx, "/nonexistent/system.xyz");
    ADD_FAILURE();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("cannot open"), std::string::npos) << e.what();
  }
  try {
    read_system(ctx, temp_path("system.pdb"));
    ADD_FAILURE();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("unknown format"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace nufftmp::ewald::test
