// Look-ups by name: an unknown name is an error naming the close matches, never index -1.
#include <gtest/gtest.h>

#include "mechanisms/builders.hpp"
#include "sim/maxsim.hpp"
#include "sim/names.hpp"

using namespace maxsim;

TEST(Names, CloseMatchesPutTheLikelyIntentFirst) {
  const std::vector<std::string> joints = {"FR_hip_joint", "FR_thigh_joint", "FL_hip_joint", "trunk", "fr_HIP_JOINT"};
  // equal ignoring case first, then by edit distance
  EXPECT_EQ(close_matches("FR_hip_joint", {"fr_hip_joint", "FR_hip_joints"}),
            (std::vector<std::string>{"fr_hip_joint", "FR_hip_joints"}));
  EXPECT_EQ(close_matches("FR_hipjoint", joints)[0], "FR_hip_joint");
  EXPECT_EQ(close_matches("thigh", joints), (std::vector<std::string>{"FR_thigh_joint"}));  // contained in
  EXPECT_TRUE(close_matches("zzz", joints).empty());
  EXPECT_EQ(did_you_mean("trnk", joints), " (did you mean 'trunk'?)");
  EXPECT_EQ(did_you_mean("zzz", joints), "");
  EXPECT_LE(close_matches("joint", joints).size(), 3u);
}

TEST(Names, LookupsThrowNamingTheModelAndTheCloseMatches) {
  Model m = make_pendulum_chain(2, JointType::Revolute);
  m.name = "chain";
  const std::string first = m.joints[0].name;
  ASSERT_FALSE(first.empty());
  EXPECT_EQ(m.joint_index(first), 0);
  EXPECT_EQ(m.find_joint(first), std::optional<int>(0));
  EXPECT_EQ(m.find_joint(first + "x"), std::nullopt);
  try {
    m.joint_index(first + "x");
    FAIL() << "expected UnknownName";
  } catch (const UnknownName& e) {
    // the closest first (one edit), then the next (two)
    EXPECT_EQ(std::string(e.what()), "no joint named '" + first + "x' in model 'chain' (did you mean '" + first + "' or '" +
                                         m.joints[1].name + "'?)");
  }
  EXPECT_THROW(m.body_index("nobody"), std::out_of_range);
  try {
    m.actuator_index("motor");
    FAIL() << "expected UnknownName";
  } catch (const UnknownName& e) {
    EXPECT_EQ(std::string(e.what()), "no actuator named 'motor' in model 'chain' (it has none)");
  }
  EXPECT_THROW(m.keyframe_index("home"), UnknownName);
  EXPECT_THROW(m.site_index("tip"), UnknownName);
  EXPECT_THROW(m.tendon_index("t"), UnknownName);
}
