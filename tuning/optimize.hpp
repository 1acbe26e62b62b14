// One entry point for every optimizer of a search: the sampling search of Brüdigam et al. (2023)
// (controllers/search.hpp) or a derivative-free algorithm of NLopt, a kept library, over the same
// parameters, objective, evaluator, options, CSV log and best file.
//
//   "sample"            sample_search: `episodes` episodes of `samples` points, run in parallel
//   "nlopt:GN_ESCH"     any of NLopt's derivative-free algorithms by its NLopt name (GN_* global,
//   "nlopt:LN_SBPLX"    LN_* local; global ones need finite bounds), with a budget of
//   "nlopt:GN_CRS2_LM"  episodes × samples evaluations, the same as the sampling search's
//
// NLopt asks for one point at a time, so its evaluations are serial (a batch of one on the
// evaluator, whatever its workers); its log has one row per evaluation ("episode" = evaluation,
// radius 0). The initial parameters are evaluated first, as episode 0, and that value is reused
// when the algorithm asks for the same point. Local algorithms start with steps of radius ×
// scale. NLopt's random numbers (global algorithms) are seeded with options.seed, so a run is
// reproducible. A failed evaluation (non-finite) reaches NLopt as −1e30, a finite number every
// algorithm can compare.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "controllers/search.hpp"
#include "tuning/cluster.hpp"

namespace maxsim {

// The names optimize() accepts in this build ("sample" and, with NLopt, its algorithms).
std::vector<std::string> optimizer_names();
bool built_with_nlopt();  // whether this build has NLopt
// Throws std::invalid_argument naming the known optimizers when `optimizer` is not one of them.
void check_optimizer(const std::string& optimizer);
// A program's --optimizer value: "list" prints the known names (on rank 0) and returns false
// (nothing to run); any other name is checked (check_optimizer) and returns true.
bool optimizer_option(const Cluster& cluster, const std::string& optimizer);

// Runs `optimizer` (see above); throws std::invalid_argument naming the problem for an unknown
// optimizer, one that needs derivatives, a global one with infinite bounds, and whatever
// sample_search refuses.
SearchResult optimize(const std::string& optimizer, const std::vector<SearchParameter>& parameters,
                      Evaluator& evaluator, const SearchOptions& options);

// `optimizer` on the cluster's evaluator of `objective` (options.threads threads per rank): rank 0
// searches and gets the result; the other ranks evaluate batches until it finishes and get
// std::nullopt. Without mpirun, the search on this process's threads.
std::optional<SearchResult> optimize(const Cluster& cluster, const std::string& optimizer,
                                     const std::vector<SearchParameter>& parameters, const Objective& objective,
                                     const SearchOptions& options);

// NLopt's algorithm `algorithm` (its name without "nlopt:"); optimize() calls it.
SearchResult nlopt_search(const std::string& algorithm, const std::vector<SearchParameter>& parameters,
                          Evaluator& evaluator, const SearchOptions& options);

}  // namespace maxsim
