// Umbrella header.
#pragma once
#include "nufftmp/errors.hpp"
#include "nufftmp/options.hpp"
#include "nufftmp/plan.hpp"
#include "nufftmp/reference.hpp"
