// The elements and attributes a description format defines, with maxsim's support for each:
// the strict parser's reference (an unknown name is a misspelling) and the source of the support
// tables in docs/modeling.md (support_table_markdown).
#pragma once

#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace maxsim::parse {

// What maxsim does with an element or attribute the format defines.
enum class Support {
  Supported,  // read and modelled
  Ignored,    // loaded and ignored, named by `maxsim info` ("ignored: …")
  Refused,    // the file is refused: it would change the model in a way maxsim cannot represent
};
const char* support_name(Support s);  // "supported", "ignored", "refused"

// One element of the format in its context (its parent). Attribute lists are space separated.
struct SchemaNode {
  const char* name;
  int parent;          // index of the enclosing element's node, -1 for the root
  Support support;     // the element as a whole
  const char* supported;
  const char* ignored;
  const char* refused;
  bool recursive;      // may contain itself (MJCF <body>, <default>)
  int alias;           // >= 0: takes the children of that node (MJCF <worldbody>, <frame>)
  const char* note;    // shown in the support table
};

// A format's element tree: nodes in depth-first order, the root first.
class Schema {
 public:
  Schema(const SchemaNode* nodes, int count);
  const SchemaNode& node(int i) const { return nodes_[i]; }
  int size() const { return static_cast<int>(nodes_.size()); }
  // The node of an element `name` inside an element of node `parent`; -1 when the format has none.
  int child(int parent, std::string_view name) const;
  std::vector<std::string> child_names(int parent) const;
  // The attribute's support on the node's element; false from knows() when the format has none.
  bool knows(int node, std::string_view attr) const;
  Support attribute_support(int node, std::string_view attr) const;
  std::vector<std::string> attribute_names(int node) const;
  std::string path(int node) const;  // "<actuator><position>" (the root left out)

 private:
  std::vector<SchemaNode> nodes_;
  std::vector<std::map<std::string, int, std::less<>>> children_;  // per node: child name -> node
};

// The candidate closest to `name` by edit distance when it is close enough to be a misspelling
// of it (at most 2 edits, and fewer than half the name's letters); "" otherwise.
std::string nearest_name(std::string_view name, const std::vector<std::string>& candidates);
// " (did you mean 'x'?)" for the nearest candidate, "" when none is close.
std::string did_you_mean(std::string_view name, const std::vector<std::string>& candidates);

// The support table of a schema as Markdown: one row per element with its status and its
// attributes grouped by status.
std::string support_table_markdown(const Schema& schema);

}  // namespace maxsim::parse
