// The HDF5 C library's pieces that the readers and writers of src/mtip and src/ewald share
// (internal: the target nufftmp_h5_internal, included as "h5/h5_handle.hpp"): identifiers
// closed on scope exit, opening files and data sets with errors that name the file and the
// data set, shapes, hyperslab reads and the finiteness check.
#pragma once

#include <hdf5.h>

#include <cmath>
#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

#include "nufftmp/errors.hpp"

namespace nufftmp::h5 {

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

[[noreturn]] inline void io_fail(const std::string& msg) {
  throw Error(ErrorCode::IoFailure, msg);
}

// The library's own error printing is off: every failure becomes an Error naming the file.
inline void quiet() { H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr); }

template <typename D>
std::string dims_string(const std::vector<D>& d) {
  std::ostringstream s;
  s << "[";
  for (std::size_t i = 0; i < d.size(); ++i) s << (i ? ", " : "") << d[i];
  s << "]";
  return s.str();
}

inline Handle open_file(const std::string& path) {
  quiet();
  Handle f(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
  if (!f.ok()) io_fail("cannot open HDF5 file '" + path + "' for reading");
  return f;
}

inline bool has_dataset(hid_t file, const std::string& name) {
  return H5Lexists(file, name.c_str(), H5P_DEFAULT) > 0;
}

inline Handle open_dataset(hid_t file, const std::string& path, const std::string& name) {
  if (!has_dataset(file, name)) io_fail("'" + path + "': data set '" + name + "' is missing");
  Handle d(H5Dopen2(file, name.c_str(), H5P_DEFAULT), H5Dclose);
  if (!d.ok()) io_fail("'" + path + "': cannot open data set '" + name + "'");
  return d;
}

// What a data set's elements are: a number, or a complex number as h5py and numpy store it
// (a compound of two floating-point members named "r" and "i").
enum class ElementKind { Real, Complex };

inline ElementKind element_kind(hid_t dset, const std::string& path, const std::string& name) {
  Handle type(H5Dget_type(dset), H5Tclose);
  const H5T_class_t cls = H5Tget_class(type.get());
  if (cls == H5T_FLOAT || cls == H5T_INTEGER) return ElementKind::Real;
  if (cls == H5T_COMPOUND && H5Tget_nmembers(type.get()) == 2 &&
      H5Tget_member_index(type.get(), "r") >= 0 && H5Tget_member_index(type.get(), "i") >= 0)
    return ElementKind::Complex;
  io_fail("'" + path + "': data set '" + name + "' is not numeric");
}

// The shape of a numeric (or complex) data set.
inline std::vector<hsize_t> dataset_dims(hid_t dset, const std::string& path,
                                         const std::string& name) {
  Handle space(H5Dget_space(dset), H5Sclose);
  const int nd = H5Sget_simple_extent_ndims(space.get());
  if (nd < 0) io_fail("'" + path + "': cannot read the shape of '" + name + "'");
  std::vector<hsize_t> dims(static_cast<std::size_t>(nd));
  if (nd > 0) H5Sget_simple_extent_dims(space.get(), dims.data(), nullptr);
  element_kind(dset, path, name);  // throws unless numeric
  return dims;
}

// Reads [start, start+count) along the first axis (the whole data set when count covers it)
// into out, converted to memtype.
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

}  // namespace nufftmp::h5
