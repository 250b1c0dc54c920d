// Per-pixel masks and corrections (corrections.hpp): read on every rank (they are small), the
// pixels kept and C_p normalised to mean 1 (its overall scale only rescales the model).
#include "nufftmp/mtip/corrections.hpp"

#include <cmath>
#include <fstream>
#include <sstream>

#include "dist/agree.hpp"
#include "h5/h5_handle.hpp"
#include "nufftmp/mtip.hpp"

namespace nufftmp::mtip {

namespace {

using h5::Handle;
using h5::io_fail;

// "NAME" in the input, or "FILE:NAME" when the part before the last ':' is a readable file.
std::pair<std::string, std::string> locate(const std::string& spec, const std::string& input) {
  const auto colon = spec.rfind(':');
  if (colon != std::string::npos && colon > 0) {
    const std::string file = spec.substr(0, colon);
    if (std::ifstream(file).good()) return {file, spec.substr(colon + 1)};
  }
  return {input, spec};
}

// One per-pixel data set of the detector's shape, as double.
std::vector<double> read_per_pixel(const std::string& file, const std::string& name,
                                   const DataInfo& info) {
  Handle f = h5::open_file(file);
  Handle d = h5::open_dataset(f.get(), file, name);
  auto dims = h5::dataset_dims(d.get(), file, name);
  std::vector<hsize_t> det{static_cast<hsize_t>(info.ny), static_cast<hsize_t>(info.nx)};
  if (info.panels > 1 || dims.size() == 3) det.insert(det.begin(), static_cast<hsize_t>(info.panels));
  if (dims != det)
    io_fail("'" + file + "': per-pixel data set '" + name + "' has shape " +
            h5::dims_string(dims) + ", expected the detector's " + h5::dims_string(det));
  std::vector<double> v(static_cast<std::size_t>(info.npix()));
  h5::read_rows(d.get(), H5T_NATIVE_DOUBLE, dims, 0, dims[0], v.data(), file, name);
  h5::check_finite(v.data(), v.size(), 0, file, name);
  return v;
}

bool input_has(const std::string& input, const char* name) {
  Handle f = h5::open_file(input);
  return h5::has_dataset(f.get(), name);
}

}  // namespace

PixelCorrections read_pixel_corrections(MPI_Comm comm, const std::string& input,
                                        const DataInfo& info, const std::vector<double>& positions,
                                        const CorrectionOptions& co) {
  PixelCorrections pc;
  dist::detail::agreed(comm, [&] {
    const std::int64_t npix = info.npix();
    if (static_cast<std::int64_t>(positions.size()) != 3 * npix)
      throw Error(ErrorCode::InvalidArgument, "pixel corrections: positions are not [3, npix]");
    if (!(co.q_min >= 0 && co.q_min < 1))
      throw Error(ErrorCode::InvalidArgument,
                  "q_min = " + std::to_string(co.q_min) + " (a fraction of q_max in [0, 1))");
    std::ostringstream what;
    std::vector<char> keep(static_cast<std::size_t>(npix), 1);
    std::vector<std::string> masks = co.mask;
    if (masks.empty() && co.use_file_mask)
      for (const char* n : {"mask", "pixel_mask"})
        if (input_has(input, n)) {
          masks.push_back(n);
          break;
        }
    for (const auto& spec : masks) {
      const auto [file, name] = locate(spec, input);
      const auto m = read_per_pixel(file, name, info);
      std::int64_t off = 0;
      for (std::int64_t p = 0; p < npix; ++p)
        if (m[p] == 0 && keep[p]) keep[p] = 0, ++off;
      what << "mask '" << spec << "' removes " << off << " pixels; ";
    }
    if (co.q_min > 0) {
      double qmax = 0;
      std::vector<double> q(static_cast<std::size_t>(npix));
      for (std::int64_t p = 0; p < npix; ++p) {
        q[p] = std::sqrt(positions[p] * positions[p] + positions[npix + p] * positions[npix + p] +
                         positions[2 * npix + p] * positions[2 * npix + p]);
        qmax = std::max(qmax, q[p]);
      }
      std::int64_t off = 0;
      for (std::int64_t p = 0; p < npix; ++p)
        if (keep[p] && q[p] < co.q_min * qmax) keep[p] = 0, ++off;
      what << "|q| < " << co.q_min << " q_max removes " << off << " pixels; ";
    }
    std::vector<std::string> corr = co.correction;
    if (corr.empty() && co.use_file_correction) {
      if (input_has(input, "correction"))
        corr = {"correction"};
      else if (input_has(input, "polarization") && input_has(input, "solid_angle"))
        corr = {"polarization", "solid_angle"};
    }
    std::vector<double> c;
    if (!corr.empty()) {
      c.assign(static_cast<std::size_t>(npix), 1.0);
      std::string names;
      for (const auto& spec : corr) {
        const auto [file, name] = locate(spec, input);
        const auto v = read_per_pixel(file, name, info);
        for (std::int64_t p = 0; p < npix; ++p) c[p] *= v[p];
        names += (names.empty() ? "" : " x ") + spec;
      }
      std::int64_t off = 0;
      for (std::int64_t p = 0; p < npix; ++p)
        if (keep[p] && !(c[p] > 0)) keep[p] = 0, ++off;
      what << "correction " << names;
      if (off) what << " (<= 0 on " << off << " pixels: masked)";
      what << "; ";
    }
    std::int64_t kept = 0;
    double sum = 0;
    for (std::int64_t p = 0; p < npix; ++p)
      if (keep[p]) ++kept, sum += c.empty() ? 1.0 : c[p];
    if (kept == 0)
      throw Error(ErrorCode::InvalidArgument,
                  "'" + input + "': the masks keep no pixel (" + what.str() + ")");
    if (!c.empty()) {
      const double mean = sum / static_cast<double>(kept);
      for (auto& v : c) v /= mean;
      double lo = 1e300, hi = 0;
      for (std::int64_t p = 0; p < npix; ++p)
        if (keep[p]) lo = std::min(lo, c[p]), hi = std::max(hi, c[p]);
      what << "C_p in [" << lo << ", " << hi << "] (mean 1); ";
    }
    pc.kept = kept;
    if (kept < npix) pc.keep = std::move(keep);
    pc.correction = std::move(c);
    std::string s = what.str();
    if (s.size() >= 2) s.resize(s.size() - 2);
    pc.summary = (s.empty() ? "no mask, no correction" : s) + " (" + std::to_string(kept) + " of " +
                 std::to_string(npix) + " pixels used)";
  });
  return pc;
}

void remove_masked_pixels(const PixelCorrections& pc, std::vector<double>& positions,
                          std::vector<float>& images, std::int64_t n_images) {
  if (pc.keep.empty()) return;
  const std::int64_t npix = static_cast<std::int64_t>(pc.keep.size()), kept = pc.kept;
  if (static_cast<std::int64_t>(positions.size()) != 3 * npix ||
      static_cast<std::int64_t>(images.size()) != n_images * npix)
    throw Error(ErrorCode::InvalidArgument, "remove_masked_pixels: sizes do not match the mask");
  std::vector<double> pos(static_cast<std::size_t>(3 * kept));
  for (int c = 0; c < 3; ++c)
    for (std::int64_t p = 0, j = 0; p < npix; ++p)
      if (pc.keep[p]) pos[c * kept + j++] = positions[c * npix + p];
  positions = std::move(pos);
  // In place: image i's kept pixels move to [i * kept, (i + 1) * kept), never past where they
  // are read from.
  for (std::int64_t i = 0, j = 0; i < n_images; ++i)
    for (std::int64_t p = 0; p < npix; ++p)
      if (pc.keep[p]) images[j++] = images[i * npix + p];
  images.resize(static_cast<std::size_t>(n_images * kept));
}

std::vector<double> kept_correction(const PixelCorrections& pc) {
  if (pc.correction.empty() || pc.keep.empty()) return pc.correction;
  std::vector<double> c;
  for (std::size_t p = 0; p < pc.keep.size(); ++p)
    if (pc.keep[p]) c.push_back(pc.correction[p]);
  return c;
}

}  // namespace nufftmp::mtip
