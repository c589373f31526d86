#include "core/detail/split.hpp"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <exception>
#include <memory>
#include <mutex>
#include <thread>

#include "core/detail/cuda_runtime.hpp"
#include "core/detail/expects.hpp"
#include "core/detail/interrupt_check.hpp"
#include "core/detail/memory.hpp"
#include "cudist/core/timeline.hpp"

namespace cudist::detail {

std::vector<RowRange> split_rows(std::int64_t n, std::size_t parts) {
  auto const p = static_cast<std::int64_t>(parts);
  std::vector<RowRange> ranges(parts);
  for (std::int64_t s = 0; s < p; ++s) {
    // The first n % p parts take one row more.
    ranges[s].begin = s * (n / p) + std::min(s, n % p);
    ranges[s].end = ranges[s].begin + n / p + (s < n % p ? 1 : 0);
  }
  return ranges;
}

ConstMatrixView row_slice(ConstMatrixView v, RowRange r) {
  auto const* base = static_cast<char const*>(v.data);
  std::size_t const offset = static_cast<std::size_t>(r.begin * v.stride) * size_of(v.dtype);
  return {r.size() > 0 ? base + offset : v.data, r.size(), v.cols, v.stride, v.dtype, v.memory};
}

MatrixView row_slice(MatrixView v, RowRange r) {
  auto* base = static_cast<char*>(v.data);
  std::size_t const offset = static_cast<std::size_t>(r.begin * v.stride) * size_of(v.dtype);
  return {r.size() > 0 ? base + offset : v.data, r.size(), v.cols, v.stride, v.dtype, v.memory};
}

std::vector<Resources> split_resources(Resources const& res, char const* who) {
  require_device_set(res.devices, who);
  CUDIST_EXPECTS(res.devices.primary() == res.device,
                 who << ": Resources::device is " << res.device.str() << " but the device set "
                     << res.devices.str() << " starts with " << res.devices.primary().str()
                     << "; results are returned on the first device of the set");
  std::vector<Resources> shards;
  for (std::size_t s = 0; s < res.devices.size(); ++s) {
    shards.emplace_back(res.devices.devices[s], s == 0 ? res.stream : nullptr);
    shards.back().memory_budget = res.memory_budget;  // each device streams within the same budget
  }
  return shards;
}

namespace {

/// Host threads kept for the process, worker i running part i of device sets' calls. Why: a thread
/// that ends tears down the OpenMP team its page-locked copies used (pinned_stages.cpp), which held
/// a 2-GPU knn 1.7 ms past the end of its parts (2 x H200, run 197: the parts ended at 22.2 ms, the
/// call at 24.0), and each new thread builds a new team. Never destroyed, as the stages' pool: at
/// exit the workers are waiting for a part.
class PartWorkers {
 public:
  /// Runs part(i) for i in [0, n) on workers 0 .. n - 1 and returns once all have; false, having
  /// run nothing, where the workers are busy with another call (from another thread, or this is
  /// one of them: a part that runs parts) or this process is a fork of the one that started them.
  /// `part` must not throw.
  bool run(std::size_t n, std::function<void(std::size_t)> const& part) {
    if (on_worker_ || getpid() != pid_) return false;
    std::unique_lock<std::mutex> const busy(busy_, std::try_to_lock);
    if (!busy.owns_lock()) return false;
    while (workers_.size() < n) workers_.push_back(std::make_unique<Worker>());
    std::mutex done_mutex;
    std::condition_variable done;
    std::size_t remaining = n;
    for (std::size_t i = 0; i < n; ++i) {
      workers_[i]->give([&, i] {
        part(i);
        std::lock_guard<std::mutex> const lock(done_mutex);
        --remaining;
        done.notify_one();  // under the lock: the caller cannot return (and destroy it) before
      });
    }
    std::unique_lock<std::mutex> lock(done_mutex);
    done.wait(lock, [&] { return remaining == 0; });
    return true;
  }

 private:
  class Worker {
   public:
    Worker() : thread_([this] { serve(); }) {}

    void give(std::function<void()> task) {
      {
        std::lock_guard<std::mutex> const lock(mutex_);
        task_ = std::move(task);
      }
      wake_.notify_one();
    }

