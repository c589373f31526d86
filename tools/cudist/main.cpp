// cudist: distance-like matrix products on NVIDIA GPUs, from the command line.
#include <cstdio>
#include <exception>

#include <CLI/CLI.hpp>

#include "cli_common.hpp"
#include "commands.hpp"
#include "cudist/core/error.hpp"

int main(int argc, char** argv) {
  CLI::App app{"cudist: pairwise distances, nearest neighbours, distance products and sparse "
               "products on NVIDIA GPUs (CPU fallback)"};
  app.require_subcommand(1);
  cudist::cli::add_all_commands(app);
  cudist::cli::stop_work_on_sigint();
  try {
    app.parse(argc, argv);
  } catch (CLI::ParseError const& e) {
    return app.exit(e);
  } catch (cudist::Interrupted const&) {
    // Outputs are written to temporary files renamed when complete, so none is left behind.
    std::fprintf(stderr, "cudist: interrupted (Ctrl-C); no output was written\n");
    return 130;  // 128 + SIGINT, as shells report a process that SIGINT ended
  } catch (cudist::Error const& e) {
    std::fprintf(stderr, "cudist: error: %s\n", e.what());
    return 1;
  } catch (std::exception const& e) {
    std::fprintf(stderr, "cudist: internal error: %s\n", e.what());
    return 2;
  }
  return 0;
}
