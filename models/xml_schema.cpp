#include "models/xml_schema.hpp"

#include <algorithm>
#include <sstream>

#include "sim/names.hpp"

namespace maxsim::parse {

namespace {
std::vector<std::string> words(const char* list) {
  std::vector<std::string> out;
  std::istringstream in(list ? list : "");
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

bool has_word(const char* list, std::string_view w) {
  std::string_view s(list ? list : "");
  size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && s[i] == ' ') ++i;
    size_t j = i;
    while (j < s.size() && s[j] != ' ') ++j;
    if (j > i && s.substr(i, j - i) == w) return true;
    i = j;
  }
  return false;
}

}  // namespace

const char* support_name(Support s) {
  switch (s) {
    case Support::Supported: return "supported";
    case Support::Ignored: return "ignored";
    case Support::Refused: return "refused";
  }
  return "?";
}

Schema::Schema(const SchemaNode* nodes, int count) : nodes_(nodes, nodes + count), children_(nodes_.size()) {
  for (int i = 0; i < count; ++i)
    if (nodes_[i].parent >= 0) children_[nodes_[i].parent].emplace(nodes_[i].name, i);
}

int Schema::child(int parent, std::string_view name) const {
  const int p = nodes_[parent].alias >= 0 ? nodes_[parent].alias : parent;
  if (nodes_[p].recursive && name == nodes_[p].name) return p;
  for (int n : {p, parent}) {  // (an alias's own children too, e.g. <frame> inside <worldbody>)
    const auto it = children_[n].find(name);
    if (it != children_[n].end()) return it->second;
  }
  return -1;
}

std::vector<std::string> Schema::child_names(int parent) const {
  const int p = nodes_[parent].alias >= 0 ? nodes_[parent].alias : parent;
  std::vector<std::string> out;
  if (nodes_[p].recursive) out.push_back(nodes_[p].name);
  for (int i = 0; i < size(); ++i)
    if (nodes_[i].parent == p || nodes_[i].parent == parent) out.push_back(nodes_[i].name);
  return out;
}

bool Schema::knows(int node, std::string_view attr) const {
  const SchemaNode& n = nodes_[node];
  return has_word(n.supported, attr) || has_word(n.ignored, attr) || has_word(n.refused, attr);
}

Support Schema::attribute_support(int node, std::string_view attr) const {
  const SchemaNode& n = nodes_[node];
  if (has_word(n.supported, attr)) return Support::Supported;
  if (has_word(n.refused, attr)) return Support::Refused;
  return Support::Ignored;
}

std::vector<std::string> Schema::attribute_names(int node) const {
  std::vector<std::string> out = words(nodes_[node].supported);
  for (const char* l : {nodes_[node].ignored, nodes_[node].refused})
    for (auto& w : words(l)) out.push_back(w);
  return out;
}

std::string Schema::path(int node) const {
  // (appended piecewise: GCC 12 raises a false -Wrestrict on "literal" + std::string&&)
  std::vector<const char*> names;
  for (int i = node; i > 0; i = nodes_[i].parent) names.push_back(nodes_[i].name);
  if (names.empty()) names.push_back(nodes_[0].name);
  std::string s;
  for (auto it = names.rbegin(); it != names.rend(); ++it) {
    s += '<';
    s += *it;
    s += '>';
  }
  return s;
}

std::string nearest_name(std::string_view name, const std::vector<std::string>& candidates) {
  std::string best;
  int best_d = 3;
  for (const std::string& c : candidates) {
    const int d = maxsim::edit_distance(name, c);
    if (d < best_d && 2 * d < static_cast<int>(std::max(name.size(), c.size()))) {
      best_d = d;
      best = c;
    }
  }
  return best;
}

std::string did_you_mean(std::string_view name, const std::vector<std::string>& candidates) {
  const std::string n = nearest_name(name, candidates);
  return n.empty() ? "" : " (did you mean '" + n + "'?)";
}

std::string support_table_markdown(const Schema& schema) {
  std::string out = "| element | status | supported attributes | ignored attributes | refused attributes |\n"
                    "|---|---|---|---|---|\n";
  auto list = [](const char* l) {
    std::string s;
    for (const std::string& w : words(l)) s += (s.empty() ? "" : ", ") + w;
    return s.empty() ? std::string("—") : s;
  };
  for (int i = 0; i < schema.size(); ++i) {
    const SchemaNode& n = schema.node(i);
    std::string status = support_name(n.support);
    if (n.note && *n.note) status += " (" + std::string(n.note) + ")";
    out += "| `" + schema.path(i) + "` | " + status + " | " + list(n.supported) + " | " + list(n.ignored) + " | " +
           list(n.refused) + " |\n";
  }
  return out;
}

}  // namespace maxsim::parse
