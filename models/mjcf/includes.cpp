// <include>: the included files' elements in place of the <include> element, resolved once.
#include <sys/stat.h>

#include <algorithm>
#include <cstring>

#include "models/load_error.hpp"
#include "models/mjcf/reader.hpp"

namespace maxsim::mjcf_detail {

std::vector<const XMLElement*> MjcfReader::children(const XMLElement* e) {
  std::vector<const XMLElement*> out;
  for (const XMLElement* c = e->FirstChildElement(); c; c = c->NextSiblingElement()) {
    if (std::strcmp(c->Name(), "include") != 0) {
      out.push_back(c);
      continue;
    }
    auto cached = include_cache_.find(c);
    if (cached == include_cache_.end()) {
      auto target = include_target_.find(c);
      if (target == include_target_.end()) fail(c, "internal loader error: unresolved <include>");
      cached = include_cache_.emplace(c, children(target->second->root)).first;
    }
    out.insert(out.end(), cached->second.begin(), cached->second.end());
  }
  return out;
}

long long MjcfReader::resolve_includes(const XMLElement* root, int depth, int* height_out) {
  constexpr int kMaxIncludeDepth = 20;
  const long long limit = options_.limits.elements;
  long long count = 0;
  int height = 0;
  std::vector<const XMLElement*> stack;
  for (const XMLElement* c = root->FirstChildElement(); c; c = c->NextSiblingElement()) stack.push_back(c);
  while (!stack.empty()) {
    const XMLElement* c = stack.back();
    stack.pop_back();
    if (std::strcmp(c->Name(), "include") != 0) {
      if (++count > limit)
        xml_.fail_limit(c, "more than " + std::to_string(limit) + " XML elements" +
                               limit_hint("elements", "elements=N"));
      for (const XMLElement* k = c->FirstChildElement(); k; k = k->NextSiblingElement()) stack.push_back(k);
      continue;
    }
    const char* file = own(c, "file");
    if (!file) fail(c, "<include> needs a 'file' attribute");
    std::string p = parse::join_path(dir_, file);
    if (!parse::file_exists(p)) {
      const std::string alt = parse::join_path(parse::dir_of(xml_.file_of(c)), file);
      if (parse::file_exists(alt)) p = alt;
    }
    struct stat st;
    if (!parse::file_exists(p) || ::stat(p.c_str(), &st) != 0)
      fail(c, std::string("included file '") + file + "' not found (looked for " + p + ")");
    // (one file under several names — relative, absolute, linked — is one file)
    IncludedFile& f = included_[{st.st_dev, st.st_ino}];
    if (!f.root) {
      if (depth + 1 > kMaxIncludeDepth)
        fail(c, "<include>s nested more than " + std::to_string(kMaxIncludeDepth) + " deep (at '" + p + "')");
      const XMLElement* r = xml_.load(p).RootElement();
      if (std::strcmp(r->Name(), "mujoco") != 0)
        xml_.fail(r, std::string("included file's root is <") + r->Name() + ">, expected <mujoco>");
      f.root = r;
      int h = 0;
      const long long n = resolve_includes(r, depth + 1, &h);
      f.elements = n;
      f.height = h;
    } else if (f.elements < 0) {
      fail(c, "recursive <include> of '" + p + "'");
    } else if (depth + 1 + f.height > kMaxIncludeDepth) {
      fail(c, "<include>s nested more than " + std::to_string(kMaxIncludeDepth) + " deep (at '" + p + "')");
    }
    include_target_[c] = &f;
    height = std::max(height, f.height + 1);
    count += f.elements;
    if (count > limit)
      xml_.fail_limit(c, "the <include> of '" + std::string(file) + "' makes the model more than " +
                             std::to_string(limit) + " XML elements (" + std::to_string(f.elements) +
                             " in each copy of that file)" + limit_hint("elements", "elements=N"));
  }
  *height_out = height;
  return count;
}

}  // namespace maxsim::mjcf_detail
