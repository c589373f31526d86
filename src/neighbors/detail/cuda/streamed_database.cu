#include "neighbors/detail/cuda/streamed_database.hpp"

#include <algorithm>
#include <vector>

#include "core/detail/cuda_runtime.hpp"
#include "core/detail/split.hpp"
#include "cudist/core/array.hpp"
#include "cudist/core/timeline.hpp"

namespace cudist::neighbors::detail::cuda {
namespace {

using cudist::detail::cuda_event_create;
using cudist::detail::cuda_event_destroy;
using cudist::detail::cuda_event_record;
using cudist::detail::cuda_stream_create;
using cudist::detail::cuda_stream_destroy;
using cudist::detail::cuda_stream_wait_event;
using cudist::detail::EventHandle;
using cudist::detail::StreamHandle;

/// The device rows a pending y is copied into (plan_select allocated them writable).
MatrixView y_destination(SelectProblem const& p) {
  ConstMatrixView const y = p.pairwise.y;
  return {const_cast<void*>(y.data), y.rows, y.cols, y.stride, y.dtype, y.memory};
}

}  // namespace

SelectProblem with_y_copied(SelectProblem p, cudaStream_t stream) {
  if (!p.y_pending()) return p;
  copy(p.y_host, y_destination(p), stream);
  p.y_host = {};
  return p;
}

void run_bounded_search_streamed(SelectProblem const& p, BoundedForm const& form, FusedLaunch const& f,
                                 SelectArgs const& a, cudaStream_t stream) {
  using cudist::detail::row_slice;
  int const chunks = f.grid.chunks, parts = std::min(chunks, kStreamedParts);
  StreamHandle const copies(cuda_stream_create(), cuda_stream_destroy);
  std::vector<StreamHandle> searches;  // part 0 searches on `stream`
  for (int part = 1; part < parts; ++part) searches.emplace_back(cuda_stream_create(), cuda_stream_destroy);
  EventHandle const event(cuda_event_create(), cuda_event_destroy);
  // All start after what `stream` holds: y's stream-ordered allocation, x's rounding, the
  // workspaces and their fills.
  cuda_event_record(event.get(), stream);
  cuda_stream_wait_event(copies.get(), event.get());
  for (StreamHandle const& s : searches) cuda_stream_wait_event(s.get(), event.get());
  auto const join = [&] {  // the caller frees the workspaces in `stream`'s order
    for (StreamHandle const& s : searches) {
      cuda_event_record(event.get(), s.get());
      cuda_stream_wait_event(stream, event.get());
    }
  };

  MatrixView const y = y_destination(p);
  std::int64_t const row_tiles = f.grid.row_tiles;
  try {
    for (int part = 0; part < parts; ++part) {
      int const c0 = chunks * part / parts, c1 = chunks * (part + 1) / parts;
      // y's rows of chunks c0 .. c1 - 1, as their blocks see them (chunks_outer: chunk c's blocks
      // are c row_tiles .. (c + 1) row_tiles - 1).
      std::int64_t const first = f.grid.item(c0 * row_tiles).col_begin;
      std::int64_t const last = f.grid.item(c1 * row_tiles - 1).col_end;
      {
        cudist::TimelineSpan const span("a part of the database to the GPU");
        copy(row_slice(p.y_host, {first, last}), row_slice(y, {first, last}), copies.get());
      }
      cudaStream_t const s = part == 0 ? stream : static_cast<cudaStream_t>(searches[part - 1].get());
      cuda_event_record(event.get(), copies.get());  // page-locked rows copy asynchronously
      cuda_stream_wait_event(s, event.get());
      round_y_rows(p, form, first, last, s);
      FusedLaunch chunk = f;
      chunk.grid.first_block = c0 * row_tiles;
      chunk.blocks = (c1 - c0) * row_tiles;
      run_bounded_search(form, chunk, a, s);
    }
  } catch (...) {
    join();
    throw;
  }
  join();
}

}  // namespace cudist::neighbors::detail::cuda
