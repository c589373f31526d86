// Readers and writers for the array files cudist's tools accept: NumPy .npy (format 1.0-3.0,
// C or Fortran order) and the TEXMEX .fvecs / .bvecs / .ivecs vector files.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "cudist/core/array.hpp"
#include "cudist/core/matrix_view.hpp"

namespace cudist::io {

/// Reads a .npy file (format 1.0, 2.0 or 3.0) into a dense row-major host array, with one read
/// of the data. Supported dtypes: float16/32/64, uint8, bool (as uint8 holding 0 or 1),
/// int16/32/64, little- or big-endian (swapped to host order). A 2-D array becomes rows x cols
/// (Fortran order is transposed into row-major), a 1-D array 1 x n, a 0-D scalar 1 x 1; 0-row or
/// 0-column arrays are valid and empty. Not supported: int8 and unsigned integers wider than
/// 8 bits, complex, structured dtypes, 3-D and higher.
/// The data must be exactly as long as the shape says: bytes after it are rejected (NumPy ignores
/// them, but they most likely mean the header's shape is wrong).
/// @throw FileError naming the file and what is wrong: missing, bad magic, unsupported version,
///        truncated header, malformed header dict, unsupported dtype (which), 3-D, truncated
///        data (expected vs actual bytes), data after the array.
Array read_npy(std::string const& path);

enum class NpyShape { kMatrix, kVector };

/// Writes m (host or device memory, any row stride) as a C-order little-endian .npy file: format
/// 1.0 (2.0 when the header does not fit 1.0's 16-bit length), with the header padded so that
/// the data starts on a 64-byte boundary, as NumPy does. kMatrix writes shape (rows, cols);
/// kVector writes the 1-D shape (rows * cols,) of the elements in row-major order.
/// @note Device data is first copied to the host, which synchronizes the default stream.
/// @throw InvalidArgument for bfloat16 (no .npy dtype) or an invalid view; the file is not
///        created then.
/// @throw FileError naming the path when it cannot be created or written (e.g. a full disk).
void write_npy(std::string const& path, ConstMatrixView m, NpyShape shape = NpyShape::kMatrix);

/// A .npy file that a computation writes in place, for results too large to hold in memory
/// beside their file (out-of-core cdist / pdist): the file is created under a temporary name
/// next to `path`, with its header written and its whole size reserved on disk (a full disk is
/// reported here, not half way), and mapped into memory; view() is where the result goes, and
/// commit() moves the file to `path`. Destroyed without commit() (an error, an interrupt), it
/// removes the temporary file, so `path` never holds a partial result. A `path` that is not a
/// regular file (/dev/stdout) gets the data written at commit() from a buffer in memory instead.
class NpyFileOutput {
 public:
  /// @throw InvalidArgument for bfloat16 or a negative shape; FileError naming the path when the
  ///        file cannot be created, sized or mapped (e.g. too little disk space).
  NpyFileOutput(std::string const& path, std::int64_t rows, std::int64_t cols, DType dtype,
                NpyShape shape = NpyShape::kMatrix);
  ~NpyFileOutput();
  NpyFileOutput(NpyFileOutput const&) = delete;
  NpyFileOutput& operator=(NpyFileOutput const&) = delete;

  /// The rows x cols data, dense, in host memory (the file's pages).
  MatrixView view();
  /// Finishes the file and moves it to `path`. @throw FileError naming the path.
  void commit();

 private:
  struct State;
  std::unique_ptr<State> state_;
};

/// Reads .fvecs (float32), .bvecs (uint8) or .ivecs (int32), chosen by the file's extension
/// (any case): each record is a little-endian int32 dimension d > 0 followed by d values, and
/// every record must have the same d. The result is records x d; an empty file gives 0 x 0.
/// @throw FileError naming the file and the problem: another extension (listing the supported
///        ones), missing file, a non-positive dimension, a record whose dimension differs from
///        record 0's (naming its index), or a file size that is not a whole number of records
///        (truncated).
Array read_vecs(std::string const& path);

/// read_npy or read_vecs by extension, in any case (.npy, .fvecs, .bvecs, .ivecs).
/// @throw FileError listing the supported extensions for any other; else as those readers.
Array read_matrix(std::string const& path);

}  // namespace cudist::io
