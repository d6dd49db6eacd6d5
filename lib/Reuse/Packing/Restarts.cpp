//===- Restarts.cpp - Restarts of the packer's searches -------------------===//

#include "Restarts.h"

#include <algorithm>

namespace memplan {
namespace packing_detail {

int64_t luby(int64_t i) {
  while (true) {
    int64_t p = 1;
    while ((p << 1) - 1 < i)
      p <<= 1;
    if ((p << 1) - 1 == i)
      return p;
    i -= p - 1;
  }
}

uint64_t RestartSchedule::random() {
  rng_ ^= rng_ << 13;
  rng_ ^= rng_ >> 7;
  rng_ ^= rng_ << 17;
  return rng_;
}

int RestartSchedule::next(size_t items, std::vector<double> &noise,
                          int64_t &limit) {
  lastStatic_ = static_ <= noisy_;
  if (lastStatic_) {
    noise.clear();
    limit = unit_ << std::min<int64_t>(statics_ / orders_, 40);
    return int(statics_++ % orders_);
  }
  noise.resize(items);
  for (double &x : noise)
    x = 1 + noise_ * (double(random() % 1000000) / 1e6 - 0.5);
  limit = unit_ * luby(++noisies_);
  return int((noisies_ - 1) % orders_);
}

} // namespace packing_detail
} // namespace memplan
