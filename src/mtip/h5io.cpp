// HDF5 results and single data sets through the serial C library (the input's layouts and
// each rank's share of the images: data_layout.cpp). All writes go through one process, to a
// temporary file renamed over the target on commit (fileio::DurableReplacement: unique name,
// fsync before and after the rename), so a killed job or a crashed node never leaves a torn
// file.
#include "h5/h5_handle.hpp"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <sstream>

#include "dist/agree.hpp"
#include "dist/collectives.hpp"
#include "fileio/durable_replace.hpp"
#include "nufftmp/mtip.hpp"

namespace nufftmp::mtip {

using dist::detail::agreed;

using h5::check_finite;
using h5::dataset_dims;
using h5::Handle;
using h5::io_fail;
using h5::open_dataset;
using h5::open_file;
using h5::read_rows;

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
  fileio::DurableReplacement replacement;  // removes the temporary file unless committed
  std::string tmp;
  hid_t file = -1;
};

namespace {
// The replacement of an existing file only when the caller allows it.
const std::string& allowed(const std::string& path, IfExists if_exists) {
  if (if_exists == IfExists::Refuse && fileio::resolve_replace_target(path).exists)
    io_fail("'" + path + "' exists: refusing to replace it");
  return path;
}
}  // namespace

H5Writer::H5Writer(const std::string& path, IfExists if_exists)
    : impl_(std::make_unique<Impl>(allowed(path, if_exists))) {
  h5::quiet();
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

void H5Writer::write(const std::string& name, const std::vector<std::int64_t>& dims,
                     const std::complex<double>* data) {
  Handle type(H5Tcreate(H5T_COMPOUND, 2 * sizeof(double)), H5Tclose);
  H5Tinsert(type.get(), "r", 0, H5T_NATIVE_DOUBLE);
  H5Tinsert(type.get(), "i", sizeof(double), H5T_NATIVE_DOUBLE);
  // std::complex<double> is two doubles, real first (the standard's array-compatibility rule).
  write_any(impl_->file, impl_->tmp, name, dims, type.get(), type.get(), data);
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
