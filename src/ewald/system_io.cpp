// read_system / write_system: the root reads or writes the whole file (system_files.hpp);
// the ions are scattered to near-equal shares, or gathered, by dist's scatter and gather.
#include <string>

#include "dist/agree.hpp"
#include "dist/collectives.hpp"
#include "fileio/durable_replace.hpp"
#include "nufftmp/errors.hpp"
#include "nufftmp/ewald.hpp"
#include "system_files.hpp"

namespace nufftmp::ewald {

namespace {

enum class Format { Xyz, Hdf5 };

Format format_of(const std::string& path) {
  auto ends = [&](const std::string& e) {
    return path.size() >= e.size() && path.compare(path.size() - e.size(), e.size(), e) == 0;
  };
  if (ends(".xyz")) return Format::Xyz;
  if (ends(".h5") || ends(".hdf5")) return Format::Hdf5;
  throw Error(ErrorCode::InvalidArgument,
              "ewald: '" + path + "': unknown format (the name must end in .xyz, .h5 or .hdf5)");
}

void check_root(const dist::Context& ctx, int root, const char* what) {
  if (root < 0 || root >= ctx.size())
    throw Error(ErrorCode::InvalidArgument, std::string("ewald::") + what + ": root = " +
                                                std::to_string(root) + " outside [0, " +
                                                std::to_string(ctx.size()) + ")");
}

}  // namespace

System read_system(const dist::Context& ctx, const std::string& path, int root) {
  check_root(ctx, root, "read_system");
  System all;
  dist::detail::agreed(ctx.comm(), [&] {
    if (ctx.rank() != root) return;
    all = format_of(path) == Format::Xyz ? detail::read_xyz(path) : detail::read_hdf5(path);
  });
  System mine;
  mine.box = all.box;
  dist::detail::bcast(ctx.comm(), mine.box.L.data(), 3, root);
  auto pos = dist::scatter_points(ctx, 3, all.size(), all.x.data(), all.y.data(), all.z.data(),
                                  root);
  auto q = dist::scatter_points(ctx, 1, all.size(), all.q.data(),
                                static_cast<const double*>(nullptr),
                                static_cast<const double*>(nullptr), root);
  mine.x = std::move(pos.x);
  mine.y = std::move(pos.y);
  mine.z = std::move(pos.z);
  mine.q = std::move(q.x);
  return mine;
}

void write_system(const dist::Context& ctx, const std::string& path, const System& local,
                  int root) {
  check_root(ctx, root, "write_system");
  dist::detail::agreed(ctx.comm(), [&] {
    (void)format_of(path);
    const auto n = local.q.size();
    if (local.x.size() != n || local.y.size() != n || local.z.size() != n)
      throw Error(ErrorCode::InvalidArgument, "ewald::write_system: x, y, z and q differ in size");
  });
  System all;
  all.box = local.box;
  const auto n = local.size();
  all.x = dist::gather_to_root(ctx, local.x.data(), n, root);
  all.y = dist::gather_to_root(ctx, local.y.data(), n, root);
  all.z = dist::gather_to_root(ctx, local.z.data(), n, root);
  all.q = dist::gather_to_root(ctx, local.q.data(), n, root);
  dist::detail::agreed(ctx.comm(), [&] {
    if (ctx.rank() != root) return;
    // Atomic and durable: the file goes to a temporary next to the target and replaces it on
    // commit (a crash leaves the old file or the new one, whole; a directory or a device is
    // refused by name).
    fileio::DurableReplacement out(path);
    if (format_of(path) == Format::Xyz)
      detail::write_xyz(out.temp_path(), all);
    else
      detail::write_hdf5(out.temp_path(), all);
    out.commit();
  });
}

}  // namespace nufftmp::ewald
