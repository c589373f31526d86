// Where a call's host time goes: named spans of its steps (the call, uploads, downloads, waits for
// the GPU, host merges, each GPU's part of a device set), per host thread, written as a Chrome
// trace (chrome://tracing, ui.perfetto.dev) when the process exits. On when the environment
// variable CUDIST_TIMELINE names the file to write ("%p" in it becomes the process id, so that
// several processes, such as Dask workers, write a file each); off, a span costs one atomic load.
//
// Why in the library: the host side of a call from NumPy (staging, page faults of new arrays,
// the answer's way back) took more time than its kernels in the multi-GPU work of issue 14, and
// each diagnosis had to add timestamps of its own and take them out again (docs/tuning.md, runs
// 31-32 and 40). Kernels are not spans: a step that waits for them (a synchronization, a download)
// shows their time.
#pragma once

#include <cstdint>
#include <string>

namespace cudist {

/// Whether spans are being recorded.
bool timeline_on() noexcept;

/// Records [construction, destruction) on the calling thread under `name` (read when the span
/// ends: it must live as long as the span), with a byte count where one is given. Callers may
/// mark steps of their own the same way.
class TimelineSpan {
 public:
  explicit TimelineSpan(char const* name, std::int64_t bytes = -1) noexcept;
  ~TimelineSpan();
  TimelineSpan(TimelineSpan const&) = delete;
  TimelineSpan& operator=(TimelineSpan const&) = delete;

 private:
  char const* name_;
  std::int64_t bytes_;
  std::int64_t start_ns_;  // -1: not recording
};

/// Starts recording into `path` (as CUDIST_TIMELINE does; "%p" becomes the process id), dropping
/// what was recorded before; an empty path stops recording.
void timeline_record_to(std::string const& path);

/// Writes the spans recorded so far to the file, replacing it, and goes on recording. Throws
/// FileError naming the file when it cannot be written. Nothing when not recording.
void timeline_write();

}  // namespace cudist
