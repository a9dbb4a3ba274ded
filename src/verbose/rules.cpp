// SPDX-License-Identifier: Apache-2.0
#include "verbose/rules.h"

#include "common/primitive_kinds.h"

namespace dlcheck::verbose {

bool IsComputePrimitive(std::string_view primitive) {
  return onednn::IsComputeKind(primitive);
}

bool IsComputePrimitive(const PrimitiveStats& row) {
  return IsComputePrimitive(row.primitive);
}

bool IsDataMovementPrimitive(std::string_view primitive) {
  return onednn::IsDataMovementKind(primitive);
}

bool IsReorder(std::string_view primitive) {
  return onednn::IsKind(primitive, onednn::Kind::kReorder);
}

// The same test as the first classification rule in isa.cpp (`dlcheck` prefix of the first
// token), so that a dlcheck kernel is always also ImplClass scalar.
bool IsDlcheckKernel(const PrimitiveStats& row) {
  const std::string_view implementation = row.implementation;
  return implementation.substr(0, implementation.find(':')).starts_with("dlcheck");
}

bool IsScalarFallback(const PrimitiveStats& row) {
  return row.impl_class == ImplClass::kScalar && !IsDlcheckKernel(row);
}

bool IsScalarFinding(const PrimitiveStats& row, ScalarScope scope) {
  if (!IsScalarFallback(row)) return false;
  switch (scope) {
    case ScalarScope::kEveryRow:
      return true;
    case ScalarScope::kCompute:
      return IsComputePrimitive(row);
    case ScalarScope::kExecutedWork:
      return row.execs > 0 && !IsDataMovementPrimitive(row.primitive);
  }
  return false;
}

}  // namespace dlcheck::verbose
