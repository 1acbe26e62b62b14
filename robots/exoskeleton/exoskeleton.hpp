// The arm exoskeleton of Brüdigam et al. (2023), §5.4, Fig. 14, shared by
// robots/examples/exo_run.cpp, exo_tune.cpp, exo_plots.cpp and tests/test_exoskeleton.cpp: the
// model (robots/exoskeleton/exoskeleton.urdf: 4-DoF exoskeleton + human arm + two 3-DoF
// spring-damper cuffs = two connected kinematic loops), the two patients, the rehabilitation
// routine, the PD gains and one run of the routine with its measurements.
//
// PATIENTS (the human elbow; model parameters plus a muscle torque the controller applies):
//   healthy: passive elbow viscosity 0.1 N·m·s/rad, no tone, no reflex.
//   spastic: spasticity is "a velocity-dependent increase in tonic stretch reflexes (muscle tone)
//     with exaggerated tendon jerks" (J. W. Lance, 1980), the resistance to passive movement that
//     the modified Ashworth scale grades (Bohannon & Smith, 1987) and that the Tardieu scale finds
//     above a "catch" speed. Three parts:
//       raised tone:    a spring of 1.5 N·m/rad towards 90° of elbow flexion (the flexed resting
//                       posture; Joint::stiffness and spring_ref of the elbow row, implicit);
//       viscosity:      0.3 N·m·s/rad (Joint::damping, implicit);
//       stretch reflex: a torque resisting elbow motion above a threshold speed, in both
//                       directions (the stretched muscle: flexors in extension, extensors in
//                       flexion), τ = −k_r · sign(θ̇) · max(0, |θ̇| − v_th), k_r = 5 N·m·s/rad,
//                       v_th = 0.2 rad/s, applied by the controller as a joint torque between
//                       upper arm and forearm (explicit: the rate of the last step).
//     The numbers are not measured on a patient: they were chosen so that the reflex (≈ 3.7 N·m
//     at the routine's peak elbow speed of 0.94 rad/s) and the tone (≤ 2.2 N·m) are of the size
//     of the arm's own gravity torque at the elbow (≈ 3 N·m): the clinical gains then exceed the
//     paper's 5 N·m comfort limit for this patient and not for the healthy one.
//
// ROUTINE: sAA held at 90° − 0.1 rad (the arm 6° away from the trunk), sIE at 0; shoulder
// flexion (sFE) and elbow flexion (eFE) follow raised-cosine sinusoids that start at rest at the
// initial pose: sFE(t) = sFE0 − A_s (1 − cos 2πt/T)/2, eFE(t) = eFE0 − A_e (1 − cos 2πt/T)/2,
// sFE0 = 90° − 0.1 rad, eFE0 = −0.1 rad (Dojo's initial pose), A_s = 0.6 rad (34°), A_e = 1.2 rad
// (69°), T = 4 s, two periods (8 s), Δt = 1 ms.
//
// CONTROL: the four exoskeleton motors are PD actuators of controllers/ (JointPdController)
// tracking these references, τ = kp (q_ref − q) + kd (q̇_ref − q̇); the three shoulder motors share
// (shoulder_kp, shoulder_kd), the elbow has (elbow_kp, elbow_kd). The elbow torque of the
// measurements is the eFE motor's. The PD is explicit (controllers/actuator.hpp) and the eFE motor
// drives the light eFE unit (≈ 0.005 kg·m² about its axis), which reaches the forearm only through
// the cuff springs: kd·Δt/I < 2 needs elbow_kd < 10 N·m·s/rad at Δt = 1 ms (exo_tune's bound).
//
// LOOPS: with the ball shoulder at the exoskeleton's shoulder centre and the elbow axes parallel,
// some cuff rows are redundant (as in a planar four-bar: the arm's flexion plane is the
// exoskeleton's); the solver's regularized pivots handle that and the loops hold to ~1e-11.
//
// Header-only so the programs and the test need no extra library.
#pragma once

#include <algorithm>
#include <chrono>
#include <cmath>
#include <functional>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "controllers/actuator.hpp"
#include "controllers/joint_pd.hpp"
#include "controllers/parameters.hpp"
#include "controllers/rollout.hpp"
#include "controllers/search.hpp"
#include "models/load.hpp"
#include "sim/maxsim.hpp"

