// SPDX-License-Identifier: Apache-2.0
#include "detect/cpuid_source.h"

#include <cpuid.h>
#include <fmt/format.h>
#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace dlcheck::detect {
namespace {

constexpr int kArchGetXcompPerm = 0x1022;  // <asm/prctl.h>, Linux 5.16+
constexpr int kArchReqXcompPerm = 0x1023;
constexpr int kXfeatureXtileData = 18;

// Most subleaves each indexed leaf may have in a saved dump: libcpuid 0.6.2 keeps leaf 4 in 8
// entries and leaves 0Bh, 12h, 14h, 8000001Dh in 4, without checking the index.
std::uint32_t SubleafCap(std::uint32_t leaf) {
  switch (leaf) {
    case 0x4:
      return 8;
    case 0xB:
    case 0x12:
    case 0x14:
    case 0x8000001Du:
      return 4;
    default:
      return 64;
  }
}

bool Bit(std::uint32_t value, int bit) {
  return ((value >> bit) & 1u) != 0;
}

void ReadIndexedLeaf(const CpuidSource& source, std::uint32_t leaf, LogicalCpuDump& cpu) {
  const std::uint32_t cap = SubleafCap(leaf);
  const CpuidRegs first = source.Query(leaf, 0);
  cpu.leaves[{leaf, 0}] = first;
  switch (leaf) {
    case 0x4:
    case 0x8000001Du:  // cache descriptors until type 0 (the terminator is kept when it fits)
      for (std::uint32_t sub = 1; sub < cap; ++sub) {
        if ((cpu.leaves[{leaf, sub - 1}].eax & 0x1F) == 0) break;
        cpu.leaves[{leaf, sub}] = source.Query(leaf, sub);
      }
      break;
    case 0xB:
    case 0x1F:  // topology levels until level type 0
      for (std::uint32_t sub = 1; sub < cap; ++sub) {
        if (((cpu.leaves[{leaf, sub - 1}].ecx >> 8) & 0xFF) == 0) break;
        cpu.leaves[{leaf, sub}] = source.Query(leaf, sub);
      }
      break;
    case 0xD: {  // XSAVE components: subleaf 1, then one per supported state bit
      const CpuidRegs one = source.Query(leaf, 1);
      cpu.leaves[{leaf, 1}] = one;
      const std::uint64_t mask =
          (std::uint64_t{first.edx} << 32 | first.eax) | (std::uint64_t{one.edx} << 32 | one.ecx);
      for (std::uint32_t sub = 2; sub < 63; ++sub) {
        if ((mask >> sub) & 1u) cpu.leaves[{leaf, sub}] = source.Query(leaf, sub);
      }
      break;
    }
    case 0x12:  // SGX: a fixed set of subleaves
      for (std::uint32_t sub = 1; sub < cap; ++sub)
        cpu.leaves[{leaf, sub}] = source.Query(leaf, sub);
      break;
    default: {  // EAX of subleaf 0 is the highest subleaf
      const std::uint32_t last = std::min<std::uint32_t>(first.eax, cap - 1);
      for (std::uint32_t sub = 1; sub <= last; ++sub) {
        cpu.leaves[{leaf, sub}] = source.Query(leaf, sub);
      }
      break;
    }
  }
}

}  // namespace

CpuidRegs RecordedCpuidSource::Query(std::uint32_t leaf, std::uint32_t subleaf) const {
  const auto it = cpu_.leaves.find({leaf, subleaf});
  return it == cpu_.leaves.end() ? CpuidRegs{} : it->second;
}

CpuidRegs LiveCpuidSource::Query(std::uint32_t leaf, std::uint32_t subleaf) const {
  CpuidRegs r;
  __cpuid_count(leaf, subleaf, r.eax, r.ebx, r.ecx, r.edx);
  return r;
}

