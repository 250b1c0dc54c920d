// The reconstruction loop end to end on 2 ranks: known orientations reach the ground truth,
// results and checkpoint are written atomically, --resume continues after the last
// generation, and the full loop (matching) runs.
#include <glob.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <fstream>

#include "data_set_fixture.hpp"
#include "mpi_fixture.hpp"
#include "nufftmp/mtip.hpp"
#include "sim_fixture.hpp"

using namespace nufftmp::mtip;

namespace {
using mtip_test::rank_of;

std::string write_data_set() { return mtip_test::write_data_set("nufftmp_mtip_rec"); }
}  // namespace

TEST(MtipReconstruct, KnownOrientationsCheckpointAndResume) {
  const std::string base = write_data_set();
  ReconstructOptions ro;
  ro.input = base + "_data.h5";
  ro.output = base + "_out.h5";
  ro.known_orientations = true;
  ro.generations = 1;
  ro.nufft.backend = nufftmp::Backend::Cpu;
  ro.verbose = false;
  const auto rep1 = reconstruct(MPI_COMM_WORLD, ro);
  ASSERT_EQ(rep1.size(), 1u);
  if (rank_of() == 0) std::printf("generation 1: correlation %.4f\n", rep1[0].correlation);
  // The merged model (the autocorrelation) is deterministic up to the CG tolerance: it must match
  // the truth's closely. The phased density is not: HIO is chaotic, and last-bit changes of the
  // NUFFT move it; over 16 phasing seeds/cycle counts on this data it measured 0.83-0.97
  // (a failed merge or wrong orientations phase to well below 0.8).
  constexpr double kPhasedFloor = 0.8;
  if (rank_of() == 0) {
    std::vector<std::int64_t> dims;
    const auto ac = read_dataset(ro.output, "autocorrelation", &dims);
    const auto truth = read_dataset(ro.output, "volume_truth", &dims);
    const double ac_corr = correlation(ac, autocorrelation(truth, dims[0]));
    std::printf("generation 1: autocorrelation correlation %.4f\n", ac_corr);
    EXPECT_GE(ac_corr, 0.95);
  }
  EXPECT_GE(rep1[0].correlation, kPhasedFloor);
  EXPECT_GT(rep1[0].cg_iterations, 0);
  if (rank_of() == 0) {
    EXPECT_EQ(read_attribute(ro.output, "generation"), 1.0);
    EXPECT_EQ(read_attribute(ro.output + ".ckpt.h5", "generation"), 1.0);
    // No temporary file ("<file>.tmp.<pid>...") or lock file left beside the results.
    glob_t g{};
    EXPECT_EQ(glob((ro.output + "*.tmp.*").c_str(), 0, nullptr, &g), GLOB_NOMATCH);
    globfree(&g);
    EXPECT_FALSE(std::ifstream(ro.output + ".lock").good());
    std::vector<std::int64_t> d;
    read_dataset(ro.output, "density", &d);
    EXPECT_EQ(d, (std::vector<std::int64_t>{21, 21, 21}));
    read_dataset(ro.output, "orientations", &d);
    EXPECT_EQ(d, (std::vector<std::int64_t>{200, 4}));
  }
  // Resume: only generation 2 runs, from the checkpoint of generation 1.
  ro.resume = true;
  ro.generations = 2;
  const auto rep2 = reconstruct(MPI_COMM_WORLD, ro);
  ASSERT_EQ(rep2.size(), 1u);
  EXPECT_EQ(rep2[0].generation, 2);
  if (rank_of() == 0) std::printf("generation 2 (resumed): correlation %.4f\n", rep2[0].correlation);
  EXPECT_GE(rep2[0].correlation, kPhasedFloor);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank_of() == 0) EXPECT_EQ(read_attribute(ro.output, "generation"), 2.0);
  // Resume from a checkpoint that is not there: the same clear error on every rank.
  ro.checkpoint = base + "_missing.ckpt.h5";
  try {
    reconstruct(MPI_COMM_WORLD, ro);
    ADD_FAILURE() << "no error for a missing checkpoint";
  } catch (const nufftmp::Error& e) {
    EXPECT_NE(std::string(e.what()).find("no checkpoint"), std::string::npos) << e.what();
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank_of() == 0)
    for (const char* f : {"_data.h5", "_out.h5", "_out.h5.ckpt.h5"}) std::remove((base + f).c_str());
}

TEST(MtipReconstruct, FullLoopRunsMatching) {
  const std::string base = write_data_set();
  ReconstructOptions ro;
  ro.input = base + "_data.h5";
  ro.output = base + "_full.h5";
  ro.generations = 2;
  ro.n_ref = 300;
  ro.phase.cycles = 3;
  ro.half_sets = false;  // (FullLoopConvergesFromRandomOrientations checks them)
  ro.phase_starts = 2;  // the loop is under test here, not phasing
  ro.nufft.backend = nufftmp::Backend::Cpu;
  ro.verbose = false;
  const auto rep = reconstruct(MPI_COMM_WORLD, ro);
  ASSERT_EQ(rep.size(), 2u);
  EXPECT_EQ(rep[0].slicing_ms, 0.0);  // generation 1 merges the random start
  EXPECT_GT(rep[1].slicing_ms, 0.0);  // generation 2 matches against the phased model
  EXPECT_GT(rep[1].correlation, -1.0);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank_of() == 0)
    for (const char* f : {"_data.h5", "_full.h5", "_full.h5.ckpt.h5"}) std::remove((base + f).c_str());
}

