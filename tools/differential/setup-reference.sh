#!/usr/bin/env bash
# Builds the reference environment of the differential tools into DIR (a folder of your
# choosing, outside the repository is best): a Python 3.12 virtualenv with the packages
# Wegent's backend pins (requirements.txt beside this script), and Wegent's own parser
# modules at the reference commit, importable as Wegent imports them (`app.services.
# attachment.parser`, `knowledge_engine.excel`, `shared.utils.*`).
#
#   tools/differential/setup-reference.sh DIR [--wegent CHECKOUT]
#   export CTXGUARD_REFERENCE=DIR        # what the tools read
#
# --wegent CHECKOUT: an existing git clone of wecode-ai/Wegent holding the reference commit
# (else one is cloned, blobs on demand, into DIR/wegent.git). PYTHON: the interpreter to
# build the virtualenv from (default python3.12; the cases were recorded on 3.12).
# Re-running refreshes the Wegent files and installs only what is missing.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
WEGENT_COMMIT=eebcf1035
WEGENT_URL=https://github.com/wecode-ai/Wegent

dir=""
checkout=""
while [ $# -gt 0 ]; do
  case "$1" in
    --wegent) checkout=${2:?--wegent takes a Wegent checkout}; shift 2 ;;
    -*) echo "setup-reference.sh: unknown option $1" >&2; exit 2 ;;
    *) dir=$1; shift ;;
  esac
done
[ -n "$dir" ] || { echo "usage: tools/differential/setup-reference.sh DIR [--wegent CHECKOUT]" >&2; exit 2; }
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)

python=${PYTHON:-python3.12}
if ! "$python" -c 'import sys; sys.exit(sys.version_info[:2] != (3, 12))' 2>/dev/null; then
  echo "setup-reference.sh: needs Python 3.12 (the reference's); set PYTHON=/path/to/python3.12" >&2
  exit 1
fi
# python-magic loads libmagic (the recording used file 5.44, Debian 12's libmagic1).
if ! ldconfig -p 2>/dev/null | grep -q 'libmagic\.so\.1'; then
  echo "setup-reference.sh: libmagic is missing (Debian: apt-get install libmagic1)" >&2
  exit 1
fi

echo "==> virtualenv $dir/venv (pinned packages)" >&2
[ -x "$dir/venv/bin/python" ] || "$python" -m venv "$dir/venv"
"$dir/venv/bin/pip" install --quiet --disable-pip-version-check -r "$here/requirements.txt"

echo "==> Wegent's parser modules at $WEGENT_COMMIT" >&2
if [ -z "$checkout" ]; then
  checkout="$dir/wegent.git"
  [ -d "$checkout" ] || git clone --quiet --bare --filter=blob:none "$WEGENT_URL" "$checkout"
fi
git -C "$checkout" cat-file -e "$WEGENT_COMMIT^{commit}" 2>/dev/null || git -C "$checkout" fetch --quiet origin
src="$dir/wegent"
rm -rf "$src"
# What the upload path imports (backend/app/services/attachment/parser.py and its imports).
files=(
  backend/app/__init__.py
  backend/app/services/attachment/parser.py
  backend/app/services/attachment/smart_truncation.py
  knowledge_engine/knowledge_engine/__init__.py
  knowledge_engine/knowledge_engine/excel.py
  shared/__init__.py
  shared/utils/image_preprocessor.py
  shared/utils/mime_types.py
  shared/utils/xmind_parser.py
)
while read -r path; do files+=("$path"); done < <(git -C "$checkout" ls-tree --name-only "$WEGENT_COMMIT" backend/app/services/attachment/truncation_strategies/)
for path in "${files[@]}"; do
  mkdir -p "$src/$(dirname "$path")"
  git -C "$checkout" show "$WEGENT_COMMIT:$path" >"$src/$path"
done
# Packages whose own __init__ pulls in the database and storage layers: empty here.
for pkg in backend/app/services backend/app/services/attachment backend/app/core shared/utils; do
  mkdir -p "$src/$pkg" && : >"$src/$pkg/__init__.py"
done
# The two settings the parser reads (backend/app/core/config.py's defaults); the harness sets
# MAX_EXTRACTED_TEXT_LENGTH per case.
cat >"$src/backend/app/core/config.py" <<'PY'
"""The settings Wegent's DocumentParser reads, at backend/app/core/config.py's defaults."""


class Settings:
    MAX_UPLOAD_FILE_SIZE_MB = 100
    MAX_EXTRACTED_TEXT_LENGTH = 500000


settings = Settings()
PY
site=$("$dir/venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
printf '%s\n' "$src/backend" "$src/knowledge_engine" "$src" >"$site/wegent-reference.pth"

"$dir/venv/bin/python" -c 'from app.services.attachment.parser import DocumentParser; DocumentParser().parse(b"ok", ".txt")'
echo "reference environment ready: export CTXGUARD_REFERENCE=$dir" >&2
