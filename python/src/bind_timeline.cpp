// CUDIST_TIMELINE from Python (include/cudist/core/timeline.hpp): whether it records, and spans
// the package opens around its own steps (argument conversion, output allocation), so that a
// trace shows the Python side of a call beside the library's.
#include <optional>
#include <string>
#include <utility>

#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>

#include "bindings.hpp"
#include "cudist/core/timeline.hpp"

namespace nb = nanobind;

namespace cudist::python {
namespace {

/// A span as a context manager: recorded from __enter__ to __exit__.
class PythonSpan {
 public:
  explicit PythonSpan(std::string name) : name_(std::move(name)) {}
  void enter() { span_.emplace(name_.c_str()); }
  void exit() { span_.reset(); }

 private:
  std::string name_;
  std::optional<TimelineSpan> span_;
};

}  // namespace

void bind_timeline(nb::module_& m) {
  m.def("timeline_on", &timeline_on, "Whether CUDIST_TIMELINE is recording spans.");
  nb::class_<PythonSpan>(m, "TimelineSpan", "A named span of the CUDIST_TIMELINE trace, as a context manager.")
      .def(nb::init<std::string>(), nb::arg("name"))
      .def("__enter__", [](PythonSpan& s) { s.enter(); })
      .def("__exit__", [](PythonSpan& s, nb::args) { s.exit(); });
}

}  // namespace cudist::python
