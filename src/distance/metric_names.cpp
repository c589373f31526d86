#include <string>
#include <utility>

#include "core/detail/expects.hpp"
#include "cudist/distance/pairwise.hpp"

namespace cudist {
namespace {

constexpr std::pair<std::string_view, Metric> kNames[] = {
    {"euclidean", Metric::kEuclidean},
    {"sqeuclidean", Metric::kSqEuclidean},
    {"cityblock", Metric::kCityblock},
    {"chebyshev", Metric::kChebyshev},
    {"minkowski", Metric::kMinkowski},
    {"cosine", Metric::kCosine},
    {"correlation", Metric::kCorrelation},
    {"canberra", Metric::kCanberra},
    {"braycurtis", Metric::kBraycurtis},
    {"jensenshannon", Metric::kJensenShannon},
    {"seuclidean", Metric::kSEuclidean},
    {"mahalanobis", Metric::kMahalanobis},
    {"hamming", Metric::kHamming},
    {"jaccard", Metric::kJaccard},
    {"dice", Metric::kDice},
    {"kulczynski1", Metric::kKulczynski1},
    {"rogerstanimoto", Metric::kRogersTanimoto},
    {"russellrao", Metric::kRussellRao},
    {"sokalmichener", Metric::kSokalMichener},
    {"sokalsneath", Metric::kSokalSneath},
    {"yule", Metric::kYule},
    {"inner_product", Metric::kInnerProduct},
    {"hamming_bits", Metric::kHammingBits},
};

// scipy's aliases (scipy.spatial.distance._METRIC_ALIAS) plus common ones.
constexpr std::pair<std::string_view, Metric> kAliases[] = {
    {"euclid", Metric::kEuclidean},      {"eu", Metric::kEuclidean},
    {"e", Metric::kEuclidean},           {"l2", Metric::kEuclidean},
    {"sqe", Metric::kSqEuclidean},       {"sqeuclid", Metric::kSqEuclidean},
    {"cblock", Metric::kCityblock},      {"city", Metric::kCityblock},
    {"c", Metric::kCityblock},           {"cb", Metric::kCityblock},
    {"s", Metric::kSEuclidean},          {"matching", Metric::kHamming},
    {"manhattan", Metric::kCityblock},   {"l1", Metric::kCityblock},
    {"taxicab", Metric::kCityblock},     {"chebychev", Metric::kChebyshev},
    {"cheby", Metric::kChebyshev},       {"cheb", Metric::kChebyshev},
    {"ch", Metric::kChebyshev},          {"linf", Metric::kChebyshev},
    {"mi", Metric::kMinkowski},          {"m", Metric::kMinkowski},
    {"pnorm", Metric::kMinkowski},       {"cos", Metric::kCosine},
    {"co", Metric::kCorrelation},        {"corr", Metric::kCorrelation},
    {"js", Metric::kJensenShannon},      {"se", Metric::kSEuclidean},
    {"mahal", Metric::kMahalanobis},     {"mah", Metric::kMahalanobis},
    {"ham", Metric::kHamming},           {"hamm", Metric::kHamming},
    {"ha", Metric::kHamming},            {"h", Metric::kHamming},
    {"j", Metric::kJaccard},             {"jacc", Metric::kJaccard},
    {"ja", Metric::kJaccard},            {"dot", Metric::kInnerProduct},
    {"ip", Metric::kInnerProduct},       {"inner", Metric::kInnerProduct},
    {"bits", Metric::kHammingBits},      {"hamming-bits", Metric::kHammingBits},
};

}  // namespace

std::string_view metric_name(Metric metric) {
  for (auto const& [name, m] : kNames) {
    if (m == metric) return name;
  }
  return "unknown";
}

Metric metric_from_name(std::string_view name) {
  for (auto const& [n, m] : kNames) {
    if (n == name) return m;
  }
  for (auto const& [n, m] : kAliases) {
    if (n == name) return m;
  }
  std::string valid;
  for (auto const& [n, m] : kNames) valid += (valid.empty() ? "" : ", ") + std::string(n);
  CUDIST_THROW(InvalidArgument, "metric: unknown metric '" << name << "'; valid metrics: " << valid);
}

std::string_view precision_name(Precision precision) {
  return precision == Precision::kTf32 ? "tf32" : "exact";
}

Precision precision_from_name(std::string_view name) {
  if (name == "exact") return Precision::kExact;
  if (name == "tf32") return Precision::kTf32;
  CUDIST_THROW(InvalidArgument, "precision: unknown precision '" << name << "'; valid values: exact, tf32");
}

std::vector<Metric> all_metrics() {
  std::vector<Metric> out;
  for (auto const& [n, m] : kNames) out.push_back(m);
  return out;
}

}  // namespace cudist
