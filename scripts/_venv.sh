# Sourced by scripts/run and scripts/test: make .venv and install the project.
#
# ensure_venv [EXTRA]   create .venv with Python >= 3.11 if missing, then
#                       `pip install -e .[EXTRA]` unless pyproject.toml is
#                       unchanged since the last install of that extra.

pick_python() {
    local candidate
    for candidate in "${PYTHON:-}" python3.11 python3.12 python3.13 python3; do
        [[ -n "$candidate" ]] || continue
        command -v "$candidate" >/dev/null 2>&1 || continue
        if "$candidate" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; then
            echo "$candidate"; return 0
        fi
    done
    echo "need Python >= 3.11 (set PYTHON=/path/to/python3.11)" >&2
    return 1
}

ensure_venv() {
    local extra="${1:-}" spec="." stamp python
    [[ -n "$extra" ]] && spec=".[$extra]"
    if [[ ! -x "$ROOT/.venv/bin/python" ]]; then
        python="$(pick_python)"
        echo "==> creating .venv with $("$python" --version)"
        "$python" -m venv "$ROOT/.venv"
    fi
    stamp="$ROOT/.venv/.boneyard-installed-${extra:-base}"
    local want
    want="$(cat "$ROOT/pyproject.toml" | sha256sum | cut -d' ' -f1)"
    if [[ -f "$stamp" && "$(cat "$stamp")" == "$want" ]]; then
        return 0
    fi
    echo "==> pip install -e '$spec'"
    "$ROOT/.venv/bin/python" -m pip install --quiet --disable-pip-version-check -e "$ROOT/$spec"
    echo "$want" >"$stamp"
}
