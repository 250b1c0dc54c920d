// HDF5 data sets of issue 5 through the serial C library. Every rank opens the input read-only
// and reads its own hyperslab of images; all writes go through one process, to a temporary
// file renamed over the target on commit (detail::DurableReplacement: unique name, fsync before
// and after the rename), so a killed job or a crashed node never leaves a torn file.
#include <hdf5.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <sstream>

#include "dist/agree.hpp"
#include "dist/collectives.hpp"
#include "dist/partition.hpp"
#include "durable_replace.hpp"
#include "nufftmp/mtip.hpp"

namespace nufftmp::mtip {

using dist::detail::agreed;

namespace {

// An HDF5 identifier closed by the matching H5*close on scope exit.
class Handle {
 public:
  using Closer = herr_t (*)(hid_t);
  Handle(hid_t id, Closer close) : id_(id), close_(close) {}
  ~Handle() {
    if (id_ >= 0) close_(id_);
  }
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;
  Handle(Handle&& o) noexcept : id_(o.id_), close_(o.close_) { o.id_ = -1; }
  hid_t get() const { return id_; }
  bool ok() const { return id_ >= 0; }

 private:
  hid_t id_;
  Closer close_;
};

[[noreturn]] void io_fail(const std::string& msg) { throw Error(ErrorCode::IoFailure, msg); }

void quiet_hdf5() { H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr); }

std::string dims_string(const std::vector<hsize_t>& d) {
  std::ostringstream s;
  s << "[";
  for (std::size_t i = 0; i < d.size(); ++i) s << (i ? ", " : "") << d[i];
  s << "]";
  return s.str();
}

Handle open_file(const std::string& path) {
  quiet_hdf5();
  Handle f(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
  if (!f.ok()) io_fail("cannot open HDF5 file '" + path + "' for reading");
  return f;
}

bool has_dataset(hid_t file, const std::string& name) {
  return H5Lexists(file, name.c_str(), H5P_DEFAULT) > 0;
}

Handle open_dataset(hid_t file, const std::string& path, const std::string& name) {
  if (!has_dataset(file, name)) io_fail("'" + path + "': data set '" + name + "' is missing");
  Handle d(H5Dopen2(file, name.c_str(), H5P_DEFAULT), H5Dclose);
  if (!d.ok()) io_fail("'" + path + "': cannot open data set '" + name + "'");
  return d;
}

std::vector<hsize_t> dataset_dims(hid_t dset, const std::string& path, const std::string& name) {
  Handle space(H5Dget_space(dset), H5Sclose);
  const int nd = H5Sget_simple_extent_ndims(space.get());
  if (nd < 0) io_fail("'" + path + "': cannot read the shape of '" + name + "'");
  std::vector<hsize_t> dims(static_cast<std::size_t>(nd));
  if (nd > 0) H5Sget_simple_extent_dims(space.get(), dims.data(), nullptr);
  Handle type(H5Dget_type(dset), H5Tclose);
  const H5T_class_t cls = H5Tget_class(type.get());
  if (cls != H5T_FLOAT && cls != H5T_INTEGER)
    io_fail("'" + path + "': data set '" + name + "' is not numeric");
  return dims;
}

// Reads [start, start+count) along the first axis (whole data set when count covers it).
template <typename V>
void read_rows(hid_t dset, hid_t memtype, const std::vector<hsize_t>& dims, hsize_t start,
               hsize_t count, V* out, const std::string& path, const std::string& name) {
  std::vector<hsize_t> off(dims.size(), 0), cnt = dims;
  if (!dims.empty()) {
    off[0] = start;
    cnt[0] = count;
  }
  std::size_t n = 1;
  for (auto c : cnt) n *= c;
  if (n == 0) return;
  Handle fspace(H5Dget_space(dset), H5Sclose);
  if (!dims.empty() &&
      H5Sselect_hyperslab(fspace.get(), H5S_SELECT_SET, off.data(), nullptr, cnt.data(),
                          nullptr) < 0)
    io_fail("'" + path + "': cannot select rows of '" + name + "'");
  Handle mspace(H5Screate_simple(static_cast<int>(cnt.size()), cnt.data(), nullptr), H5Sclose);
  if (H5Dread(dset, memtype, mspace.get(), fspace.get(), H5P_DEFAULT, out) < 0)
    io_fail("'" + path + "': reading data set '" + name + "' failed");
}

template <typename V>
void check_finite(const V* v, std::size_t n, std::size_t offset, const std::string& path,
                  const std::string& name) {
  for (std::size_t i = 0; i < n; ++i)
    if (!std::isfinite(static_cast<double>(v[i]))) {
      std::ostringstream s;
      s << "'" << path << "': data set '" << name << "' has a non-finite value (" << v[i]
        << ") at flat index " << offset + i;
      io_fail(s.str());
    }
}

}  // namespace

DataInfo probe_data(MPI_Comm comm, const std::string& path) {
  DataInfo info;
  agreed(comm, [&] {
    Handle f = open_file(path);
    {
      Handle d = open_dataset(f.get(), path, "intensities");
      auto dims = dataset_dims(d.get(), path, "intensities");
      if (dims.size() != 3 || dims[0] == 0 || dims[1] == 0 || dims[2] == 0)
        io_fail("'" + path + "': intensities has shape " + dims_string(dims) +
                ", expected [n_images, ny, nx] with every size >= 1");
      info.n_images = static_cast<std::int64_t>(dims[0]);
      info.ny = static_cast<std::int64_t>(dims[1]);
      info.nx = static_cast<std::int64_t>(dims[2]);
    }
    {
      Handle d = open_dataset(f.get(), path, "pixel_position_reciprocal");
      auto dims = dataset_dims(d.get(), path, "pixel_position_reciprocal");
      if (dims.size() != 3 || dims[0] != 3 || dims[1] != hsize_t(info.ny) ||
          dims[2] != hsize_t(info.nx))
        io_fail("'" + path + "': pixel_position_reciprocal has shape " + dims_string(dims) +
                ", expected [3, " + std::to_string(info.ny) + ", " + std::to_string(info.nx) +
                "] (from intensities)");
    }
    if (has_dataset(f.get(), "orientations")) {
      Handle d = open_dataset(f.get(), path, "orientations");
      auto dims = dataset_dims(d.get(), path, "orientations");
      if (dims.size() != 2 || dims[0] != hsize_t(info.n_images) || dims[1] != 4)
        io_fail("'" + path + "': orientations has shape " + dims_string(dims) + ", expected [" +
                std::to_string(info.n_images) + ", 4]");
      info.has_orientations = true;
    }
    if (has_dataset(f.get(), "volume")) {
      Handle d = open_dataset(f.get(), path, "volume");
      auto dims = dataset_dims(d.get(), path, "volume");
      if (dims.size() != 3 || dims[0] != dims[1] || dims[1] != dims[2] || dims[0] == 0)
        io_fail("'" + path + "': volume has shape " + dims_string(dims) + ", expected [M, M, M]");
      info.has_volume = true;
      info.volume_M = static_cast<std::int64_t>(dims[0]);
    }
  });
  return info;
}

LocalImages read_local_images(MPI_Comm comm, const std::string& path, const DataInfo& info,
                              bool with_orientations) {
  LocalImages out;
  const int rank = dist::detail::comm_rank(comm), size = dist::detail::comm_size(comm);
  out.share = {dist::detail::share_offset(info.n_images, size, rank),
               dist::detail::share_count(info.n_images, size, rank)};
  agreed(comm, [&] {
    if (with_orientations && !info.has_orientations)
      io_fail("'" + path + "': data set 'orientations' is missing (needed for known orientations)");
    Handle f = open_file(path);
    const std::size_t npix = static_cast<std::size_t>(info.ny * info.nx);
    {
      Handle d = open_dataset(f.get(), path, "intensities");
      auto dims = dataset_dims(d.get(), path, "intensities");
      out.intensities.resize(static_cast<std::size_t>(out.share.count) * npix);
      read_rows(d.get(), H5T_NATIVE_FLOAT, dims, out.share.first, out.share.count,
                out.intensities.data(), path, "intensities");
      check_finite(out.intensities.data(), out.intensities.size(), out.share.first * npix, path,
                   "intensities");
    }
    {
      Handle d = open_dataset(f.get(), path, "pixel_position_reciprocal");
      auto dims = dataset_dims(d.get(), path, "pixel_position_reciprocal");
      out.positions.resize(3 * npix);
      read_rows(d.get(), H5T_NATIVE_DOUBLE, dims, 0, 3, out.positions.data(), path,
                "pixel_position_reciprocal");
      check_finite(out.positions.data(), out.positions.size(), 0, path,
                   "pixel_position_reciprocal");
    }
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
        out.orientations[i] = quat_normalized(qi);
      }
    }
  });
  return out;
}

