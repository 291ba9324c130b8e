// bench_core: nanoseconds per request through the pacing core (see bench/core_workloads.hpp).
//
//   bench_core          a readable table
//   bench_core --json   one line: {"one_host_ns":...,"many_hosts_ns":...,"group_ns":...}
//   bench_core --scaling  ns per request of the 10,000-host workload's shape at 1 to 10,000
//                         hosts, its queues built once and reused, or built for each round
//   bench_core --only one|many|group [N]   that workload alone, once or N times, best counted (for
//                                          profilers: the first run of `many` grows the heap,
//                                          page faults and all, where the figure's best run
//                                          reuses what the runs before it freed)

#include <sys/mman.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string_view>
#include <vector>

#include "bench/core_workloads.hpp"
#include "core/huge_page_allocator.hpp"

using namespace pacing::bench;

int main(int argc, char** argv) {
  // As the lab's programs do (sim/huge_pages.hpp): the core's big arrays on huge pages.
  pacing::huge_page_advice = [](void* block, std::size_t bytes) {
    ::madvise(block, bytes, MADV_HUGEPAGE);
  };
  const bool json = argc > 1 && std::string_view(argv[1]) == "--json";
  if (argc > 2 && std::string_view(argv[1]) == "--only") {
    const std::string_view which = argv[2];
    const Workload w = which == "one" ? one_host() : which == "many" ? many_hosts() : one_group();
    const int runs = argc > 3 ? std::max(1, std::atoi(argv[3])) : 1;
    const Figure f = measure(w, runs);
    std::printf("%s: %.1f ns/request\n", f.name.c_str(), f.ns_per_request());
    return 0;
  }
  constexpr int kRepetitions = 3;
  if (argc > 1 && std::string_view(argv[1]) == "--scaling") {
    // The shape of (b) at 1 to 10,000 hosts: what a request costs as the requests held at once
    // (ten per host) and their hosts outgrow the caches, with the hosts' queues built once and
    // reused over the rounds, or built for their ten requests (one round on a fresh engine, as
    // in (b)). Best of 5: the first runs of a fresh process also pay for the heap's growth.
    constexpr int kScalingRepetitions = 5;
    const double one = measure(hosts_x10(1, 10'000), kScalingRepetitions).ns_per_request();
    std::printf("%-28s %8s %8s %12s %10s\n", "workload (best of 5)", "held", "rounds", "ns/request",
                "vs 1 host");
    const int shapes[][2] = {{1, 10'000}, {10, 1'000}, {100, 100}, {1'000, 10},
                             {1'000, 1},  {3'000, 1},  {10'000, 1}};
    for (const auto& [hosts, rounds] : shapes) {
      const Figure f = measure(hosts_x10(hosts, rounds), kScalingRepetitions);
      std::printf("%-28s %8d %8d %12.1f %9.2fx\n", f.name.c_str(), hosts * 10, rounds,
                  f.ns_per_request(), f.ns_per_request() / one);
    }
    return 0;
  }
  const std::vector<Figure> figures = {measure(one_host(), kRepetitions),
                                       measure(many_hosts(), kRepetitions),
                                       measure(one_group(), kRepetitions)};
  if (json) {
    std::printf("{\"one_host_ns\":%.1f,\"many_hosts_ns\":%.1f,\"group_ns\":%.1f}\n",
                figures[0].ns_per_request(), figures[1].ns_per_request(),
                figures[2].ns_per_request());
    return 0;
  }
  std::printf("%-38s %10s %10s %12s\n", "workload (best of 3)", "requests", "total ms",
              "ns/request");
  for (const Figure& f : figures) {
    std::printf("%-38s %10zu %10.1f %12.1f\n", f.name.c_str(), f.requests,
                static_cast<double>(f.best.count()) / 1e6, f.ns_per_request());
  }
  return 0;
}
