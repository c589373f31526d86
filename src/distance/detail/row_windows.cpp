#include "distance/detail/row_windows.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>

#include "core/detail/cuda_runtime.hpp"
#include "core/detail/expects.hpp"
#include "core/detail/interrupt_check.hpp"
#include "core/detail/memory.hpp"
#include "core/detail/progress_report.hpp"
#include "cudist/core/array.hpp"
#include "cudist/core/memory_budget.hpp"
#include "distance/detail/backend.hpp"

namespace cudist::detail {
namespace {

// Windows of at most 256 MB: at the ~50 GB/s of a PCIe 5 x16 link a window's copy takes ~5 ms,
// so the per-window launch and synchronisation (~10-20 us) cost well under 1%, and the first
// window, whose copy nothing overlaps, is a negligible share of an output larger than the GPU.
constexpr double kMaxWindowBytes = 256e6;
// Two windows in flight: one kernel runs while the previous window's copy to the host does.
constexpr int kWindowsInFlight = 2;
// Without a budget, windows use at most this share of the GPU's free memory (the allocator and
// the context keep some for themselves).
constexpr double kFreeMemoryShare = 0.9;
// Host copies from staging buffers into out run in pieces of 1 MB over all cores.
constexpr std::int64_t kCopyPieceBytes = 1 << 20;

/// The part of problem.out (the whole result) that holds rows r0 .. r1 - 1.
MatrixView out_window(PairwiseProblem const& p, std::int64_t r0, std::int64_t r1) {
  std::size_t const es = size_of(p.out.dtype);
  char* const base = static_cast<char*>(p.out.data);
  if (p.layout == OutputLayout::kCondensed) {
    std::int64_t const first = condensed_row_start(p.x.rows, r0);
    std::int64_t const count = condensed_row_start(p.x.rows, r1) - first;
    return {base + first * es, 1, count, count, p.out.dtype, p.out.memory};
  }
  return {base + r0 * p.out.stride * es, r1 - r0, p.out.cols, p.out.stride, p.out.dtype, p.out.memory};
}

/// A dense matrix of `w`'s shape at `data`.
MatrixView dense_like(MatrixView w, void* data, Memory memory) {
  return {data, w.rows, w.cols, w.cols, w.dtype, memory};
}

/// Copies host rows src -> dst (same shape) on every core: one core's memcpy runs well below the
/// device-to-host bandwidth it has to keep up with.
void copy_on_all_cores(ConstMatrixView src, MatrixView dst) {
  std::size_t const es = size_of(dst.dtype);
  std::int64_t const row_bytes = dst.cols * static_cast<std::int64_t>(es);
  std::int64_t const pieces_per_row = (row_bytes + kCopyPieceBytes - 1) / kCopyPieceBytes;
#pragma omp parallel for schedule(static)
  for (std::int64_t t = 0; t < dst.rows * pieces_per_row; ++t) {
    std::int64_t const r = t / pieces_per_row;
    std::int64_t const b0 = (t % pieces_per_row) * kCopyPieceBytes;
    std::memcpy(static_cast<char*>(dst.data) + r * dst.stride * es + b0,
                static_cast<char const*>(src.data) + r * src.stride * es + b0,
                static_cast<std::size_t>(std::min(kCopyPieceBytes, row_bytes - b0)));
  }
}

void run_cpu_windows(char const* who, PairwiseProblem const& problem, std::int64_t rows_per_window,
                     std::int64_t first, std::int64_t last) {
  for (std::int64_t r0 = first; r0 < last; r0 += rows_per_window) {
    throw_if_interrupted(who);
    PairwiseProblem window = problem;
    window.row_begin = r0;
    window.row_end = std::min(last, r0 + rows_per_window);
    window.out = out_window(problem, window.row_begin, window.row_end);
    cpu::pairwise(window);
    report_progress(who, window.row_end - first, last - first);
  }
}

/// One window in flight: its device buffer, its page-locked staging buffer (none when out is
/// page-locked itself), its stream, and the rows it holds (r0 == r1: none).
struct Slot {
  StreamHandle stream{nullptr, cuda_stream_destroy};
  PinnedHandle staging{nullptr, cuda_host_free};
  Array block;
  std::int64_t r0 = 0, r1 = 0;
};

/// The slots of a pipeline; destroying it waits for their streams first, so that no copy is
/// still writing into a buffer being freed (an error or an interrupt mid-way).
struct Slots {
  std::array<Slot, kWindowsInFlight> slot;
  ~Slots() {
    for (Slot& s : slot) {
      if (!s.stream) continue;
      try {
        cuda_stream_synchronize(s.stream.get());
      } catch (...) {  // the error that unwinds us is the one to report
      }
    }
  }
};

void run_cuda_windows(Resources const& res, char const* who, PairwiseProblem const& problem,
                      std::int64_t rows_per_window, std::int64_t first, std::int64_t last) {
  std::uint64_t const requests = interrupt_requests();
  std::size_t const es = size_of(problem.out.dtype);
  bool const direct = cuda_pointer_is_pinned_host(problem.out.data);
  MatrixView const largest = out_window(problem, first, std::min(last, first + rows_per_window));  // the first
  std::size_t const window_bytes = static_cast<std::size_t>(largest.size()) * es;

  // Each slot's stream starts after the work already queued on res.stream (staged and prepared
  // inputs, the buffers' stream-ordered allocations).
  Slots slots;
  for (Slot& s : slots.slot) {
    s.block = Array::allocate(largest.rows, largest.cols, largest.dtype, res.device, res.stream);
    if (!direct) s.staging.reset(cuda_host_alloc(window_bytes, who));
    s.stream.reset(cuda_stream_create());
  }
  EventHandle const inputs_ready(cuda_event_create(), cuda_event_destroy);
  cuda_event_record(inputs_ready.get(), res.stream);
  for (Slot& s : slots.slot) cuda_stream_wait_event(s.stream.get(), inputs_ready.get());

  auto const finish = [&](Slot& s) {
    if (s.r1 == s.r0) return;
    cuda_stream_synchronize(s.stream.get());
    throw_if_interrupted(who, requests);  // a stopped kernel left this window unfinished
    MatrixView const place = out_window(problem, s.r0, s.r1);
    if (!direct) copy_on_all_cores(dense_like(place, s.staging.get(), Memory::kHost), place);
    report_progress(who, s.r1 - first, last - first);
    s.r0 = s.r1 = 0;
  };

  std::int64_t windows = 0;
  for (std::int64_t r0 = first; r0 < last; r0 += rows_per_window, ++windows) {
    Slot& s = slots.slot[windows % kWindowsInFlight];
    finish(s);  // the window before the previous one: its buffers are free again
    throw_if_interrupted(who);
    PairwiseProblem window = problem;
    window.row_begin = r0;
    window.row_end = std::min(last, r0 + rows_per_window);
    MatrixView const place = out_window(problem, window.row_begin, window.row_end);
    window.out = dense_like(place, s.block.data(), Memory::kDevice);
    cuda::pairwise(window, s.stream.get());
    std::size_t const width = static_cast<std::size_t>(place.cols) * es;
    cuda_memcpy_2d_async(direct ? place.data : s.staging.get(),
                         direct ? static_cast<std::size_t>(place.stride) * es : width,
                         s.block.data(), width, width, static_cast<std::size_t>(place.rows),
                         s.stream.get());
    s.r0 = window.row_begin;
    s.r1 = window.row_end;
  }
  for (int k = 0; k < kWindowsInFlight; ++k) finish(slots.slot[(windows + k) % kWindowsInFlight]);
}

}  // namespace

std::int64_t window_rows(Resources const& res, char const* who, Memory out_memory, std::int64_t rows,
                         double row_bytes, double total_bytes) {
  bool const gpu = res.device.is_cuda();
  if (rows == 0 || row_bytes <= 0) return 0;
  if (out_memory != Memory::kHost || (!gpu && res.memory_budget == 0)) return 0;
  double const room = res.memory_budget != 0
                          ? static_cast<double>(res.memory_budget)
                          : kFreeMemoryShare * static_cast<double>(available_memory(res.device));
  if (total_bytes <= room) return 0;
  if (room < kWindowsInFlight * row_bytes) {
    CUDIST_THROW(OutOfMemory, who << ": the output is streamed to host memory in windows of rows, "
                                  << "but two windows of one row (" << format_bytes(2 * row_bytes)
                                  << ") exceed the " << format_bytes(room) << " "
                                  << (res.memory_budget != 0 ? "of the memory budget" : "available on " + res.device.str()));
  }
  double const window_bytes = std::min(room / kWindowsInFlight, kMaxWindowBytes);
  return std::clamp<std::int64_t>(static_cast<std::int64_t>(window_bytes / row_bytes), 1, rows);
}

void run_pairwise_in_windows(Resources const& res, char const* who, PairwiseProblem const& problem,
                             std::int64_t rows_per_window, std::int64_t first, std::int64_t last) {
  if (last < 0) last = problem.x.rows;
  if (res.device.is_cuda()) {
    run_cuda_windows(res, who, problem, rows_per_window, first, last);
  } else {
    run_cpu_windows(who, problem, rows_per_window, first, last);
  }
}

}  // namespace cudist::detail
