#include "robots/exoskeleton/exoskeleton.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <limits>
#include <memory>
#include <stdexcept>

#include "controllers/rollout.hpp"
#include "models/load.hpp"

namespace maxsim::exo {

Patient healthy_patient() { return {"healthy", 0.1, 0.0, 0.0, 0.0, 0.0}; }

Patient spastic_patient() { return {"spastic", 0.3, 1.5, -M_PI / 2, 5.0, 0.2}; }

Patient patient_by_name(const std::string& name) {
  if (name == "healthy") return healthy_patient();
  if (name == "spastic") return spastic_patient();
  throw std::invalid_argument("unknown patient '" + name + "' (healthy, spastic)");
}

Gains clinical_gains() { return {400.0, 20.0, 80.0, 2.0}; }

NamedValues gains_to_values(const Gains& g) {
  return {{"shoulder_kp", g.shoulder_kp}, {"shoulder_kd", g.shoulder_kd},
          {"elbow_kp", g.elbow_kp}, {"elbow_kd", g.elbow_kd}};
}

Gains gains_from_values(const NamedValues& v) {
  Gains g;
  g.shoulder_kp = parameter_value(v, "shoulder_kp");
  g.shoulder_kd = parameter_value(v, "shoulder_kd");
  g.elbow_kp = parameter_value(v, "elbow_kp");
  g.elbow_kd = parameter_value(v, "elbow_kd");
  for (double x : {g.shoulder_kp, g.shoulder_kd, g.elbow_kp, g.elbow_kd})
    if (!(x >= 0)) throw std::invalid_argument("gains must not be negative");
  return g;
}

Gains read_gains(const std::string& path) { return gains_from_values(read_parameters(path)); }

std::string urdf_path(const std::string& source_dir) {
  return source_dir + "/robots/exoskeleton/exoskeleton.urdf";
}

Exoskeleton load_exoskeleton(const std::string& source_dir, const Patient& patient,
                             double dt, bool keep_meshes) {
  Exoskeleton e;
  e.model = load_model(urdf_path(source_dir));
  e.model.opt.timestep = dt;
  if (!keep_meshes)  // visual meshes play no part in the physics; cheap Model copies
    for (Body& b : e.model.bodies)
      for (Geom& g : b.geoms) {
        g.vertices.clear();
        g.faces.clear();
      }
  auto joint = [&](const char* n) {
    const std::optional<int> j = e.model.find_joint(n);
    if (!j) throw std::runtime_error(std::string("exoskeleton.urdf: no joint '") + n + "'");
    return *j;
  };
  e.sAA = joint("sAA");
  e.sFE = joint("sFE");
  e.sIE = joint("sIE");
  e.eFE = joint("eFE");
  e.shoulder = joint("shoulder");
  e.elbow = joint("elbow");
  e.cuff_upper = joint("cuff_upper");
  e.cuff_fore = joint("cuff_fore");
  e.upper_arm = e.model.body_index("upper_arm");
  e.forearm = e.model.body_index("forearm");
  e.sIE_unit = e.model.body_index("sIE_Unit");
  for (const Actuator& a : actuators_from_model(e.model))
    if (a.joint == e.sAA || a.joint == e.sFE || a.joint == e.sIE || a.joint == e.eFE) e.motors.push_back(a);
  if (e.motors.size() != 4) throw std::runtime_error("exoskeleton.urdf: expected 4 exoskeleton motors");
  e.patient = patient;
  Joint& el = e.model.joints[e.elbow];
  el.damping[5] = patient.elbow_damping;
  el.stiffness[5] = patient.elbow_stiffness;
  el.spring_ref[5] = patient.elbow_rest;
  el.actuated = true;  // the patient's reflex torque
  return e;
}

void set_initial_state(const Exoskeleton& e, Data& d, const Routine& r) {
  const Model& m = e.model;
  std::vector<std::vector<double>> q(m.joints.size()), qd(m.joints.size());
  q[e.sAA] = {r.sAA};
  q[e.sFE] = {r.sFE0};
  q[e.sIE] = {r.sIE};
  q[e.eFE] = {r.eFE0};
  set_coordinates(m, d, q, qd);
  // upper arm orientation = sIE unit's rotation from the zero configuration
  const Vec4 q_ua = quat_mul(quat_mul(d.q[e.sIE_unit], quat_conj(m.bodies[e.sIE_unit].q0)), m.bodies[e.upper_arm].q0);
  const Joint& sh = m.joints[e.shoulder];
  const Vec4 qa = sh.parent == kWorld ? quat_identity() : d.q[sh.parent];
  const Vec4 rel = quat_normalize(quat_mul(quat_conj(quat_mul(qa, sh.parent_frame)), quat_mul(q_ua, sh.child_frame)));
  q[e.shoulder] = {rel(0), rel(1), rel(2), rel(3)};
  q[e.elbow] = {r.eFE0};
  set_coordinates(m, d, q, qd);
  project_state(m, d);
}

double joint_violation(const Model& m, const Data& d, int j) {
  const Joint& jt = m.joints[j];
  JointRows rows;
  joint_rows(jt, body_pose(d, jt.parent), body_pose(d, jt.child), &rows);
  double v = 0;
  for (int k = 0; k < 6; ++k)
    if (jt.row_constrained(k)) v = std::max(v, std::abs(rows.c(k)));
  return v;
}

ExoController::ExoController(const Exoskeleton& e, const Gains& g, const Routine& r) : e_(e), pd_(make_pd(e, g)) {
  pd_.set_reference(0, constant_reference(r.sAA));
  pd_.set_reference(1, sinusoid_reference(r.flexion(r.sFE0, r.shoulder_amplitude)));
  pd_.set_reference(2, constant_reference(r.sIE));
  pd_.set_reference(3, sinusoid_reference(r.flexion(r.eFE0, r.elbow_amplitude)));
}

void ExoController::control(const Model& m, Data& d) {
  pd_.control(m, d);
  const Patient& p = e_.patient;
  reflex_ = 0;
  if (p.reflex_gain > 0) {
    const double rate = row_coordinate(m, d, e_.elbow, 5).qd;  // > 0: extension
    reflex_ = -p.reflex_gain * std::copysign(std::max(0.0, std::abs(rate) - p.reflex_threshold), rate);
  }
  d.joint_force[e_.elbow](5) = reflex_;
}

ExoController::LawDerivatives ExoController::law_derivatives(const Model& m, const Data& d) const {
  LawDerivatives out;
  const ActuatorCommands& cmd = pd_.commands();
  auto at = [](const std::vector<double>& v, size_t i) { return i < v.size() ? v[i] : 0.0; };
  for (size_t i = 0; i < 4; ++i) {
    const Actuator& a = pd_.actuators()[i];
    out.joint[i] = a.joint;
    const RowCoordinate rc = row_coordinate(m, d, a.joint, a.row);
    // the joint torque gear·f with q, q̇, kp, kv moved by ±h
    auto torque = [&](int which, double h) {
      Actuator b = a;
      double q = rc.q, qd = rc.qd;
      (which == 0 ? q : which == 1 ? qd : which == 2 ? b.kp : b.kv) += h;
      return a.gear * actuator_force(b, at(cmd.ctrl, i), q, qd, at(cmd.ctrl_rate, i), at(cmd.feedforward, i));
    };
    const int gain = i < 3 ? 0 : 2;  // (shoulder_kp, shoulder_kd) or (elbow_kp, elbow_kd)
    for (int k = 0; k < 4; ++k) {
      const double h = 1e-6 * (k < 2 ? 1.0 : std::max(1.0, k == 2 ? a.kp : a.kv));
      const double dfd = (torque(k, h) - torque(k, -h)) / (2 * h);
      if (k < 2) out.state(static_cast<int>(i), k) = dfd;
      else out.gains(static_cast<int>(i), gain + k - 2) = dfd;
    }
  }
  // the reflex: −k_r sign(θ̇) max(0, |θ̇| − v_th) on the human elbow's rate
  out.joint[4] = e_.elbow;
  const Patient& p = e_.patient;
  if (p.reflex_gain > 0 && std::abs(row_coordinate(m, d, e_.elbow, 5).qd) > p.reflex_threshold)
    out.state(4, 1) = -p.reflex_gain;
  return out;
}

JointPdController ExoController::make_pd(const Exoskeleton& e, const Gains& g) {
  std::vector<Actuator> a;
  for (int j : {e.sAA, e.sFE, e.sIE, e.eFE})
    for (const Actuator& m : e.motors)
      if (m.joint == j) a.push_back(m);
  a = as_pd(a, g.shoulder_kp, g.shoulder_kd);
  a[3].kp = g.elbow_kp;
  a[3].kv = g.elbow_kd;
  return JointPdController(a);
}

double cuff_spring_force(const Model& m, const Data& d, int j, double* deflection) {
  double q[3], qd[3];
  joint_coordinates(m, d, j, q, qd);
  const Joint& jt = m.joints[j];
  if (deflection) *deflection = std::hypot(q[0], q[1]);
  return std::hypot(jt.stiffness[0] * q[0], jt.stiffness[1] * q[1]);
}

Summary run_routine(const Exoskeleton& e, const Gains& gains, const Routine& r,
                    std::vector<Sample>* trace,
                    const std::function<void(const Model&, const Data&)>& observer,
                    const std::function<void(const Model&, const Data&, const ExoController&)>& at_control) {
  const Model& m = e.model;
  Summary s;
  s.patient = e.patient.name;
  s.gains = gains;
  const auto t0 = std::chrono::steady_clock::now();
  Data d(m);
  set_initial_state(e, d, r);
  auto ctrl = std::make_shared<ExoController>(e, gains, r);
  if (at_control)
    set_controller(d, [ctrl, &at_control](const Model& mm, Data& dd) {
      ctrl->control(mm, dd);
      at_control(mm, dd, *ctrl);
    });
  else
    set_controller(d, ctrl);
  if (observer) observer(m, d);
  const Sinusoid s_ref = r.flexion(r.sFE0, r.shoulder_amplitude), e_ref = r.flexion(r.eFE0, r.elbow_amplitude);
  double sum_s = 0, sum_e = 0;
  const int n = r.steps();
  if (trace) trace->reserve(trace->size() + n);
  for (int k = 0; k < n; ++k) {
    const StepReport rep = step(m, d);
    if (rep.status == StepStatus::Failed) {
      ++s.failed_steps;
      break;
    }
    if (rep.status == StepStatus::NotConverged) {
      ++s.failed_steps;
      ++s.not_converged_steps;
    }
    ++s.steps;
    Sample smp;
    smp.t = d.time;
    smp.elbow_torque = ctrl->elbow_torque();
    smp.shoulder_torque = ctrl->motor_torque(1);
    smp.sFE = row_coordinate(m, d, e.sFE, 5).q;
    smp.eFE = row_coordinate(m, d, e.eFE, 5).q;
    smp.human_elbow = row_coordinate(m, d, e.elbow, 5).q;
    smp.sFE_ref = s_ref.at(d.time).q;
    smp.eFE_ref = e_ref.at(d.time).q;
    smp.reflex = ctrl->reflex_torque();
    double defl_u = 0, defl_f = 0;
    smp.cuff_upper_force = cuff_spring_force(m, d, e.cuff_upper, &defl_u);
    smp.cuff_fore_force = cuff_spring_force(m, d, e.cuff_fore, &defl_f);
    smp.loop_violation = std::max(joint_violation(m, d, e.cuff_upper), joint_violation(m, d, e.cuff_fore));
    s.max_elbow_torque = std::max(s.max_elbow_torque, std::abs(smp.elbow_torque));
    s.max_shoulder_torque = std::max(s.max_shoulder_torque, std::abs(smp.shoulder_torque));
    s.max_loop_violation = std::max(s.max_loop_violation, smp.loop_violation);
    s.max_constraint_violation = std::max(s.max_constraint_violation, max_constraint_violation(m, d));
    s.max_cuff_deflection = std::max({s.max_cuff_deflection, defl_u, defl_f});
    const double f = std::max(smp.cuff_upper_force, smp.cuff_fore_force);
    s.max_cuff_force = std::max(s.max_cuff_force, f);
    s.min_cuff_force = std::min(s.min_cuff_force, f);
    for (int j : {e.sAA, e.sFE, e.sIE, e.eFE}) {
      const Joint& jt = m.joints[j];
      const double q = row_coordinate(m, d, j, 5).q;
      s.max_limit_excess = std::max({s.max_limit_excess, jt.lower[5] - q, q - jt.upper[5]});
    }
    sum_s += (smp.sFE_ref - smp.sFE) * (smp.sFE_ref - smp.sFE);
    sum_e += (smp.eFE_ref - smp.eFE) * (smp.eFE_ref - smp.eFE);
    if (trace) trace->push_back(smp);
    if (observer) observer(m, d);
  }
  const double steps = std::max(1, s.steps);
  s.rms_shoulder_error = std::sqrt(sum_s / steps);
  s.rms_elbow_error = std::sqrt(sum_e / steps);
  s.rms_tracking_error = std::sqrt((sum_s + sum_e) / (2 * steps));
  if (s.steps == 0) s.min_cuff_force = 0;
  s.wall_time = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return s;
}

std::string summary_json(const Summary& s, const Routine& r) {
  char buf[1536];
  std::snprintf(buf, sizeof buf,
                "{\"patient\": \"%s\", \"max_elbow_torque_nm\": %.6g, \"rms_tracking_error_rad\": %.6g, "
                "\"max_loop_violation\": %.3g, \"failed_steps\": %d, \"rms_elbow_error_rad\": %.6g, "
                "\"rms_shoulder_error_rad\": %.6g, \"max_shoulder_torque_nm\": %.6g, \"max_cuff_force_n\": %.6g, "
                "\"min_cuff_force_n\": %.6g, \"max_cuff_deflection_m\": %.6g, \"max_constraint_violation\": %.3g, "
                "\"max_limit_excess_rad\": %.3g, \"not_converged_steps\": %d, \"steps\": %d, \"dt\": %g, "
                "\"duration_s\": %g, \"comfort_torque_nm\": %g, \"tracking_bound_rad\": %g, "
                "\"gains\": {\"shoulder_kp\": %.10g, \"shoulder_kd\": %.10g, \"elbow_kp\": %.10g, \"elbow_kd\": %.10g}, "
                "\"wall_time_s\": %.4f}",
                s.patient.c_str(), s.max_elbow_torque, s.rms_tracking_error, s.max_loop_violation, s.failed_steps,
                s.rms_elbow_error, s.rms_shoulder_error, s.max_shoulder_torque, s.max_cuff_force, s.min_cuff_force,
                s.max_cuff_deflection, s.max_constraint_violation, s.max_limit_excess, s.not_converged_steps, s.steps,
                r.dt, r.duration, kComfortTorque, kTrackingBound, s.gains.shoulder_kp, s.gains.shoulder_kd,
                s.gains.elbow_kp, s.gains.elbow_kd, s.wall_time);
  return buf;
}

std::vector<SearchParameter> searched_gains() {
  const Gains g = clinical_gains();
  return {{"shoulder_kp", g.shoulder_kp, 100.0, 10.0, 2000.0},
          {"shoulder_kd", g.shoulder_kd, 5.0, 0.5, 100.0},
          {"elbow_kp", g.elbow_kp, 20.0, 1.0, 400.0},
          {"elbow_kd", g.elbow_kd, 0.5, 0.05, 10.0}};
}

double gains_objective_value(const Summary& h, const Summary& s) {
  if (h.failed_steps > 0 || s.failed_steps > 0) return -std::numeric_limits<double>::infinity();
  return -(h.rms_tracking_error + s.rms_tracking_error) / 2 -
         10.0 * (std::max(0.0, h.max_elbow_torque - kTorqueTarget) + std::max(0.0, s.max_elbow_torque - kTorqueTarget));
}

double GainsObjective::operator()(const std::vector<double>& p) const {
  if (p.size() != 4) throw std::invalid_argument("exoskeleton gains objective: 4 gains expected");
  const Gains g{p[0], p[1], p[2], p[3]};
  return gains_objective_value(run_routine(*healthy, g, routine), run_routine(*spastic, g, routine));
}

}  // namespace maxsim::exo
