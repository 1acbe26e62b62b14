#include "tuning/optimize.hpp"

#include <cstdio>
#include <stdexcept>

#ifdef MAXSIM_HAVE_NLOPT
#include <nlopt.h>
#endif

namespace maxsim {

bool built_with_nlopt() {
#ifdef MAXSIM_HAVE_NLOPT
  return true;
#else
  return false;
#endif
}

std::vector<std::string> optimizer_names() {
  std::vector<std::string> names = {"sample"};
#ifdef MAXSIM_HAVE_NLOPT
  for (int a = 0; a < NLOPT_NUM_ALGORITHMS; ++a) {
    const std::string name = nlopt_algorithm_to_string(static_cast<nlopt_algorithm>(a));
    // derivative-free ones that need no subsidiary optimizer
    if ((name.rfind("GN_", 0) == 0 || name.rfind("LN_", 0) == 0) && name.find("MLSL") == std::string::npos &&
        name.find("AUGLAG") == std::string::npos)
      names.push_back("nlopt:" + name);
  }
#endif
  return names;
}

void check_optimizer(const std::string& optimizer) {
  const std::vector<std::string> names = optimizer_names();
  for (const std::string& n : names)
    if (n == optimizer) return;
  std::string known;
  for (const std::string& n : names) known += (known.empty() ? "" : ", ") + n;
  if (optimizer.rfind("nlopt:", 0) == 0 && !built_with_nlopt())
    throw std::invalid_argument("optimizer '" + optimizer + "': this maxsim was built without NLopt (install libnlopt-cxx-dev and rebuild)");
  throw std::invalid_argument("unknown optimizer '" + optimizer + "' (known: " + known + ")");
}

bool optimizer_option(const Cluster& cluster, const std::string& optimizer) {
  if (optimizer != "list") {
    check_optimizer(optimizer);
    return true;
  }
  if (cluster.root())
    for (const std::string& name : optimizer_names()) std::printf("%s\n", name.c_str());
  return false;
}

SearchResult optimize(const std::string& optimizer, const std::vector<SearchParameter>& parameters,
                      Evaluator& evaluator, const SearchOptions& options) {
  check_optimizer(optimizer);
  if (optimizer == "sample") return sample_search(parameters, evaluator, options);
  return nlopt_search(optimizer.substr(6), parameters, evaluator, options);
}

#ifndef MAXSIM_HAVE_NLOPT
SearchResult nlopt_search(const std::string& algorithm, const std::vector<SearchParameter>&, Evaluator&,
                          const SearchOptions&) {
  throw std::invalid_argument("nlopt:" + algorithm + ": this maxsim was built without NLopt (install libnlopt-cxx-dev and rebuild)");
}
#endif

std::optional<SearchResult> optimize(const Cluster& cluster, const std::string& optimizer,
                                     const std::vector<SearchParameter>& parameters, const Objective& objective,
                                     const SearchOptions& options) {
  std::vector<std::string> names;
  for (const SearchParameter& p : parameters) names.push_back(p.name);
  const std::unique_ptr<Evaluator> evaluator = cluster.evaluator(objective, options.threads, names);
  if (!cluster.root()) {
    evaluator->serve();
    return std::nullopt;
  }
  return optimize(optimizer, parameters, *evaluator, options);  // the evaluator's end releases the ranks
}

}  // namespace maxsim