std::vector<double> read_volume(MPI_Comm comm, const std::string& path, const std::string& name) {
  std::vector<double> v;
  agreed(comm, [&] {
    std::vector<std::int64_t> dims;
    v = read_dataset(path, name, &dims);
    if (dims.size() != 3 || dims[0] != dims[1] || dims[1] != dims[2])
      io_fail("'" + path + "': " + name + " is not a cube [M, M, M]");
    check_finite(v.data(), v.size(), 0, path, name);
  });
  return v;
}

std::vector<double> read_dataset(const std::string& path, const std::string& name,
                                 std::vector<std::int64_t>* dims_out) {
  Handle f = open_file(path);
  Handle d = open_dataset(f.get(), path, name);
  auto dims = dataset_dims(d.get(), path, name);
  std::size_t n = 1;
  for (auto x : dims) n *= x;
  std::vector<double> v(n);
  read_rows(d.get(), H5T_NATIVE_DOUBLE, dims, 0, dims.empty() ? 1 : dims[0], v.data(), path,
            name);
  if (dims_out) dims_out->assign(dims.begin(), dims.end());
  return v;
}

double read_attribute(const std::string& path, const std::string& name) {
  Handle f = open_file(path);
  if (H5Aexists(f.get(), name.c_str()) <= 0)
    io_fail("'" + path + "': attribute '" + name + "' is missing");
  Handle a(H5Aopen(f.get(), name.c_str(), H5P_DEFAULT), H5Aclose);
  double v = 0;
  if (!a.ok() || H5Aread(a.get(), H5T_NATIVE_DOUBLE, &v) < 0)
    io_fail("'" + path + "': cannot read attribute '" + name + "'");
  return v;
}

