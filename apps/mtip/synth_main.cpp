// nufftmp-synth: simulate a single-particle diffraction data set (issue 5 layout) with its
// ground truth. Runs on rank 0 (start it with or without mpirun).
#include <getopt.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string>

#include "common/flags.hpp"
#include "dist/collectives.hpp"
#include "dist/mpi_session.hpp"
#include "nufftmp/mtip.hpp"
#include "nufftmp/plan.hpp"

using namespace nufftmp;
using namespace nufftmp::mtip;

namespace {
void usage() {
  std::printf(
      "usage: nufftmp-synth --output FILE [options]\n"
      "  --output FILE        HDF5 file to write (required)\n"
      "  --M N                lattice side of the ground-truth volume (default 33)\n"
      "  --n-images N         number of images (default 200)\n"
      "  --nx N, --ny N       detector pixels (default 32 x 32)\n"
      "  --pixel-size M       pixel size in metres (default 2e-3)\n"
      "  --distance M         sample-detector distance in metres (default 0.06)\n"
      "  --wavelength A       wavelength in Angstrom (default 2.0)\n"
      "  --atoms N            random molecule of N Gaussian atoms (default 40)\n"
      "  --shape S            clusters (default: four unequal clusters, no symmetry) or ball\n"
      "  --pdb FILE           molecule from the ATOM records of a PDB file instead\n"
      "  --sigma S            atom radius in voxels (default 1.0)\n"
      "  --fluence F          mean photons per pixel (default 100); 0 = no noise\n"
      "  --layout L           nufftmp (default) or spinifel: skopi's layout (intensities\n"
      "                       [n, panels, ny, nx], positions [panels, ny, nx, 3] in 1/m,\n"
      "                       particle quaternions [n, 1, 4], the complex diffraction field\n"
      "                       on skopi's mesh as volume, polarization and solid_angle)\n"
      "  --panels P           split the detector into P panels of ny/P rows (spinifel layout)\n"
      "  --corrections        images carry polarization x solid angle (written as data sets)\n"
      "  --beamstop R         pixels within R pixels of the centre read 0, and a data set\n"
      "                       'mask' marks them\n"
      "  --seed N             random seed (default 1)\n"
      "  --float              float NUFFT (default double)\n"
      "  --cpu                force the CPU engine\n"
      "  --overwrite          replace FILE when it exists (default: refuse)\n"
      "Numbers are read whole (2e4 is 20000; 12abc, 1.5 for a count, nan are refused).\n"
      "Exit status: 0 ok, 1 failed (message names the cause), 2 bad flags.\n");
}

template <typename T>
std::vector<float> simulate_images(const std::vector<double>& density, std::int64_t M,
                                   const std::vector<double>& pos, double scale,
                                   const std::vector<Quaternion>& orient, const Options& opts) {
  const std::int64_t npix = static_cast<std::int64_t>(pos.size() / 3);
  const std::int64_t n = static_cast<std::int64_t>(orient.size());
  // Chunks of images keep the coordinate arrays bounded for large data sets.
  const std::int64_t chunk = std::max<std::int64_t>(1, (std::int64_t(1) << 23) / npix);
  std::vector<float> out(static_cast<std::size_t>(n * npix));
  std::vector<T> x, y, z;
  for (std::int64_t i0 = 0; i0 < n; i0 += chunk) {
    const std::int64_t nc = std::min(chunk, n - i0);
    x.resize(static_cast<std::size_t>(nc * npix));
    y.resize(x.size());
    z.resize(x.size());
    slice_points(pos, orient.data() + i0, nc, scale, x.data(), y.data(), z.data());
    const auto I = diffraction_intensities<T>(density, M, nc * npix, x.data(), y.data(),
                                              z.data(), sizeof(T) == 4 ? 1e-5 : 1e-9, opts);
    for (std::int64_t j = 0; j < nc * npix; ++j) out[i0 * npix + j] = static_cast<float>(I[j]);
  }
  return out;
}

struct SynthOptions {
  std::string output, pdb, shape = "clusters";
  std::int64_t M = 33, n_images = 200, atoms = 40;
  Detector det;
  double sigma = 1.0, fluence = 100;
  std::uint64_t seed = 1;
  bool use_float = false, overwrite = false, corrections = false;
  std::string layout = "nufftmp";
  std::int64_t panels = 1;
  double beamstop = 0;
  Options opts;
  SynthOptions() {
    det.nx = det.ny = 32;
    det.pixel_size = 2e-3;
    det.distance = 0.06;
    det.wavelength = 2.0;
  }
};

// Every flag parsed strictly (apps/common/flags.hpp): a bad value is a UsageError naming the
// flag and the value (exit status 2).
SynthOptions parse_options(int argc, char** argv, bool& help) {
  using apps::parse_integer;
  using apps::parse_real;
  using apps::positive;
  enum {
    kOutput = 256, kM, kImages, kNx, kNy, kPixel, kDistance, kWavelength, kAtoms, kPdb, kShape,
    kSigma, kFluence, kSeed, kFloat, kCpu, kOverwrite, kHelp, kLayout, kPanels, kCorrections,
    kBeamstop
  };
  static const option longopts[] = {
      {"output", required_argument, nullptr, kOutput}, {"M", required_argument, nullptr, kM},
      {"n-images", required_argument, nullptr, kImages}, {"nx", required_argument, nullptr, kNx},
      {"ny", required_argument, nullptr, kNy}, {"pixel-size", required_argument, nullptr, kPixel},
      {"distance", required_argument, nullptr, kDistance},
      {"wavelength", required_argument, nullptr, kWavelength},
      {"atoms", required_argument, nullptr, kAtoms}, {"pdb", required_argument, nullptr, kPdb},
      {"shape", required_argument, nullptr, kShape}, {"sigma", required_argument, nullptr, kSigma},
      {"fluence", required_argument, nullptr, kFluence},
      {"seed", required_argument, nullptr, kSeed},
      {"float", no_argument, nullptr, kFloat}, {"cpu", no_argument, nullptr, kCpu},
      {"overwrite", no_argument, nullptr, kOverwrite}, {"help", no_argument, nullptr, kHelp},
      {"layout", required_argument, nullptr, kLayout},
      {"panels", required_argument, nullptr, kPanels},
      {"corrections", no_argument, nullptr, kCorrections},
      {"beamstop", required_argument, nullptr, kBeamstop},
      {nullptr, 0, nullptr, 0}};
  constexpr std::int64_t kMaxCount = std::int64_t(1) << 40;
  SynthOptions o;
  help = false;
  opterr = 0;
  optind = 1;
  int c;
  while ((c = getopt_long(argc, argv, ":h", longopts, nullptr)) != -1) {
    switch (c) {
      case kOutput:
        if (!*optarg) apps::bad_value("output", optarg, "expects a file name");
        o.output = optarg;
        break;
      case kM: o.M = parse_integer("M", optarg, 5, 1 << 16); break;
      case kImages: o.n_images = parse_integer("n-images", optarg, 1, kMaxCount); break;
      case kNx: o.det.nx = parse_integer("nx", optarg, 1, 1 << 20); break;
      case kNy: o.det.ny = parse_integer("ny", optarg, 1, 1 << 20); break;
      case kPixel: o.det.pixel_size = parse_real("pixel-size", optarg, positive()); break;
      case kDistance: o.det.distance = parse_real("distance", optarg, positive()); break;
      case kWavelength: o.det.wavelength = parse_real("wavelength", optarg, positive()); break;
      case kAtoms: o.atoms = parse_integer("atoms", optarg, 1, kMaxCount); break;
      case kPdb:
        if (!*optarg) apps::bad_value("pdb", optarg, "expects a file name");
        o.pdb = optarg;
        break;
      case kShape:
        o.shape = apps::parse_choice("shape", optarg, {"clusters", "ball"}) == 0 ? "clusters"
                                                                                  : "ball";
        break;
      case kSigma: o.sigma = parse_real("sigma", optarg, positive()); break;
      case kFluence: o.fluence = parse_real("fluence", optarg, apps::non_negative()); break;
      case kSeed:
        o.seed = static_cast<std::uint64_t>(
            parse_integer("seed", optarg, 0, std::numeric_limits<std::int64_t>::max()));
        break;
      case kFloat: o.use_float = true; break;
      case kCpu: o.opts.backend = Backend::Cpu; break;
      case kOverwrite: o.overwrite = true; break;
      case kLayout:
        o.layout = apps::parse_choice("layout", optarg, {"nufftmp", "spinifel"}) == 0
                       ? "nufftmp"
                       : "spinifel";
        break;
      case kPanels: o.panels = parse_integer("panels", optarg, 1, 1 << 20); break;
      case kCorrections: o.corrections = true; break;
      case kBeamstop: o.beamstop = parse_real("beamstop", optarg, apps::non_negative()); break;
      case 'h':
      case kHelp: help = true; return o;
      default: apps::getopt_failure(c, argv);
    }
  }
  apps::reject_positionals(argc, argv);
  if (o.output.empty()) throw apps::UsageError("--output is required (see --help)");
  if (o.det.ny % o.panels != 0 || (o.panels > 1 && o.layout != "spinifel"))
    throw apps::UsageError("--panels " + std::to_string(o.panels) +
                           " must divide --ny and needs --layout spinifel when above 1");
  return o;
}
}  // namespace

