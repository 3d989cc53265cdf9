#!/usr/bin/env bash
# clang-format (.clang-format at the root, written for clang-format 14) over the project's
# C++ and CUDA sources: *.h *.cc *.cu *.cuh under apps/ include/ src/ kernels/ tests/ examples/
# benchmarks/ tools/.
#
#   scripts/check_format.sh          list the files clang-format would change; exit 1 if any
#   scripts/check_format.sh --fix    format them in place
#
# The templates *.in (src/*/*.inst.in, include/tpmg/degrees.h.in) are left out: their @NAME@
# placeholders are not C++, and clang-format would write "@NAME @", which CMake no longer replaces.
# The binary: $CLANG_FORMAT, else clang-format-14, else clang-format (another major version
# may format some constructs differently; it is named when it runs).
set -euo pipefail
cd "$(dirname "$0")/.."
fix=0
case "${1:-}" in
  --fix) fix=1 ;;
  "") ;;
  *) echo "usage: $0 [--fix]" >&2; exit 2 ;;
esac

cf=${CLANG_FORMAT:-}
if [ -z "$cf" ]; then
  for c in clang-format-14 clang-format; do
    if command -v "$c" > /dev/null 2>&1; then cf=$c; break; fi
  done
fi
[ -n "$cf" ] || { echo "check_format: no clang-format found (Debian: apt-get install clang-format-14)" >&2; exit 2; }
version=$("$cf" --version | sed -n 's/.*version \([0-9]*\)\..*/\1/p')
[ "$version" = 14 ] || echo "check_format: $cf is version ${version:-?}, the configuration is written for 14" >&2
"$cf" --style=file --assume-filename=x.cc --dump-config > /dev/null || { echo "check_format: .clang-format is not valid for $cf" >&2; exit 2; }

dirs=(apps include src kernels tests examples benchmarks tools)
patterns=()
for d in "${dirs[@]}"; do
  for e in h cc cu cuh; do patterns+=("$d/*.$e"); done
done
# tracked and untracked (not ignored) files of a git checkout, else every file found
if git rev-parse --is-inside-work-tree > /dev/null 2>&1; then
  mapfile -t files < <(git ls-files --cached --others --exclude-standard -- "${patterns[@]}" | sort -u)
else
  mapfile -t files < <(find "${dirs[@]}" -type f \( -name '*.h' -o -name '*.cc' -o -name '*.cu' -o -name '*.cuh' \) | sort)
fi
existing=()
for f in "${files[@]}"; do [ -f "$f" ] && existing+=("$f"); done
[ "${#existing[@]}" -gt 0 ] || { echo "check_format: no files found" >&2; exit 2; }

if [ "$fix" = 1 ]; then
  # a second pass where the first is not final: clang-format 14 rewraps some macro bodies
  # (sequences of macro calls, src/instantiate.h) once more
  for pass in 1 2 3; do
    printf '%s\0' "${existing[@]}" | xargs -0 -n 16 "$cf" -i --style=file
    "$cf" --dry-run -Werror --style=file "${existing[@]}" > /dev/null 2>&1 && break
  done
  echo "check_format: formatted ${#existing[@]} files with $cf ($pass passes)"
  exit 0
fi

# one run over all files; it names each place that would change
rc=0
out=$("$cf" --dry-run -Werror --style=file "${existing[@]}" 2>&1) || rc=$?
mapfile -t bad < <(printf '%s\n' "$out" | sed -n 's/^\(.*\):[0-9]*:[0-9]*: error: code should be clang-formatted.*/\1/p' | sort -u)
if [ "$rc" -ne 0 ] && [ "${#bad[@]}" -eq 0 ]; then
  printf '%s\n' "$out" | tail -n 20 >&2
  echo "check_format: $cf failed" >&2
  exit 2
fi
if [ "${#bad[@]}" -eq 0 ]; then
  echo "check_format: ${#existing[@]} files formatted as .clang-format says ($cf)"
  exit 0
fi
echo "check_format: ${#bad[@]} of ${#existing[@]} files differ from what $cf writes:" >&2
printf '  %s\n' "${bad[@]}" >&2
echo "check_format: 'scripts/check_format.sh --fix' formats them; '$cf --style=file FILE | diff FILE -' shows how" >&2
exit 1
