// Strict names, as MuJoCo has them: an element or attribute MJCF does not define is refused with
// its file, line and the nearest name (a misspelling: `<joint axsi>` would load with the default
// axis); LoadOptions::lenient makes it a warning. After the load, what the file holds that MJCF
// defines and the loader never read is listed as ignored (LoadReport::ignored): a parser that
// reads an attribute through XmlFiles takes it off that list without further declaration.
#include <string>
#include <utility>
#include <vector>

#include "models/mjcf/reader.hpp"
#include "models/mjcf/schema.hpp"

namespace maxsim::mjcf_detail {

void MjcfReader::check_names(const XMLElement* root) {
  const parse::Schema& schema = mjcf_schema();
  auto problem = [&](const XMLElement* e, const std::string& msg) {
    if (!options_.lenient)
      fail(e, msg + "; MuJoCo refuses it too (the lenient option loads the file without it)");
    report_->warnings.push_back(xml_.where(e) + ": " + msg + ": ignored (lenient)");
  };
  std::vector<std::pair<const XMLElement*, int>> stack{{root, 0}};
  while (!stack.empty()) {
    const auto [e, node] = stack.back();
    stack.pop_back();
    for (const tinyxml2::XMLAttribute* a = e->FirstAttribute(); a; a = a->Next())
      if (!schema.knows(node, a->Name()))
        problem(e, std::string("unknown attribute '") + a->Name() + "' in " + parse::XmlFiles::describe(e) +
                       parse::did_you_mean(a->Name(), schema.attribute_names(node)));
    const std::vector<const XMLElement*> kids = children(e);
    for (auto it = kids.rbegin(); it != kids.rend(); ++it) {  // (file order when popped)
      const int k = schema.child(node, (*it)->Name());
      if (k >= 0) stack.emplace_back(*it, k);
    }
    for (const XMLElement* c : kids)
      if (schema.child(node, c->Name()) < 0)
        problem(c, std::string("unknown element <") + c->Name() + "> in <" + e->Name() + ">" +
                       parse::did_you_mean(c->Name(), schema.child_names(node)));
  }
}

void MjcfReader::list_ignored(const XMLElement* root) {
  const parse::Schema& schema = mjcf_schema();
  std::map<std::string, int> found;
  // (element, its node, its parent in the file: keys name both, "<worldbody><light>")
  struct Item {
    const XMLElement* e;
    int node;
    const XMLElement* parent;
  };
  std::vector<Item> stack{{root, 0, nullptr}};
  while (!stack.empty()) {
    const Item it = stack.back();
    stack.pop_back();
    const XMLElement* e = it.e;
    const parse::SchemaNode& n = schema.node(it.node);
    if (n.support != parse::Support::Supported && !xml_.was_asked(e)) {
      // a container without attributes of its own (<sensor>) is listed by its children
      if (!schema.attribute_names(it.node).empty() || !e->FirstChildElement()) {
        std::string key;
        if (it.parent && it.parent != root) {
          key += '<';
          key += it.parent->Name();
          key += '>';
        }
        key += '<';
        key += e->Name();
        key += '>';
        ++found[key];
        continue;
      }
    } else {
      for (const tinyxml2::XMLAttribute* a = e->FirstAttribute(); a; a = a->Next())
        if (schema.knows(it.node, a->Name()) && !xml_.was_read(a) &&
            schema.attribute_support(it.node, a->Name()) != parse::Support::Supported) {
          std::string key = "<";
          key += e->Name();
          key += ' ';
          key += a->Name();
          key += '>';
          ++found[key];
        }
    }
    for (const XMLElement* c : children(e)) {
      const int k = schema.child(it.node, c->Name());
      if (k >= 0) stack.push_back({c, k, e});
    }
  }
  for (const auto& [what, count] : found)
    if (!ignored_.count(what)) ignored_[what] = count;
}

}  // namespace maxsim::mjcf_detail
