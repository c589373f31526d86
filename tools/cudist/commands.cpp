#include "commands.hpp"

namespace cudist::cli {

void add_all_commands(CLI::App& app) {
  add_demo_command(app);
  add_distance_commands(app);
  add_neighbor_commands(app);
  add_semiring_commands(app);
  add_sparse_commands(app);
  add_info_command(app);
  add_bench_command(app);
}

}  // namespace cudist::cli
