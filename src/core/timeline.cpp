#include "cudist/core/timeline.hpp"

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>
#include <vector>

#include <unistd.h>

#include "core/detail/expects.hpp"

namespace cudist {
namespace {

struct Span {
  std::string name;
  std::int64_t bytes;
  int thread;
  std::int64_t start_ns, end_ns;
};

std::int64_t now_ns() {
  static auto const epoch = std::chrono::steady_clock::now();
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - epoch).count();
}

/// `path` with each "%p" replaced by the process id.
std::string with_process_id(std::string path) {
  std::string const pid = std::to_string(static_cast<long long>(getpid()));
  for (std::size_t at = path.find("%p"); at != std::string::npos; at = path.find("%p", at + pid.size())) {
    path.replace(at, 2, pid);
  }
  return path;
}

/// `text` as the inside of a JSON string.
std::string json_escaped(std::string const& text) {
  std::string out;
  for (char const c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char code[8];
      std::snprintf(code, sizeof code, "\\u%04x", static_cast<unsigned>(c));
      out += code;
    } else {
      out += c;
    }
  }
  return out;
}

/// Threads numbered in the order they first record, so a trace reads the same from run to run.
int thread_number() {
  static std::atomic<int> next{0};
  thread_local int const number = next++;
  return number;
}

class Timeline {
 public:
  Timeline() {
    if (char const* path = std::getenv("CUDIST_TIMELINE"); path != nullptr && *path != '\0') {
      record_to(path);
      std::atexit([] {
        try {
          timeline().write();
        } catch (Error const& e) {
          std::fprintf(stderr, "cudist: %s\n", e.what());
        }
      });
    }
  }

  static Timeline& timeline() {
    static auto* const t = new Timeline;  // never destroyed: spans may end during static teardown
    return *t;
  }

  bool on() const noexcept { return on_.load(std::memory_order_relaxed); }

  void add(Span const& s) {
    std::lock_guard<std::mutex> const lock(mutex_);
    spans_.push_back(s);
  }

  void record_to(std::string const& path) {
    std::lock_guard<std::mutex> const lock(mutex_);
    path_ = with_process_id(path);
    spans_.clear();
    on_.store(!path.empty(), std::memory_order_relaxed);
  }

  void write() {
    std::lock_guard<std::mutex> const lock(mutex_);
    if (!on()) return;
    std::FILE* f = std::fopen(path_.c_str(), "w");
    if (f == nullptr) CUDIST_THROW(FileError, "CUDIST_TIMELINE: cannot write " << path_);
    std::fprintf(f, "{\"displayTimeUnit\": \"ms\", \"traceEvents\": [");
    for (std::size_t i = 0; i < spans_.size(); ++i) {
      Span const& s = spans_[i];
      std::fprintf(f, "%s\n{\"name\": \"%s\", \"ph\": \"X\", \"pid\": 1, \"tid\": %d, \"ts\": %.3f, \"dur\": %.3f",
                   i == 0 ? "" : ",", json_escaped(s.name).c_str(), s.thread, 1e-3 * static_cast<double>(s.start_ns),
                   1e-3 * static_cast<double>(s.end_ns - s.start_ns));
      if (s.bytes >= 0) std::fprintf(f, ", \"args\": {\"bytes\": %lld}", static_cast<long long>(s.bytes));
      std::fprintf(f, "}");
    }
    std::fprintf(f, "\n]}\n");
    bool const failed = std::ferror(f) != 0;
    if (std::fclose(f) != 0 || failed) CUDIST_THROW(FileError, "CUDIST_TIMELINE: cannot write " << path_);
  }

 private:
  std::atomic<bool> on_{false};
  std::mutex mutex_;
  std::string path_;
  std::vector<Span> spans_;
};

}  // namespace

bool timeline_on() noexcept { return Timeline::timeline().on(); }

TimelineSpan::TimelineSpan(char const* name, std::int64_t bytes) noexcept
    : name_(name), bytes_(bytes), start_ns_(timeline_on() ? now_ns() : -1) {}

TimelineSpan::~TimelineSpan() {
  if (start_ns_ < 0) return;
  try {
    Timeline::timeline().add({name_, bytes_, thread_number(), start_ns_, now_ns()});
  } catch (...) {  // out of memory for the record: the span is lost, not the call
  }
}

void timeline_record_to(std::string const& path) { Timeline::timeline().record_to(path); }

void timeline_write() { Timeline::timeline().write(); }

}  // namespace cudist
