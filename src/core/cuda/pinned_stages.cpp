#include "core/cuda/pinned_stages.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <vector>

#include "core/cuda/check.hpp"

namespace cudist::detail::cuda {
namespace {

constexpr std::size_t kStageBytes = std::size_t{8} << 20;
constexpr int kStages = 4;         // per copy: one on the host side, the others queued or in the copy engine
constexpr int kHostThreads = 8;    // host threads filling or draining a stage (a memcpy: memory bound)
// Contiguous bytes per thread and step: 1 MiB for uploads (48 GB/s in run 35; 256 KiB read 45.7 in
// run 49); 256 KiB for downloads, so that a 1.6 MB answer still spreads over the threads.
constexpr std::size_t kUploadPiece = std::size_t{1} << 20;
constexpr std::size_t kDownloadPiece = std::size_t{256} << 10;

/// Page-locked stages kept for the process. Each copy takes its own, so that device sets'
/// concurrent copies (a thread per GPU) never share one. Portable: any GPU may use them.
class StagePool {
 public:
  void* take() {
    {
      std::lock_guard<std::mutex> const lock(mutex_);
      if (!free_.empty()) {
        void* const p = free_.back();
        free_.pop_back();
        return p;
      }
    }
    void* p = nullptr;
    if (cudaHostAlloc(&p, kStageBytes, cudaHostAllocPortable) != cudaSuccess) {
      cudaGetLastError();
      return nullptr;
    }
    return p;
  }

  void give(void* p) {
    std::lock_guard<std::mutex> const lock(mutex_);
    free_.push_back(p);
  }

 private:
  std::mutex mutex_;
  std::vector<void*> free_;
};

StagePool& stage_pool() {
  static auto* const pool = new StagePool;  // never destroyed: may be used during static teardown
  return *pool;
}

/// One copy's stages, each with the event that tells when the copy engine is done with it (done
/// reading it for an upload, writing it for a download). The destructor waits for those copies
/// before the stages go back to the pool, so that an exception halfway never hands a stage the
/// copy engine still uses to another copy.
class Stages {
 public:
  explicit Stages(int wanted) {
    for (int s = 0; s < wanted; ++s) {
      void* const buffer = stage_pool().take();
      if (buffer == nullptr) break;
      cudaEvent_t event = nullptr;
      if (cudaEventCreateWithFlags(&event, cudaEventDisableTiming) != cudaSuccess) {
        cudaGetLastError();
        stage_pool().give(buffer);
        break;
      }
      stages_.push_back({static_cast<char*>(buffer), event, false});
    }
  }

  ~Stages() {
    for (Stage& s : stages_) {
      if (s.recorded) cudaEventSynchronize(s.event);
      cudaEventDestroy(s.event);
      stage_pool().give(s.buffer);
    }
  }

  Stages(Stages const&) = delete;
  Stages& operator=(Stages const&) = delete;

  int count() const { return static_cast<int>(stages_.size()); }

  /// Stage i, once the copy engine is done with it.
  char* ready(int i) {
    Stage& s = stages_[i];
    if (s.recorded) CUDIST_CUDA_TRY(cudaEventSynchronize(s.event));
    s.recorded = false;
    return s.buffer;
  }

  void record(int i, cudaStream_t stream) {
    CUDIST_CUDA_TRY(cudaEventRecord(stages_[i].event, stream));
    stages_[i].recorded = true;
  }

