// Names in messages: the close matches of a misspelled name, so that an error can say what the
// user probably meant ("no joint named 'hip_flx' (did you mean 'hip_flex'?)").
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace maxsim {

// A look-up by a name the model does not have (Model::body_index, …); Python raises KeyError.
class UnknownName : public std::out_of_range {
 public:
  using std::out_of_range::out_of_range;
};

// The edit distance between a and b: insertions, deletions, substitutions and transpositions of
// neighbours ("axsi" → "axis" is one), each counting 1 (the optimal string alignment distance).
int edit_distance(std::string_view a, std::string_view b);

// Up to `max` candidates close to `name`, best first: equal ignoring case, then by edit distance
// (edit_distance, ignoring case) at most a third of the longer name's length (at least 2), then those
// that contain `name` or are contained in it (at least 3 characters). Duplicates are listed once.
std::vector<std::string> close_matches(const std::string& name, const std::vector<std::string>& candidates,
                                       int max = 3);

// " (did you mean 'a' or 'b'?)" for the close matches, "" when there are none.
std::string did_you_mean(const std::string& name, const std::vector<std::string>& candidates);

}  // namespace maxsim
