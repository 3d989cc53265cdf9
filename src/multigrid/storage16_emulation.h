// The build switch TPMG_EMULATE_16BIT_STORAGE=1 (a measurement instrument like those of
// kernels/measurement_knobs.h; not for production builds) makes this header's hooks act: on the
// CPU backend, a float V-cycle rounds its vectors to a 16-bit format where a V-cycle
// storing them in that format would, so that the iterations show what the storage costs without
// a kernel that stores 16 bits (docs/performance/solve.md, "16-bit storage: what the iterations say";
// benchmarks/reproduce.sh storage16). Chosen at run time, read once:
//   TPMG_STORAGE16                 half | bfloat16 (unset: nothing is rounded, the float baseline)
//   TPMG_STORAGE16_VECTORS         the roles rounded, comma-separated (default all four):
//                                  iterate   x after each smoother colour, after the prolongation
//                                            and after the coarse solve,
//                                  residual  r = b - A x of each level,
//                                  rhs       b of the coarser levels (the restricted residuals),
//                                  input     the cycle's right-hand side (the outer solver's vector)
//   TPMG_STORAGE16_FINEST_ITERATE  16 (default) | float: whether the finest level's x is rounded
//   TPMG_STORAGE16_SCALE           values are rounded as round(s v) / s (default 1): half's range
// Only the Cartesian vertex-patch smoother rounds x colour by colour.
#pragma once

#ifndef TPMG_EMULATE_16BIT_STORAGE
#define TPMG_EMULATE_16BIT_STORAGE 0
#endif

#include <tpmg/storage16.h>
#include <tpmg/vector.h>

#include <cmath>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace tpmg::internal::storage16
{
  enum Role : unsigned
  {
    iterate  = 1,
    residual = 2,
    rhs      = 4,
    input    = 8
  };

  struct Settings
  {
    bool      on = false;
    Storage16 format{};
    unsigned  roles          = iterate | residual | rhs | input;
    bool      finest_iterate = true;
    float     scale          = 1;
  };

  inline Settings read_settings()
  {
    Settings    s;
    const char *f = std::getenv("TPMG_STORAGE16");
    if (!f || !*f)
      return s;
    const std::string format = f;
    if (format != "half" && format != "bfloat16")
      throw std::invalid_argument("TPMG_STORAGE16 must be half or bfloat16, not '" + format + "'");
    s.on     = true;
    s.format = format == "half" ? Storage16::half : Storage16::bfloat16;
    if (const char *v = std::getenv("TPMG_STORAGE16_VECTORS"))
      {
        s.roles          = 0;
        std::string list = std::string(v) + ",";
        for (std::size_t a = 0, b; (b = list.find(',', a)) != std::string::npos; a = b + 1)
          {
            const std::string r = list.substr(a, b - a);
            s.roles |= r == "iterate"    ? iterate
                       : r == "residual" ? residual
                       : r == "rhs"      ? rhs
                       : r == "input"    ? input
                                         : 0u;
            if (!r.empty() && r != "iterate" && r != "residual" && r != "rhs" && r != "input")
              throw std::invalid_argument("TPMG_STORAGE16_VECTORS: unknown role '" + r + "'");
          }
      }
    if (const char *v = std::getenv("TPMG_STORAGE16_FINEST_ITERATE"))
      {
        const std::string finest = v;
        if (finest != "16" && finest != "float")
          throw std::invalid_argument("TPMG_STORAGE16_FINEST_ITERATE must be 16 or float, not '" + finest + "'");
        s.finest_iterate = finest == "16";
      }
    if (const char *v = std::getenv("TPMG_STORAGE16_SCALE"))
      {
        char *end = nullptr;
        s.scale   = std::strtof(v, &end);
        if (end == v || *end || !(s.scale > 0) || !std::isfinite(s.scale))
          throw std::invalid_argument(std::string("TPMG_STORAGE16_SCALE must be a positive number, not '") + v + "'");
      }
    return s;
  }

  inline const Settings &settings()
  {
    static const Settings s = read_settings();
    return s;
  }

  /// Whether the V-cycle works on its finest level now (Multigrid::vcycle_level sets it in
  /// emulating builds).
  inline bool &on_finest_level()
  {
    static bool finest = false;
    return finest;
  }
  inline void set_finest_level(bool finest)
  {
    if constexpr (TPMG_EMULATE_16BIT_STORAGE)
      on_finest_level() = finest;
  }

  /// v as 16-bit storage would hold it, where `role` is rounded (float vectors on the CPU); in
  /// other builds nothing.
  template <typename Number>
  void round(const Vector<Number> &v, Role role)
  {
    if constexpr (TPMG_EMULATE_16BIT_STORAGE && std::is_same_v<Number, float>)
      {
        const Settings &s = settings();
        if (!s.on || !(s.roles & role) || (role == iterate && on_finest_level() && !s.finest_iterate))
          return;
        if (v.backend() != Backend::cpu)
          throw std::runtime_error("TPMG_EMULATE_16BIT_STORAGE rounds vectors on the CPU backend only");
        // the instrument rounds the vector in place, as storing it in 16 bits would
        float *d = const_cast<float *>(v.data());
        for (index_t i = 0; i < v.size(); ++i)
          d[i] = round_to(s.format, d[i] * s.scale) / s.scale;
      }
  }
} // namespace tpmg::internal::storage16
