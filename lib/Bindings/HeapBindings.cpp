//===- HeapBindings.cpp - The checker heap's quarantine -------------------===//
//
// What python/memplan/numerics/heap.py cannot do in Python: blocks of their
// own pages, made inaccessible when freed (a quarantine), and a SIGSEGV /
// SIGBUS handler that tells which freed block an access hit.
//
// `quarantine_alloc(size, alignment)` maps fresh pages for a block;
// `quarantine_free(address, size, alloc_site, free_site)` makes its pages
// inaccessible (PROT_NONE, their memory given back with MADV_DONTNEED) and
// remembers the block, up to `kMaxFreed` of them (the oldest is unmapped
// then); `quarantine_release()` unmaps every block. With
// `quarantine_report_faults(fd)` installed, an access to a remembered block
// writes one record to `fd` (magic, address, offset in the block, alloc
// site, free site, phase) and ends the process with `kFaultExit`; any other
// fault gets the default action. The handler reads the table only: it is
// changed outside the program's accesses (in the heap's hooks), never while
// an access can fault. Meant for a child process that runs one program
// (memplan.numerics.runner's isolated runs).
//
//===----------------------------------------------------------------------===//

#include "memplan/Bindings/Bindings.h"

#include <nanobind/stl/tuple.h>

#include <cerrno>
#include <csignal>
#include <cstdint>
#include <cstring>
#include <deque>
#include <stdexcept>
#include <string>
#include <sys/mman.h>
#include <unistd.h>
#include <unordered_map>

namespace nb = nanobind;

namespace memplan {
namespace {

constexpr int64_t kFaultMagic = 0x6d656d706c616e21; // "memplan!"
constexpr int kFaultExit = 86;
/// Freed blocks kept inaccessible at once (each is a mapping: the kernel
/// allows ~65k per process).
constexpr size_t kMaxFreed = 16384;

struct Mapping {
  uintptr_t begin = 0;
  size_t length = 0;
};

struct FreedBlock {
  Mapping mapping;
  uintptr_t block = 0;
  size_t size = 0;
  int64_t allocSite = -1, freeSite = -1;
};

size_t pageSize() {
  static size_t size = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  return size;
}

/// Live blocks by start address: their mappings (found on free).
std::unordered_map<uintptr_t, Mapping> live;
std::deque<FreedBlock> freed;
int faultFd = -1;
volatile sig_atomic_t phase = 0;
struct sigaction previousSegv, previousBus;

void unmap(const Mapping &m) {
  munmap(reinterpret_cast<void *>(m.begin), m.length);
}

void onFault(int sig, siginfo_t *info, void *) {
  auto address = reinterpret_cast<uintptr_t>(info->si_addr);
  for (const FreedBlock &b : freed) {
    if (address < b.mapping.begin ||
        address >= b.mapping.begin + b.mapping.length)
      continue;
    int64_t record[6] = {kFaultMagic,
                         static_cast<int64_t>(address),
                         static_cast<int64_t>(address) -
                             static_cast<int64_t>(b.block),
                         b.allocSite,
                         b.freeSite,
                         static_cast<int64_t>(phase)};
    ssize_t ignored = write(faultFd, record, sizeof record);
    (void)ignored;
    _exit(kFaultExit);
  }
  // Not a freed block: the previous handler (the default: the process dies
  // of the signal) takes the access when it runs again.
  sigaction(sig, sig == SIGSEGV ? &previousSegv : &previousBus, nullptr);
}

uintptr_t allocate(size_t size, size_t alignment) {
  size_t page = pageSize();
  size_t extra = alignment > page ? alignment : 0;
  size_t length = ((size ? size : 1) + extra + page - 1) / page * page;
  void *p = mmap(nullptr, length, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED)
    return 0;
  auto begin = reinterpret_cast<uintptr_t>(p);
  uintptr_t block =
      extra ? (begin + alignment - 1) / alignment * alignment : begin;
  live.emplace(block, Mapping{begin, length});
  return block;
}

/// False when `address` is not a live block of the quarantine.
bool release(uintptr_t address, size_t size, int64_t allocSite,
             int64_t freeSite) {
  auto it = live.find(address);
  if (it == live.end())
    return false;
  Mapping m = it->second;
  live.erase(it);
  void *p = reinterpret_cast<void *>(m.begin);
  madvise(p, m.length, MADV_DONTNEED);
  mprotect(p, m.length, PROT_NONE);
  if (freed.size() == kMaxFreed) {
    unmap(freed.front().mapping);
    freed.pop_front();
  }
  freed.push_back(FreedBlock{m, address, size, allocSite, freeSite});
  return true;
}

void releaseAll() {
  for (auto &[block, m] : live)
    unmap(m);
  live.clear();
  for (const FreedBlock &b : freed)
    unmap(b.mapping);
  freed.clear();
}

} // namespace

void registerHeapBindings(nb::module_ &m) {
  m.attr("QUARANTINE_FAULT_MAGIC") = kFaultMagic;
  m.attr("QUARANTINE_FAULT_EXIT") = kFaultExit;
  m.def(
      "quarantine_alloc",
      [](uint64_t size, uint64_t alignment) {
        return static_cast<uint64_t>(allocate(size, alignment));
      },
      nb::arg("size"), nb::arg("alignment"),
      "A block of `size` bytes on pages of its own, aligned to `alignment` "
      "(at least a page); 0 when the pages cannot be mapped.");
  m.def(
      "quarantine_free",
      [](uint64_t address, uint64_t size, int64_t allocSite, int64_t freeSite) {
        return release(address, size, allocSite, freeSite);
      },
      nb::arg("address"), nb::arg("size"), nb::arg("alloc_site"),
      nb::arg("free_site"),
      "Make a live block inaccessible and remember it with its sites; False "
      "when `address` is not a live block.");
  m.def("quarantine_release", &releaseAll, "Unmap every block, live or freed.");
  m.def(
      "quarantine_phase", [](int value) { phase = value; }, nb::arg("phase"),
      "A number reported with a fault (what the process was doing).");
  m.def(
      "quarantine_report_faults",
      [](int fd) {
        faultFd = fd;
        struct sigaction action;
        std::memset(&action, 0, sizeof action);
        action.sa_sigaction = &onFault;
        action.sa_flags = SA_SIGINFO;
        sigemptyset(&action.sa_mask);
        if (sigaction(SIGSEGV, &action, &previousSegv) != 0 ||
            sigaction(SIGBUS, &action, &previousBus) != 0)
          throw std::runtime_error(std::string("sigaction: ") +
                                   std::strerror(errno));
      },
      nb::arg("fd"),
      "From now on, an access to a freed block writes its record to `fd` "
      "and ends the process with QUARANTINE_FAULT_EXIT (for a child that "
      "runs one program).");
}

} // namespace memplan
