// How many sources the GPU's Bellman-Ford searches per block (graph/detail/relax_plan.hpp): the
// benchmark graphs on the H100's and Turing's shared memory, and on every size the most sources
// whose state fits, never more.
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>

#include "graph/detail/relax_plan.hpp"

namespace cudist::detail {
namespace {

constexpr std::size_t kH100 = 227 * 1024;    // opt-in shared memory per block
constexpr std::size_t kTuring = 64 * 1024;

TEST(RelaxPlan, BlockBytesCountTwoRoundsOfValuesAndHopsAndTwoMasks) {
  // 100 vertices, 4 sources: 100 x 4 x (2 x 4 + 2 x 4) bytes and 2 x 4 mask words of 4 bytes.
  EXPECT_EQ(relax_block_bytes(100, 4, 4, true), 100u * 4 * 16 + 2 * 4 * 4);
  EXPECT_EQ(relax_block_bytes(100, 4, 8, false), 100u * 4 * 16 + 2 * 4 * 4);
  EXPECT_EQ(relax_block_bytes(32, 1, 4, false), 32u * 8 + 2 * 1 * 4);
}

TEST(RelaxPlan, BenchmarkGraphsOnTheH100) {
  // A2, uscounties: 3111 vertices, 98 mask words.
  RelaxPlan const a2 = relax_plan(3111, 4, false, kH100);
  EXPECT_EQ(a2.sources_per_block, 8);
  EXPECT_TRUE(a2.in_shared);
  EXPECT_EQ(a2.block_bytes, 3111u * 8 * 8 + 2 * 98 * 4);
  EXPECT_EQ(relax_plan(3111, 4, true, kH100).sources_per_block, 4);
  EXPECT_EQ(relax_plan(3111, 8, false, kH100).sources_per_block, 4);
  EXPECT_EQ(relax_plan(3111, 8, true, kH100).sources_per_block, 2);
  // A3, the road grid: 15006 vertices fit once without next hops, not with them.
  RelaxPlan const a3 = relax_plan(15006, 4, false, kH100);
  EXPECT_EQ(a3.sources_per_block, 1);
  EXPECT_TRUE(a3.in_shared);
  RelaxPlan const a3_hops = relax_plan(15006, 4, true, kH100);
  EXPECT_EQ(a3_hops.sources_per_block, 1);
  EXPECT_FALSE(a3_hops.in_shared);
  EXPECT_EQ(a3_hops.block_bytes, relax_block_bytes(15006, 1, 4, true));
}

TEST(RelaxPlan, TuringsSharedMemory) {
  EXPECT_EQ(relax_plan(3111, 4, true, kTuring).sources_per_block, 1);
  EXPECT_TRUE(relax_plan(3111, 4, true, kTuring).in_shared);
  EXPECT_FALSE(relax_plan(3111, 8, true, kTuring).in_shared);
  EXPECT_EQ(relax_plan(500, 4, true, kTuring).sources_per_block, 8);
}

TEST(RelaxPlan, EverySizeGetsTheMostSourcesThatFit) {
  for (std::size_t value_bytes : {std::size_t(4), std::size_t(8)}) {
    int const most = max_sources_per_block(value_bytes);
    EXPECT_EQ(most, value_bytes == 4 ? 8 : 4);
    for (bool hops : {false, true}) {
      for (std::size_t budget : {kTuring, kH100}) {
        int previous = most;
        for (std::int64_t n = 1; n <= 40000; n += n < 100 ? 1 : 37) {
          RelaxPlan const plan = relax_plan(n, value_bytes, hops, budget);
          SCOPED_TRACE("n=" + std::to_string(n) + " value_bytes=" + std::to_string(value_bytes) +
                       " hops=" + std::to_string(hops) + " budget=" + std::to_string(budget));
          ASSERT_EQ(plan.block_bytes, relax_block_bytes(n, plan.sources_per_block, value_bytes, hops));
          EXPECT_LE(plan.sources_per_block, previous);  // larger graphs, never more sources
          previous = plan.sources_per_block;
          if (!plan.in_shared) {
            EXPECT_EQ(plan.sources_per_block, 1);
            EXPECT_GT(plan.block_bytes, budget);
            continue;
          }
          EXPECT_LE(plan.block_bytes, budget);
          if (plan.sources_per_block < most) {
            EXPECT_GT(relax_block_bytes(n, 2 * plan.sources_per_block, value_bytes, hops), budget);
          }
        }
      }
    }
  }
}

}  // namespace
}  // namespace cudist::detail
