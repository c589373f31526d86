#include "core/detail/expects.hpp"
#include "cudist/io/npy.hpp"
#include "io/detail/file.hpp"

namespace cudist::io {

Array read_matrix(std::string const& path) {
  std::string const ext = detail::lowercase_extension(path);
  if (ext == ".npy") return read_npy(path);
  if (ext == ".fvecs" || ext == ".bvecs" || ext == ".ivecs") return read_vecs(path);
  CUDIST_THROW(FileError, "read_matrix: '" << path << "': unsupported extension '" << ext
                                           << "' (supported: .npy, .fvecs, .bvecs, .ivecs)");
}

}  // namespace cudist::io
