// MuJoCo as one of the compared engines: the same file read by MuJoCo's own loader (its defaults,
// its soft contacts, its solver as its users run it), the description's actuators switched off,
// every maxsim body matched to MuJoCo's body of the same name. A URDF is read by MuJoCo's URDF
// reader and saved as MJCF, to which the ground maxsim stands a URDF on is added (a plane at z = 0)
// and maxsim's default friction (MuJoCo's own is 1); loops (maxsim's URDF dialect) are refused.
#include <mujoco/mujoco.h>
#include <tinyxml2.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <unistd.h>

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
    m_ = std::filesystem::path(setup.file).extension() == ".urdf" ? load_urdf(model, setup.file) : load_file(setup.file);
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
    // the same start, or not the same reading of the file
    std::vector<BodyState> now;
    read(&now);
    for (size_t b = 0; b < now.size(); ++b)
      if ((now[b].x - setup.start[b].x).norm() > 1e-6 ||
          quat_log(quat_mul(quat_conj(setup.start[b].q), now[b].q)).norm() > 1e-6)
        throw Unsupported("mujoco: reads the file otherwise (body '" + model.bodies[b].name + "' starts elsewhere)");
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
    const bool warned = w > warnings_;  // (a non-finite state the driver counts)
    warnings_ = w;
    return !warned;
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
  static mjModel* load_file(const std::string& file) {
    char err[1000] = "";
    mjModel* m = mj_loadXML(file.c_str(), nullptr, err, sizeof(err));
    if (m == nullptr) throw Unsupported(std::string("mujoco: ") + err);
    return m;
  }

  // MuJoCo's reading of a URDF, saved as MJCF with maxsim's ground and default friction added.
  static mjModel* load_urdf(const Model& model, const std::string& file) {
    const std::vector<bool> tree = spanning_tree_joints(model);
    for (size_t j = 0; j < tree.size(); ++j)
      if (!tree[j]) throw Unsupported("mujoco: its URDF reader has no loop joints ('" + model.joints[j].name + "')");
    const std::string copy = with_mesh_paths(file);
    mjModel* urdf = nullptr;
    try {
      urdf = load_file(copy);
    } catch (...) {
      std::filesystem::remove(copy);
      throw;
    }
    std::filesystem::remove(copy);
    const std::string saved = temp_name("saved");
    char err[1000] = "";
    const int ok = mj_saveLastXML(saved.c_str(), urdf, err, sizeof(err));
    mj_deleteModel(urdf);
    if (!ok) throw Unsupported(std::string("mujoco: ") + err);
    tinyxml2::XMLDocument doc;
    const bool parsed = doc.LoadFile(saved.c_str()) == tinyxml2::XML_SUCCESS;
    std::filesystem::remove(saved);
    tinyxml2::XMLElement* root = parsed ? doc.FirstChildElement("mujoco") : nullptr;
    tinyxml2::XMLElement* world = root ? root->FirstChildElement("worldbody") : nullptr;
    if (world == nullptr) throw Unsupported("mujoco: its MJCF of the URDF has no worldbody");
    tinyxml2::XMLElement* defaults = root->FirstChildElement("default");
    if (defaults == nullptr) defaults = root->InsertNewChildElement("default");
    std::ostringstream mu;
    mu << model.opt.contact.friction << " 0.005 0.0001";
    defaults->InsertNewChildElement("geom")->SetAttribute("friction", mu.str().c_str());
    if (model.opt.contact.ground) {
      tinyxml2::XMLElement* ground = world->InsertNewChildElement("geom");
      ground->SetAttribute("name", "maxsim_ground");
      ground->SetAttribute("type", "plane");
      ground->SetAttribute("size", "0 0 1");
    }
    const std::string edited = temp_name("mjcf");
    doc.SaveFile(edited.c_str());
    mjModel* m = nullptr;
    try {
      m = load_file(edited);
    } catch (...) {
      std::filesystem::remove(edited);
      throw;
    }
    std::filesystem::remove(edited);
    return m;
  }

  // A copy of the URDF whose mesh files are absolute paths, kept as written (MuJoCo's URDF reader
  // strips a mesh's folders by default): MuJoCo reads it as maxsim does. Removed after reading.
  static std::string with_mesh_paths(const std::string& file) {
    tinyxml2::XMLDocument doc;
    if (doc.LoadFile(file.c_str()) != tinyxml2::XML_SUCCESS || doc.FirstChildElement("robot") == nullptr)
      throw Unsupported("mujoco: cannot read " + file);
    tinyxml2::XMLElement* robot = doc.FirstChildElement("robot");
    const std::filesystem::path dir = std::filesystem::absolute(file).parent_path();
    std::vector<tinyxml2::XMLElement*> stack = {robot};
    while (!stack.empty()) {
      tinyxml2::XMLElement* e = stack.back();
      stack.pop_back();
      if (std::string(e->Name()) == "mesh" && e->Attribute("filename")) {
        const std::string f = e->Attribute("filename");
        if (f.rfind("package://", 0) != 0 && !std::filesystem::path(f).is_absolute())
          e->SetAttribute("filename", (dir / f).lexically_normal().c_str());
      }
      for (tinyxml2::XMLElement* c = e->FirstChildElement(); c; c = c->NextSiblingElement()) stack.push_back(c);
    }
    tinyxml2::XMLElement* extension = robot->FirstChildElement("mujoco");
    if (extension == nullptr) extension = robot->InsertNewChildElement("mujoco");
    tinyxml2::XMLElement* compiler = extension->FirstChildElement("compiler");
    if (compiler == nullptr) compiler = extension->InsertNewChildElement("compiler");
    compiler->SetAttribute("strippath", "false");
    compiler->SetAttribute("discardvisual", "true");
    const std::string copy = temp_name("urdf");
    doc.SaveFile(copy.c_str());
    return copy;
  }

  static std::string temp_name(const std::string& what) {
    static int count = 0;
    return (std::filesystem::temp_directory_path() /
            ("maxsim_mujoco_" + what + "_" + std::to_string(getpid()) + "_" + std::to_string(count++) + ".xml"))
        .string();
  }

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
