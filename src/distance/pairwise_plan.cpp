// Planning: every scipy metric becomes one of a few contraction ops, after a row preparation
// where the metric needs one (dtype conversion, centering, sum-normalisation, column scaling,
// the mahalanobis transform x -> x L with VI = L L^T). Weights that scale linearly are folded
// into the inputs (no weight loads in the hot loop); weights of counting metrics go to the op.
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <vector>

#include "core/detail/expects.hpp"
#include "core/detail/memory.hpp"
#include "distance/detail/backend.hpp"
#include "distance/detail/dispatch_op.hpp"
#include "distance/detail/host_linalg.hpp"
#include "distance/detail/plan.hpp"

namespace cudist::detail {
namespace {

// Byte rows' sums of squares stay exact in int32 up to this many columns (255^2 * d < 2^31: the
// largest difference of two uint8 or two int8 values is 255; their products are smaller).
constexpr std::int64_t kMaxExactByteCols = 33025;

/// What a metric needs before the contraction.
struct Preparation {
  bool needed = false;        // a prepared (converted) copy of the inputs is made
  bool center = false;        // correlation
  bool normalize_sum = false; // jensenshannon
  bool norms = false;         // cosine, correlation
  std::vector<double> col_scale;     // folded weights, 1/sqrt(V)
  std::vector<double> mean_weights;  // weighted correlation
  std::vector<double> transform;     // mahalanobis: L^T (d x d), rows are L's columns
};

struct MetricPlan {
  OpSpec op;
  Preparation prep;
  std::vector<double> op_weights;  // counting metrics with w
};

void expect_weights(char const* who, std::vector<double> const& w, std::int64_t d) {
  CUDIST_EXPECTS(static_cast<std::int64_t>(w.size()) == d,
                 who << ": w has " << w.size() << " entries but the inputs have " << d << " columns");
  for (std::size_t k = 0; k < w.size(); ++k) {
    CUDIST_EXPECTS(w[k] >= 0 && std::isfinite(w[k]),
                   who << ": w[" << k << "] = " << w[k] << "; weights must be finite and >= 0");
  }
}

std::vector<double> mapped(std::vector<double> const& w, double (*f)(double)) {
  std::vector<double> out(w.size());
  for (std::size_t k = 0; k < w.size(); ++k) out[k] = f(w[k]);
  return out;
}

double sum_of(std::vector<double> const& v) {
  double s = 0;
  for (double x : v) s += x;
  return s;
}

void reject_param(char const* who, Metric metric, bool given, char const* name) {
  CUDIST_EXPECTS(!given, who << ": metric " << metric_name(metric) << " takes no parameter " << name);
}

/// Rows of x then y in float64 on the host, for estimating V / VI; device inputs are copied
/// (this synchronizes the stream: only the default V / VI need it).
/// For pdist (y is x) the sample is x alone, as scipy's pdist estimates it; cdist(x, x) stacks both.
std::vector<double> rows_for_estimate(Resources const& res, ConstMatrixView x, ConstMatrixView y,
                                      OutputLayout layout) {
  std::optional<Array> hx, hy;
  ConstMatrixView const xh = staged(x, Device::cpu(), res.stream, hx);
  if (layout == OutputLayout::kCondensed) return stacked_rows_f64(xh, ConstMatrixView(nullptr, 0, x.cols, x.cols, x.dtype));
  return stacked_rows_f64(xh, staged(y, Device::cpu(), res.stream, hy));
}

/// seuclidean's default V: the column variances of the rows of x and y (of x alone for pdist).
std::vector<double> estimated_variance(Resources const& res, char const* who, ConstMatrixView x,
                                       ConstMatrixView y, OutputLayout layout) {
  std::int64_t const sample = layout == OutputLayout::kCondensed ? x.rows : x.rows + y.rows;
  CUDIST_EXPECTS(sample >= 2, who << ": seuclidean needs V, or at least 2 rows to estimate it");
  return column_variance(rows_for_estimate(res, x, y, layout), x.cols);
}

/// mahalanobis's default VI: the inverse of the covariance of the same rows.
std::vector<double> estimated_inverse_covariance(Resources const& res, char const* who, ConstMatrixView x,
                                                 ConstMatrixView y, OutputLayout layout) {
  std::int64_t const d = x.cols;
  std::int64_t const sample = layout == OutputLayout::kCondensed ? x.rows : x.rows + y.rows;
  CUDIST_EXPECTS(sample > d, who << ": mahalanobis needs VI, or more rows (" << sample
                                 << ") than columns (" << d << ") to estimate the covariance");
  auto inv = inverse(column_covariance(rows_for_estimate(res, x, y, layout), d), d);
  CUDIST_EXPECTS(inv.has_value(), who << ": the covariance of x and y is singular; pass VI");
  return std::move(*inv);
}

MetricPlan plan_metric(Resources const& res, char const* who, Metric metric, MetricParams const& prm,
                       ConstMatrixView x, ConstMatrixView y, OutputLayout layout) {
  std::int64_t const d = x.cols;
  bool const has_w = !prm.w.empty();
  if (has_w) expect_weights(who, prm.w, d);
  if (metric != Metric::kSEuclidean) reject_param(who, metric, !prm.V.empty(), "V");
  if (metric != Metric::kMahalanobis) reject_param(who, metric, !prm.VI.empty(), "VI");

  MetricPlan plan;
  OpSpec& op = plan.op;
  Preparation& prep = plan.prep;
  auto fold_weights = [&](double (*f)(double)) {
    if (has_w) prep.col_scale = mapped(prm.w, f);
  };
  auto counting = [&](OpKind kind, std::uint8_t finish) {
    op.kind = kind;
    op.finish = finish;
    op.total_weight = has_w ? sum_of(prm.w) : static_cast<double>(d);
    if (has_w) plan.op_weights = prm.w;
  };
  double (*const sqrt_fn)(double) = [](double v) { return std::sqrt(v); };
  double (*const identity)(double) = [](double v) { return v; };
  double (*const indicator)(double) = [](double v) { return v > 0 ? 1.0 : 0.0; };

  switch (metric) {
    case Metric::kEuclidean:
    case Metric::kSqEuclidean:
      op.kind = OpKind::kSqDiffSum;
      fold_weights(sqrt_fn);
      break;
    case Metric::kCityblock:
      op.kind = OpKind::kAbsDiffSum;
      fold_weights(identity);
      break;
    case Metric::kChebyshev:
      op.kind = OpKind::kAbsDiffMax;
      fold_weights(indicator);  // scipy: weights only select the columns with w > 0
      break;
    case Metric::kMinkowski: {
      double const p = prm.p;
      CUDIST_EXPECTS(p > 0 && !std::isnan(p), who << ": minkowski p = " << p << "; p must be > 0");
      if (std::isinf(p)) {
        op.kind = OpKind::kAbsDiffMax;
        fold_weights(indicator);
      } else if (p == 1) {
        op.kind = OpKind::kAbsDiffSum;
        fold_weights(identity);
      } else if (p == 2) {
        op.kind = OpKind::kSqDiffSum;
        fold_weights(sqrt_fn);
      } else {
        op.kind = OpKind::kPowDiffSum;
        op.p = p;
        if (has_w) {
          prep.col_scale.resize(d);
          for (std::int64_t k = 0; k < d; ++k) prep.col_scale[k] = std::pow(prm.w[k], 1.0 / p);
        }
      }
      break;
    }
    case Metric::kSEuclidean: {
      reject_param(who, metric, has_w, "w");
      std::vector<double> const var = prm.V.empty() ? estimated_variance(res, who, x, y, layout) : prm.V;
      CUDIST_EXPECTS(static_cast<std::int64_t>(var.size()) == d,
                     who << ": V has " << var.size() << " entries but the inputs have " << d << " columns");
      prep.col_scale.resize(d);
      for (std::int64_t k = 0; k < d; ++k) {
        CUDIST_EXPECTS(var[k] > 0 && std::isfinite(var[k]),
                       who << ": V[" << k << "] = " << var[k]
                           << "; seuclidean needs every variance finite and > 0 (V is singular)");
        prep.col_scale[k] = 1.0 / std::sqrt(var[k]);
      }
      op.kind = OpKind::kSqDiffSum;
      break;
    }
    case Metric::kMahalanobis: {
      reject_param(who, metric, has_w, "w");
      std::vector<double> const vi =
          prm.VI.empty() ? estimated_inverse_covariance(res, who, x, y, layout) : prm.VI;
      CUDIST_EXPECTS(static_cast<std::int64_t>(vi.size()) == d * d,
                     who << ": VI has " << vi.size() << " entries but must be " << d << " x " << d);
      auto l = cholesky_lower(vi, d);
      CUDIST_EXPECTS(l.has_value(), who << ": VI is not symmetric positive definite (singular or indefinite)");
      prep.transform.resize(d * d);  // L^T: row c holds column c of L
      for (std::int64_t r = 0; r < d; ++r)
        for (std::int64_t c = 0; c < d; ++c) prep.transform[c * d + r] = (*l)[r * d + c];
      op.kind = OpKind::kSqDiffSum;
      break;
    }
    case Metric::kCosine:
    case Metric::kCorrelation:
      op.kind = metric == Metric::kCorrelation ? OpKind::kCenteredDot : OpKind::kDot;
      op.finish = static_cast<std::uint8_t>(ops::DotOp<float, float>::Finish::kCosineDistance);
      prep.norms = true;
      prep.center = metric == Metric::kCorrelation;
      if (prep.center && has_w) prep.mean_weights = prm.w;
      fold_weights(sqrt_fn);
      break;
    case Metric::kCanberra: counting(OpKind::kCanberra, 0); break;
    case Metric::kBraycurtis:
      op.kind = OpKind::kBrayCurtis;
      fold_weights(identity);
      break;
    case Metric::kJensenShannon:
      reject_param(who, metric, has_w, "w");
      op.kind = OpKind::kJensenShannon;
      prep.normalize_sum = true;
      break;
    case Metric::kHamming:
      counting(OpKind::kMismatch, static_cast<std::uint8_t>(ops::MismatchOp<float, float, false>::Finish::kHamming));
      break;
    case Metric::kJaccard:
      counting(OpKind::kMismatch, static_cast<std::uint8_t>(ops::MismatchOp<float, float, false>::Finish::kJaccard));
      break;
    case Metric::kDice: counting(OpKind::kDice, 0); break;
    case Metric::kKulczynski1:
    case Metric::kRogersTanimoto:
    case Metric::kRussellRao:
    case Metric::kSokalMichener:
    case Metric::kSokalSneath:
    case Metric::kYule: {
      using Finish = ops::BooleanOp<float, float, false>::Finish;
      Finish const f = metric == Metric::kKulczynski1   ? Finish::kKulczynski1
                       : metric == Metric::kRussellRao  ? Finish::kRussellRao
                       : metric == Metric::kSokalSneath ? Finish::kSokalSneath
                       : metric == Metric::kYule        ? Finish::kYule
                                                        : Finish::kRogersTanimoto;
      counting(OpKind::kBoolean, static_cast<std::uint8_t>(f));
      break;
    }
    case Metric::kInnerProduct:
      reject_param(who, metric, has_w, "w");
      op.kind = OpKind::kDot;
      break;
    case Metric::kHammingBits:
      reject_param(who, metric, has_w, "w");
      CUDIST_EXPECTS(x.dtype == DType::kUInt8,
                     who << ": hamming_bits needs uint8 rows of packed bits, got " << dtype_name(x.dtype));
      op.kind = OpKind::kXorPopcount;
      break;
  }
  op.take_sqrt = takes_root(metric, prm.p);
  prep.needed = prep.center || prep.normalize_sum || prep.norms || !prep.col_scale.empty() ||
                !prep.transform.empty();
  return plan;
}

/// A host vector as a (rows, size / rows) array of `dtype` (float32 / float64) on res.device.
Array upload(std::vector<double> const& v, DType dtype, Resources const& res, std::int64_t rows = 1) {
  auto const size = static_cast<std::int64_t>(v.size());
  Array host = Array::allocate(rows, size / rows, dtype, Device::cpu());
  for (std::size_t k = 0; k < v.size(); ++k) {
    if (dtype == DType::kFloat64) {
      host.data_as<double>()[k] = v[k];
    } else {
      host.data_as<float>()[k] = static_cast<float>(v[k]);
    }
  }
  return res.device.is_cuda() ? Array::copy_of(host.view(), res.device, res.stream) : host;
}

void prepare_rows_on(Resources const& res, RowPrep const& prep) {
  if (res.device.is_cuda()) {
    cuda::prepare_rows(prep, res.stream);
  } else {
    cpu::prepare_rows(prep);
  }
}

/// Converts + prepares one input into a new compute-dtype array (with norms when asked).
Array prepared(Resources const& res, ConstMatrixView in, DType compute, MetricPlan const& plan,
               std::vector<Array>& temporaries, Array const* transform, void** norms_out) {
  Preparation const& pp = plan.prep;
  RowPrep rp;
  rp.in = in;
  Array conv = Array::allocate(in.rows, in.cols, compute, res.device, res.stream);
  rp.out = conv.view();
  rp.center = pp.center;
  rp.normalize_sum = pp.normalize_sum;
  if (!pp.mean_weights.empty()) {
    temporaries.push_back(upload(pp.mean_weights, compute, res));
    rp.mean_weights = temporaries.back().data();
  }
  if (!pp.col_scale.empty()) {
    temporaries.push_back(upload(pp.col_scale, compute, res));
    rp.col_scale = temporaries.back().data();
  }
  if (pp.norms) {
    temporaries.push_back(Array::allocate(in.rows, 1, compute, res.device, res.stream));
    rp.norms = temporaries.back().data();
    *norms_out = rp.norms;
  }
  prepare_rows_on(res, rp);
  if (transform == nullptr) return conv;
  // mahalanobis: x' = x L, i.e. x'[i][c] = dot(x_i, row c of L^T), on the same engine.
  Array out = Array::allocate(in.rows, in.cols, compute, res.device, res.stream);
  PairwiseProblem mm;
  mm.x = conv.view();
  mm.y = transform->view();
  mm.out = out.view();
  mm.op.kind = OpKind::kDot;
  run_pairwise(res, mm);
  temporaries.push_back(std::move(conv));
  return out;
}

}  // namespace

bool takes_root(Metric metric, double p) {
  return metric == Metric::kEuclidean || metric == Metric::kSEuclidean || metric == Metric::kMahalanobis ||
         (metric == Metric::kMinkowski && p == 2);
}

void run_pairwise(Resources const& res, PairwiseProblem const& problem) {
  if (res.device.is_cuda()) {
    cuda::pairwise(problem, res.stream);
  } else {
    cpu::pairwise(problem);
  }
}

MetricParams with_estimates(Resources const& res, char const* who, Metric metric, MetricParams params,
                            ConstMatrixView x, ConstMatrixView y) {
  if (metric == Metric::kSEuclidean && params.V.empty()) {
    params.V = estimated_variance(res, who, x, y, OutputLayout::kFull);
  }
  if (metric == Metric::kMahalanobis && params.VI.empty()) {
    params.VI = estimated_inverse_covariance(res, who, x, y, OutputLayout::kFull);
  }
  return params;
}

PlannedPairwise plan_pairwise(Resources const& res, char const* who, ConstMatrixView x,
                              ConstMatrixView y, bool same, MatrixView out, OutputLayout layout,
                              Metric metric, MetricParams const& params, bool keep_bfloat16) {
  MetricPlan const plan = plan_metric(res, who, metric, params, x, y, layout);
  PlannedPairwise planned;
  PairwiseProblem& pr = planned.problem;
  pr.op = plan.op;
  pr.out = out;
  pr.layout = layout;
  pr.zero_diagonal = same && layout == OutputLayout::kFull && metric != Metric::kInnerProduct;
  pr.tf32 = params.precision == Precision::kTf32;

  DType const compute = x.dtype == DType::kFloat64 ? DType::kFloat64 : DType::kFloat32;
  bool const bytes = x.dtype == DType::kUInt8 || x.dtype == DType::kInt8;
  bool const integer_path = bytes && !plan.prep.needed &&
                            plan.op_weights.empty() &&
                            (plan.op.kind == OpKind::kXorPopcount ||
                             (has_integer_path(plan.op.kind, plan.op.finish) && x.cols <= kMaxExactByteCols));
  bool const raw_float = (x.dtype == DType::kFloat32 || x.dtype == DType::kFloat64 ||
                          (keep_bfloat16 && x.dtype == DType::kBFloat16)) &&
                         !plan.prep.needed;

  if (integer_path || raw_float) {
    pr.x = x;
    pr.y = y;
  } else {
    std::optional<Array> transform;  // mahalanobis L^T, d x d
    if (!plan.prep.transform.empty()) transform = upload(plan.prep.transform, compute, res, x.cols);
    Array const* tp = transform ? &*transform : nullptr;
    void* x_norms = nullptr;
    void* y_norms = nullptr;
    Array xp = prepared(res, x, compute, plan, planned.temporaries, tp, &x_norms);
    pr.x = xp.view();
    if (same) {
      pr.y = pr.x;
      y_norms = x_norms;
    } else {
      Array yp = prepared(res, y, compute, plan, planned.temporaries, tp, &y_norms);
      pr.y = yp.view();
      planned.temporaries.push_back(std::move(yp));
    }
    planned.temporaries.push_back(std::move(xp));
    pr.op.x_norms = x_norms;
    pr.op.y_norms = y_norms;
    if (transform) planned.temporaries.push_back(std::move(*transform));
  }
  if (!plan.op_weights.empty()) {
    planned.temporaries.push_back(upload(plan.op_weights, pr.x.dtype == DType::kFloat64 ? DType::kFloat64 : DType::kFloat32, res));
    pr.op.weights = planned.temporaries.back().data();
  }
  if (plan.op.kind == OpKind::kXorPopcount) {
    // Whole 32-bit words when every row start is 4-byte aligned: a quarter of the popc steps.
    bool const words = pr.x.cols % 4 == 0 && pr.x.stride % 4 == 0 && pr.y.stride % 4 == 0 &&
                       reinterpret_cast<std::uintptr_t>(pr.x.data) % 4 == 0 &&
                       reinterpret_cast<std::uintptr_t>(pr.y.data) % 4 == 0;
    if (words) {
      pr.x = ConstMatrixView(pr.x.data, pr.x.rows, pr.x.cols / 4, pr.x.stride / 4, DType::kInt32, pr.x.memory);
      pr.y = ConstMatrixView(pr.y.data, pr.y.rows, pr.y.cols / 4, pr.y.stride / 4, DType::kInt32, pr.y.memory);
    }
  }
  return planned;
}

}  // namespace cudist::detail
