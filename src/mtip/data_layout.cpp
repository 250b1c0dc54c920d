// The input's layout (nufftmp's or spinifel's / skopi's, io.hpp), told apart by the shapes of
// its data sets, and each rank's share of its images in one form: intensities [count, npix],
// positions [3, npix] in 1/Angstrom, orientations in nufftmp's convention.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <sstream>

#include "dist/agree.hpp"
#include "dist/collectives.hpp"
#include "dist/partition.hpp"
#include "h5/h5_handle.hpp"
#include "nufftmp/mtip.hpp"

namespace nufftmp::mtip {

using dist::detail::agreed;
using h5::check_finite;
using h5::dataset_dims;
using h5::dims_string;
using h5::Handle;
using h5::has_dataset;
using h5::io_fail;
using h5::open_dataset;
using h5::open_file;
using h5::read_rows;

const char* layout_name(DataLayout l) {
  return l == DataLayout::Spinifel ? "spinifel/skopi" : "nufftmp";
}

const char* convention_name(QuaternionConvention c) {
  return c == QuaternionConvention::Particle ? "particle" : "lattice";
}

QuaternionConvention parse_convention(const std::string& word) {
  if (word == "lattice") return QuaternionConvention::Lattice;
  if (word == "particle") return QuaternionConvention::Particle;
  throw Error(ErrorCode::InvalidArgument,
              "quaternion convention '" + word + "' (lattice: nufftmp's, particle: skopi's and "
                                                 "spinifel's)");
}

Quaternion to_lattice(const Quaternion& q, QuaternionConvention c) {
  return c == QuaternionConvention::Particle ? quat_conjugate(q) : q;
}

namespace {

// The root group's data sets with their shapes, for the message of a file in neither layout.
std::string root_contents(hid_t file) {
  std::vector<std::string> names;
  // (The unversioned names: H5Literate and H5L_info_t are the current API on HDF5 1.10 and
  // 1.12+ alike.)
  H5Literate(
      file, H5_INDEX_NAME, H5_ITER_NATIVE, nullptr,
      [](hid_t, const char* name, const H5L_info_t*, void* op) -> herr_t {
        static_cast<std::vector<std::string>*>(op)->push_back(name);
        return 0;
      },
      &names);
  std::ostringstream s;
  if (names.empty()) return "nothing at its root";
  for (std::size_t i = 0; i < names.size(); ++i) {
    s << (i ? ", " : "") << names[i];
    Handle d(H5Dopen2(file, names[i].c_str(), H5P_DEFAULT), H5Dclose);  // fails on a group
    if (d.ok()) {
      Handle space(H5Dget_space(d.get()), H5Sclose);
      const int nd = H5Sget_simple_extent_ndims(space.get());
      std::vector<hsize_t> dims(static_cast<std::size_t>(std::max(nd, 0)));
      if (nd > 0) H5Sget_simple_extent_dims(space.get(), dims.data(), nullptr);
      s << " " << dims_string(dims);
    } else {
      s << " (group)";
    }
  }
  return s.str();
}

// A data set the layouts need: missing, the message says what the file holds instead.
Handle open_required(hid_t file, const std::string& path, const std::string& name) {
  if (!has_dataset(file, name))
    io_fail("'" + path + "': data set '" + name +
            "' is missing: the file is in neither the nufftmp layout (intensities [n, ny, nx], "
            "pixel_position_reciprocal [3, ny, nx]) nor spinifel's/skopi's (intensities "
            "[n, panels, ny, nx], pixel_position_reciprocal [panels, ny, nx, 3]); it holds " +
            root_contents(file));
  return open_dataset(file, path, name);
}

// A string attribute of the root group, or "" when absent or not a string.
std::string string_attribute(hid_t file, const char* name) {
  if (H5Aexists(file, name) <= 0) return "";
  Handle a(H5Aopen(file, name, H5P_DEFAULT), H5Aclose);
  Handle type(H5Aget_type(a.get()), H5Tclose);
  if (H5Tget_class(type.get()) != H5T_STRING) return "";
  if (H5Tis_variable_str(type.get()) > 0) {
    char* v = nullptr;
    Handle mt(H5Tcopy(H5T_C_S1), H5Tclose);
    H5Tset_size(mt.get(), H5T_VARIABLE);
    if (H5Aread(a.get(), mt.get(), &v) < 0 || !v) return "";
    std::string out(v);
    H5free_memory(v);
    return out;
  }
  std::string out(H5Tget_size(type.get()), '\0');
  if (H5Aread(a.get(), type.get(), out.data()) < 0) return "";
  out.resize(std::strlen(out.c_str()));
  return out;
}

// All pixel positions as [3, npix] in the file's unit, from either order of the components.
std::vector<double> read_positions(hid_t file, const std::string& path, const DataInfo& info) {
  const char* name = "pixel_position_reciprocal";
  Handle d = open_dataset(file, path, name);
  auto dims = dataset_dims(d.get(), path, name);
  const std::int64_t npix = info.npix();
  std::vector<double> raw(static_cast<std::size_t>(3 * npix));
  read_rows(d.get(), H5T_NATIVE_DOUBLE, dims, 0, dims[0], raw.data(), path, name);
  check_finite(raw.data(), raw.size(), 0, path, name);
  if (!info.positions_last) return raw;
  std::vector<double> pos(raw.size());
  for (std::int64_t p = 0; p < npix; ++p)
    for (int c = 0; c < 3; ++c) pos[c * npix + p] = raw[3 * p + c];
  return pos;
}

}  // namespace

DataInfo probe_data(MPI_Comm comm, const std::string& path) {
  DataInfo info;
  agreed(comm, [&] {
    Handle f = open_file(path);
    std::vector<hsize_t> det;  // the detector's shape: [ny, nx] or [panels, ny, nx]
    {
      Handle d = open_required(f.get(), path, "intensities");
      auto dims = dataset_dims(d.get(), path, "intensities");
      const bool sizes_ok = std::all_of(dims.begin(), dims.end(), [](hsize_t v) { return v > 0; });
      if ((dims.size() != 3 && dims.size() != 4) || !sizes_ok)
        io_fail("'" + path + "': intensities has shape " + dims_string(dims) +
                ", expected [n_images, ny, nx] (nufftmp) or [n_images, panels, ny, nx] "
                "(spinifel/skopi) with every size >= 1");
      info.n_images = static_cast<std::int64_t>(dims[0]);
      det.assign(dims.begin() + 1, dims.end());
      info.panels = det.size() == 3 ? static_cast<std::int64_t>(det[0]) : 1;
      info.ny = static_cast<std::int64_t>(det[det.size() - 2]);
      info.nx = static_cast<std::int64_t>(det.back());
    }
    {
      const char* name = "pixel_position_reciprocal";
      Handle d = open_required(f.get(), path, name);
      auto dims = dataset_dims(d.get(), path, name);
      std::vector<hsize_t> first{3}, last(det);
      first.insert(first.end(), det.begin(), det.end());
      last.push_back(3);
      if (dims == first) {
        info.positions_last = false;
      } else if (dims == last) {
        info.positions_last = true;
      } else {
        io_fail("'" + path + "': pixel_position_reciprocal has shape " + dims_string(dims) +
                ", expected " + dims_string(first) + " (nufftmp) or " + dims_string(last) +
                " (spinifel/skopi) for intensities of detector shape " + dims_string(det));
      }
    }
    info.layout = det.size() == 3 || info.positions_last ? DataLayout::Spinifel
                                                         : DataLayout::Nufftmp;
    // The unit of the positions from their size (io.hpp): 1/m above 1e3, else 1/Angstrom.
    const auto pos = read_positions(f.get(), path, info);
    const std::int64_t npix = info.npix();
    double qmax = 0;
    for (std::int64_t p = 0; p < npix; ++p)
      qmax = std::max(qmax, std::sqrt(pos[p] * pos[p] + pos[npix + p] * pos[npix + p] +
                                      pos[2 * npix + p] * pos[2 * npix + p]));
    info.position_unit = qmax > 1e3 ? 1e-10 : 1.0;
    if (has_dataset(f.get(), "orientations")) {
      Handle d = open_dataset(f.get(), path, "orientations");
      auto dims = dataset_dims(d.get(), path, "orientations");
      const auto n = static_cast<hsize_t>(info.n_images);
      const bool ok = (dims.size() == 2 && dims[0] == n && dims[1] == 4) ||
                      (dims.size() == 3 && dims[0] == n && dims[1] == 1 && dims[2] == 4);
      if (!ok)
        io_fail("'" + path + "': orientations has shape " + dims_string(dims) + ", expected [" +
                std::to_string(info.n_images) + ", 4] or [" + std::to_string(info.n_images) +
                ", 1, 4] (w, x, y, z)");
      info.has_orientations = true;
    }
    info.file_convention = info.layout == DataLayout::Spinifel ? QuaternionConvention::Particle
                                                               : QuaternionConvention::Lattice;
    const std::string conv = string_attribute(f.get(), "quaternion_convention");
    if (!conv.empty()) {
      try {
        info.file_convention = parse_convention(conv);
      } catch (const Error&) {
        io_fail("'" + path + "': attribute quaternion_convention = '" + conv +
                "' (lattice or particle)");
      }
    }
    if (has_dataset(f.get(), "volume")) {
      Handle d = open_dataset(f.get(), path, "volume");
      auto dims = dataset_dims(d.get(), path, "volume");
      info.volume_complex = h5::element_kind(d.get(), path, "volume") == h5::ElementKind::Complex;
      // A volume of the wrong shape is no reason to refuse the data: the scores report and
      // skip it (truth_volume.cpp).
      if (dims.size() == 3 && dims[0] == dims[1] && dims[1] == dims[2] && dims[0] > 0) {
        info.has_volume = true;
        info.volume_M = static_cast<std::int64_t>(dims[0]);
      }
    }
    std::ostringstream s;
    s << layout_name(info.layout) << " layout: " << info.n_images << " images of "
      << (info.panels > 1 ? std::to_string(info.panels) + " panels x " : "") << info.ny << " x "
      << info.nx << " pixels, positions in "
      << (info.position_unit == 1 ? "1/Angstrom" : "1/m (converted to 1/Angstrom)")
      << (info.has_orientations ? std::string(", orientations (") +
                                      convention_name(info.file_convention) + " convention)"
                                : std::string(""));
    if (has_dataset(f.get(), "volume"))
      s << ", volume "
        << (info.has_volume ? (info.volume_complex ? "complex " : "real ") +
                                  std::to_string(info.volume_M) + "^3"
                            : std::string("of no cube shape"));
    info.summary = s.str();
  });
  return info;
}

LocalImages read_local_images(MPI_Comm comm, const std::string& path, const DataInfo& info,
                              bool with_orientations,
                              std::optional<QuaternionConvention> convention) {
  LocalImages out;
  const int rank = dist::detail::comm_rank(comm), size = dist::detail::comm_size(comm);
  out.share = {dist::detail::share_offset(info.n_images, size, rank),
               dist::detail::share_count(info.n_images, size, rank)};
  const QuaternionConvention conv = convention.value_or(info.file_convention);
  agreed(comm, [&] {
    if (with_orientations && !info.has_orientations)
      io_fail("'" + path + "': data set 'orientations' is missing (needed for known orientations)");
    Handle f = open_file(path);
    const std::size_t npix = static_cast<std::size_t>(info.npix());
    {
      Handle d = open_dataset(f.get(), path, "intensities");
      auto dims = dataset_dims(d.get(), path, "intensities");
      out.intensities.resize(static_cast<std::size_t>(out.share.count) * npix);
      read_rows(d.get(), H5T_NATIVE_FLOAT, dims, out.share.first, out.share.count,
                out.intensities.data(), path, "intensities");
      check_finite(out.intensities.data(), out.intensities.size(), out.share.first * npix, path,
                   "intensities");
    }
    out.positions = read_positions(f.get(), path, info);
    for (auto& v : out.positions) v *= info.position_unit;
    if (with_orientations) {
      Handle d = open_dataset(f.get(), path, "orientations");
      auto dims = dataset_dims(d.get(), path, "orientations");
      std::vector<double> q(static_cast<std::size_t>(out.share.count) * 4);
      read_rows(d.get(), H5T_NATIVE_DOUBLE, dims, out.share.first, out.share.count, q.data(),
                path, "orientations");
      check_finite(q.data(), q.size(), out.share.first * 4, path, "orientations");
      out.orientations.resize(static_cast<std::size_t>(out.share.count));
      for (std::int64_t i = 0; i < out.share.count; ++i) {
        const Quaternion qi{q[4 * i], q[4 * i + 1], q[4 * i + 2], q[4 * i + 3]};
        const double n2 = qi.w * qi.w + qi.x * qi.x + qi.y * qi.y + qi.z * qi.z;
        if (std::fabs(n2 - 1) > 1e-3)
          io_fail("'" + path + "': orientations[" + std::to_string(out.share.first + i) +
                  "] is not a unit quaternion (|q|^2 = " + std::to_string(n2) + ")");
        out.orientations[i] = to_lattice(quat_normalized(qi), conv);
      }
    }
  });
  return out;
}

}  // namespace nufftmp::mtip
