#!/usr/bin/env bash
# Checks that the CPU contraction's AVX2 / AVX-512 objects keep their instructions to their own
# namespace (src/distance/detail/cpu/isa.hpp). A function such an object shares with the rest of
# the program (a global or weak symbol: an inline function or template instantiation that another
# object may define too) must be in namespace cudist::detail::cpu::avx2 / ::avx512, or hold no
# instruction beyond x86-64's baseline (VEX or EVEX encoded, mask registers, BMI, POPCNT): the
# linker keeps one copy for the whole program, and a baseline CPU would stop at such an
# instruction with SIGILL. Functions of internal linkage cannot be shared and are not checked.
#
#   scripts/check_cpu_variants.sh BUILD_DIR    (the objects cpu_kernels_*.cpp.o under it)
set -euo pipefail
objects=$(find "${1:?usage: check_cpu_variants.sh BUILD_DIR}" -name 'cpu_kernels_*.cpp.o' | sort)
[ -n "$objects" ] || { echo "check_cpu_variants: no cpu_kernels_*.cpp.o under $1" >&2; exit 1; }
status=0
for obj in $objects; do
  # The shared functions outside the variants' namespaces, by mangled name.
  shared=$(nm --defined-only "$obj" | awk '$2 ~ /^[TWV]$/ && $3 !~ /^_ZN(K)?6cudist6detail3cpu(4avx2|6avx512)/ { print $3 }')
  report=$(objdump -d --no-show-raw-insn "$obj" | awk -v shared="$shared" '
    BEGIN { n = split(shared, s, "\n"); for (i = 1; i <= n; ++i) if (s[i] != "") watch[s[i]] = 1 }
    /^[0-9a-f]+ <.*>:$/ { name = substr($0, index($0, "<") + 1); sub(/>:$/, "", name); checked = name in watch; next }
    checked && NF >= 2 {
      op = $2
      if (op ~ /^v/ || op ~ /^k[a-z]+[bwdq]$/ || op ~ /^(shlx|shrx|sarx|rorx|andn|bextr|blsi|blsr|blsmsk|bzhi|pdep|pext|mulx|lzcnt|tzcnt|popcnt|movbe)$/)
        bad[name] = bad[name] " " op
    }
    END { for (f in bad) print f ":" bad[f] }')
  if [ -n "$report" ]; then
    echo "check_cpu_variants: $(basename "$obj"): shared functions with instructions beyond the baseline:" >&2
    echo "$report" | c++filt | cut -c1-300 >&2
    status=1
  else
    echo "check_cpu_variants: $(basename "$obj"): $(echo "$shared" | grep -c .) shared functions outside its namespace, all baseline"
  fi
done
exit $status
