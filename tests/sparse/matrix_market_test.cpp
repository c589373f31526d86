// The Matrix Market reader and writer: the shipped real files (checked against scipy.io.mmread),
// every header and entry variant, every malformed-file error with its line number, and exact
// round trips of what the writer produces.
#include "cudist/io/matrix_market.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>
#include <vector>

#include "common/backend.hpp"
#include "cudist/core/error.hpp"
#include "cudist/sparse/triplets.hpp"
#include "sparse/sparse_fixtures.hpp"

namespace cudist {
namespace {

using io::MtxField;
using io::MtxFormat;
using io::MtxSymmetry;

/// A file in the test's temporary directory holding `text`.
std::string file_with(std::string const& name, std::string const& text) {
  std::filesystem::path const dir = std::filesystem::temp_directory_path() / "cudist_mtx_test";
  std::filesystem::create_directories(dir);
  std::string const path = (dir / name).string();
  std::ofstream(path) << text;
  return path;
}

/// The dense matrix of a file, row-major, as doubles.
std::vector<double> dense_of(std::string const& path, double missing = 0.0) {
  return test::to_doubles(io::read_matrix_market_dense(path, DType::kFloat64, missing).view());
}

/// Reading `text` fails with a FileError naming the file, the line and `what`.
void expect_malformed(std::string const& text, int line, std::string const& what) {
  std::string const path = file_with("bad.mtx", text);
  try {
    io::read_matrix_market_triplets(path);
    ADD_FAILURE() << "accepted:\n" << text;
  } catch (FileError const& e) {
    std::string const message = e.what();
    EXPECT_NE(message.find(path), std::string::npos) << message;
    EXPECT_NE(message.find("line " + std::to_string(line) + ": "), std::string::npos) << message;
    EXPECT_NE(message.find(what), std::string::npos) << message;
  }
}

TEST(MatrixMarket, ReadsTheShippedMatricesAsScipyDoes) {
  struct Expected {
    char const* file;
    MtxField field;
    MtxSymmetry symmetry;
    std::int64_t rows, stored, nnz;
    double sum;  // scipy: mmread(file).sum()
  };
  Expected const cases[] = {
      {"uscounties.mtx", MtxField::kReal, MtxSymmetry::kSymmetric, 3111, 9101, 18202,
       3056.1603729943445},
      {"pores_1.mtx", MtxField::kReal, MtxSymmetry::kGeneral, 30, 180, 180, -35697276.968105078},
      {"lund_a.mtx", MtxField::kReal, MtxSymmetry::kSymmetric, 147, 1298, 2449, 18825992055.572708},
      {"jgl009.mtx", MtxField::kPattern, MtxSymmetry::kGeneral, 9, 50, 50, 50},
  };
  for (Expected const& c : cases) {
    SCOPED_TRACE(c.file);
    std::string const path = test::data_path(std::string("sparse/") + c.file);
    io::MtxHeader const h = io::read_matrix_market_header(path);
    EXPECT_EQ(h.format, MtxFormat::kCoordinate);
    EXPECT_EQ(h.field, c.field);
    EXPECT_EQ(h.symmetry, c.symmetry);
    EXPECT_EQ(h.rows, c.rows);
    EXPECT_EQ(h.cols, c.rows);
    EXPECT_EQ(h.stored_entries, c.stored);
    sparse::CsrMatrix const m = io::read_matrix_market(path);
    EXPECT_EQ(m.nnz(), c.nnz);
    reference::Csr const a = test::from_library(m);
    double sum = 0;
    for (double v : a.values) sum += v;
    EXPECT_NEAR(sum, c.sum, std::abs(c.sum) * 1e-12);
    for (std::int64_t r = 0; r < a.rows; ++r) {  // sorted, distinct columns
      for (std::int64_t k = a.offsets[r] + 1; k < a.offsets[r + 1]; ++k) {
        ASSERT_LT(a.col_indices[k - 1], a.col_indices[k]) << "row " << r;
      }
    }
  }
}

TEST(MatrixMarket, RejectsTheShippedMalformedFileNamingFileAndLine) {
  std::string const path = test::data_path("sparse/wrong.mtx");
  try {
    io::read_matrix_market(path);
    ADD_FAILURE() << "wrong.mtx was accepted";
  } catch (FileError const& e) {
    std::string const message = e.what();
    EXPECT_NE(message.find("wrong.mtx"), std::string::npos) << message;
    EXPECT_NE(message.find("line 3: row index 0 is outside 1..2"), std::string::npos) << message;
    EXPECT_NE(message.find("1-based"), std::string::npos) << message;
  }
}

TEST(MatrixMarket, ExpandsSymmetryAndSumsRepeatedEntries) {
  std::string const sym = file_with("sym.mtx",
                                    "%%MatrixMarket matrix coordinate integer symmetric\n"
                                    "% a comment\n"
                                    "\n"
                                    "3 3 4\n"
                                    "1 1 2\n"
                                    "3 1 -7\n"
                                    "3 2 5\n"
                                    "3 1 1\n");  // repeats (3, 1): summed
  EXPECT_EQ(dense_of(sym), (std::vector<double>{2, 0, -6, 0, 0, 5, -6, 5, 0}));
  sparse::Triplets const t = io::read_matrix_market_triplets(sym);
  EXPECT_EQ(t.size(), 7);  // one diagonal entry, three mirrored pairs

  std::string const skew = file_with("skew.mtx",
                                     "%%MatrixMarket matrix coordinate real skew-symmetric\n"
                                     "3 3 2\n"
                                     "2 1 1.5\n"
                                     "3 2 -2.5e+00\n");
  EXPECT_EQ(dense_of(skew), (std::vector<double>{0, -1.5, 0, 1.5, 0, 2.5, 0, -2.5, 0}));

  std::string const pattern = file_with("pattern.mtx",
                                        "%%MatrixMarket matrix coordinate pattern general\n"
                                        "2 3 2\n"
                                        "1 3\n"
                                        "2 1\n");
  EXPECT_EQ(dense_of(pattern, -1.0), (std::vector<double>{-1, -1, 1, 1, -1, -1}));
}

TEST(MatrixMarket, ReadsArrayFiles) {
  std::string const general = file_with("general.mtx",
                                        "%%MatrixMarket matrix array real general\n"
                                        "2 3\n"
                                        "1\n2\n3\n4\n5\n+6\n");  // column-major
  EXPECT_EQ(dense_of(general), (std::vector<double>{1, 3, 5, 2, 4, 6}));
  std::string const sym = file_with("asym.mtx",
                                    "%%MatrixMarket matrix array integer symmetric\n"
                                    "3 3\n"
                                    "1\n2\n3\n4\n5\n6\n");  // lower triangle, column-major
  EXPECT_EQ(dense_of(sym), (std::vector<double>{1, 2, 3, 2, 4, 5, 3, 5, 6}));
  std::string const skew = file_with("askew.mtx",
                                     "%%MatrixMarket matrix array real skew-symmetric\n"
                                     "3 3\n"
                                     "1\n2\n3\n");
  EXPECT_EQ(dense_of(skew), (std::vector<double>{0, -1, -2, 1, 0, -3, 2, 3, 0}));
  EXPECT_EQ(io::read_matrix_market(general).nnz(), 6);
}

TEST(MatrixMarket, ReportsEveryMalformedFileWithItsLine) {
  std::string const banner = "%%MatrixMarket matrix coordinate real general\n";
  expect_malformed("", 1, "the file is empty");
  expect_malformed("%%MatrixMarket matrix coordinate real\n", 1, "expected the banner");
  expect_malformed("%MatrixMarket matrix coordinate real general\n", 1, "expected the banner");
  expect_malformed("%%MatrixMarket vector coordinate real general\n", 1, "object 'vector'");
  expect_malformed("%%MatrixMarket matrix dense real general\n", 1, "format 'dense'");
  expect_malformed("%%MatrixMarket matrix coordinate complex general\n", 1, "field 'complex'");
  expect_malformed("%%MatrixMarket matrix array pattern general\n", 1, "field 'pattern'");
  expect_malformed("%%MatrixMarket matrix coordinate real hermitian\n", 1, "symmetry 'hermitian'");
  expect_malformed(banner + "% only comments\n", 2, "before the size line");
  expect_malformed(banner + "2 2\n", 2, "expected the size line 'rows cols entries'");
  expect_malformed(banner + "2 -2 1\n", 2, "'-2' on the size line");
  expect_malformed(banner + "2 2 1 7\n", 2, "expected the size line");
  expect_malformed("%%MatrixMarket matrix coordinate real symmetric\n2 3 1\n", 2, "must be square");
  expect_malformed(banner + "2 2 2\n1 1 1.0\n", 3, "ends after 1 of the 2 entries");
  expect_malformed(banner + "2 2 1\n1 1 1.0\n2 2 2.0\n", 4, "more entries than the 1");
  expect_malformed(banner + "2 2 1\n1 3 1.0\n", 3, "column index 3 is outside 1..2");
  expect_malformed(banner + "2 2 1\nx 1 1.0\n", 3, "row index 'x' is not an integer");
  expect_malformed(banner + "2 2 1\n1 1 1.0abc\n", 3, "value '1.0abc' is not a number");
  expect_malformed(banner + "2 2 1\n1 1\n", 3, "expected 3 field(s) per entry but found 2");
  expect_malformed("%%MatrixMarket matrix coordinate integer general\n2 2 1\n1 1 1.5\n", 3,
                   "'1.5' is not an integer");
  expect_malformed("%%MatrixMarket matrix coordinate real symmetric\n2 2 1\n1 2 1.0\n", 3,
                   "above the diagonal");
  expect_malformed("%%MatrixMarket matrix coordinate real skew-symmetric\n2 2 1\n1 1 1.0\n", 3,
                   "not below the diagonal");
  expect_malformed("%%MatrixMarket matrix array real general\n2 1\n1\n", 3,
                   "ends after 1 of the 2");
  EXPECT_THROW(io::read_matrix_market("/nonexistent/missing.mtx"), FileError);
}

TEST(MatrixMarket, WriterRoundTripsExactly) {
  for (test::SparseTypes const t : test::all_sparse_types()) {
    SCOPED_TRACE(test::types_name(t));
    reference::Csr a = test::random_ragged(37, 23, 9, 5);
    for (std::size_t k = 0; k < a.values.size(); ++k)
      a.values[k] = std::ldexp(a.values[k], -int(k % 40)) / 3.0;
    sparse::CsrMatrix const m = test::to_library(a, t);
    std::string const path = file_with("round.mtx", "");
    io::write_matrix_market(path, m.view());
    // What the writer stores is (row, col) as given: repeats stay separate triplets.
    sparse::Triplets const back = io::read_matrix_market_triplets(path);
    reference::Csr const want = test::from_library(m);
    ASSERT_EQ(back.size(), static_cast<std::int64_t>(want.values.size()));
    for (std::int64_t r = 0, e = 0; r < want.rows; ++r) {
      for (std::int64_t k = want.offsets[r]; k < want.offsets[r + 1]; ++k, ++e) {
        EXPECT_EQ(back.row[e], r);
        EXPECT_EQ(back.col[e], want.col_indices[k]);
        // float32 values are written with 9 digits: exact once read back into a float.
        double const read =
            t.value == DType::kFloat32 ? static_cast<float>(back.value[e]) : back.value[e];
        EXPECT_EQ(read, want.values[k]) << "entry " << e;
      }
    }
  }
  std::vector<double> const values = {1.0 / 3.0, -2.5e-300, 7, 1e300, 0, -0.1};
  for (DType dtype : {DType::kFloat32, DType::kFloat64}) {
    Array const dense = test::host_array(values, 2, 3, dtype);
    std::string const path = file_with("dense.mtx", "");
    io::write_matrix_market(path, dense.view());
    EXPECT_EQ(io::read_matrix_market_header(path).format, MtxFormat::kArray);
    Array const back = io::read_matrix_market_dense(path, dtype);
    CUDIST_EXPECT_SAME_VALUES(test::to_doubles(back.view()), test::to_doubles(dense.view()));
  }
}

TEST(Triplets, ConvertWithSumOrMinAndCheckRange) {
  sparse::Triplets t;
  t.rows = 2;
  t.cols = 3;
  t.row = {1, 0, 1, 1};
  t.col = {2, 1, 2, 0};
  t.value = {4.0, 1.0, -6.0, 2.0};
  EXPECT_EQ(test::to_doubles(sparse::to_dense(t).view()), (std::vector<double>{0, 1, 0, 2, 0, -2}));
  double const inf = std::numeric_limits<double>::infinity();
  EXPECT_EQ(
      test::to_doubles(sparse::to_dense(t, DType::kFloat32, inf, sparse::Duplicates::kMin).view()),
      (std::vector<double>{inf, 1, inf, 2, inf, -6}));
  reference::Csr const c = test::from_library(sparse::to_csr(t, DType::kFloat64, DType::kInt64));
  EXPECT_EQ(c.offsets, (std::vector<std::int64_t>{0, 1, 3}));
  EXPECT_EQ(c.col_indices, (std::vector<std::int64_t>{1, 0, 2}));
  EXPECT_EQ(c.values, (std::vector<double>{1, 2, -2}));
  t.col[3] = 3;
  EXPECT_THROW(sparse::to_csr(t), InvalidArgument);
  EXPECT_THROW(sparse::to_dense(t), InvalidArgument);
}

}  // namespace
}  // namespace cudist