// Soft assignment (soft_k > 1): each image merged at its k best orientations with annealed
// weights, through one weighted mean image per used reference. It runs end to end; bad
// temperatures are a clear error on every rank.
TEST(MtipReconstruct, FullLoopSoftAssignment) {
  const std::string base = write_data_set();
  ReconstructOptions ro;
  ro.input = base + "_data.h5";
  ro.output = base + "_soft.h5";
  ro.generations = 3;
  ro.n_ref = 300;
  ro.soft_k = 20;
  ro.phase.cycles = 3;
  ro.half_sets = false;
  ro.phase_starts = 2;  // the loop is under test here, not phasing
  ro.nufft.backend = nufftmp::Backend::Cpu;
  ro.verbose = false;
  const auto rep = reconstruct(MPI_COMM_WORLD, ro);
  ASSERT_EQ(rep.size(), 3u);
  EXPECT_GT(rep[2].slicing_ms, 0.0);
  EXPECT_GT(rep[2].cg_iterations, 0);
  EXPECT_GT(rep[2].correlation, -1.0);
  ro.soft_temp_end = 0;
  try {
    reconstruct(MPI_COMM_WORLD, ro);
    ADD_FAILURE() << "no error for a zero temperature";
  } catch (const nufftmp::Error& e) {
    EXPECT_NE(std::string(e.what()).find("temperature"), std::string::npos) << e.what();
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank_of() == 0)
    for (const char* f : {"_data.h5", "_soft.h5", "_soft.h5.ckpt.h5"}) std::remove((base + f).c_str());
}

// The full loop from random orientations converges (issue 5's main job): with the defaults
// (merged model, three match/merge rounds per generation, resolution ramp) the orientations
// lock onto one frame and the merged intensity matches the truth's once that frame is undone.
// The intensity is judged, not the phased density: it is deterministic given the orientations,
// while phasing is chaotic (see KnownOrientationsCheckpointAndResume). MTIP_TEST_SEED sets the
// start seed (for measuring the spread below).
TEST(MtipReconstruct, FullLoopConvergesFromRandomOrientations) {
  const std::string base = write_data_set();
  ReconstructOptions ro;
  ro.input = base + "_data.h5";
  ro.output = base + "_conv.h5";
  ro.generations = 8;
  ro.n_ref = 5000;  // M = 21: speckles of about 2 / 21 rad, 5000 references cover about 11 deg (20000: 7 deg; spacing goes as N^(-1/3))
  ro.phase.cycles = 3;
  ro.phase_starts = 2;  // the loop is under test here, not phasing
  ro.nufft.backend = nufftmp::Backend::Cpu;
  ro.verbose = false;
  const char* seed = std::getenv("MTIP_TEST_SEED");
  if (seed) ro.seed = std::strtoull(seed, nullptr, 10);
  const auto rep = reconstruct(MPI_COMM_WORLD, ro);
  ASSERT_EQ(rep.size(), 8u);
  const auto& last = rep.back();
  // Start seeds 1-9 on this data (2 ranks, 11 s each): intensity 0.9891-0.9970 (8 of 9 at
  // >= 0.996), median orientation error 7.3-9.5 deg, phased density 0.78-0.93. Unconverged
  // runs (the old loop: phased model, one round, 2000 references) stay at random orientations
  // (median error 110-150 deg) with intensity 0.64-0.92 on the demo data, and the spherical
  // average of the first generation scores 0.85 there.
  constexpr double kIntensityFloor = 0.98, kOrientationCeiling = 15.0;
  if (rank_of() == 0)
    std::printf("full loop: intensity correlation %.4f, density %.4f, orientation error %.1f deg, "
                "frame agreement %.3f\n",
                last.intensity_correlation, last.correlation, last.orientation_error_deg,
                last.frame_agreement);
  EXPECT_GE(last.intensity_correlation, kIntensityFloor);
  EXPECT_LE(last.orientation_error_deg, kOrientationCeiling);
  // The truth-free measures follow: the half-set FSC from ~0 at the random start to high, the
  // orientations settle, and the best generation is a late one.
  if (rank_of() == 0)
    for (const auto& g : rep)
      std::printf("  gen %d: half-set FSC %.3f (0.5 at %.2f A), orientations moved %.1f deg, "
                  "anisotropic intensity %.3f\n",
                  g.generation, g.fsc_mean, g.resolution_fsc05, g.orientation_change_deg,
                  g.anisotropic_correlation);
  if (rank_of() == 0)
    for (const auto& g : rep)
      std::printf("  gen %d: free correlation %.4f +- %.4f (ceiling %.3f)\n", g.generation,
                  g.free_correlation, g.free_sigma, g.free_ceiling);
  EXPECT_LT(std::fabs(rep[0].free_correlation), 0.2);  // random orientations predict nothing
  EXPECT_GT(last.free_correlation, 0.8 * last.free_ceiling);
  EXPECT_LT(std::fabs(rep[0].fsc_mean), 0.3);
  EXPECT_GE(last.fsc_mean, 0.5);
  EXPECT_LE(last.orientation_change_deg, 10.0);
  EXPECT_GE(last.anisotropic_correlation, 0.9);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank_of() == 0)
    for (const char* f : {"_data.h5", "_conv.h5", "_conv.h5.ckpt.h5"}) std::remove((base + f).c_str());
}
