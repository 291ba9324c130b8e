#pragma once
// What the model tests share: instants, the environment models are built in, and building a
// model from JSON text that must be flawless.

#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <string>

#include "models/registry.hpp"

namespace pacing::sim::testing {

using namespace std::chrono_literals;

/// An instant `d` after time zero.
inline Instant at(Duration d) { return Instant{d}; }

/// Models built from the working folder, with the scenarios' default epoch.
inline const ModelEnv kEnv{".", std::chrono::sys_days{std::chrono::January / 1 / 2026}};

/// Builds a model from JSON text that must be flawless.
inline std::unique_ptr<ServerModel> build(const std::string& text) {
  Defects defects;
  auto model = make_model(Json::parse(text), "/servers/h", defects, kEnv, {});
  EXPECT_TRUE(defects.empty()) << defects.format("test");
  EXPECT_NE(model, nullptr);
  return model;
}

}  // namespace pacing::sim::testing
