#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "common/backend.hpp"
#include "core/detail/cuda_runtime.hpp"
#include "cudist/core/array.hpp"
#include "cudist/core/device.hpp"
#include "cudist/core/error.hpp"

namespace cudist {
namespace {

TEST(Device, ParsesNames) {
  EXPECT_EQ(Device::parse("cpu"), Device::cpu());
  EXPECT_EQ(Device::parse("cuda"), Device::cuda(0));
  EXPECT_EQ(Device::parse("cuda:3"), Device::cuda(3));
  EXPECT_EQ(Device::parse("cuda:3").str(), "cuda:3");
  EXPECT_EQ(Device::parse("auto"), Device::best_available());
}

TEST(Device, RejectsBadNames) {
  for (char const* bad : {"", "gpu:x", "cuda:", "cuda:-1", "cuda:1x", "tpu"}) {
    EXPECT_THROW(Device::parse(bad), InvalidArgument) << bad;
  }
}

TEST(Device, MissingGpuIsAClearError) {
  Device const beyond = Device::cuda(cuda_device_count());
  try {
    require_device(beyond, "cdist");
    FAIL() << "expected DeviceUnavailable";
  } catch (DeviceUnavailable const& e) {
    EXPECT_NE(std::string(e.what()).find("cdist"), std::string::npos) << e.what();
  }
}

TEST(DeviceSet, ParsesListsAndSingleDevices) {
  DeviceSet const two = DeviceSet::parse("cuda:0,1");
  ASSERT_EQ(two.size(), 2u);
  EXPECT_EQ(two.devices[0], Device::cuda(0));
  EXPECT_EQ(two.devices[1], Device::cuda(1));
  EXPECT_EQ(two.str(), "cuda:0,1");
  EXPECT_EQ(DeviceSet::parse("cuda:3,1,2").str(), "cuda:3,1,2");  // order kept: results on cuda:3
  EXPECT_EQ(DeviceSet::parse("cpu").size(), 1u);
  EXPECT_EQ(DeviceSet::parse("cuda:2").primary(), Device::cuda(2));
  EXPECT_EQ(DeviceSet(Device::cpu()).str(), "cpu");
}

TEST(DeviceSet, RejectsMalformedListsAndDuplicatesNamingThem) {
  for (char const* bad : {"cuda:0,", "cuda:,1", "cuda:0,x", "cuda:0,-1", "cuda:0,,1", "cpu,cuda:0",
                          "cuda:0,1 "}) {
    EXPECT_THROW(DeviceSet::parse(bad), InvalidArgument) << bad;
  }
  try {
    DeviceSet::parse("cuda:1,0,1");
    FAIL() << "expected InvalidArgument";
  } catch (InvalidArgument const& e) {
    EXPECT_NE(std::string(e.what()).find("cuda:1 twice"), std::string::npos) << e.what();
  }
}

TEST(DeviceSet, AllIsEveryGpuOrAClearError) {
  if (cuda_device_count() == 0) {
    EXPECT_THROW(DeviceSet::parse("cuda:all"), DeviceUnavailable);
    return;
  }
  DeviceSet const all = DeviceSet::parse("cuda:all");
  ASSERT_EQ(static_cast<int>(all.size()), cuda_device_count());
  for (int i = 0; i < cuda_device_count(); ++i) EXPECT_EQ(all.devices[i], Device::cuda(i));
  EXPECT_NO_THROW(require_device_set(all, "knn"));
}

TEST(DeviceSet, RequireNamesTheCallAndTheProblem) {
  auto message_of = [](DeviceSet const& set) {
    try {
      require_device_set(set, "knn");
    } catch (Error const& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_NE(message_of(DeviceSet()).find("knn: the device set is empty"), std::string::npos);
  DeviceSet const twice(std::vector<Device>{Device::cuda(0), Device::cuda(0)});
  EXPECT_NE(message_of(twice).find("cuda:0 twice"), std::string::npos) << message_of(twice);
  DeviceSet const mixed(std::vector<Device>{Device::cpu(), Device::cuda(0)});
  EXPECT_NE(message_of(mixed).find("mixes the CPU"), std::string::npos) << message_of(mixed);
  DeviceSet const beyond(std::vector<Device>{Device::cuda(0), Device::cuda(cuda_device_count() + 1)});
  EXPECT_THROW(require_device_set(beyond, "knn"), DeviceUnavailable);
  EXPECT_NE(message_of(beyond).find("knn"), std::string::npos);
}

// A device set's host inputs and outputs move to and from each of its GPUs whichever GPU is
// current: large copies (page-locked stages) and small ones, both ways. Before, a download from
// cuda:0 with cuda:1 current failed with cudaErrorInvalidValue (2 x H200, run 131).
TEST(DeviceSet, CopiesReachEveryGpuWhicheverIsCurrent) {
  if (cuda_device_count() < 2) GTEST_SKIP() << "needs two GPUs";
  for (std::int64_t rows : {std::int64_t{5}, std::int64_t{40000}}) {  // 2.5 KB, and 20 MB through the stages
    std::int64_t const cols = 128;
    std::vector<float> host(static_cast<std::size_t>(rows * cols));
    for (std::size_t i = 0; i < host.size(); ++i) host[i] = static_cast<float>(i % 1000003);
    for (int gpu = 0; gpu < 2; ++gpu) {
      detail::ScopedDevice const other(Device::cuda(1 - gpu));
      Array const on_gpu = Array::copy_of(view(host.data(), rows, cols), Device::cuda(gpu));
      std::vector<float> back(host.size());
      copy(on_gpu.view(), view(back.data(), rows, cols));
      EXPECT_EQ(back, host) << rows << " rows on cuda:" << gpu << " with cuda:" << 1 - gpu << " current";
    }
  }
}

}  // namespace
}  // namespace cudist
