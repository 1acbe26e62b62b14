// The interior point's debug trace (sim/solver/iteration_trace.hpp).
#include "sim/solver/iteration_trace.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "sim/solver/inequality.hpp"

namespace maxsim {

namespace {

struct Window {
  bool all = false, any = false;
  double t0 = 0, t1 = 0;
};

const Window& window() {
  static const Window w = [] {
    Window out;
    const char* env = std::getenv("MAXSIM_IP_TRACE");
    if (env == nullptr || *env == 0) return out;
    const std::string s(env);
    out.any = true;
    const size_t colon = s.find(':');
    if (s == "all" || colon == std::string::npos) {
      out.all = true;
      return out;
    }
    out.t0 = std::strtod(s.substr(0, colon).c_str(), nullptr);
    out.t1 = std::strtod(s.substr(colon + 1).c_str(), nullptr);
    return out;
  }();
  return w;
}

std::string kind_name(const InequalityKind& k) {
  std::string n = k.name();
  std::replace(n.begin(), n.end(), ' ', '_');
  return n;
}

}  // namespace

IterationTrace::IterationTrace(const Data& d) {
  const Window& w = window();
  on_ = w.any && (w.all || (d.time >= w.t0 && d.time <= w.t1));
}

void IterationTrace::begin(const Model&, const Data& d, bool settled) const {
  if (!on_) return;
  const Workspace& ws = workspace(d);
  int open = 0, warm = 0, kinds[8] = {};
  std::string names[8];
  int nk = 0;
  for (size_t c = 0; c < d.contacts.size(); ++c) {
    if (ws.contact_kin[c].phi > 1e-3) ++open;
    if (c < ws.warm.size() && ws.warm[c]) ++warm;
    const std::string n = kind_name(*ws.kinds[c]);
    int k = 0;
    while (k < nk && names[k] != n) ++k;
    if (k == nk && nk < 8) names[nk++] = n;
    if (k < 8) ++kinds[k];
  }
  std::fprintf(stderr, "IP begin t=%.6f dt=%g n=%zu open=%d warm=%d settled=%d", d.time, ws.dt, d.contacts.size(),
               open, warm, settled ? 1 : 0);
  for (int k = 0; k < nk; ++k) std::fprintf(stderr, " %s=%d", names[k].c_str(), kinds[k]);
  std::fprintf(stderr, "\n");
}

void IterationTrace::iteration(const Model& model, const Data& d, const Eigen::VectorXd& F, const EqualityTest& test,
                               const IterationRecord& r, const std::vector<Vec6>& steps) const {
  if (!on_) return;
  const Workspace& ws = workspace(d);
  const SystemLayout& L = ws.layout;
  double momentum = 0;
  int worst_body = -1, worst_pair = -1;
  for (int i = 0; i < L.bodies; ++i)
    if (L.body(F, i).lpNorm<Eigen::Infinity>() > momentum) momentum = L.body(F, i).lpNorm<Eigen::Infinity>(), worst_body = i;
  const double rows = F.head(L.equality_size()).lpNorm<Eigen::Infinity>();
  double gap = 0, comp = 0;
  int bad_gap = 0, bad_comp = 0, limiter = -1;
  double limit_alpha = 2.0;
  const double tol = model.opt.solver.tolerance, ctol = model.opt.interior_point.complementarity_tolerance;
  for (size_t c = 0; c < d.contacts.size(); ++c) {
    const Contact& ct = d.contacts[c];
    double m = 0;
    ws.kinds[c]->add_equality_merit(ct, ws.contact_kin[c], ws.dt, &m);
    gap = std::max(gap, m);
    if (!ws.kinds[c]->converged(ct, ws.contact_kin[c], tol, ws.dt)) ++bad_gap;
    const double p = ws.kinds[c]->max_complementarity(ct, ws.cone_test);
    if (p > comp) comp = p, worst_pair = static_cast<int>(c);
    if (p >= ctol) ++bad_comp;
    if (2 * c + 1 < steps.size()) {
      const double a = ws.kinds[c]->max_step(ct, steps[2 * c], steps[2 * c + 1], 1.0);
      if (a < limit_alpha) limit_alpha = a, limiter = static_cast<int>(c);
    }
  }
  std::fprintf(stderr,
               "IP it=%d mu=%.2e sig=%.2e aaff=%.3f amax=%.3f cd=%d mom=%.1e rows=%.1e eqok=%d gapv=%.1e ngap=%d "
               "comp=%.1e ncomp=%d reg=%d",
               r.iteration, r.mu, r.sigma, r.alpha_aff, r.alpha_max, r.centred_direction ? 1 : 0, momentum, rows,
               test(F) ? 1 : 0, gap, bad_gap, comp, bad_comp, ws.ldu.num_regularized());
  if (limiter >= 0 && limit_alpha < 1.0) {
    const Contact& ct = d.contacts[limiter];
    std::fprintf(stderr, " lim=%s#%d(a=%.3g phi=%.2e g=%.2e s=%.2e warm=%d)", kind_name(*ws.kinds[limiter]).c_str(), limiter,
                 limit_alpha, ws.contact_kin[limiter].phi, ct.gamma, ct.slack,
                 static_cast<size_t>(limiter) < ws.warm.size() ? int(ws.warm[limiter]) : -1);
    if (std::getenv("MAXSIM_IP_TRACE_DETAIL") != nullptr) {
      const Vec6& a = steps[2 * limiter];
      const Vec6& e = steps[2 * limiter + 1];
      std::fprintf(stderr, " [b=%.3e %.3e eta=%.3e %.3e %.3e dry=%.3e vt=%.3e a=%.2e %.2e %.2e %.2e %.2e e=%.2e %.2e]",
                   ct.b(0), ct.b(1), ct.eta(0), ct.eta(1), ct.eta(2), ct.dry_limit, ws.contact_kin[limiter].vt(0),
                   a(0), a(1), a(2), a(3), a(4), e(0), e(1));
    }
  }
  if (std::getenv("MAXSIM_IP_TRACE_DETAIL") != nullptr && worst_pair >= 0) {
    const Contact& ct = d.contacts[worst_pair];
    std::fprintf(stderr, " {body=%d pair=%s#%d joint=%d b=%.3e eta=%.3e %.3e %.3e dry=%.3e vt=%.3e g=%.3e s=%.3e phi=%.3e}",
                 worst_body, kind_name(*ws.kinds[worst_pair]).c_str(), worst_pair, ct.joint, ct.b(0), ct.eta(0),
                 ct.eta(1), ct.eta(2), ct.dry_limit, ws.contact_kin[worst_pair].vt(0), ct.gamma, ct.slack,
                 ws.contact_kin[worst_pair].phi);
  }
  std::fprintf(stderr, "\n");
}

void IterationTrace::step(const IterationRecord& r) const {
  if (!on_) return;
  std::fprintf(stderr, "IP step it=%d a=%.3g ls=%d rc=%d\n", r.iteration, r.alpha, r.halvings, r.recentred ? 1 : 0);
}

void IterationTrace::line_search(int halving, double alpha, double merit0, double merit1, double eq0,
                                 double eq1) const {
  static const bool on = std::getenv("MAXSIM_IP_TRACE_LS") != nullptr;
  if (!on_ || !on) return;
  std::fprintf(stderr, "IP ls %d a=%.3e merit %.6e -> %.6e eq %.6e -> %.6e\n", halving, alpha, merit0, merit1, eq0, eq1);
}

void IterationTrace::end(const StepReport& rep) const {
  if (!on_) return;
  std::fprintf(stderr, "IP end iterations=%d status=%d residual=%.2e\n", rep.iterations, static_cast<int>(rep.status),
               rep.residual);
}

}  // namespace maxsim

namespace maxsim {

bool IterationTrace::directional_check() const {
  static const bool on = std::getenv("MAXSIM_IP_TRACE_FD") != nullptr;
  return on_ && on;
}

void IterationTrace::direction_check(const Data& d, const Eigen::VectorXd& mismatch, const Eigen::VectorXd& F) const {
  const SystemLayout& L = workspace(d).layout;
  Eigen::Index k = 0;
  const double worst = mismatch.size() > 0 ? mismatch.cwiseAbs().maxCoeff(&k) : 0.0;
  const int node = static_cast<int>(k / 6);
  std::fprintf(stderr, "IP fd mismatch=%.3e at %s %d row %d, |F_eq|=%.3e\n", worst, node < L.bodies ? "body" : "node",
               node < L.bodies ? node : node - L.bodies, static_cast<int>(k % 6),
               F.head(L.equality_size()).lpNorm<Eigen::Infinity>());
}

}  // namespace maxsim
