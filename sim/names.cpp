#include "sim/names.hpp"

#include <algorithm>
#include <cctype>
#include <tuple>
#include <utility>
#include <vector>

namespace maxsim {

namespace {

std::string lower(const std::string& s) {
  std::string out = s;
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

}  // namespace

int edit_distance(std::string_view a, std::string_view b) {
  const size_t n = b.size();
  std::vector<int> prev2(n + 1), prev(n + 1), row(n + 1);
  for (size_t j = 0; j <= n; ++j) prev[j] = static_cast<int>(j);
  for (size_t i = 1; i <= a.size(); ++i) {
    row[0] = static_cast<int>(i);
    for (size_t j = 1; j <= n; ++j) {
      row[j] = std::min({prev[j] + 1, row[j - 1] + 1, prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) row[j] = std::min(row[j], prev2[j - 2] + 1);
    }
    std::swap(prev2, prev);
    std::swap(prev, row);
  }
  return prev[n];
}

std::vector<std::string> close_matches(const std::string& name, const std::vector<std::string>& candidates, int max) {
  const std::string key = lower(name);
  std::vector<std::tuple<int, int, std::string>> scored;  // (class, distance, candidate)
  for (const std::string& c : candidates) {
    if (c.empty() || c == name) continue;
    const std::string lc = lower(c);
    const int d = edit_distance(key, lc);
    const int allowed = std::max<int>(2, static_cast<int>(std::max(key.size(), lc.size())) / 3);
    if (lc == key) {
      scored.emplace_back(0, 0, c);
    } else if (d <= allowed) {
      scored.emplace_back(1, d, c);
    } else if (key.size() >= 3 && lc.size() >= 3 &&
               (lc.find(key) != std::string::npos || key.find(lc) != std::string::npos)) {
      scored.emplace_back(2, d, c);
    }
  }
  std::stable_sort(scored.begin(), scored.end(), [](const auto& a, const auto& b) {
    return std::tie(std::get<0>(a), std::get<1>(a)) < std::tie(std::get<0>(b), std::get<1>(b));
  });
  std::vector<std::string> out;
  for (const auto& s : scored) {
    if (static_cast<int>(out.size()) >= max) break;
    if (std::find(out.begin(), out.end(), std::get<2>(s)) == out.end()) out.push_back(std::get<2>(s));
  }
  return out;
}

std::string did_you_mean(const std::string& name, const std::vector<std::string>& candidates) {
  const std::vector<std::string> m = close_matches(name, candidates);
  if (m.empty()) return "";
  std::string s = " (did you mean ";
  for (size_t i = 0; i < m.size(); ++i) {
    if (i > 0) s += i + 1 == m.size() ? " or " : ", ";
    s += "'" + m[i] + "'";
  }
  return s + "?)";
}

}  // namespace maxsim
