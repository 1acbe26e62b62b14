// A test suite's own directory of scratch files: made before the suite's first test, removed after
// its last (GoogleTest's SetUpTestSuite / TearDownTestSuite), named after the suite and the process
// so that suites and parallel ctest runs never share one. Derive with the suite's name:
//
//   class World : public SuiteDirectory<World> {
//    public:
//     static constexpr const char* kDirectory = "world";
//   };
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <system_error>

template <class Suite>
class SuiteDirectory : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = std::filesystem::temp_directory_path() /
           ("maxsim_test_" + std::string(Suite::kDirectory) + "_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
  }
  static void TearDownTestSuite() {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
  static std::filesystem::path path(const std::string& name) { return dir_ / name; }
  // Writes `text`, byte for byte, to a file of the directory; returns its path.
  static std::string write(const std::string& name, const std::string& text) {
    const std::filesystem::path p = dir_ / name;
    std::ofstream(p, std::ios::binary) << text;
    return p.string();
  }
  static inline std::filesystem::path dir_;
};
