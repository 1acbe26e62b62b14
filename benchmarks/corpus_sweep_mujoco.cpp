// The MuJoCo columns of the corpus sweep (benchmarks/corpus_sweep.hpp): the whole MuJoCo part
// of the sweep, compiled with MAXSIM_WITH_MUJOCO when CMake finds Debian's libmujoco-dev, and a
// stub otherwise (the table then shows "-" in those columns).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <string>

#include "benchmarks/corpus_sweep.hpp"

#ifdef MAXSIM_WITH_MUJOCO
#include <mujoco/mujoco.h>
#endif

namespace maxsim {

#ifdef MAXSIM_WITH_MUJOCO

namespace {
// MuJoCo's default warning handler appends to MUJOCO_LOG.TXT in the working directory; the
// sweep counts the per-step warnings in mjData instead and keeps the directory clean.
void quiet_warning(const char*) {}
}  // namespace

bool sweep_has_mujoco() { return true; }
std::string sweep_mujoco_version() { return mj_versionString(); }

MujocoRun run_mujoco(const std::string& file, double dt, long long steps, const std::string& root_body) {
  MujocoRun r;
  mju_user_warning = quiet_warning;
  char err[1000] = "";
  mjModel* m = mj_loadXML(file.c_str(), nullptr, err, sizeof err);
  if (m == nullptr) {
    r.error = err[0] ? err : "MuJoCo could not load the file";
    return r;
  }
  m->opt.timestep = dt;
  m->opt.disableflags |= mjDSBL_ACTUATION;  // no actuator force, as `maxsim simulate`
  mjData* d = mj_makeData(m);               // qpos0, zero velocity, zero ctrl
  r.root_id = root_body.empty() ? -1 : mj_name2id(m, mjOBJ_BODY, root_body.c_str());
  if (r.root_id < 0 && m->nbody > 1) r.root_id = 1;
  using Clock = std::chrono::steady_clock;
  double wall = 0;
  int warnings = 0;
  for (long long k = 0; k < steps; ++k) {
    const Clock::time_point t0 = Clock::now();
    mj_step(m, d);
    wall += std::chrono::duration<double>(Clock::now() - t0).count();
    ++r.steps;
    int w = 0;
    for (int i = 0; i < mjNWARNING; ++i) w += d->warning[i].number;
    bool finite = true;
    for (int i = 0; i < m->nq; ++i) finite = finite && std::isfinite(d->qpos[i]);
    if (w > warnings || !finite) ++r.bad_steps;
    warnings = w;
    if (!finite) break;
  }
  r.ran = true;
  r.steps_per_s = wall > 0 ? static_cast<double>(r.steps) / wall : 0.0;
  r.root_z = r.root_id >= 0 ? d->xipos[3 * r.root_id + 2] : 0.0;
  mj_deleteData(d);
  mj_deleteModel(m);
  return r;
}

#else  // built without MuJoCo

bool sweep_has_mujoco() { return false; }
std::string sweep_mujoco_version() { return ""; }

MujocoRun run_mujoco(const std::string&, double, long long, const std::string&) {
  return {};  // not run: the columns say "-"
}

#endif

}  // namespace maxsim
