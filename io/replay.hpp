// HTML replays: one self-contained file (works offline) that replays a trajectory in 3D with the
// model's geometry, with play/pause, a time slider, speed, camera orbit and optional contacts.
//
// The page embeds three things: the scene description (JSON: bodies, geoms, meshes by reference),
// one binary blob (gzip, then base64: mesh vertices as float32 and triangles as uint16/uint32,
// frame times as float64, body poses as float32 [frame][body][x y z qw qx qy qz], contacts), and
// the viewer's JavaScript (web/src/viewer.js bundled with three.js at build time, target
// `maxsim_viewer_js`). Browsers need DecompressionStream (Chrome 80, Firefox 113, Safari 16.4).
//
// Trajectories come from a CSV (`maxsim simulate` columns: per body B the pose columns
// B.x,B.y,B.z,B.qw,B.qx,B.qy,B.qz, the CoM position and orientation, body→world) or are recorded
// during a run (ReplayRecorder). Optional CSV contact columns, K = 0, 1, ...:
//     contact.K.x, contact.K.y, contact.K.z      contact point (world, m)
//     contact.K.fx, contact.K.fy, contact.K.fz   force on the second body of the pair (world, N)
// a slot with empty fields in a row is no contact in that frame. The scalar columns
// energy.total, violation.max and penetration.max, when present, are shown beside the time.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "io/error.hpp"
#include "io/plot.hpp"
#include "sim/data.hpp"
#include "sim/model.hpp"

namespace maxsim::io {

// The frames of one replay.
struct Replay {
  std::string title;            // page title; empty: the model's name
  std::string model_file, trajectory_file;  // shown in the page (may be empty)
  std::vector<double> times;    // one per frame, non-decreasing
  std::vector<float> poses;     // frames × bodies × 7: x y z qw qx qy qz (CoM, body→world)
  // Contacts: per frame their count (empty vector: none recorded at all), and per contact
  // point xyz then force xyz (world; the force acts on the pair's second body).
  std::vector<std::uint32_t> contact_counts;
  std::vector<float> contacts;
  std::vector<std::pair<std::string, std::vector<double>>> scalars;  // one value per frame

  std::size_t frames() const { return times.size(); }  // the number of frames
  // The frames' numbers in bytes, as stored here (the page holds them compressed).
  std::size_t frame_bytes() const;
};

// Reads the poses (and contacts, scalars) of every model body from a trajectory table. Throws
// Error when the table does not fit the model: a body without its seven pose columns, a CSV
// body the model does not have, no `t` column, decreasing times, or an empty pose field.
Replay replay_from_csv(const Model& model, const CsvTable& table);

// Records frames while a program simulates: call record() after the steps you want to see.
// Each frame stores the bodies' poses, the active surface contacts of the last step (point on
// the second body, force = impulse / dt) and the total energy and constraint violation.
class ReplayRecorder {
 public:
  explicit ReplayRecorder(const Model& model);        // an empty replay of `model`
  void record(const Model& model, const Data& data);  // adds a frame of the current state
  const Replay& replay() const { return replay_; }     // the frames so far
  Replay& replay() { return replay_; }                 // the frames so far (to set the title)

 private:
  std::size_t bodies_ = 0;
  Replay replay_;
};

// The viewer's JavaScript bundle: the file named by the environment variable MAXSIM_VIEWER_JS,
// else the one the build made, else the installed one (<prefix>/share/maxsim/maxsim_viewer.js).
// Throws Error saying how to get it when it is missing.
std::string load_viewer_js();
// The file load_viewer_js reads ("" when there is none).
std::string viewer_js_path();

// The complete HTML page (viewer_js: the bundle's text; tests may pass a stub).
std::string replay_html(const Model& model, const Replay& replay, const std::string& viewer_js);
// load_viewer_js + replay_html, written to `path` (Error when it cannot be written).
void write_replay_html(const Model& model, const Replay& replay, const std::string& path);
// A page already made, written to `path` (Error when it cannot be written).
void write_html_file(const std::string& path, const std::string& html);

// Checks now that `path` can be written (Error otherwise), so that a long run does not end
// with an unwritable replay.
void check_writable(const std::string& path);

}  // namespace maxsim::io
