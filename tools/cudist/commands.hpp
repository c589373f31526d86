// The subcommands of the cudist tool. Each lives in its own cmd_<name>.cpp and registers itself
// on the app with add_<name>_commands; commands.cpp lists them in help order.
#pragma once

#include <CLI/CLI.hpp>

namespace cudist::cli {

void add_distance_commands(CLI::App& app);  // cdist, pdist
void add_info_command(CLI::App& app);       // info
void add_neighbor_commands(CLI::App& app);  // knn, match, radius
void add_bench_command(CLI::App& app);      // bench
void add_demo_command(CLI::App& app);       // demo
void add_semiring_commands(CLI::App& app);  // minplus, apsp
void add_sparse_commands(CLI::App& app);    // spmv, spmm

/// Calls every add_*_command in help order.
void add_all_commands(CLI::App& app);

}  // namespace cudist::cli