namespace maxsim::exo {

constexpr double kComfortTorque = 5.0;    // N·m, the paper's comfortable elbow torque
constexpr double kTrackingBound = 0.1;    // rad, RMS tracking error the tuned gains must meet

// ---- patients ----------------------------------------------------------------------------------
struct Patient {
  std::string name;
  double elbow_damping = 0;      // N·m·s/rad, passive viscosity (model)
  double elbow_stiffness = 0;    // N·m/rad, tone (model) ...
  double elbow_rest = 0;         // rad, ... towards this elbow angle (flexion negative)
  double reflex_gain = 0;        // N·m·s/rad, stretch reflex (controller torque) ...
  double reflex_threshold = 0;   // rad/s, ... above this extension velocity
};

inline Patient healthy_patient() { return {"healthy", 0.1, 0.0, 0.0, 0.0, 0.0}; }
inline Patient spastic_patient() { return {"spastic", 0.3, 1.5, -M_PI / 2, 5.0, 0.2}; }

// "healthy" or "spastic"; throws std::invalid_argument otherwise.
inline Patient patient_by_name(const std::string& name) {
  if (name == "healthy") return healthy_patient();
  if (name == "spastic") return spastic_patient();
  throw std::invalid_argument("unknown patient '" + name + "' (healthy, spastic)");
}

// ---- routine and gains -------------------------------------------------------------------------
struct Routine {
  double dt = 0.001;
  double period = 4.0;                    // s
  double duration = 8.0;                  // s (two periods)
  double sAA = M_PI / 2 - 0.1;            // held
  double sIE = 0.0;                       // held
  double sFE0 = M_PI / 2 - 0.1, shoulder_amplitude = 0.6;  // sFE from sFE0 to sFE0 − A_s
  double eFE0 = -0.1, elbow_amplitude = 1.2;               // eFE from eFE0 to eFE0 − A_e
  int steps() const { return static_cast<int>(std::lround(duration / dt)); }
  // raised cosine from q0 towards q0 − amplitude, at rest at t = 0
  Sinusoid flexion(double q0, double amplitude) const {
    return Sinusoid{amplitude / 2, period, M_PI / 2, q0 - amplitude / 2};
  }
};

struct Gains {
  double shoulder_kp = 0, shoulder_kd = 0, elbow_kp = 0, elbow_kd = 0;
};

// The "clinical" default: stiff tracking, as a therapist would start.
inline Gains clinical_gains() { return {400.0, 20.0, 80.0, 2.0}; }

inline NamedValues gains_to_values(const Gains& g) {
  return {{"shoulder_kp", g.shoulder_kp}, {"shoulder_kd", g.shoulder_kd},
          {"elbow_kp", g.elbow_kp}, {"elbow_kd", g.elbow_kd}};
}
inline Gains gains_from_values(const NamedValues& v) {
  Gains g;
  g.shoulder_kp = parameter_value(v, "shoulder_kp");
  g.shoulder_kd = parameter_value(v, "shoulder_kd");
  g.elbow_kp = parameter_value(v, "elbow_kp");
  g.elbow_kd = parameter_value(v, "elbow_kd");
  for (double x : {g.shoulder_kp, g.shoulder_kd, g.elbow_kp, g.elbow_kd})
    if (!(x >= 0)) throw std::invalid_argument("gains must not be negative");
  return g;
}
inline Gains read_gains(const std::string& path) { return gains_from_values(read_parameters(path)); }

// ---- the model -----------------------------------------------------------------------------------
struct Exoskeleton {
  Model model;
  int sAA = -1, sFE = -1, sIE = -1, eFE = -1;     // exoskeleton joints
  int shoulder = -1, elbow = -1;                   // human joints
  int cuff_upper = -1, cuff_fore = -1;             // the loop-closing attachments
  int upper_arm = -1, forearm = -1, sIE_unit = -1; // bodies
  std::vector<Actuator> motors;               // sAA, sFE, sIE, eFE (URDF effort limits)
  Patient patient;
};

inline std::string urdf_path(const std::string& source_dir) {
  return source_dir + "/robots/exoskeleton/exoskeleton.urdf";
}

// Loads the URDF and applies the patient's passive elbow (damping, tone).
inline Exoskeleton load_exoskeleton(const std::string& source_dir, const Patient& patient,
                                    double dt = Routine{}.dt, bool keep_meshes = false) {
  Exoskeleton e;
  e.model = load_model(urdf_path(source_dir));
  e.model.dt = dt;
  if (!keep_meshes)  // visual meshes play no part in the physics; cheap Model copies
    for (Body& b : e.model.bodies)
      for (Geom& g : b.geoms) {
        g.vertices.clear();
        g.faces.clear();
      }
  auto joint = [&](const char* n) {
    const int j = e.model.joint_index(n);
    if (j < 0) throw std::runtime_error(std::string("exoskeleton.urdf: no joint '") + n + "'");
    return j;
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

// The initial state: the exoskeleton at the routine's start pose, the arm moved with it (its
// upper arm turned as the sIE unit, its elbow at the eFE angle), so both loops are closed and the
// cuffs undeformed; then projected (to round-off) and at rest.
inline void set_initial_state(const Exoskeleton& e, Data& d, const Routine& r) {
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

// Largest |c| over the constrained rows of one joint.
inline double joint_violation(const Model& m, const Data& d, int j) {
  const Joint& jt = m.joints[j];
  JointRows rows;
  joint_rows(jt, body_pose(d, jt.parent), body_pose(d, jt.child), &rows);
  double v = 0;
  for (int k = 0; k < 6; ++k)
    if (jt.row_constrained(k)) v = std::max(v, std::abs(rows.c(k)));
  return v;
}

// ---- the controller ------------------------------------------------------------------------------
// PD on the four exoskeleton motors (controllers/joint_pd.hpp) plus the patient's stretch reflex
// on the human elbow row.
class ExoController : public Controller {
 public:
  ExoController(const Exoskeleton& e, const Gains& g, const Routine& r) : e_(e), pd_(make_pd(e, g)) {
    pd_.set_reference(0, constant_reference(r.sAA));
    pd_.set_reference(1, sinusoid_reference(r.flexion(r.sFE0, r.shoulder_amplitude)));
    pd_.set_reference(2, constant_reference(r.sIE));
    pd_.set_reference(3, sinusoid_reference(r.flexion(r.eFE0, r.elbow_amplitude)));
  }
  void control(const Model& m, Data& d) override {
    pd_.control(m, d);
    const Patient& p = e_.patient;
    reflex_ = 0;
    if (p.reflex_gain > 0) {
      const double rate = row_coordinate(m, d, e_.elbow, 5).qd;  // > 0: extension
      reflex_ = -p.reflex_gain * std::copysign(std::max(0.0, std::abs(rate) - p.reflex_threshold), rate);
    }
    d.joint_force[e_.elbow](5) = reflex_;
  }
  double motor_torque(int i) const { return pd_.commands().force[i]; }  // 0 sAA .. 3 eFE
  double elbow_torque() const { return motor_torque(3); }
  double reflex_torque() const { return reflex_; }

 private:
  static JointPdController make_pd(const Exoskeleton& e, const Gains& g) {
    std::vector<Actuator> a;
    for (int j : {e.sAA, e.sFE, e.sIE, e.eFE})
      for (const Actuator& m : e.motors)
        if (m.joint == j) a.push_back(m);
    a = as_pd(a, g.shoulder_kp, g.shoulder_kd);
    a[3].kp = g.elbow_kp;
    a[3].kv = g.elbow_kd;
    return JointPdController(a);
  }
  const Exoskeleton& e_;
  JointPdController pd_;
  double reflex_ = 0;
};

// ---- one run of the routine ----------------------------------------------------------------------
struct Sample {  // after each step
  double t = 0;
  double elbow_torque = 0, shoulder_torque = 0;  // eFE and sFE motor torques (N·m), held over the step
  double sFE = 0, sFE_ref = 0, eFE = 0, eFE_ref = 0, human_elbow = 0;  // rad
  double reflex = 0;                              // patient's reflex torque (N·m)
  double cuff_upper_force = 0, cuff_fore_force = 0;  // |spring force| of the two translations (N)
  double loop_violation = 0;                      // max over the two cuffs' constrained rows
};

struct Summary {
  std::string patient;
  Gains gains;
  double max_elbow_torque = 0;       // N·m, max |eFE motor torque|
  double max_shoulder_torque = 0;    // N·m, max |sFE motor torque|
  double rms_tracking_error = 0;     // rad, RMS over time of the sFE and eFE errors (both joints)
  double rms_elbow_error = 0, rms_shoulder_error = 0;
  double max_loop_violation = 0;     // max over steps of the cuffs' constrained rows (m, rad)
  double max_constraint_violation = 0;  // every joint
  double max_cuff_deflection = 0;    // m, largest translation of either cuff
  double max_cuff_force = 0;         // N, largest translational spring force of either cuff
  double min_cuff_force = 1e300;     // N, smallest over the run of the larger cuff force (load throughout)
  double max_limit_excess = 0;       // rad, how far any exoskeleton joint went past its limits
  int steps = 0, failed_steps = 0, not_converged_steps = 0;
  double wall_time = 0;              // s
};

inline double cuff_spring_force(const Model& m, const Data& d, int j, double* deflection = nullptr) {
  double q[3], qd[3];
  joint_coordinates(m, d, j, q, qd);
  const Joint& jt = m.joints[j];
  if (deflection) *deflection = std::hypot(q[0], q[1]);
  return std::hypot(jt.stiffness[0] * q[0], jt.stiffness[1] * q[1]);
}

// Runs the routine with `gains` on this thread. `trace` (optional) gets a sample after every step;
// `observer` (optional) sees the initial state and the state after every step.
inline Summary run_routine(const Exoskeleton& e, const Gains& gains, const Routine& r = {},
                           std::vector<Sample>* trace = nullptr,
                           const std::function<void(const Model&, const Data&)>& observer = {}) {
  const Model& m = e.model;
  Summary s;
  s.patient = e.patient.name;
  s.gains = gains;
  const auto t0 = std::chrono::steady_clock::now();
  Data d(m);
  set_initial_state(e, d, r);
  auto ctrl = std::make_shared<ExoController>(e, gains, r);
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

// The summary as one JSON object (exo_run's last line).
inline std::string summary_json(const Summary& s, const Routine& r) {
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

// ---- gain tuning (exo_tune, and Python's maxsim.exo_gains_objective) ---------------------------
constexpr double kTorqueTarget = 4.9;  // N·m: the 5 N·m limit with 2 % margin

// The searched gains in Gains order: name, initial value (clinical), sampling scale at radius 1,
// bounds.
inline std::vector<SearchParameter> searched_gains() {
  const Gains g = clinical_gains();
  return {{"shoulder_kp", g.shoulder_kp, 100.0, 10.0, 2000.0},
          {"shoulder_kd", g.shoulder_kd, 5.0, 0.5, 100.0},
          {"elbow_kp", g.elbow_kp, 20.0, 1.0, 400.0},
          {"elbow_kd", g.elbow_kd, 0.5, 0.05, 10.0}};
}

// exo_tune's objective (maximized) from the two patients' routines:
//     − (rms_healthy + rms_spastic) / 2 − 10 · Σ_patients max(0, max_elbow_torque − 4.9 N·m),
// −∞ when a routine has a failed step.
inline double gains_objective_value(const Summary& h, const Summary& s) {
  if (h.failed_steps > 0 || s.failed_steps > 0) return -std::numeric_limits<double>::infinity();
  return -(h.rms_tracking_error + s.rms_tracking_error) / 2 -
         10.0 * (std::max(0.0, h.max_elbow_torque - kTorqueTarget) + std::max(0.0, s.max_elbow_torque - kTorqueTarget));
}

// The objective of gains p (searched_gains() order): the full routine for both patients.
// Thread-safe and a pure function of p.
struct GainsObjective {
  const Exoskeleton* healthy = nullptr;
  const Exoskeleton* spastic = nullptr;
  Routine routine;
  double operator()(const std::vector<double>& p) const {
    if (p.size() != 4) throw std::invalid_argument("exoskeleton gains objective: 4 gains expected");
    const Gains g{p[0], p[1], p[2], p[3]};
    return gains_objective_value(run_routine(*healthy, g, routine), run_routine(*spastic, g, routine));
  }
};

}  // namespace maxsim::exo
