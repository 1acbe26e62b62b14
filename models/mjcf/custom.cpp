// maxsim's own declarations in <custom><text name="maxsim:..." data="...">: the integrator and
// nonholonomic constraints.
#include <algorithm>
#include <cstring>
#include <set>
#include <sstream>

#include "models/mjcf/reader.hpp"

namespace maxsim::mjcf_detail {

// MuJoCo refuses elements it does not know, but stores <custom><text name data> without reading
// it: maxsim's declarations live there, so that one file loads in both. Names that do not start
// with "maxsim:" and <numeric>/<tuple> stay MuJoCo's.
void MjcfReader::read_custom(const XMLElement* e, Model* model) {
  for (const XMLElement* x : children(e)) {
    if (std::strcmp(x->Name(), "text") != 0) continue;
    const std::string name = xml_.text(x, "name");
    if (name.rfind("maxsim:", 0) != 0) continue;
    const char* data = own(x, "data");
    if (!data) fail(x, name + ": needs a data attribute");
    if (name == "maxsim:integrator") {
      if (integrator_elem_)
        fail(x, "maxsim:integrator is declared twice (first at line " + std::to_string(integrator_elem_->GetLineNum()) + ")");
      integrator_elem_ = x;
      std::istringstream words(data);
      std::string value, extra;
      words >> value >> extra;
      if (!extra.empty() || !integrator_from_name(value, &model->opt.integrator))
        fail(x, std::string("maxsim:integrator: '") + data + "' is not one of variational, energy-momentum");
    } else if (name.rfind("maxsim:nonholonomic:", 0) == 0) {
      nonholonomic_.push_back(read_nonholonomic(x, name, data));
    } else {
      fail(x, "unknown maxsim declaration '" + name + "' (maxsim:integrator, maxsim:nonholonomic:NAME)");
    }
  }
}

// data="KIND body=BODY key=value ...", vectors as x,y,z in the MJCF body's frame.
NonholonomicSpec MjcfReader::read_nonholonomic(const XMLElement* e, const std::string& name,
                                               const std::string& data) const {
  NonholonomicSpec s;
  s.proto.name = name.substr(std::strlen("maxsim:nonholonomic:"));
  s.file = xml_.file_of(e);
  s.line = e->GetLineNum();
  if (s.proto.name.empty()) fail(e, name + ": the constraint needs a name (maxsim:nonholonomic:NAME)");
  std::istringstream words(data);
  std::string kind;
  words >> kind;
  if (kind.empty())
    fail(e, name + ": data is empty; expected \"KIND body=BODY ...\" with KIND one of " + nonholonomic_kind_list());
  if (!nonholonomic_kind_from_name(kind, &s.proto.kind))
    fail(e, name + ": unknown kind '" + kind + "' (" + nonholonomic_kind_list() + ")");
  std::set<std::string> given;
  for (std::string word; words >> word;) {
    const size_t eq = word.find('=');
    if (eq == std::string::npos || eq == 0)
      fail(e, name + ": '" + word + "' is not key=value");
    const std::string key = word.substr(0, eq), value = word.substr(eq + 1);
    if (!given.insert(key).second) fail(e, name + ": " + key + " is given twice");
    if (key == "body") {
      const auto it = body_link_.find(value);
      if (it == body_link_.end()) fail(e, name + ": unknown body '" + value + "'");
      s.link = it->second;
      continue;
    }
    if (key != "radius" && key != "axis" && key != "point" && key != "direction")
      fail(e, name + ": unknown key '" + key + "' (body, radius, axis, point, direction)");
    if (nonholonomic_parameter(s.proto.kind, key) == ParameterUse::None)
      fail(e, name + ": " + kind + " takes no " + key);
    if (key == "radius") {
      if (!parse::parse_number(value, &s.proto.radius))
        fail(e, name + ": radius '" + value + "' is not a (finite) number");
      if (!(s.proto.radius > 0)) fail(e, name + ": radius must be positive (got " + value + ")");
      continue;
    }
    // x,y,z: three finite numbers separated by commas (no blanks: the words are split at them)
    std::string spaced = value;
    std::replace(spaced.begin(), spaced.end(), ',', ' ');
    std::vector<double> numbers;
    if (std::count(value.begin(), value.end(), ',') != 2 || !parse::parse_numbers(spaced, &numbers) || numbers.size() != 3)
      fail(e, name + ": " + key + " '" + value + "' is not three finite numbers x,y,z");
    const Vec3 v(numbers[0], numbers[1], numbers[2]);
    if (key == "point") {
      s.proto.point = v;
    } else {
      if (!(v.norm() > 0)) fail(e, name + ": " + key + " must not be zero");
      (key == "axis" ? s.proto.axis : s.proto.direction) = parse::scaled(v);
    }
  }
  if (s.link < 0) fail(e, name + ": needs body=BODY");
  if (const char* key = missing_nonholonomic_parameter(s.proto.kind, given))
    fail(e, name + ": " + kind + " needs " + key + "=" + (key[0] == 'r' ? "R" : "x,y,z"));
  return s;
}

}  // namespace maxsim::mjcf_detail