   private:
    void serve() {
      on_worker_ = true;
      for (;;) {
        std::function<void()> task;
        {
          std::unique_lock<std::mutex> lock(mutex_);
          wake_.wait(lock, [&] { return task_ != nullptr; });
          task = std::move(task_);
          task_ = nullptr;
        }
        task();
      }
    }

    std::mutex mutex_;
    std::condition_variable wake_;
    std::function<void()> task_;
    std::thread thread_;  // last: starts once the members it uses exist
  };

  static thread_local bool on_worker_;
  pid_t const pid_ = getpid();
  std::mutex busy_;
  std::vector<std::unique_ptr<Worker>> workers_;
};

thread_local bool PartWorkers::on_worker_ = false;

PartWorkers& part_workers() {
  static auto* const workers = new PartWorkers;  // never destroyed: its threads never end
  return *workers;
}

}  // namespace

void run_parts(char const* who, std::vector<Resources> const& shards,
               std::function<void(std::size_t)> const& part) {
  std::uint64_t const requests = interrupt_requests();
  std::vector<std::exception_ptr> failures(shards.size());
  std::atomic<bool> failed{false};
  auto run_one = [&](std::size_t s) {
    if (failed.load()) return;
    try {
      TimelineSpan const span("part on one device of the set");
      ScopedDevice const device_scope(shards[s].device);
      part(s);
    } catch (...) {
      failures[s] = std::current_exception();
      failed.store(true);
    }
  };
  bool const concurrent = shards.size() > 1 && shards.front().device.is_cuda();
  if (concurrent && !part_workers().run(shards.size(), run_one)) {
    std::vector<std::thread> threads;
    threads.reserve(shards.size());
    for (std::size_t s = 0; s < shards.size(); ++s) threads.emplace_back(run_one, s);
    for (std::thread& t : threads) t.join();
  } else if (!concurrent) {
    for (std::size_t s = 0; s < shards.size(); ++s) run_one(s);
  }
  for (std::exception_ptr const& f : failures) {
    if (f) std::rethrow_exception(f);
  }
  for (Resources const& shard : shards) {
    if (!shard.device.is_cuda()) continue;
    ScopedDevice const device_scope(shard.device);
    cuda_stream_synchronize(shard.stream);
  }
  throw_if_interrupted(who, requests);
}

bool peer_linked(std::vector<Resources> const& shards) {
  for (Resources const& reader : shards) {
    if (!reader.device.is_cuda()) return false;
    for (Resources const& owner : shards) {
      if (!cuda_peer_access(reader.device.index, owner.device.index)) return false;
    }
  }
  return true;
}

ConstMatrixView readable_on(Resources const& shard, ConstMatrixView v, std::optional<Array>& copy) {
  ConstMatrixView const r = resolved(v);
  if (r.memory != Memory::kDevice || r.empty()) return r;
  if (shard.device.is_cuda() && cuda_pointer_device(r.data) == shard.device.index) return r;
  copy = Array::copy_of(r, shard.device, shard.stream);
  return copy->view();
}

bool writable_by_all(std::vector<Resources> const& shards, MatrixView v) {
  v = resolved(v);
  if (v.memory == Memory::kHost) return true;
  int const owner = cuda_pointer_device(v.data);
  bool const in_set = std::any_of(shards.begin(), shards.end(), [owner](Resources const& s) {
    return s.device.is_cuda() && s.device.index == owner;
  });
  return in_set && peer_linked(shards);
}

Array returned_on(Resources const& primary, Array host) {
  if (!primary.device.is_cuda()) return host;
  ScopedDevice const device_scope(primary.device);
  return Array::copy_of(host.view(), primary.device, primary.stream);
}

void expect_one_device(char const* who, Resources const& res) {
  CUDIST_EXPECTS(!res.is_split(), who << ": device set " << res.devices.str() << " given, but "
                                      << who << " runs on one device; pass a single device");
}

void expect_split_params(char const* who, Metric metric, MetricParams const& params) {
  CUDIST_EXPECTS(metric != Metric::kSEuclidean || !params.V.empty(),
                 who << ": seuclidean over a device set needs V (MetricParams::V): each device would "
                        "estimate the variances from its own rows");
  CUDIST_EXPECTS(metric != Metric::kMahalanobis || !params.VI.empty(),
                 who << ": mahalanobis over a device set needs VI (MetricParams::VI): each device "
                        "would estimate the covariance from its own rows");
}

}  // namespace cudist::detail