 private:
  struct Stage {
    char* buffer;
    cudaEvent_t event;
    bool recorded;
  };
  std::vector<Stage> stages_;
};

/// Rows [0, rows) of `width` bytes from `from` (rows `fpitch` apart) to `to` (rows `tpitch`
/// apart), by several threads, in pieces of `piece` bytes where both are contiguous.
void copy_rows(char* to, std::size_t tpitch, char const* from, std::size_t fpitch, std::size_t width,
               std::size_t rows, std::size_t piece) {
  if (fpitch == width && tpitch == width) {
    // Contiguous: equal pieces of bytes, whatever the rows' width.
    std::size_t const bytes = width * rows;
    auto const pieces = static_cast<std::int64_t>((bytes + piece - 1) / piece);
#pragma omp parallel for num_threads(kHostThreads) schedule(static)
    for (std::int64_t p = 0; p < pieces; ++p) {
      std::size_t const begin = static_cast<std::size_t>(p) * piece;
      std::memcpy(to + begin, from + begin, std::min(piece, bytes - begin));
    }
    return;
  }
#pragma omp parallel for num_threads(kHostThreads) schedule(static)
  for (std::int64_t r = 0; r < static_cast<std::int64_t>(rows); ++r) {
    auto const i = static_cast<std::size_t>(r);
    std::memcpy(to + i * tpitch, from + i * fpitch, width);
  }
}

/// A copy of `height` rows of `width_bytes` from `src` to `dst` in steps of as many rows as a
/// stage holds, and the stages it takes turns with (none where a row is wider than a stage or none
/// can be had).
struct StagedCopy {
  StagedCopy(void* dst, void const* src, std::size_t width_bytes, std::size_t height)
      : to(static_cast<char*>(dst)),
        from(static_cast<char const*>(src)),
        per_stage(kStageBytes / width_bytes),
        height(height),
        steps(per_stage == 0 ? 0 : (height + per_stage - 1) / per_stage),
        stages(static_cast<int>(std::min<std::size_t>(kStages, steps))) {}

  bool usable() const { return stages.count() > 0; }
  std::size_t count() const { return static_cast<std::size_t>(stages.count()); }
  int stage_of(std::size_t step) const { return static_cast<int>(step % count()); }
  std::size_t first_row(std::size_t step) const { return step * per_stage; }
  std::size_t rows(std::size_t step) const { return std::min(per_stage, height - first_row(step)); }

  char* to;
  char const* from;
  std::size_t per_stage, height, steps;
  Stages stages;
};

}  // namespace

bool upload_through_pinned_stages(void* dst, std::size_t dpitch, void const* src,
                                  std::size_t spitch, std::size_t width_bytes, std::size_t height,
                                  cudaStream_t stream) {
  StagedCopy c(dst, src, width_bytes, height);
  if (!c.usable()) return false;
  for (std::size_t step = 0; step < c.steps; ++step) {
    std::size_t const r0 = c.first_row(step);
    char* const stage = c.stages.ready(c.stage_of(step));
    copy_rows(stage, width_bytes, c.from + r0 * spitch, spitch, width_bytes, c.rows(step), kUploadPiece);
    CUDIST_CUDA_TRY(cudaMemcpy2DAsync(c.to + r0 * dpitch, dpitch, stage, width_bytes, width_bytes, c.rows(step),
                                      cudaMemcpyHostToDevice, stream));
    c.stages.record(c.stage_of(step), stream);
  }
  return true;  // ~Stages waits for the last copies
}

bool download_through_pinned_stages(void* dst, std::size_t dpitch, void const* src,
                                    std::size_t spitch, std::size_t width_bytes, std::size_t height,
                                    cudaStream_t stream) {
  StagedCopy c(dst, src, width_bytes, height);
  if (!c.usable()) return false;
  // The copy engine fills a step's stage; the host drains it, then hands it the step count() on.
  auto const enqueue = [&](std::size_t step) {
    CUDIST_CUDA_TRY(cudaMemcpy2DAsync(c.stages.ready(c.stage_of(step)), width_bytes,
                                      c.from + c.first_row(step) * spitch, spitch, width_bytes, c.rows(step),
                                      cudaMemcpyDeviceToHost, stream));
    c.stages.record(c.stage_of(step), stream);
  };
  for (std::size_t step = 0; step < c.count(); ++step) enqueue(step);
  for (std::size_t step = 0; step < c.steps; ++step) {
    char const* const stage = c.stages.ready(c.stage_of(step));
    copy_rows(c.to + c.first_row(step) * dpitch, dpitch, stage, width_bytes, width_bytes, c.rows(step),
              kDownloadPiece);
    if (step + c.count() < c.steps) enqueue(step + c.count());
  }
  return true;
}

}  // namespace cudist::detail::cuda