std::optional<std::uint64_t> LiveCpuidSource::Xcr0() const {
  // XGETBV faults unless the OS set CR4.OSXSAVE, which CPUID.1:ECX[27] mirrors.
  if (!Bit(Query(1, 0).ecx, 27)) return std::uint64_t{0};
  std::uint32_t eax = 0;
  std::uint32_t edx = 0;
  __asm__ volatile("xgetbv" : "=a"(eax), "=d"(edx) : "c"(0));
  return std::uint64_t{edx} << 32 | eax;
}

std::optional<bool> LiveCpuidSource::AmxPermission() const {
  // Only meaningful where the CPU has AMX-TILE (leaf 7 EDX[24]) and the OS enabled its state.
  if (Query(0, 0).eax < 7 || !Bit(Query(7, 0).edx, 24)) return std::nullopt;
  const std::optional<std::uint64_t> xcr0 = Xcr0();
  if (!xcr0 || !HasState(*xcr0, kXcr0AmxState)) return false;
  if (syscall(SYS_arch_prctl, kArchReqXcompPerm, kXfeatureXtileData) != 0) return false;
  unsigned long long permitted = 0;
  if (syscall(SYS_arch_prctl, kArchGetXcompPerm, &permitted) != 0) return false;
  return ((permitted >> kXfeatureXtileData) & 1u) != 0;
}

LogicalCpuDump ReadAllLeaves(const CpuidSource& source, int index) {
  LogicalCpuDump cpu;
  cpu.index = index;
  const std::uint32_t max_basic = std::min<std::uint32_t>(source.Query(0, 0).eax, 0xFF);
  for (std::uint32_t leaf = 0; leaf <= max_basic; ++leaf) {
    if (IsSubleafIndexed(leaf)) {
      ReadIndexedLeaf(source, leaf, cpu);
    } else {
      cpu.leaves[{leaf, 0}] = source.Query(leaf, 0);
    }
  }
  if (Bit(source.Query(1, 0).ecx, 31)) {  // a hypervisor: its vendor leaf 40000000h
    cpu.leaves[{0x40000000u, 0}] = source.Query(0x40000000u, 0);
  }
  const std::uint32_t max_ext = source.Query(0x80000000u, 0).eax;
  if (max_ext >= 0x80000000u) {
    const std::uint32_t last = std::min<std::uint32_t>(max_ext, 0x800000FFu);
    for (std::uint32_t leaf = 0x80000000u; leaf <= last; ++leaf) {
      if (IsSubleafIndexed(leaf)) {
        ReadIndexedLeaf(source, leaf, cpu);
      } else {
        cpu.leaves[{leaf, 0}] = source.Query(leaf, 0);
      }
    }
  }
  return cpu;
}

StatusOr<int> ForEachAllowedCpu(const std::function<void(int cpu)>& visit) {
  cpu_set_t saved;
  CPU_ZERO(&saved);
  if (sched_getaffinity(0, sizeof(saved), &saved) != 0) {
    return InputError(
        fmt::format("cannot read this thread's CPU affinity: {}", std::strerror(errno)));
  }
  int visited = 0;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
    if (!CPU_ISSET(cpu, &saved)) continue;
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(cpu, &one);
    if (sched_setaffinity(0, sizeof(one), &one) != 0) continue;  // went offline meanwhile
    visit(cpu);
    ++visited;
  }
  sched_setaffinity(0, sizeof(saved), &saved);
  return visited;
}

StatusOr<CpuidDump> DumpLiveCpuid() {
  CpuidDump dump;
  const LiveCpuidSource live;
  const StatusOr<int> visited =
      ForEachAllowedCpu([&](int cpu) { dump.cpus.push_back(ReadAllLeaves(live, cpu)); });
  if (!visited.ok()) return visited.status();
  if (dump.cpus.empty()) {
    return InputError("could not pin this thread to any CPU to read its CPUID");
  }
  return dump;
}

}  // namespace dlcheck::detect
