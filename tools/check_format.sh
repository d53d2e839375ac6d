#!/usr/bin/env bash
# Fails (exit 1) when a C++ file of the project differs from .clang-format, listing each
# file that differs. Uses Debian's clang-format (tools/setup.sh ci installs it).
#   tools/check_format.sh [SOURCE_DIR]      fix with: clang-format -i FILE...
# -h / --help: print this header and exit (nothing is installed, built or run).
set -euo pipefail
if [ "${1:-}" = -h ] || [ "${1:-}" = --help ]; then
  sed -n '2,/^set -euo pipefail/{/^#/s/^# \{0,1\}//p}' "$0"
  exit 0
fi
src="${1:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}"
cd "$src"
command -v clang-format >/dev/null || { echo "check_format: clang-format is not installed (tools/setup.sh ci installs it)" >&2; exit 1; }
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  mapfile -t files < <(git ls-files '*.cpp' '*.hpp' '*.h' '*.cc')
else
  mapfile -t files < <(find . -path ./build -prune -o \( -name '*.cpp' -o -name '*.hpp' -o -name '*.h' -o -name '*.cc' \) -print)
fi
differ=()
for f in "${files[@]}"; do
  [ -f "$f" ] || continue
  clang-format --style=file "$f" | cmp -s - "$f" || differ+=("$f")
done
echo "check_format: ${#files[@]} C++ files checked, ${#differ[@]} differ from .clang-format"
if ((${#differ[@]})); then
  printf '  %s\n' "${differ[@]}"
  echo "fix with: clang-format -i <file>..."
  exit 1
fi
