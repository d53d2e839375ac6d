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
existing=()
for f in "${files[@]}"; do [ -f "$f" ] && existing+=("$f"); done
# One clang-format process for all files (xargs splits the list only past the argument limit):
# one process per file cost ~0.15 s of CPU each, ~80 s for the tree. --dry-run reports a file
# exactly when formatting would change a byte of it (what `clang-format FILE | cmp - FILE`
# tests); one report per file is enough to name it.
report="" cf_rc=0
if ((${#existing[@]})); then
  report="$(printf '%s\0' "${existing[@]}" |
    xargs -0 clang-format --style=file --dry-run --Werror --ferror-limit=1 2>&1 >/dev/null)" || cf_rc=$?
fi
declare -A flagged=()
while IFS= read -r f; do
  flagged["$f"]=1
done < <(printf '%s\n' "$report" | sed -n 's/^\(.*\):[0-9]*:[0-9]*: [a-z]*: code should be clang-formatted.*$/\1/p')
differ=()
for f in "${existing[@]}"; do
  if [ -n "${flagged[$f]:-}" ]; then differ+=("$f"); fi
done
if [ "$cf_rc" -ne 0 ] && ((${#differ[@]} == 0)); then
  # clang-format failed without naming a file (e.g. an unreadable .clang-format): not a pass.
  printf '%s\n' "$report" >&2
  echo "check_format: clang-format failed (exit $cf_rc)" >&2
  exit 1
fi
echo "check_format: ${#files[@]} C++ files checked, ${#differ[@]} differ from .clang-format"
if ((${#differ[@]})); then
  printf '  %s\n' "${differ[@]}"
  echo "fix with: clang-format -i <file>..."
  exit 1
fi