bool has_attribute(const std::string& path, const std::string& name) {
  Handle f = open_file(path);
  return H5Aexists(f.get(), name.c_str()) > 0;
}

std::string read_string_attribute(const std::string& path, const std::string& name) {
  Handle f = open_file(path);
  if (H5Aexists(f.get(), name.c_str()) <= 0)
    io_fail("'" + path + "': attribute '" + name + "' is missing");
  Handle a(H5Aopen(f.get(), name.c_str(), H5P_DEFAULT), H5Aclose);
  if (!a.ok()) io_fail("'" + path + "': cannot open attribute '" + name + "'");
  Handle type(H5Aget_type(a.get()), H5Tclose);
  if (H5Tget_class(type.get()) != H5T_STRING)
    io_fail("'" + path + "': attribute '" + name + "' is not a string");
  if (H5Tis_variable_str(type.get()) > 0) {  // as h5py writes them
    Handle mem(H5Tcopy(H5T_C_S1), H5Tclose);
    H5Tset_size(mem.get(), H5T_VARIABLE);
    char* p = nullptr;
    if (H5Aread(a.get(), mem.get(), &p) < 0 || !p)
      io_fail("'" + path + "': cannot read attribute '" + name + "'");
    std::string v(p);
    H5free_memory(p);
    return v;
  }
  const std::size_t n = H5Tget_size(type.get());
  std::string v(n, '\0');
  if (n > 0 && H5Aread(a.get(), type.get(), v.data()) < 0)
    io_fail("'" + path + "': cannot read attribute '" + name + "'");
  v.resize(std::strlen(v.c_str()));  // fixed-length strings carry their terminator or padding
  return v;
}

