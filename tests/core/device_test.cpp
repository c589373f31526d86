#include <gtest/gtest.h>

#include "common/backend.hpp"
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

}  // namespace
}  // namespace cudist
