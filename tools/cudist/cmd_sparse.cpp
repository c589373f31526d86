// cudist spmv / spmm: a Matrix Market matrix times a .npy vector or matrix, in ordinary
// arithmetic or (spmv) as one min-plus relaxation step.
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <memory>
#include <string>

#include "cli_common.hpp"
#include "commands.hpp"
#include "cudist/core/error.hpp"
#include "cudist/io/matrix_market.hpp"
#include "cudist/io/npy.hpp"
#include "cudist/sparse/spmv.hpp"

namespace cudist::cli {
namespace {

struct SparseArgs {
  std::string matrix, x, output, y0, semiring, algorithm, device;
  double alpha = 1.0, beta = 0.0;
  bool transpose = false;
  bool quiet = false;
};

/// `a` in float32 or float64: kept when it already is one, else converted to float64.
Array as_floating(Array const& a, std::string const& name) {
  if (a.dtype() == DType::kFloat32 || a.dtype() == DType::kFloat64) return a;
  Array out = Array::allocate(a.rows(), a.cols(), DType::kFloat64, Device::cpu());
  double* to = out.data_as<double>();
  for (std::int64_t i = 0; i < a.size(); ++i) {
    switch (a.dtype()) {
      case DType::kUInt8:
        to[i] = a.data_as<std::uint8_t>()[i];
        break;
      case DType::kInt8:
        to[i] = a.data_as<std::int8_t>()[i];
        break;
      case DType::kInt16:
        to[i] = a.data_as<std::int16_t>()[i];
        break;
      case DType::kInt32:
        to[i] = a.data_as<std::int32_t>()[i];
        break;
      case DType::kInt64:
        to[i] = static_cast<double>(a.data_as<std::int64_t>()[i]);
        break;
      default:
        throw InvalidArgument(name + " is " + std::string(dtype_name(a.dtype())) +
                              "; use float32, float64 or an integer dtype");
    }
  }
  return out;
}

/// The matrix in `dtype`, with int32 indices unless its size needs int64.
sparse::CsrMatrix read_matrix(std::string const& path, DType dtype) {
  io::MtxHeader const h = io::read_matrix_market_header(path);
  std::int64_t const most_entries =
      h.symmetry == io::MtxSymmetry::kGeneral ? h.stored_entries : 2 * h.stored_entries;
  std::int64_t const int32_max = std::numeric_limits<std::int32_t>::max();
  bool const small = h.rows <= int32_max && h.cols <= int32_max && most_entries <= int32_max;
  return io::read_matrix_market(path, dtype, small ? DType::kInt32 : DType::kInt64);
}

sparse::SpmvAlgorithm algorithm_from_name(std::string const& name) {
  if (name == "auto") return sparse::SpmvAlgorithm::kAuto;
  if (name == "row-split") return sparse::SpmvAlgorithm::kRowSplit;
  if (name == "merge-path") return sparse::SpmvAlgorithm::kMergePath;
  if (name == "thread-per-row") return sparse::SpmvAlgorithm::kThreadPerRow;
  throw InvalidArgument("--algorithm: '" + name +
                        "' is not auto, row-split, merge-path or thread-per-row");
}

/// The initial y (rows x cols of the output): --y0 when given, else `fill`.
Array initial_y(SparseArgs const& args, std::int64_t rows, std::int64_t cols, DType dtype,
                double fill) {
  if (!args.y0.empty()) {
    Array const y0 = as_floating(io::read_npy(args.y0), "--y0");
    if (y0.dtype() != dtype)
      throw InvalidArgument("--y0 is " + std::string(dtype_name(y0.dtype())) + " but x is " +
                            std::string(dtype_name(dtype)));
    if (y0.size() != rows * cols) {
      throw InvalidArgument("--y0 holds " + std::to_string(y0.size()) +
                            " values but the output has " + std::to_string(rows * cols));
    }
    return y0;
  }
  if (args.beta != 0.0) throw InvalidArgument("--beta is not 0: give the initial output with --y0");
  Array y = Array::allocate(rows, cols, dtype, Device::cpu());
  for (std::int64_t i = 0; i < y.size(); ++i) {
    if (dtype == DType::kFloat32) {
      y.data_as<float>()[i] = static_cast<float>(fill);
    } else {
      y.data_as<double>()[i] = fill;
    }
  }
  return y;
}

/// Runs `product(res, plan, x, y)` on the requested device and writes y.
template <class Product>
void run_product(SparseArgs const& args, char const* what, bool vector, double fill,
                 Product const& product) {
  refuse_clashing_files({{"A", args.matrix}, {"X", args.x}, {"--y0", args.y0}}, {{"--output", args.output}});
  Array const x = as_floating(io::read_npy(args.x), "x");
  sparse::CsrMatrix const a = read_matrix(args.matrix, x.dtype());
  Resources const res(DeviceSet::parse(args.device));
  sparse::SpmvPlanOptions options;
  options.op = args.transpose ? sparse::Operation::kTranspose : sparse::Operation::kNone;
  options.algorithm = algorithm_from_name(args.algorithm);

  auto const start = std::chrono::steady_clock::now();
  sparse::SpmvPlan const plan = sparse::make_spmv_plan(res, a.view(), options);
  double const plan_secs = seconds_since(start);
  std::int64_t const out_cols = vector ? 1 : x.cols();
  Array const x_there = Array::copy_of(x.view(), res.device, res.stream);
  Array y_there = Array::copy_of(initial_y(args, plan.rows(), out_cols, x.dtype(), fill).view(),
                                 res.device, res.stream);
  auto const run_start = std::chrono::steady_clock::now();
  product(res, plan, x_there.view(), y_there.view());
  Array const y = Array::copy_of(y_there.view(), Device::cpu(), res.stream);  // synchronizes
  double const run_secs = seconds_since(run_start);
  io::write_npy(args.output, y, vector ? io::NpyShape::kVector : io::NpyShape::kMatrix);
  if (!args.quiet) {
    std::printf(
        "%s: %sA (%lld x %lld, %lld stored entries, %s) on %s: plan %.3f s, product %.3f s -> %s\n",
        what, args.transpose ? "transposed " : "", static_cast<long long>(a.rows()),
        static_cast<long long>(a.cols()), static_cast<long long>(a.nnz()),
        std::string(dtype_name(x.dtype())).c_str(), res.devices.str().c_str(), plan_secs, run_secs,
        args.output.c_str());
  }
}

void run_spmv(SparseArgs const& args) {
  if (args.semiring == "min-plus") {
    // y = min(y0, A (x) x); without --y0 the relaxation alone, from +inf.
    run_product(args, "spmv min-plus", true, std::numeric_limits<double>::infinity(),
                [](Resources const& res, sparse::SpmvPlan const& plan, ConstMatrixView x,
                   MatrixView y) { sparse::spmv_min_plus(res, plan, x, y); });
    return;
  }
  if (args.semiring != "plus-times") {
    throw InvalidArgument("--semiring: '" + args.semiring + "' is not plus-times or min-plus");
  }
  run_product(args, "spmv", true, 0.0,
              [&](Resources const& res, sparse::SpmvPlan const& plan, ConstMatrixView x,
                  MatrixView y) { sparse::spmv(res, plan, x, y, args.alpha, args.beta); });
}

void run_spmm(SparseArgs const& args) {
  run_product(args, "spmm", false, 0.0,
              [&](Resources const& res, sparse::SpmvPlan const& plan, ConstMatrixView x,
                  MatrixView y) { sparse::spmm(res, plan, x, y, args.alpha, args.beta); });
}

void add_common_options(CLI::App& cmd, SparseArgs& args, char const* x_help,
                        char const* output_help) {
  cmd.add_option("A", args.matrix, "sparse matrix (.mtx, Matrix Market)")
      ->required()
      ->check(CLI::ExistingFile);
  cmd.add_option("X", args.x, x_help)->required()->check(CLI::ExistingFile);
  cmd.add_option("-o,--output", args.output, output_help)->required();
  cmd.add_option("--alpha", args.alpha, "scale of the product")->default_val(1.0);
  cmd.add_option("--beta", args.beta, "scale of the initial output (needs --y0)")->default_val(0.0);
  cmd.add_option("--y0", args.y0, "initial output (.npy) for --beta or min-plus");
  cmd.add_flag("--transpose", args.transpose, "multiply by the transpose of A");
  cmd.add_option("--algorithm", args.algorithm,
                 "GPU kernel: auto, row-split, merge-path or thread-per-row")
      ->default_val("auto");
  add_device_option(cmd, args.device);
  cmd.add_flag("-q,--quiet", args.quiet, "print nothing on success");
}

}  // namespace

void add_sparse_commands(CLI::App& app) {
  auto vargs = std::make_shared<SparseArgs>();
  CLI::App* sv =
      app.add_subcommand("spmv", "sparse matrix times vector: y = alpha op(A) x + beta y0");
  add_common_options(*sv, *vargs,
                     "vector x (.npy, 1-D or one column; float dtype sets the arithmetic)",
                     "output .npy (1-D)");
  sv->add_option("--semiring", vargs->semiring,
                 "plus-times, or min-plus: y = min(y0, min_j A_ij + x_j), one Bellman-Ford step")
      ->default_val("plus-times");
  sv->callback([vargs] { run_spmv(*vargs); });

  auto margs = std::make_shared<SparseArgs>();
  CLI::App* sm =
      app.add_subcommand("spmm", "sparse matrix times dense matrix: Y = alpha op(A) X + beta Y0");
  add_common_options(*sm, *margs, "dense matrix X (.npy, 2-D, row-major)", "output .npy (2-D)");
  sm->callback([margs] { run_spmm(*margs); });
}

}  // namespace cudist::cli