// ---- the atomic writer

struct H5Writer::Impl {
  explicit Impl(const std::string& path) : replacement(path), tmp(replacement.temp_path()) {}
  detail::DurableReplacement replacement;  // removes the temporary file unless committed
  std::string tmp;
  hid_t file = -1;
};

namespace {
// The replacement of an existing file only when the caller allows it.
const std::string& allowed(const std::string& path, IfExists if_exists) {
  if (if_exists == IfExists::Refuse && detail::resolve_replace_target(path).exists)
    io_fail("'" + path + "' exists: refusing to replace it");
  return path;
}
}  // namespace

H5Writer::H5Writer(const std::string& path, IfExists if_exists)
    : impl_(std::make_unique<Impl>(allowed(path, if_exists))) {
  quiet_hdf5();
  // The temporary file exists (created exclusively, empty): HDF5 takes it over.
  impl_->file = H5Fcreate(impl_->tmp.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  if (impl_->file < 0) io_fail("cannot create HDF5 file '" + impl_->tmp + "'");
}

H5Writer::~H5Writer() {
  if (impl_ && impl_->file >= 0) H5Fclose(impl_->file);
}

namespace {
void write_any(hid_t file, const std::string& fname, const std::string& name,
               const std::vector<std::int64_t>& dims, hid_t memtype, hid_t filetype,
               const void* data) {
  std::vector<hsize_t> d(dims.begin(), dims.end());
  Handle space(H5Screate_simple(static_cast<int>(d.size()), d.data(), nullptr), H5Sclose);
  Handle dset(H5Dcreate2(file, name.c_str(), filetype, space.get(), H5P_DEFAULT, H5P_DEFAULT,
                         H5P_DEFAULT),
              H5Dclose);
  if (!space.ok() || !dset.ok()) io_fail("'" + fname + "': cannot create data set '" + name + "'");
  if (H5Dwrite(dset.get(), memtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, data) < 0)
    io_fail("'" + fname + "': writing data set '" + name + "' failed");
}
}  // namespace

void H5Writer::write(const std::string& name, const std::vector<std::int64_t>& dims,
                     const float* data) {
  write_any(impl_->file, impl_->tmp, name, dims, H5T_NATIVE_FLOAT, H5T_IEEE_F32LE, data);
}

void H5Writer::write(const std::string& name, const std::vector<std::int64_t>& dims,
                     const double* data) {
  write_any(impl_->file, impl_->tmp, name, dims, H5T_NATIVE_DOUBLE, H5T_IEEE_F64LE, data);
}

void H5Writer::write_attribute(const std::string& name, double value) {
  Handle space(H5Screate(H5S_SCALAR), H5Sclose);
  Handle a(H5Acreate2(impl_->file, name.c_str(), H5T_IEEE_F64LE, space.get(), H5P_DEFAULT,
                      H5P_DEFAULT),
           H5Aclose);
  if (!a.ok() || H5Awrite(a.get(), H5T_NATIVE_DOUBLE, &value) < 0)
    io_fail("'" + impl_->tmp + "': cannot write attribute '" + name + "'");
}

void H5Writer::write_attribute(const std::string& name, const std::string& value) {
  Handle type(H5Tcopy(H5T_C_S1), H5Tclose);
  H5Tset_size(type.get(), value.size() + 1);
  Handle space(H5Screate(H5S_SCALAR), H5Sclose);
  Handle a(H5Acreate2(impl_->file, name.c_str(), type.get(), space.get(), H5P_DEFAULT,
                      H5P_DEFAULT),
           H5Aclose);
  if (!a.ok() || H5Awrite(a.get(), type.get(), value.c_str()) < 0)
    io_fail("'" + impl_->tmp + "': cannot write attribute '" + name + "'");
}

void H5Writer::commit() {
  if (impl_->file < 0) return;  // committed already
  const herr_t rc = H5Fclose(impl_->file);
  impl_->file = -1;
  if (rc < 0) io_fail("closing '" + impl_->tmp + "' failed");
  impl_->replacement.commit();
}

}  // namespace nufftmp::mtip
