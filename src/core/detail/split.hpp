// Splitting one call over the devices of a set (docs/multi_gpu.md): the contiguous row ranges the
// parts take, the resources each part runs with, and running the parts concurrently. The layer
// is backend-agnostic: a part is any function of its shard number, and a "device set" of several
// CPU resources (which the public API refuses) lets the tests split CPU calls the same way.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "cudist/core/array.hpp"
#include "cudist/core/matrix_view.hpp"
#include "cudist/core/resources.hpp"
#include "cudist/distance/pairwise.hpp"

namespace cudist::detail {

struct RowRange {
  std::int64_t begin = 0;
  std::int64_t end = 0;
  std::int64_t size() const { return end - begin; }
};

/// n rows in `parts` contiguous ranges in order, sizes differing by at most one (some empty when
/// n < parts).
std::vector<RowRange> split_rows(std::int64_t n, std::size_t parts);

/// Rows [r.begin, r.end) of v.
ConstMatrixView row_slice(ConstMatrixView v, RowRange r);
MatrixView row_slice(MatrixView v, RowRange r);

/// The resources of each part of a call on res.devices: validated (require_device_set, and
/// res.device first), the caller's stream for the first device, each other device's default
/// stream for the others.
std::vector<Resources> split_resources(Resources const& res, char const* who);

/// Runs part(s) for every shard s and waits for all of them: one host thread per shard when the
/// shards are GPUs (each thread makes its device current; threads kept for the process, fresh
/// ones where those are busy with another call), one after another on the CPU (each
/// part already uses every core). When a part throws, parts not yet started are skipped, and the
/// first failure in shard order is rethrown after every thread has finished: no thread is left
/// running, and an out-of-memory error on one GPU surfaces as that error. Waits for the shards'
/// streams and throws Interrupted (naming `who`) when an interrupt came meanwhile: a kernel it
/// stopped left its part unfinished.
void run_parts(char const* who, std::vector<Resources> const& shards,
               std::function<void(std::size_t)> const& part);

/// Whether the shards' GPUs read each other's memory directly (cuda_peer_access, turned on for
/// every pair), so that copies between them take the GPUs' own links; true for shards on one GPU,
/// false for the CPU.
bool peer_linked(std::vector<Resources> const& shards);

/// An input as a part on `shard` may read it: host memory as it is (the part stages what it needs),
/// memory on the shard's GPU as it is, memory on another GPU copied to the shard's.
ConstMatrixView readable_on(Resources const& shard, ConstMatrixView v, std::optional<Array>& copy);

/// Whether every shard's part may write its rows of `v` where it lies: host memory, or memory on a
/// GPU of the set when every pair of them is peer-linked (a part on another GPU writes over the
/// link).
bool writable_by_all(std::vector<Resources> const& shards, MatrixView v);

/// A result assembled on the host, moved to where a split call returns it: the first shard's
/// device (copied there on its stream; the host array as it is for the CPU).
Array returned_on(Resources const& primary, Array host);

/// Throws InvalidArgument naming `who` and the set when res names several devices: for the calls
/// that run on one device.
void expect_one_device(char const* who, Resources const& res);

/// Throws InvalidArgument naming `who` when a metric would estimate a parameter from the rows a
/// part sees (seuclidean without V, mahalanobis without VI): each part would estimate its own.
void expect_split_params(char const* who, Metric metric, MetricParams const& params);

}  // namespace cudist::detail
