// The reconstruction loop on the CUDA engine (src/mtip/gpu/generation_gpu.cpp: images on the
// device for the run, matching, merging and phasing there) on the ranks of the run (on one GPU
// they share it): known orientations give the CPU engine's merged model, and the full loop
// from random orientations converges as on the CPU (test_reconstruct.cpp's bounds). Every
// generation reports the CUDA engine: not a silent host fallback. Label gpu.
#include <gtest/gtest.h>

#include <cmath>

#include "data_set_fixture.hpp"
#include "fault_fixture.hpp"
#include "mpi_fixture.hpp"
#include "nufftmp/mtip.hpp"
#include "sim_fixture.hpp"

using namespace nufftmp::mtip;

namespace {
using mtip_test::rank_of;

std::string write_data_set() { return mtip_test::write_data_set("nufftmp_mtip_gpu_rec"); }

double rel_diff(const std::vector<double>& a, const std::vector<double>& b) {
  double num = 0, den = 0;
  for (std::size_t i = 0; i < a.size(); ++i) num += (a[i] - b[i]) * (a[i] - b[i]), den += b[i] * b[i];
  return std::sqrt(num / den);
}

void remove_files(const std::string& base, std::initializer_list<const char*> suffixes) {
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank_of() == 0)
    for (const char* f : suffixes) std::remove((base + f).c_str());
}
}  // namespace

TEST(MtipGpuReconstruct, KnownOrientationsEqualTheCpuEngine) {
  const std::string base = write_data_set();
  ReconstructOptions ro;
  ro.input = base + "_data.h5";
  ro.known_orientations = true;
  ro.generations = 1;
  ro.verbose = false;
  ro.output = base + "_cpu.h5";
  ro.nufft.backend = nufftmp::Backend::Cpu;
  const auto cpu = reconstruct(MPI_COMM_WORLD, ro);
  ro.output = base + "_gpu.h5";
  ro.nufft.backend = nufftmp::Backend::Cuda;
  const auto gpu = reconstruct(MPI_COMM_WORLD, ro);
  ASSERT_EQ(gpu.size(), 1u);
  EXPECT_EQ(cpu[0].engine, nufftmp::Backend::Cpu);
  EXPECT_EQ(gpu[0].engine, nufftmp::Backend::Cuda);
  if (rank_of() == 0) {
    const auto ac_cpu = read_dataset(base + "_cpu.h5", "autocorrelation");
    const auto ac_gpu = read_dataset(base + "_gpu.h5", "autocorrelation");
    const double d = rel_diff(ac_gpu, ac_cpu);
    std::printf("known orientations: model rel diff GPU vs CPU %.2e, density %.4f / %.4f "
                "(cpu / gpu), CG %d / %d it\n",
                d, cpu[0].correlation, gpu[0].correlation, cpu[0].cg_iterations,
                gpu[0].cg_iterations);
    // Float NUFFTs at 1e-5 and 200 CG steps on both engines. Measured on the CPU engine, the
    // merge's NUFFT tolerance 1e-5 against 1e-6 moves this model by 3.9e-4: two engines with
    // independent 1e-5 errors should differ by about 5.5e-4.
    EXPECT_LT(d, 2e-3);
    // The phased density is chaotic in the last bits (test_reconstruct's floor).
    EXPECT_GE(gpu[0].correlation, 0.8);
  }
  remove_files(base, {"_data.h5", "_cpu.h5", "_cpu.h5.ckpt.h5", "_gpu.h5", "_gpu.h5.ckpt.h5"});
}

TEST(MtipGpuReconstruct, FullLoopConvergesFromRandomOrientations) {
  const std::string base = write_data_set();
  ReconstructOptions ro;
  ro.input = base + "_data.h5";
  ro.output = base + "_conv.h5";
  ro.generations = 8;
  ro.n_ref = 5000;
  ro.phase.cycles = 3;
  ro.nufft.backend = nufftmp::Backend::Cuda;
  ro.verbose = false;
  const auto rep = reconstruct(MPI_COMM_WORLD, ro);
  ASSERT_EQ(rep.size(), 8u);
  for (const auto& g : rep) EXPECT_EQ(g.engine, nufftmp::Backend::Cuda);
  const auto& last = rep.back();
  if (rank_of() == 0)
    std::printf("GPU full loop: intensity correlation %.4f, density %.4f, orientation error "
                "%.1f deg; generation %d: slicing %.3f s, matching %.3f s, merging %.3f s, "
                "phasing %.3f s\n",
                last.intensity_correlation, last.correlation, last.orientation_error_deg,
                last.generation, last.slicing_ms / 1e3, last.matching_ms / 1e3,
                last.merging_ms / 1e3, last.phasing_ms / 1e3);
  EXPECT_GE(last.intensity_correlation, 0.98);
  EXPECT_LE(last.orientation_error_deg, 15.0);
  remove_files(base, {"_data.h5", "_conv.h5", "_conv.h5.ckpt.h5"});
}

// The GPU engine's stages under fault injection: a failure on one rank stops both.
TEST(MtipGpuReconstruct, AFailureOnOneRankStopsEveryRank) {
  const std::string base = write_data_set();
  ReconstructOptions ro;
  ro.input = base + "_data.h5";
  ro.output = base + "_fault.h5";
  ro.generations = 2;
  ro.n_ref = 200;
  ro.match_iterations = 1;
  ro.phase.cycles = 1;
  ro.nufft.backend = nufftmp::Backend::Cuda;
  ro.verbose = false;
  ro.overwrite = true;  // every run of the test writes the same files
  for (const char* point : {"match", "merge", "phase"})
    mtip_test::expect_failure_stops_every_rank(ro, point, 1);
  const auto rep = reconstruct(MPI_COMM_WORLD, ro);  // and a clean run afterwards
  ASSERT_EQ(rep.size(), 2u);
  EXPECT_EQ(rep[1].engine, nufftmp::Backend::Cuda);
  remove_files(base, {"_data.h5", "_fault.h5", "_fault.h5.ckpt.h5"});
}
