// The one error type of the description loaders: one clear message, with file and line where
// known. what() is "FILE:LINE: message", "FILE: message" when the line is unknown, or just
// the message when no file is involved.
#pragma once

#include <stdexcept>
#include <string>

namespace maxsim {

// A description the loader refuses: what() is "FILE:LINE: message".
class LoadError : public std::runtime_error {
 public:
  // An error at a file and line (line 0: unknown).
  LoadError(const std::string& file, int line, const std::string& message)
      : std::runtime_error(format(file, line, message)), file_(file), line_(line), message_(message) {}
  LoadError(const std::string& file, const std::string& message) : LoadError(file, 0, message) {}  // an error in a file, at no line

  const std::string& file() const { return file_; }   // empty when unknown
  int line() const { return line_; }                    // 0 when unknown
  const std::string& message() const { return message_; }  // without the location prefix

  // The message as what() gives it: "FILE:LINE: message", "FILE: message" or "message".
  static std::string format(const std::string& file, int line, const std::string& message) {
    if (file.empty()) return message;
    if (line > 0) return file + ":" + std::to_string(line) + ": " + message;
    return file + ": " + message;
  }

 private:
  std::string file_;
  int line_ = 0;
  std::string message_;
};

// A LoadError about a bound of LoadLimits (file size, element, body, geometry or vertex counts,
// mass and inertia ranges). A loader never turns it into a warning, as it does with a missing
// visual mesh: the file asks for more than the loader was allowed to give.
class LimitError : public LoadError {
 public:
  using LoadError::LoadError;
};

// How a LimitError's message names its bound: " (LoadLimits::FIELD; maxsim --limit SETTING)",
// e.g. limit_hint("bodies", "bodies=N").
inline std::string limit_hint(const std::string& field, const std::string& setting) {
  return " (LoadLimits::" + field + "; maxsim --limit " + setting + ")";
}

}  // namespace maxsim