int main(int argc, char** argv) {
  const dist::detail::MpiSession mpi("nufftmp-synth", &argc, &argv);
  const int rank = mpi.rank();
  SynthOptions so;
  const auto parse = [&](bool& help) { return parse_options(argc, argv, help); };
  const int status = apps::parse_command_line("nufftmp-synth", rank == 0, parse, usage, so);
  if (status >= 0) return status;
  const std::string& output = so.output;
  const std::string& pdb = so.pdb;
  const std::string& shape = so.shape;
  const std::int64_t M = so.M, n_images = so.n_images, atoms = so.atoms;
  const Detector& det = so.det;
  const double sigma = so.sigma, fluence = so.fluence;
  const std::uint64_t seed = so.seed;
  const bool use_float = so.use_float, corrections = so.corrections;
  const std::string& layout = so.layout;
  const std::int64_t panels = so.panels;
  const double beamstop = so.beamstop;
  const Options& opts = so.opts;
  int rc = 0;
  if (rank == 0) {
    try {
      // The output first: a path that cannot be written (or an existing file without
      // --overwrite) fails before the simulation, not after it.
      H5Writer w(output, so.overwrite ? IfExists::Replace : IfExists::Refuse);
      const auto pos = pixel_positions_reciprocal(det);
      const double scale = reciprocal_scale(pos);
      const double dx = scale / (2 * 3.14159265358979323846);  // voxel, Angstrom
      const Molecule mol = !pdb.empty()        ? pdb_molecule(pdb, dx, M, sigma)
                           : shape == "ball" ? random_molecule(atoms, M, sigma, seed)
                                             : clustered_molecule(atoms, M, sigma, seed);
      const auto density = density_on_grid(mol, M);
      std::mt19937_64 rng(seed + 1);
      std::vector<Quaternion> orient(static_cast<std::size_t>(n_images));
      for (auto& q : orient) q = random_quaternion(rng);
      std::vector<float> images =
          use_float ? simulate_images<float>(density, M, pos, scale, orient, opts)
                    : simulate_images<double>(density, M, pos, scale, orient, opts);
      const std::int64_t npix = det.nx * det.ny;
      const DetectorFactors factors = detector_factors(det);
      if (corrections) {
        // The expected signal carries C_p = polarization x solid angle (mean 1 here; the
        // fluence below sets the photon scale).
        std::vector<double> c(static_cast<std::size_t>(npix));
        double cm = 0;
        for (std::int64_t p = 0; p < npix; ++p)
          cm += c[p] = factors.polarization[p] * factors.solid_angle[p];
        cm /= static_cast<double>(npix);
        for (std::int64_t i = 0; i < n_images; ++i)
          for (std::int64_t p = 0; p < npix; ++p)
            images[i * npix + p] = static_cast<float>(images[i * npix + p] * c[p] / cm);
      }
      std::vector<double> mask;
      if (beamstop > 0) {
        mask.assign(static_cast<std::size_t>(npix), 1.0);
        for (std::int64_t iy = 0; iy < det.ny; ++iy)
          for (std::int64_t ix = 0; ix < det.nx; ++ix) {
            const double dx = ix - 0.5 * (det.nx - 1), dy = iy - 0.5 * (det.ny - 1);
            if (dx * dx + dy * dy < beamstop * beamstop) mask[iy * det.nx + ix] = 0;
          }
        for (std::int64_t i = 0; i < n_images; ++i)
          for (std::int64_t p = 0; p < npix; ++p)
            if (mask[p] == 0) images[i * npix + p] = 0;  // the stop's shadow
      }
      // Intensities are |F|^2 >= 0: negatives are the NUFFT's rounding (the noiseless data
      // keep 0 there, as the Poisson draw does); anything not finite is a failure.
      double mean = 0;
      std::int64_t negative = 0;
      for (auto& v : images) {
        if (!std::isfinite(v))
          throw Error(ErrorCode::Internal, "simulated intensity is not finite (" +
                                               std::to_string(v) + ")");
        if (v < 0) ++negative, v = 0;
        mean += v;
      }
      mean /= static_cast<double>(images.size());
      if (!(mean > 0))
        throw Error(ErrorCode::InvalidArgument,
                    "the simulated images are all zero (no atoms inside the volume?)");
      if (negative > 0)
        std::printf("nufftmp-synth: %lld slightly negative intensities (NUFFT rounding) set to 0\n",
                    static_cast<long long>(negative));
      // Photon units: the mean pixel receives `fluence` photons (1 when noiseless).
      const double gain = (fluence > 0 ? fluence : 1.0) / mean;
      for (auto& v : images) v = static_cast<float>(v * gain);
      if (fluence > 0) add_poisson_noise(images, rng);

      const std::int64_t py = det.ny / panels;
      if (layout == "spinifel") {
        // skopi's sim_spinifel.py layout (io.hpp): s-vectors in 1/m, pixel-major components.
        w.write("intensities", {n_images, panels, py, det.nx}, images.data());
        std::vector<double> pl(static_cast<std::size_t>(3 * npix));
        double qmax = 0;
        for (std::int64_t p = 0; p < npix; ++p) {
          double r2 = 0;
          for (int c = 0; c < 3; ++c) {
            pl[3 * p + c] = pos[c * npix + p] * 1e10;
            r2 += pl[3 * p + c] * pl[3 * p + c];
          }
          qmax = std::max(qmax, std::sqrt(r2));
        }
        w.write("pixel_position_reciprocal", {panels, py, det.nx, 3}, pl.data());
        std::vector<double> q;
        for (const auto& o : orient) q.insert(q.end(), {o.w, -o.x, -o.y, -o.z});  // particle's
        w.write("orientations", {n_images, 1, 4}, q.data());
        // The diffraction field on skopi's mesh linspace(-qmax, qmax, M)^3, C order (x slowest).
        std::vector<double> x, y, z;
        for (std::int64_t a = 0; a < M; ++a)
          for (std::int64_t b = 0; b < M; ++b)
            for (std::int64_t c = 0; c < M; ++c) {
              const double l[3] = {-1 + 2.0 * a / (M - 1), -1 + 2.0 * b / (M - 1),
                                   -1 + 2.0 * c / (M - 1)};
              x.push_back(l[0] * qmax * 1e-10 * scale);
              y.push_back(l[1] * qmax * 1e-10 * scale);
              z.push_back(l[2] * qmax * 1e-10 * scale);
            }
        const auto field = diffraction_field<double>(density, M, M * M * M, x.data(), y.data(),
                                                     z.data(), 1e-9, opts);
        w.write("volume", {M, M, M}, field.data());
        w.write_attribute("reciprocal_extent", qmax);
        if (corrections) {
          w.write("polarization", {panels, py, det.nx}, factors.polarization.data());
          w.write("solid_angle", {panels, py, det.nx}, factors.solid_angle.data());
        }
        if (!mask.empty()) w.write("mask", {panels, py, det.nx}, mask.data());
      } else {
        w.write("intensities", {n_images, det.ny, det.nx}, images.data());
        w.write("pixel_position_reciprocal", {3, det.ny, det.nx}, pos.data());
        std::vector<double> q;
        for (const auto& o : orient) q.insert(q.end(), {o.w, o.x, o.y, o.z});
        w.write("orientations", {n_images, 4}, q.data());
        w.write("volume", {M, M, M}, density.data());
        if (corrections) {
          w.write("polarization", {det.ny, det.nx}, factors.polarization.data());
          w.write("solid_angle", {det.ny, det.nx}, factors.solid_angle.data());
        }
        if (!mask.empty()) w.write("mask", {det.ny, det.nx}, mask.data());
      }
      w.write_attribute("wavelength_angstrom", det.wavelength);
      w.write_attribute("distance_m", det.distance);
      w.write_attribute("pixel_size_m", det.pixel_size);
      w.write_attribute("voxel_angstrom", dx);
      w.write_attribute("fluence", fluence);
      w.write_attribute("gain", gain);
      w.commit();
      std::printf("nufftmp-synth: %lld images of %lld x %lld, M = %lld, %zu atoms, voxel %.3f A, "
                  "fluence %g photons/pixel -> %s\n",
                  (long long)n_images, (long long)det.ny, (long long)det.nx, (long long)M,
                  mol.atoms.size(), dx, fluence, output.c_str());
    } catch (const std::exception& e) {
      std::fprintf(stderr, "nufftmp-synth: error: %s\n", e.what());
      rc = 1;
    }
  }
  // Rank 0's status on every rank (the others only waited for it).
  std::int64_t status0 = rc;
  dist::detail::bcast(MPI_COMM_WORLD, &status0, 1, 0);
  return static_cast<int>(status0);
}
