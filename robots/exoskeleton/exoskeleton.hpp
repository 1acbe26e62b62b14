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
// Library maxsim_robots (with the A1 gait): the programs, the test and the Python module link it.
#pragma once

#include <Eigen/Core>
#include <array>
#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "controllers/actuator.hpp"
#include "controllers/joint_pd.hpp"
#include "controllers/parameters.hpp"
#include "controllers/search.hpp"
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

Patient healthy_patient();
Patient spastic_patient();

// "healthy" or "spastic"; throws std::invalid_argument otherwise.
Patient patient_by_name(const std::string& name);

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
Gains clinical_gains();

NamedValues gains_to_values(const Gains& g);
Gains gains_from_values(const NamedValues& v);
Gains read_gains(const std::string& path);

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

std::string urdf_path(const std::string& source_dir);

// Loads the URDF and applies the patient's passive elbow (damping, tone).
Exoskeleton load_exoskeleton(const std::string& source_dir, const Patient& patient,
                             double dt = Routine{}.dt, bool keep_meshes = false);

// The initial state: the exoskeleton at the routine's start pose, the arm moved with it (its
// upper arm turned as the sIE unit, its elbow at the eFE angle), so both loops are closed and the
// cuffs undeformed; then projected (to round-off) and at rest.
void set_initial_state(const Exoskeleton& e, Data& d, const Routine& r);

// Largest |c| over the constrained rows of one joint.
double joint_violation(const Model& m, const Data& d, int j);

// ---- the controller ------------------------------------------------------------------------------
// PD on the four exoskeleton motors (controllers/joint_pd.hpp) plus the patient's stretch reflex
// on the human elbow row.
class ExoController : public Controller {
 public:
  ExoController(const Exoskeleton& e, const Gains& g, const Routine& r);
  void control(const Model& m, Data& d) override;
  double motor_torque(int i) const { return pd_.commands().force[i]; }  // 0 sAA .. 3 eFE
  double elbow_torque() const { return motor_torque(3); }
  double reflex_torque() const { return reflex_; }

  // The derivatives of the five forces the last control() set (the four motors' joint torques,
  // then the reflex), each a function of its own row's coordinate and rate: ∂f/∂q and ∂f/∂q̇ of
  // that row, and ∂f/∂gains (Gains order); central differences of the actuators' own force law
  // (exact for the PD's linear law, 0 where a force limit saturates). For the gradient of the
  // gains objective (robots/exoskeleton/gradient.hpp).
  struct LawDerivatives {
    std::array<int, 5> joint{};  // the row's joint (its free row 5)
    Eigen::Matrix<double, 5, 2> state = Eigen::Matrix<double, 5, 2>::Zero();  // (∂f/∂q, ∂f/∂q̇)
    Eigen::Matrix<double, 5, 4> gains = Eigen::Matrix<double, 5, 4>::Zero();
  };
  LawDerivatives law_derivatives(const Model& m, const Data& d) const;

 private:
  static JointPdController make_pd(const Exoskeleton& e, const Gains& g);
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

double cuff_spring_force(const Model& m, const Data& d, int j, double* deflection = nullptr);

// Runs the routine with `gains` on this thread. `trace` (optional) gets a sample after every step;
// `observer` (optional) sees the initial state and the state after every step; `at_control`
// (optional) sees each step's start with the inputs the controller has just set.
Summary run_routine(const Exoskeleton& e, const Gains& gains, const Routine& r = {},
                    std::vector<Sample>* trace = nullptr,
                    const std::function<void(const Model&, const Data&)>& observer = {},
                    const std::function<void(const Model&, const Data&, const ExoController&)>& at_control = {});

// The summary as one JSON object (exo_run's last line).
std::string summary_json(const Summary& s, const Routine& r);

// ---- gain tuning (exo_tune, and Python's maxsim.exo_gains_objective) ---------------------------
constexpr double kTorqueTarget = 4.9;  // N·m: the 5 N·m limit with 2 % margin

// The searched gains in Gains order: name, initial value (clinical), sampling scale at radius 1,
// bounds.
std::vector<SearchParameter> searched_gains();

// exo_tune's objective (maximized) from the two patients' routines:
//     − (rms_healthy + rms_spastic) / 2 − 10 · Σ_patients max(0, max_elbow_torque − 4.9 N·m),
// −∞ when a routine has a failed step.
double gains_objective_value(const Summary& h, const Summary& s);

// The objective of gains p (searched_gains() order): the full routine for both patients.
// Thread-safe and a pure function of p.
struct GainsObjective {
  const Exoskeleton* healthy = nullptr;
  const Exoskeleton* spastic = nullptr;
  Routine routine;
  double operator()(const std::vector<double>& p) const;
};

}  // namespace maxsim::exo
