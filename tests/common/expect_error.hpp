// expect_error(fn, code, needles): fn must throw a nufftmp::Error with that code whose message
// contains every needle (the parameter, the index, the value it names).
// error_message<E>(fn): the message of the E that fn throws, empty when it throws none.
#pragma once

#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "nufftmp/errors.hpp"

namespace nufftmp::test {

inline void expect_error(const std::function<void()>& fn, ErrorCode code,
                         const std::vector<std::string>& needles) {
  try {
    fn();
    ADD_FAILURE() << "no error thrown; expected " << error_code_name(code);
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), code) << "got " << error_code_name(e.code()) << ": " << e.what();
    for (const auto& n : needles)
      EXPECT_NE(std::string(e.what()).find(n), std::string::npos)
          << "message \"" << e.what() << "\" lacks \"" << n << "\"";
  } catch (const std::exception& e) {
    ADD_FAILURE() << "non-nufftmp exception: " << e.what();
  }
}

template <typename E = Error>
std::string error_message(const std::function<void()>& fn) {
  try {
    fn();
  } catch (const E& e) {
    return e.what();
  }
  return "";
}

}  // namespace nufftmp::test
