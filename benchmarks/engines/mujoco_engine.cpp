// MuJoCo as one of the compared engines: the same MJCF file read by MuJoCo's own loader (its
// defaults, its soft contacts, its solver as its users run it), the description's actuators
// switched off, every maxsim body matched to MuJoCo's body of the same name.
#include <mujoco/mujoco.h>

#include <cmath>
#include <filesystem>

#include "benchmarks/engines/engine.hpp"
#include "sim/maxsim.hpp"

namespace maxsim::bench {
namespace {

class MujocoEngine : public Engine {
 public:
  ~MujocoEngine() override {
    if (d_) mj_deleteData(d_);
    if (m_) mj_deleteModel(m_);
  }
  std::string name() const override { return "mujoco"; }

  void load(const SceneSetup& setup) override {
    const Model& model = *setup.model;
    // MuJoCo reads URDF without a floor or a floating base: it would not be the same scene
    if (std::filesystem::path(setup.file).extension() != ".xml")
      throw Unsupported("mujoco: reads MJCF here (a URDF has no floor or floating base in MuJoCo)");
    char err[1000] = "";
    m_ = mj_loadXML(setup.file.c_str(), nullptr, err, sizeof(err));
    if (m_ == nullptr) throw Unsupported(std::string("mujoco: ") + err);
    m_->opt.timestep = setup.dt;
    m_->opt.disableflags |= mjDSBL_ACTUATION;  // forces come from set_joint_force only (engine.hpp)
    d_ = mj_makeData(m_);
    if (static_cast<int>(setup.start_qpos.size()) != m_->nq || static_cast<int>(setup.start_qvel.size()) != m_->nv)
      throw Unsupported("mujoco: its coordinates differ from maxsim's reading of the file");
    std::copy(setup.start_qpos.begin(), setup.start_qpos.end(), d_->qpos);
    std::copy(setup.start_qvel.begin(), setup.start_qvel.end(), d_->qvel);
    body_.clear();
    for (const Body& b : model.bodies) {
      const int id = mj_name2id(m_, mjOBJ_BODY, b.name.c_str());
      if (id < 0) throw Unsupported("mujoco: no body named '" + b.name + "'");
      body_.push_back(id);
    }
    // each joint row with a coordinate: MuJoCo's dof of the hinge or slide it came from
    dof_.assign(model.joints.size(), {});
    for (size_t j = 0; j < model.joints.size(); ++j) {
      const Joint& jt = model.joints[j];
      for (int r = 0; r < 6; ++r) {
        dof_[j][r] = -1;
        if (jt.row_constrained(r) || !row_has_coordinate(jt, r)) continue;
        const std::string& n = jt.row_names[r].empty() ? jt.name : jt.row_names[r];
        const int id = mj_name2id(m_, mjOBJ_JOINT, n.c_str());
        if (id >= 0) dof_[j][r] = m_->jnt_dofadr[id];
      }
    }
    link_origin_.clear();
    for (const Body& b : model.bodies) link_origin_.push_back(b.link_origin);
    mj_forward(m_, d_);
    warnings_ = 0;
  }

  void set_joint_force(int joint, int row, double force) override {
    const int dof = dof_[joint][row];
    if (dof < 0) throw Unsupported("mujoco: no joint of its own for maxsim's joint row");
    d_->qfrc_applied[dof] += force;
  }

  bool step() override {
    mj_step(m_, d_);
    mju_zero(d_->qfrc_applied, m_->nv);
    int w = 0;
    for (int i = 0; i < mjNWARNING; ++i) w += d_->warning[i].number;
    const bool warned = w > warnings_;
    warnings_ = w;
    bool finite = true;
    for (int i = 0; i < m_->nq; ++i) finite = finite && std::isfinite(d_->qpos[i]);
    return finite && !warned;
  }

  // maxsim's body frame is the description's link frame moved to the centre of mass (models/
  // builder.cpp): x = xpos − R link_origin; mj_objectVelocity gives (ω, v at xpos) in world axes.
  void read(std::vector<BodyState>* bodies) const override {
    bodies->resize(body_.size());
    for (size_t i = 0; i < body_.size(); ++i) {
      const int b = body_[i];
      BodyState& s = (*bodies)[i];
      s.q = Vec4(d_->xquat[4 * b], d_->xquat[4 * b + 1], d_->xquat[4 * b + 2], d_->xquat[4 * b + 3]);
      const Mat3 R = quat_to_rot(s.q);
      const Vec3 origin(d_->xpos[3 * b], d_->xpos[3 * b + 1], d_->xpos[3 * b + 2]);
      s.x = origin - R * link_origin_[i];
      mjtNum vel[6];
      mj_objectVelocity(m_, d_, mjOBJ_XBODY, b, vel, 0);
      const Vec3 w(vel[0], vel[1], vel[2]);
      const Vec3 v(vel[3], vel[4], vel[5]);
      s.v = v + w.cross(s.x - origin);
      s.w = R.transpose() * w;
    }
  }

  int iterations() const override { return d_->solver_iter; }

 private:
  mjModel* m_ = nullptr;
  mjData* d_ = nullptr;
  std::vector<int> body_;
  std::vector<std::array<int, 6>> dof_;
  std::vector<Vec3> link_origin_;
  int warnings_ = 0;
};

}  // namespace

std::unique_ptr<Engine> make_mujoco_engine() { return std::make_unique<MujocoEngine>(); }

}  // namespace maxsim::bench
