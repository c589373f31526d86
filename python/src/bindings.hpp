// One registration function per area of the public C++ API; module.cpp calls each once. Adding
// an area (neighbours, semirings, sparse) is one more bind_*.cpp file and one line here and there.
#pragma once

#include <nanobind/nanobind.h>

namespace cudist::python {

void bind_errors(nanobind::module_& m);
void bind_devices(nanobind::module_& m);
void bind_distance(nanobind::module_& m);
void bind_neighbors(nanobind::module_& m);
void bind_semiring(nanobind::module_& m);
void bind_graph(nanobind::module_& m);
void bind_sparse(nanobind::module_& m);
void bind_timeline(nanobind::module_& m);

}  // namespace cudist::python
