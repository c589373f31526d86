#include "commands.hpp"

namespace cudist::cli {

void add_all_commands(CLI::App& app) {
  add_distance_commands(app);
  add_info_command(app);
}

}  // namespace cudist::cli
